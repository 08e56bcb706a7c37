"""Who may call what: the operator credential, sent as gRPC metadata.

Seats prove themselves with their seat tokens (`tokens.py`, in the request). Everything
that is not one seat's business (creating and deleting games) needs the operator
credential, a secret from the settings sent as `authorization: Bearer <token>`. The
table of every RPC is in docs/engine-service.md, "Who may call what".
"""

from __future__ import annotations

import contextlib
import hmac
import logging
import os
import tempfile
from collections.abc import Iterable
from typing import Any

from heights_engine.errors import Code, EngineError

log = logging.getLogger("heights_engine")
HEADER = "authorization"
SCHEME = "Bearer "
# A Bearer value longer than this is no credential of ours; not compared at all.
MAX_CREDENTIAL = 512


def operator_metadata(token: str) -> tuple[tuple[str, str], ...]:
    """The call metadata carrying the operator credential (empty for an empty token)."""
    return ((HEADER, SCHEME + token),) if token else ()


class OperatorCheck:
    """Compares a call's credential with the configured one, in constant time."""

    def __init__(self, token: str) -> None:
        if not token:
            raise ValueError("the operator token must not be empty")
        self._expected = (SCHEME + token).encode()

    def require(self, metadata: Iterable[Any] | None) -> None:
        """Return if the call carries the operator credential; refuse it otherwise."""
        given = [value for key, value in metadata or () if key == HEADER]
        if not given:
            raise EngineError(
                Code.UNAUTHENTICATED,
                "OPERATOR_CREDENTIAL_REQUIRED",
                f"this call needs the operator credential in the {HEADER!r} metadata "
                f"({SCHEME.strip()} <HEIGHTS_ENGINE_OPERATOR_TOKEN>)",
            )
        value = given[0] if isinstance(given[0], bytes) else str(given[0]).encode()
        if len(given) > 1 or len(value) > MAX_CREDENTIAL:
            value = b""
        if not hmac.compare_digest(value, self._expected):
            raise EngineError(
                Code.UNAUTHENTICATED,
                "BAD_OPERATOR_CREDENTIAL",
                "the operator credential is not this service's",
            )


def write_token_file(token: str, port: int, path: str = "") -> str:
    """Write a generated operator token (mode 0600) to `path` or a file named for the port.

    For a development server started without HEIGHTS_ENGINE_OPERATOR_TOKEN: its
    clients read the token from the file the log names.
    """
    path = path or os.path.join(tempfile.gettempdir(), f"heights-engine-{port}.operator-token")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)  # never write through a file (or link) someone else left there
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(token + "\n")
    return path
