"""Links to the site's pages as `{% url name argument %}` prints them, without walking
the URL resolver for each: the path before the argument is found once per route and
script prefix (reverse() per row was a tenth to a quarter of a page's CPU: the
templatetags `history.py` and `match_table.py`)."""

from __future__ import annotations

import re
from functools import lru_cache
from html import escape
from uuid import UUID

from django.urls import reverse

# A fixed argument for reverse(): every link here is `<path of the route><argument>/`.
_SOME = {"site-ladder": "some-slug", "site-tournament": "1", "site-match": str(UUID(int=0))}


@lru_cache(maxsize=64)
def route_path(prefix: str, name: str) -> str:
    """The path of route `name` before its argument, as reverse() writes it under this
    script prefix (the argument that keeps the key honest when mounted under a path)."""
    del prefix  # part of the key only: reverse() reads it itself
    some = _SOME[name]
    path = reverse(name, args=[some])
    if not path.endswith(f"/{some}/"):
        raise RuntimeError(f"{name} is no longer <prefix><argument>/: {path}")
    return path.removesuffix(f"{some}/")


_PLAIN = re.compile(r"[-a-zA-Z0-9_]+")


def link(prefix: str, name: str, argument: object) -> str:
    """`{% url name argument %}` as the template printed it (escaped)."""
    text = str(argument)
    if not _PLAIN.fullmatch(text):  # anything reverse() might quote, or refuse: its answer
        return escape(reverse(name, args=[argument]))
    return escape(f"{route_path(prefix, name)}{text}/")
