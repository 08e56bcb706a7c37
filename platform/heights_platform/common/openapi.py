"""The OpenAPI schema documents the one error shape on every operation.

drf-spectacular documents success responses from the serializers; every operation can
also answer with `{"code", "message", "details"}` (common/errors.py), so this hook adds
those responses once, with the stable codes as an enum, instead of on each view.
"""

from __future__ import annotations

from typing import Any

from heights_platform.common.converters import MAX_ID
from heights_platform.common.errors import CODES

ERROR_REF = {"$ref": "#/components/schemas/Error"}
ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["code", "message", "details"],
    "properties": {
        "code": {"type": "string", "enum": sorted(CODES), "description": "Stable; branch on it."},
        "message": {"type": "string", "description": "For people; may change."},
        "details": {"type": "object", "additionalProperties": True},
    },
}
# Statuses any operation may answer, and the ones only writes may add.
ANY_OPERATION = {
    "400": "Malformed request (`invalid`, `parse_error`)",
    "401": "Not signed in, or a bad token",
    "403": "Not allowed (`permission_denied`)",
    "404": "No such object, or not yours to see (`not_found`)",
    "405": "Method not allowed",
    "406": "Not acceptable",
    "429": "Throttled (`details.retry_after_seconds`)",
    "503": "A dependency is unavailable (`unavailable`); retry",
}
WRITES = {
    "409": "Conflicts with the current state (`conflict`)",
    "413": "Too large (`too_large`)",
    "415": "Unsupported media type",
}


def add_error_responses(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR_SCHEMA
    for methods in result.get("paths", {}).values():
        for method, operation in methods.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            statuses = ANY_OPERATION | (WRITES if method in ("post", "put", "patch") else {})
            for status, description in statuses.items():
                operation["responses"].setdefault(
                    status,
                    {
                        "description": description,
                        "content": {"application/json": {"schema": ERROR_REF}},
                    },
                )
    return result


# A query string without a declared bound is still bounded (common/request_schema.py).
MAX_QUERY_STRING = 200


def bound_parameters(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    """Every integer parameter gets bounds and every string one a length, where its
    declaration gave none: the schema says what the request check enforces."""
    for methods in result.get("paths", {}).values():
        for operation in methods.values():
            if not isinstance(operation, dict):
                continue
            for parameter in operation.get("parameters", []):
                schema = parameter.get("schema", {})
                if schema.get("type") == "integer":
                    schema.setdefault("minimum", 0)
                    schema.setdefault("maximum", MAX_ID)
                elif schema.get("type", "string") == "string" and "enum" not in schema:
                    schema.setdefault("maxLength", MAX_QUERY_STRING)
    return result
