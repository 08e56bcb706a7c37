"""Serializer fields that more than one app takes, declared once with their schema."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

# A rule option's value is a string (an enum member's name), an integer or a boolean,
# never null, a list or an object; which names and values are allowed is the rules
# core's business (`options_check`, which names the option and what it allows).
_OPTION_VALUE = {"oneOf": [{"type": "string"}, {"type": "integer"}, {"type": "boolean"}]}


@extend_schema_field(
    {
        "type": "object",
        "additionalProperties": _OPTION_VALUE,
        "description": "Rule options by name (`heights catalogue --options`).",
    }
)
class RuleOptionsField(serializers.DictField):
    """Rule options by name: scalar values, checked in full by `options_check`."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(child=serializers.JSONField(), **kwargs)

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        options: dict[str, Any] = super().to_internal_value(data)
        for name, value in options.items():
            if value is None or isinstance(value, list | dict | float):
                raise serializers.ValidationError(
                    {name: "a rule option is a string, an integer or a boolean"}
                )
        return options
