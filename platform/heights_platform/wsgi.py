"""WSGI entry point for gunicorn: `gunicorn heights_platform.wsgi:application`."""

from __future__ import annotations

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "heights_platform.settings")
application = get_wsgi_application()
