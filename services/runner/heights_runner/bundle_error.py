"""The refusal of a submitted bot: its own module, as the bundle and manifest checks share it."""

from __future__ import annotations


class BundleError(ValueError):
    """A submitted file we will not accept.

    `code` is stable (the API's `details.reason`); `limit` and `value` name the limit of
    `BUNDLE_LIMITS` (or the naming rule) that was broken and what it allows; `entry` is
    the archive entry at fault, if any. The message says all of it in words.
    """

    def __init__(
        self,
        code: str,
        message: str,
        *,
        limit: str | None = None,
        value: int | str | None = None,
        entry: str | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.limit = limit
        self.value = value
        self.entry = entry
