"""HTTP caching of replay steps: a step of a recorded replay never changes.

A replay's record is immutable once its match is recorded (its row holds the bytes'
sha256), and a step's document is a function of the record, the step, the viewer and
the code that simulates and renders it. So its entity tag is built from those inputs,
without simulating anything, and a client (or a shared cache in front of the platform)
that sends it back in `If-None-Match` gets a 304 for one primary-key lookup. The code's
part is a digest of the rules core's engine version and of the platform's stepping and
rendering modules: a deploy that changes how a step renders changes every tag.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from django.utils.http import parse_etags
from rest_framework.request import Request

from heights_rules import ENGINE_VERSION

# Shared caches may keep a step for a day; a client revalidates after that (a 304 while
# the code is unchanged). Not `immutable`: a deploy that renders steps differently must
# reach readers within the day.
STEP_CACHE_CONTROL = "public, max-age=86400"

_RENDERING_MODULES = ("documents.py", "stepping.py", "conditional.py")


@functools.cache
def _code_tag() -> str:
    digest = hashlib.sha256(ENGINE_VERSION.encode())
    here = Path(__file__).parent
    for name in _RENDERING_MODULES:
        digest.update(name.encode() + b"\0" + (here / name).read_bytes())
    return digest.hexdigest()[:12]


def step_etag(*, sha256: str, step: int, viewer: str) -> str:
    """The strong entity tag of a step's document: `viewer` as the query gives it."""
    return f'"{sha256}.{step}.{viewer}.{_code_tag()}"'


def not_modified(request: Request, etag: str) -> bool:
    """Whether the request's `If-None-Match` names `etag` (or is `*`)."""
    header = request.headers.get("If-None-Match", "")
    if not header:
        return False
    tags = parse_etags(header)
    return "*" in tags or etag in tags
