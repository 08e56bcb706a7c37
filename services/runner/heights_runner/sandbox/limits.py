"""How much a bot may use, and the faults that end it when it misbehaves."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Limits:
    """Per-bot resource limits; the defaults suit a Python bot playing one game."""

    cpu_seconds: int = 60  # RLIMIT_CPU for the whole game
    memory_bytes: int = 512 * 2**20  # memory cgroup where available, else RLIMIT_AS
    processes: int = 16  # pids cgroup where available
    open_files: int = 64  # RLIMIT_NOFILE
    file_bytes: int = 16 * 2**20  # RLIMIT_FSIZE
    tmp_bytes: int = 16 * 2**20  # size of the private /tmp
    line_bytes: int = 1 * 2**20  # longest stdout line accepted
    stderr_bytes: int = 64 * 2**10  # stderr tail kept (the owner's log); the rest is counted
    output_bytes: int = 64 * 2**20  # total stdout + stderr before a flood fault
    cpu_cores: float = 1.0  # CPU bandwidth (cpu cgroup where available): threads share it


class SandboxUnavailable(RuntimeError):  # noqa: N818 - the driver's public name
    """An untrusted bot cannot be contained here (no bubblewrap) and may not run without."""


class BotFault(Exception):  # noqa: N818 - a fault of the bot, not an error of ours
    """The bot broke the protocol's physical rules; `reason` is a contract ForfeitReason."""

    reason: str = "crash"

    def __init__(self, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        if reason is not None:
            self.reason = reason


class BotTimeout(BotFault):
    reason = "timeout"


class BotGone(BotFault):
    """The bot's process ended (or closed its pipes); reason "memory" after an OOM kill."""

    reason = "crash"


class BotFlood(BotFault):
    reason = "flood"
