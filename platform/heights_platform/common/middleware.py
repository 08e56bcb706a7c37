"""Request middleware: metrics for every request (labelled by view rather than by path),
and writes to a path without its trailing slash delivered to their view."""

from __future__ import annotations

import time
from collections.abc import Callable

from django.http import HttpRequest, HttpResponseBase
from django.urls import is_valid_path

from heights_platform.common.metrics import REQUEST_SECONDS, REQUESTS

# HTTP's methods; anything else a client sends is counted as `other`, so a label's values
# stay a fixed set whatever arrives.
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"})


def method_label(request: HttpRequest) -> str:
    method = request.method or ""
    return method if method in METHODS else "other"


def status_label(status: int) -> str:
    """The status code; one outside HTTP's range (never sent by Django) is `other`."""
    return str(status) if 100 <= status <= 599 else "other"


def view_label(request: HttpRequest) -> str:
    """The URL pattern's name, else its route; `unmatched` for a 404 outside any route."""
    match = getattr(request, "resolver_match", None)
    if match is None:
        return "unmatched"
    return str(match.view_name or match.route or "unmatched")


class RequestMetricsMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        started = time.perf_counter()
        response = self.get_response(request)
        view = view_label(request)
        REQUEST_SECONDS.labels(view).observe(time.perf_counter() - started)
        REQUESTS.labels(view, method_label(request), status_label(response.status_code)).inc()
        return response


class WriteWithoutSlashMiddleware:
    """A write (POST, PUT, PATCH, DELETE) to a path without its trailing slash reaches the
    view of the path with it. Django's APPEND_SLASH would answer it with a 301 that
    clients follow as a GET, dropping the body; GET and HEAD still redirect."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        path = request.path_info
        if request.method not in ("GET", "HEAD") and not path.endswith("/"):
            urlconf = getattr(request, "urlconf", None)
            if not is_valid_path(path, urlconf) and is_valid_path(f"{path}/", urlconf):
                request.path_info = f"{path}/"
                request.path = f"{request.path}/"
        return self.get_response(request)
