"""OpenAPI: how `ApiTokenAuthentication` appears in the schema (loaded by the app config)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.plumbing import build_bearer_security_scheme_object


class ApiTokenScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]
    target_class = "heights_platform.accounts.authentication.ApiTokenAuthentication"
    name = "ApiToken"
    priority = 1  # before drf-spectacular's own extension for TokenAuthentication subclasses

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        scheme: dict[str, Any] = build_bearer_security_scheme_object(
            header_name="Authorization", token_prefix="Token"
        )
        scheme["description"] = (
            "`Authorization: Token hk_…` (or `Bearer hk_…`): a key from"
            " POST /api/v1/accounts/login/."
        )
        return scheme
