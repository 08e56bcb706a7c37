"""WSGI entry point for gunicorn: `gunicorn heights_platform.wsgi:application`."""

from __future__ import annotations

import gc
import os

from django.core.wsgi import get_wsgi_application
from django.urls import get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "heights_platform.settings")
application = get_wsgi_application()
get_resolver().url_patterns  # noqa: B018  # imports every view now, not on the first request
# Everything loaded so far lives as long as the process: keep it out of the cyclic
# garbage collector's full collections, which would otherwise walk it on every pass and
# pause the process's requests (gunicorn forks after this, so workers share the pages).
gc.freeze()
# Full collections walk every live object: with the replay step cache full (8,192 game
# states, ~470,000 objects) one takes 250-300 ms, and they found almost no cyclic garbage
# (70 objects in 6,000 step requests, measured). So they are made rare: a full
# collection after 1,000 middle ones instead of 10. Young collections stay as they are.
gc.set_threshold(700, 10, 1000)
