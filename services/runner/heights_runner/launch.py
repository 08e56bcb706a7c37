"""Starting one seat's bot: what program, with which files, in which sandbox.

A submitted bot gets its declared runtime (`heights_runner.runtimes`) and nothing else
of the machine: a Python bot the bare interpreter, its standard library, the SDK and the
declared bot environment (requirements/bot-python.txt, at /pylib), a Node.js bot `node`,
a Java bot the JDK, a C++ or Rust bot only the shared libraries, plus its own files and,
when compiled, its build (`heights_runner.builds`, once per content hash) at /build.
Built-in bots are trusted project code: they also get the project's packages
(read-only) so they can rebuild a `GameState` from the observation's information set.
All speak the same protocol through the same sandbox.
"""

from __future__ import annotations

import os
import sys
import sysconfig
from dataclasses import dataclass, field, replace
from pathlib import Path

import heights_bots
import heights_rules
import heights_sdk
from heights_runner import sandbox
from heights_runner.botfiles import unpack_bundle
from heights_runner.builds import built
from heights_runner.bundle import Bundle
from heights_runner.contract import SeatSpec
from heights_runner.runtimes import BUILD_DIR, RUNTIMES_BY_LANGUAGE, main_class
from heights_runner.sandbox.start import Mounts
from heights_runner.sandbox.toolchains import SYSTEM_PATH, run_toolchain

BOT_PYTHON_INSIDE = "/pylib"


def default_bot_python_dir() -> Path | None:
    """The Python bots' own packages (`make setup` installs them into .venv/bot-python/;
    HEIGHTS_RUNNER_BOT_PYTHON_DIR elsewhere); None where there are none."""
    configured = os.environ.get("HEIGHTS_RUNNER_BOT_PYTHON_DIR", "")
    path = Path(configured) if configured else Path(sys.prefix) / "bot-python"
    return path.resolve() if path.is_dir() else None


@dataclass(frozen=True, slots=True)
class LaunchPolicy:
    cache_dir: Path  # unpacked bots, by content hash, and their builds
    limits: sandbox.Limits = field(default_factory=sandbox.Limits)
    allow_unsandboxed: bool = False  # local development only: untrusted code without bwrap
    bot_python_dir: Path | None = field(default_factory=default_bot_python_dir)


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
    if spec.bot.kind == "builtin":
        return _start_builtin(spec, seed, policy)
    workdir, bundle = unpack_bundle(spec.bot, policy.cache_dir)
    runtime = bundle.runtime
    tools = run_toolchain(runtime)
    binds = list(tools.ro_binds)
    if runtime.compiled:
        artefact = built(bundle, workdir, spec.bot.sha256, policy.allow_unsandboxed)
        binds.append((str(artefact), BUILD_DIR))
    env = {"PATH": SYSTEM_PATH, "LANG": "C.UTF-8", "HOME": "/tmp"}
    if runtime.language == "python":
        env |= _python_env(policy, binds)
    limits = policy.limits
    limits = replace(limits, processes=max(limits.processes, runtime.processes))
    return sandbox.start_bot(
        workdir,
        _argv(bundle, tools.programs),
        limits=limits,
        env=env,
        allow_unsandboxed=policy.allow_unsandboxed,
        mounts=Mounts(binds, (), tools.usr),
        trace=runtime.trace,
        # A compiled bot runs its build's artefact (/build/bot), not a program of ours.
        own_program=runtime.run[0] not in tools.programs,
    )


def _argv(bundle: Bundle, programs: dict[str, str]) -> list[str]:
    words = {"entry": str(bundle.entry), "main_class": main_class(str(bundle.entry))}
    argv = [arg.format(**words) for arg in bundle.runtime.run]
    argv[0] = programs.get(argv[0], argv[0])
    return argv


def _python_env(policy: LaunchPolicy, binds: list[tuple[str, str]]) -> dict[str, str]:
    """The SDK and the bots' declared packages, read-only; the bot's folder comes first."""
    sdk = str(Path(str(heights_sdk.__file__)).resolve().parent)
    binds.append((sdk, "/sdk/heights_sdk"))
    path = ["/sdk"]
    if policy.bot_python_dir is not None:
        binds.append((str(policy.bot_python_dir), BOT_PYTHON_INSIDE))
        path.append(BOT_PYTHON_INSIDE)
    return {
        "PYTHONPATH": ":".join(path),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",  # a bot's own set iteration order is reproducible too
    }


def _start_builtin(spec: SeatSpec, seed: int, policy: LaunchPolicy) -> sandbox.BotProcess:
    tools = run_toolchain(RUNTIMES_BY_LANGUAGE["python"])
    paths = _builtin_paths()
    binds = [*tools.ro_binds, *((p, p) for p in paths if Path(p).exists())]
    workdir = policy.cache_dir / "builtin"
    workdir.mkdir(parents=True, exist_ok=True)
    # -S: everything it imports is on the PYTHONPATH below; skipping site's scan of
    # site-packages (.pth files, the editable finder) saves ~20 ms of every start.
    python = tools.programs["python3"]
    argv = [python, "-u", "-S", "-m", "heights_bots.protocol_main", spec.bot.name, str(seed)]
    return sandbox.start_bot(
        workdir,
        argv,
        limits=policy.limits,
        env={"PYTHONPATH": ":".join(paths), "PYTHONHASHSEED": "0"},
        trusted=spec.trusted,
        allow_unsandboxed=policy.allow_unsandboxed,
        mounts=Mounts(binds, (), tools.usr),
    )
