"""Starting one seat's bot: what program, with which files, in which sandbox.

Submitted bots get the bare interpreter, the SDK and their own files, nothing else.
Built-in bots are trusted project code: they also get the project's packages (read-only)
so they can rebuild a `GameState` from the observation's information set. Both speak
the same protocol through the same sandbox.
"""

from __future__ import annotations

import sysconfig
from dataclasses import dataclass, field
from pathlib import Path

import heights_bots
import heights_rules
import heights_sdk
from heights_runner import sandbox
from heights_runner.botfiles import unpack_bot
from heights_runner.contract import SeatSpec


@dataclass(frozen=True, slots=True)
class LaunchPolicy:
    cache_dir: Path  # unpacked bots, by content hash
    limits: sandbox.Limits = field(default_factory=sandbox.Limits)
    allow_unsandboxed: bool = False  # local development only: untrusted code without bwrap


def _package_root(module: object) -> str:
    return str(Path(str(getattr(module, "__file__", ""))).resolve().parent.parent)


def _builtin_paths() -> list[str]:
    # The compiled build (build/compiled) or the source tree, whichever this process
    # imported, then site-packages for the rules' own dependencies (jsonschema, for a
    # catalogue not in SCHEMA_CHECKED).
    roots = [_package_root(m) for m in (heights_rules, heights_bots, heights_sdk)]
    roots += [sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]]
    return list(dict.fromkeys(roots))


def start_seat(spec: SeatSpec, seed: int, policy: LaunchPolicy) -> sandbox.BotProcess:
    """Start one seat's bot; `seed` is the bot's own (`seat_seed`), given to built-ins."""
    python, binds = sandbox.python_binds()
    binds = list(binds)
    if spec.bot.kind == "builtin":
        paths = _builtin_paths()
        binds += [(p, p) for p in paths if Path(p).exists()]
        workdir = policy.cache_dir / "builtin"
        workdir.mkdir(parents=True, exist_ok=True)
        # -S: everything it imports is on the PYTHONPATH below; skipping site's scan of
        # site-packages (.pth files, the editable finder) saves ~20 ms of every start.
        argv = [python, "-u", "-S", "-m", "heights_bots.protocol_main", spec.bot.name, str(seed)]
        env = {"PYTHONPATH": ":".join(paths)}
    else:
        workdir = unpack_bot(spec.bot, policy.cache_dir)
        sdk = str(Path(str(heights_sdk.__file__)).resolve().parent)
        binds.append((sdk, "/sdk/heights_sdk"))
        argv = [python, "-u", "/bot/main.py"]
        env = {"PYTHONPATH": "/sdk", "PYTHONDONTWRITEBYTECODE": "1"}
    env["PYTHONHASHSEED"] = "0"  # a bot's own set iteration order is reproducible too
    return sandbox.start_bot(
        workdir,
        argv,
        limits=policy.limits,
        ro_binds=binds,
        env=env,
        trusted=spec.trusted and spec.bot.kind == "builtin",
        allow_unsandboxed=policy.allow_unsandboxed,
    )
