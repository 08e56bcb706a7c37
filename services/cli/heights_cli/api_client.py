"""A small client of the platform's REST API (standard library only), for demo and checks."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
import uuid
from typing import Any


class ApiCallError(RuntimeError):
    def __init__(self, status: int, body: Any) -> None:
        super().__init__(f"HTTP {status}: {body}")
        self.status = status
        self.body = body


class ApiClient:
    def __init__(self, base: str, token: str = "") -> None:
        self.base = base.rstrip("/")
        self.token = token

    def as_user(self, token: str) -> ApiClient:
        return ApiClient(self.base, token)

    def _send(self, method: str, path: str, body: bytes | None, content_type: str) -> Any:
        request = urllib.request.Request(self.base + path, data=body, method=method)
        if body is not None:
            request.add_header("Content-Type", content_type)
        if self.token:
            request.add_header("Authorization", f"Token {self.token}")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                raw = response.read()
        except urllib.error.HTTPError as err:
            text = err.read().decode(errors="replace")
            try:
                raise ApiCallError(err.code, json.loads(text)) from None
            except json.JSONDecodeError:
                raise ApiCallError(err.code, text) from None
        return json.loads(raw) if raw else None

    def get(self, path: str) -> Any:
        return self._send("GET", path, None, "")

    def post(self, path: str, data: dict[str, Any] | None = None) -> Any:
        return self._send("POST", path, json.dumps(data or {}).encode(), "application/json")

    def upload(self, path: str, filename: str, content: bytes) -> Any:
        boundary = uuid.uuid4().hex
        body = (
            (
                f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
                f'filename="{filename}"\r\nContent-Type: application/octet-stream\r\n\r\n'
            ).encode()
            + content
            + f"\r\n--{boundary}--\r\n".encode()
        )
        return self._send("POST", path, body, f"multipart/form-data; boundary={boundary}")
