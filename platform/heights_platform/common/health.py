"""Liveness (the process answers) and readiness (the database answers)."""

from __future__ import annotations

from django.db import DatabaseError, connection
from django.http import HttpRequest, JsonResponse


def healthz(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"status": "ok"})


def readyz(request: HttpRequest) -> JsonResponse:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except DatabaseError as err:
        return JsonResponse(
            {"code": "unavailable", "message": f"database unavailable: {err}", "details": {}},
            status=503,
        )
    return JsonResponse({"status": "ready"})
