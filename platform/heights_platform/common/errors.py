"""One error shape for the whole API: `{"code", "message", "details"}` with stable codes.

Services raise `ApiError` (or a subclass) with a code from `CODES`; DRF's own exceptions
and Django's 404/permission errors are translated here, at one boundary.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import (
    RequestDataTooBig,
    SuspiciousOperation,
    TooManyFieldsSent,
    TooManyFilesSent,
)
from django.db import DatabaseError, DataError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.views.defaults import bad_request, page_not_found
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

# Stable codes and their HTTP statuses; clients branch on the code, never the message.
CODES: dict[str, int] = {
    "invalid": status.HTTP_400_BAD_REQUEST,
    "parse_error": status.HTTP_400_BAD_REQUEST,
    "invalid_upload": status.HTTP_400_BAD_REQUEST,
    "not_authenticated": status.HTTP_401_UNAUTHORIZED,
    "authentication_failed": status.HTTP_401_UNAUTHORIZED,
    "permission_denied": status.HTTP_403_FORBIDDEN,
    "not_found": status.HTTP_404_NOT_FOUND,
    "method_not_allowed": status.HTTP_405_METHOD_NOT_ALLOWED,
    "not_acceptable": status.HTTP_406_NOT_ACCEPTABLE,
    "conflict": status.HTTP_409_CONFLICT,
    "too_large": status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
    "unsupported_media_type": status.HTTP_415_UNSUPPORTED_MEDIA_TYPE,
    "throttled": status.HTTP_429_TOO_MANY_REQUESTS,
    "unavailable": status.HTTP_503_SERVICE_UNAVAILABLE,
}


class ApiError(Exception):
    """A domain error with a stable code; raised by services, rendered by the handler."""

    def __init__(self, code: str, message: str, details: dict[str, Any] | None = None) -> None:
        if code not in CODES:
            raise ValueError(f"unknown error code {code!r}")
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details or {}

    @property
    def status(self) -> int:
        return CODES[self.code]


def error_response(
    code: str, message: str, details: dict[str, Any] | None = None, status_code: int | None = None
) -> Response:
    body = {"code": code, "message": message, "details": details or {}}
    return Response(body, status=status_code or CODES[code])


_DRF_CODES: dict[type[exceptions.APIException], str] = {
    exceptions.ParseError: "parse_error",
    exceptions.NotAuthenticated: "not_authenticated",
    exceptions.AuthenticationFailed: "authentication_failed",
    exceptions.PermissionDenied: "permission_denied",
    exceptions.NotFound: "not_found",
    exceptions.MethodNotAllowed: "method_not_allowed",
    exceptions.NotAcceptable: "not_acceptable",
    exceptions.UnsupportedMediaType: "unsupported_media_type",
    exceptions.Throttled: "throttled",
    exceptions.ValidationError: "invalid",
}


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, ApiError):
        return error_response(exc.code, exc.message, exc.details)
    if isinstance(exc, SuspiciousOperation):  # Django's limits on what it reads of a request
        return error_response(*suspicious_refusal(exc))
    if isinstance(exc, DataError):
        # A value the database cannot hold (a year or time-zone offset out of its range)
        # came from the request: the client's error, not an outage.
        return error_response("invalid", "a value is outside the range the database accepts")
    if isinstance(exc, DatabaseError):
        # The database is down or unreachable: say so; the API recovers when it returns.
        return error_response("unavailable", "the database is unavailable; retry shortly")
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    response = drf_exception_handler(exc, context)
    if response is None or not isinstance(exc, exceptions.APIException):
        return response
    code = next((c for kind, c in _DRF_CODES.items() if isinstance(exc, kind)), "invalid")
    if isinstance(exc, exceptions.ValidationError):
        details: dict[str, Any] = (
            {"fields": exc.detail} if isinstance(exc.detail, dict) else {"errors": exc.detail}
        )
        message = "the request is not valid"
    else:
        details = {}
        message = str(exc.detail)
    wait = getattr(exc, "wait", None)  # set by DRF on Throttled; not in its stubs
    if isinstance(exc, exceptions.Throttled) and wait is not None:
        details["retry_after_seconds"] = int(wait)
    accepted = getattr(exc, "accepted", None)  # set by common.negotiation on a 415
    if accepted:
        details["accepted"] = accepted
    limit = getattr(exc, "limit", None)  # set by common.parsers on a body past a bound
    if limit is not None:
        details["limit"] = limit
    if isinstance(exc, exceptions.NotAuthenticated):  # how to send credentials, as said
        request = context.get("request")  # by the authenticators that know (`hint`)
        hints = [getattr(a, "hint", "") for a in getattr(request, "authenticators", ())]
        message = "; ".join([message, *filter(None, hints)])
    response.data = {"code": code, "message": message, "details": details}
    return response


def suspicious_refusal(exc: SuspiciousOperation) -> tuple[str, str, dict[str, Any]]:
    """The code, message and details for a request past one of Django's own limits, which
    it refuses as a SuspiciousOperation (by default an HTML page that says nothing)."""
    if isinstance(exc, RequestDataTooBig):
        most = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        return "too_large", f"a request body is at most {most} bytes", {"limit": most}
    if isinstance(exc, TooManyFieldsSent):
        most = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
        return "invalid", f"a request has at most {most} query or form fields", {"limit": most}
    if isinstance(exc, TooManyFilesSent):
        most = settings.DATA_UPLOAD_MAX_NUMBER_FILES
        return "invalid", f"a request has at most {most} files", {"limit": most}
    return "invalid", "the request is malformed", {}


def bad_request_view(request: HttpRequest, exception: Exception) -> HttpResponse:
    """Django's 400 for a request it refuses before (or outside) a view: the API's error
    shape under /api/, Django's page elsewhere."""
    if not request.path.startswith("/api/") or not isinstance(exception, SuspiciousOperation):
        return bad_request(request, exception)
    code, message, details = suspicious_refusal(exception)
    body = {"code": code, "message": message, "details": details}
    return JsonResponse(body, status=CODES[code])


def not_found_view(request: HttpRequest, exception: Exception) -> HttpResponse:
    """Django's 404 for paths no route matches: the API's error shape under /api/,
    Django's page elsewhere (the viewer, the admin)."""
    if not request.path.startswith("/api/"):
        return page_not_found(request, exception)
    body = {
        "code": "not_found",
        "message": f"no such path: {request.path} (the API's index is /api/v1/)",
        "details": {},
    }
    return JsonResponse(body, status=status.HTTP_404_NOT_FOUND)
