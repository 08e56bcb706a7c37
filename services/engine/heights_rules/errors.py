"""The two ways an action can be refused (python-chess style: both are ValueErrors)."""

from __future__ import annotations


class ActionError(ValueError):
    """Base class of every refused action; the state is unchanged when it is raised."""


class InvalidActionError(ActionError):
    """The action is malformed: an unknown id or text that does not parse."""


class IllegalActionError(ActionError):
    """The action is well formed but not legal in this state (or not this seat's turn)."""


class CatalogueError(ValueError):
    """A catalogue file does not match its schema or breaks a consistency rule."""


class ReplayError(ValueError):
    """A replay record is malformed or does not fit the engine or catalogue in use."""


class DocumentTooLargeError(ValueError):
    """Untrusted input is larger than its bound (`limit`, in bytes)."""

    def __init__(self, message: str, limit: int) -> None:
        super().__init__(message)
        self.limit = limit


class DocumentTooDeepError(ValueError):
    """Untrusted JSON nests deeper than its bound (`limit`, in levels)."""

    def __init__(self, message: str, limit: int) -> None:
        super().__init__(message)
        self.limit = limit


class ReplayTooLargeError(ReplayError):
    """A replay record is larger than a bound, compressed or decompressed (`limit`)."""

    def __init__(self, message: str, limit: int) -> None:
        super().__init__(message)
        self.limit = limit


class ReplayTooDeepError(ReplayError):
    """A replay record's JSON nests deeper than `limit` levels."""

    def __init__(self, message: str, limit: int) -> None:
        super().__init__(message)
        self.limit = limit
