"""The sandbox for bot programs: bubblewrap namespaces, seccomp, cgroups and rlimits.

`probe()` says what this machine offers; `start_bot()` starts a bot as contained as it
allows (and refuses an untrusted bot it cannot contain); `BotProcess` speaks lines with it
under deadlines and output bounds, and `close()` leaves nothing of it behind.
"""

from heights_runner.sandbox.bwrap import python_binds
from heights_runner.sandbox.limits import (
    BotFault,
    BotFlood,
    BotGone,
    BotTimeout,
    Limits,
    SandboxUnavailable,
)
from heights_runner.sandbox.probe import Capabilities, probe
from heights_runner.sandbox.process import BotProcess
from heights_runner.sandbox.start import start_bot

__all__ = [
    "BotFault",
    "BotFlood",
    "BotGone",
    "BotProcess",
    "BotTimeout",
    "Capabilities",
    "Limits",
    "SandboxUnavailable",
    "probe",
    "python_binds",
    "start_bot",
]
