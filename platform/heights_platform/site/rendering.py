"""How a page view answers: its template, or an error page naming what was wrong.

Views raise what the selectors raise (`ApiError`) and what the parameters raise
(`ParamError`); `page_view` turns them into a 404 or 400 page, never a 500.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Concatenate, ParamSpec

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from heights_platform.common.converters import MAX_ID
from heights_platform.common.errors import ApiError
from heights_platform.site.params import ParamError

P = ParamSpec("P")
PageView = Callable[Concatenate[HttpRequest, P], HttpResponse]


def error_page(request: HttpRequest, *, status: int, title: str, message: str) -> HttpResponse:
    context = {"title": title, "message": message, "status": status}
    return render(request, "site/error.html", context, status=status)


def _path_check(kwargs: dict[str, Any]) -> None:
    """Ids in the path are bigints: a larger one would be a database error, not a 404."""
    for name, value in kwargs.items():
        if isinstance(value, int) and not 1 <= value <= MAX_ID:
            allowed = f"an integer from 1 to {MAX_ID}"
            raise ParamError(f"{name} in the path must be {allowed}", field=name, allowed=allowed)


def page_view(view: PageView[P]) -> PageView[P]:
    """A read-only page (GET and HEAD) whose bad parameters and unknown objects get an
    error page with the reason."""

    @functools.wraps(view)
    def wrapped(request: HttpRequest, /, *args: P.args, **kwargs: P.kwargs) -> HttpResponse:
        try:
            _path_check(kwargs)
            return view(request, *args, **kwargs)
        except ParamError as err:
            return error_page(request, status=400, title="Bad request", message=err.message)
        except ApiError as err:
            if err.code != "not_found":
                raise
            return error_page(request, status=404, title="Not found", message=err.message)

    return require_safe(wrapped)


def page(request: HttpRequest, template: str, context: dict[str, Any]) -> HttpResponse:
    return render(request, f"site/{template}", context)
