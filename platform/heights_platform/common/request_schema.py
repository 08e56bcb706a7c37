"""Every API request is checked against the OpenAPI schema before its view runs.

The schema is generated from the views' own declarations (serializers, filters,
paginators, path converters), so what it promises and what the API accepts cannot drift:
a query parameter the operation does not declare, a value of the wrong type, an integer
outside its bounds, a null where none is declared or a JSON body that does not match the
request schema is a 400 in the API's error shape, naming the parameter (or body field)
and what is allowed, before anything is read or written. Views then apply the rules a
schema cannot say (an unknown bot, a closed registration).

`details.in` (`query`, `path` or `body`) marks a refusal made here.
"""

from __future__ import annotations

import math
import re
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import jsonschema
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponseBase, JsonResponse
from rest_framework import status

from heights_platform.common.converters import MAX_ID
from heights_platform.common.openapi import MAX_QUERY_STRING
from heights_platform.common.parsers import BodyOutOfBoundsError, body_loads

API_PREFIX = "/api/v1/"
# DRF's own switch of renderer (`?format=api` for the browsable API); not an API parameter.
_TRANSPORT_PARAMETERS = frozenset({"format"})
_ROUTE_PARAMETER = re.compile(r"<(?:[^>:]+:)?([^>]+)>")
_INTEGER = re.compile(r"-?[0-9]{1,20}")


@dataclass(frozen=True)
class Operation:
    query: dict[str, dict[str, Any]]  # name -> parameter schema
    path: dict[str, dict[str, Any]]
    body: jsonschema.protocols.Validator | None  # for a JSON body


def schema_path(route: str) -> str:
    """`api/v1/bots/<int:bot_id>/` (a Django route) as the schema names it:
    `/api/v1/bots/{bot_id}/`."""
    return "/" + _ROUTE_PARAMETER.sub(r"{\1}", route)


def _json_schema(node: Any) -> Any:
    """OpenAPI 3.0's schema dialect as JSON Schema: `nullable` becomes a null type."""
    if isinstance(node, list):
        return [_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _json_schema(value) for key, value in node.items() if key != "nullable"}
    if node.get("nullable"):
        if "type" in out:
            out["type"] = [out["type"], "null"]
        if "enum" in out:
            out["enum"] = [*out["enum"], None]
        if "type" not in out and "enum" not in out:
            out = {"anyOf": [out, {"type": "null"}]}
    return out


def _operations_from(schema: dict[str, Any]) -> dict[tuple[str, str], Operation]:
    components = _json_schema(schema.get("components", {}))
    found: dict[tuple[str, str], Operation] = {}
    for path, methods in schema.get("paths", {}).items():
        for method, operation in methods.items():
            params = operation.get("parameters", [])
            body = operation.get("requestBody", {}).get("content", {}).get("application/json")
            validator = None
            if body is not None:
                root = {**_json_schema(body["schema"]), "components": components}
                validator = jsonschema.Draft4Validator(root)
            found[(path, method.upper())] = Operation(
                query={p["name"]: p.get("schema", {}) for p in params if p["in"] == "query"},
                path={p["name"]: p.get("schema", {}) for p in params if p["in"] == "path"},
                body=validator,
            )
    return found


_lock = threading.Lock()
_cache: dict[str, dict[tuple[str, str], Operation]] = {}


def operations() -> dict[tuple[str, str], Operation]:
    """Every operation of the schema, generated once per process (on first use)."""
    with _lock:
        if "ops" not in _cache:
            from drf_spectacular.generators import SchemaGenerator

            generator = SchemaGenerator()  # type: ignore[no-untyped-call]
            schema = generator.get_schema(request=None, public=True)  # type: ignore[no-untyped-call]
            _cache["ops"] = _operations_from(schema)
        return _cache["ops"]


def _bounds(schema: dict[str, Any]) -> str:
    low, high = schema.get("minimum"), schema.get("maximum")
    if low is not None and high is not None:
        return f"from {low} to {high}"
    return f"at least {low}" if low is not None else f"at most {high}"


def _integer_problem(raw: str, schema: dict[str, Any]) -> str | None:
    if not _INTEGER.fullmatch(raw):
        return f"an integer {_bounds(schema)}"
    value = int(raw)
    low, high = schema.get("minimum", -MAX_ID), schema.get("maximum", MAX_ID)
    return None if low <= value <= high else f"an integer {_bounds(schema)}"


def _number_problem(raw: str, schema: dict[str, Any]) -> str | None:
    try:
        value = float(raw)
    except ValueError:
        return "a number"
    low, high = schema.get("minimum", -math.inf), schema.get("maximum", math.inf)
    return None if math.isfinite(value) and low <= value <= high else f"a number {_bounds(schema)}"


def _string_problem(raw: str, schema: dict[str, Any]) -> str | None:
    if "enum" in schema and raw not in schema["enum"]:
        return "one of " + ", ".join(str(v) for v in schema["enum"] if v is not None)
    if len(raw) < schema.get("minLength", 0):
        return f"at least {schema['minLength']} characters"
    if len(raw) > schema.get("maxLength", MAX_QUERY_STRING):  # every string has a bound
        return f"at most {schema.get('maxLength', MAX_QUERY_STRING)} characters"
    if "pattern" in schema and not re.search(schema["pattern"], raw):
        return f"a string matching {schema['pattern']}"
    checks: dict[str, Callable[[str], object]] = {
        "date-time": _datetime_in_utc,
        "uuid": uuid.UUID,
    }
    check = checks.get(schema.get("format", ""))
    if check is not None:
        try:
            check(raw)
        except (ValueError, OverflowError):
            return f"a {schema['format']}"
    return None


def _datetime_in_utc(raw: str) -> datetime:
    """An ISO 8601 time that is still within the years 1..9999 in UTC (the database
    compares in UTC: 0001-01-01T00:00+23:59 was a DataError, a 400 naming nothing)."""
    value = datetime.fromisoformat(raw)
    return value if value.tzinfo is None else value.astimezone(UTC)


def value_problem(raw: str, schema: dict[str, Any]) -> str | None:
    """What a parameter's value must be, if `raw` is not that; None if it is."""
    if schema.get("nullable") and raw in ("", "null"):
        return None
    kind = schema.get("type", "string")
    if kind == "integer":
        return _integer_problem(raw, schema)
    if kind == "number":
        return _number_problem(raw, schema)
    if kind == "boolean":
        return None if raw in ("true", "false") else "true or false"
    return _string_problem(raw, schema)


def _refusal(where: str, message: str, **extra: Any) -> JsonResponse:
    body = {"code": "invalid", "message": message, "details": {"in": where, **extra}}
    return JsonResponse(body, status=status.HTTP_400_BAD_REQUEST)


def _check_query(request: HttpRequest, operation: Operation) -> JsonResponse | None:
    # `format` picks a renderer unless the operation declares it (tournaments filter by it).
    names = set(request.GET) - (_TRANSPORT_PARAMETERS - operation.query.keys())
    unknown = sorted(names - operation.query.keys())
    if unknown:
        allowed = sorted(operation.query)
        listed = ", ".join(allowed) or "none"
        return _refusal(
            "query",
            f"unknown query parameter {', '.join(unknown)}; allowed: {listed}",
            unknown=unknown,
            allowed=allowed,
        )
    for name in sorted(names):
        values = request.GET.getlist(name)
        schema = operation.query[name]
        problem = "given once" if len(values) > 1 else value_problem(values[0], schema)
        if problem is not None:
            return _refusal(
                "query",
                f"query parameter {name} must be {problem}",
                field=name,
                allowed=problem,
            )
    return None


def _check_path(kwargs: dict[str, Any], operation: Operation) -> JsonResponse | None:
    for name, schema in operation.path.items():
        problem = value_problem(str(kwargs.get(name, "")), schema)
        if problem is not None:
            return _refusal(
                "path",
                f"path parameter {name} must be {problem}",
                field=name,
                allowed=problem,
            )
    return None


def _check_body(request: HttpRequest, operation: Operation) -> JsonResponse | None:
    if operation.body is None or request.content_type != "application/json":
        return None
    try:
        raw = request.body
    except RequestDataTooBig:
        return None  # the view refuses it as too large
    if not raw:
        return None
    try:
        data = body_loads(raw, strict=False)  # NaN is the schema's to refuse, by field
    except BodyOutOfBoundsError as err:  # refused here, before anyone is authenticated
        body = {"code": "parse_error", "message": err.message, "details": {"limit": err.limit}}
        return JsonResponse(body, status=status.HTTP_400_BAD_REQUEST)
    except ValueError:
        return None  # the view's parser answers parse_error
    error = jsonschema.exceptions.best_match(operation.body.iter_errors(data))
    if error is None:
        return None
    field = ".".join(str(part) for part in error.absolute_path) or "(body)"
    return _refusal(
        "body",
        f"request body: {field}: {error.message}",
        field=field,
        fields={field: [error.message]},
    )


class RequestSchemaMiddleware:
    """Refuses API requests that the OpenAPI schema does not allow (see the module)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        return self.get_response(request)

    def process_view(
        self,
        request: HttpRequest,
        view_func: Callable[..., Any],
        view_args: tuple[Any, ...],
        view_kwargs: dict[str, Any],
    ) -> HttpResponseBase | None:
        match = request.resolver_match
        if match is None or not request.path.startswith(API_PREFIX):
            return None
        method = "GET" if request.method == "HEAD" else str(request.method)
        operation = operations().get((schema_path(match.route), method))
        if operation is None:
            return None  # not an operation of the schema (index, docs, OPTIONS, 405s)
        return (
            _check_path(view_kwargs, operation)
            or _check_query(request, operation)
            or _check_body(request, operation)
        )
