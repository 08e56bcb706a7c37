"""Building a compiled bot in the sandbox, once per content hash.

The build runs the bundle's build command (the manifest's, or the language's default)
in the bot's folder, read-only at /bot, with only `/build` writable and only the
compiler's files mounted, under BUILD_LIMITS (wall and CPU time, memory, processes,
file size). What it leaves in /build is the artefact: made read-only and kept in the
runner's bot cache as `<sha256>.build/`, so a bot is built once per runner, not per
match. A build that fails, overruns or produces nothing is the bot's fault
(`BuildFailedError`, forfeit reason `build`), and its output's end goes to the owner's
log; a runner that lacks the compiler is this machine's fault.
"""

from __future__ import annotations

import errno
import os
import subprocess
import tempfile
from pathlib import Path

from heights_runner import sandbox
from heights_runner.bundle import Bundle
from heights_runner.runtimes import BUILD_DIR, BUILD_LIMITS
from heights_runner.sandbox.start import Mounts, ProgramNotRun, run_once
from heights_runner.sandbox.toolchains import SYSTEM_PATH, build_toolchain

_MIB = 2**20
MAX_DEPTH = 64  # folders nested in an artefact: javac's packages need a handful


class BuildFailedError(sandbox.BotFault):
    """The bot's build failed: `output` is the end of what it printed (the owner's log)."""

    reason = "build"

    def __init__(self, message: str, output: str) -> None:
        super().__init__(message)
        self.output = output

    def headline(self, chars: int = 160) -> str:
        """The output's first error line (compilers explain below it), else its last line.

        g++ and javac start the error's line with its place (`main.cpp:1:21: error: …`);
        rustc writes it on the next line (`--> main.rs:1:25`), which is added to it."""
        lines = [line.strip() for line in self.output.splitlines() if line.strip()]
        first = next((i for i, line in enumerate(lines) if "error" in line.lower()), None)
        if first is None:
            return (lines or [""])[-1][:chars]
        headline = lines[first]
        if first + 1 < len(lines) and lines[first + 1].startswith("--> "):
            headline = f"{headline} {lines[first + 1]}"
        return headline[:chars]


def build_limits() -> sandbox.Limits:
    limits = BUILD_LIMITS
    return sandbox.Limits(
        cpu_seconds=limits.seconds,
        memory_bytes=limits.memory_mib * _MIB,
        processes=limits.processes,
        open_files=256,
        file_bytes=limits.artefact_mib * _MIB,
        tmp_bytes=limits.tmp_mib * _MIB,
    )


def built(bundle: Bundle, workdir: Path, sha256: str, allow_unsandboxed: bool = False) -> Path:
    """The bot's artefact folder (`<workdir>.build`), built now unless it already is."""
    target = workdir.with_name(f"{sha256}.build")
    if target.is_dir():
        return target
    staging = Path(tempfile.mkdtemp(prefix=f".{sha256[:16]}-build-", dir=workdir.parent))
    try:
        staging.chmod(0o777)  # the sandbox user writes here (as root's, or the runner's, uid)
        _run(bundle, workdir, staging, allow_unsandboxed)
        _seal(staging)
        os.rename(staging, target)
    except OSError:
        _discard(staging)
        if not target.is_dir():
            raise
        # Another worker built the same bot first; its artefact is the same.
    except BaseException:
        _discard(staging)
        raise
    return target


def _run(bundle: Bundle, workdir: Path, staging: Path, allow_unsandboxed: bool) -> None:
    tools = build_toolchain(bundle.runtime)
    argv = list(bundle.build)
    argv[0] = tools.programs.get(argv[0], argv[0])  # the host's g++, rustc, javac …
    command = " ".join(bundle.build)
    try:
        done = run_once(
            workdir,
            argv,
            limits=build_limits(),
            mounts=Mounts(tools.ro_binds, [(str(staging), BUILD_DIR)], tools.usr),
            # LANG=C: plain ASCII quotes in compilers' messages (sources are read as UTF-8).
            env={"PATH": SYSTEM_PATH, "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C"},
            timeout_s=BUILD_LIMITS.seconds,
            output_bytes=BUILD_LIMITS.log_kib * 1024,
            allow_unsandboxed=allow_unsandboxed,
        )
    except ProgramNotRun as err:
        if bundle.build[0] in tools.programs:
            raise  # the host's compiler, bound in by the runner: its fault
        # A program the bot's bot.json names (a typo, a script not executable).
        raise BuildFailedError(
            f"build failed: `{command[:120]}` could not be run", err.output
        ) from None
    if done.returncode is None:
        why = f"took over {BUILD_LIMITS.seconds} s"
    elif done.oom:
        why = f"ran out of its {BUILD_LIMITS.memory_mib} MiB memory"
    elif done.returncode != 0:
        why = f"exited with status {done.returncode}"
    elif not any(staging.iterdir()):
        why = f"wrote nothing to {BUILD_DIR}"
    elif _deeper_than(staging, MAX_DEPTH):
        why = f"wrote folders nested too deep in {BUILD_DIR} (over {MAX_DEPTH}, or past PATH_MAX)"
    else:
        return
    raise BuildFailedError(f"build failed: `{command[:120]}` {why}", done.output)


def _deeper_than(root: Path, depth: int) -> bool:
    """Whether a folder under `root` is nested over `depth` deep (links not followed),
    or an entry's path on the runner reaches PATH_MAX.

    Looked at without recursion, and before anything walks the tree: `os.walk` and
    `shutil.rmtree` recurse once a level and raised RecursionError (a runner fault) on
    the ~1,000 levels a build can make. The runner's path to an entry is longer than the
    build's (/build is the staging folder): a file the build could write at a path under
    PATH_MAX could not be sealed (ENAMETOOLONG from os.chmod, a runner fault)."""
    path_max = os.pathconf(root, "PC_PATH_MAX")  # with its NUL: a path is shorter
    todo = [(str(root), 0)]
    while todo:
        folder, level = todo.pop()
        if level > depth:
            return True
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    if len(os.fsencode(entry.path)) >= path_max:
                        return True
                    if entry.is_dir(follow_symlinks=False):
                        todo.append((entry.path, level + 1))
        except OSError as err:
            if err.errno == errno.ENAMETOOLONG:  # long names reach PATH_MAX sooner
                return True
            # A folder the build made unreadable (chmod 000: its files are the runner's
            # own, and a non-root runner cannot list it) is skipped, as `_seal`'s os.walk
            # skips it: nothing walks into it. Raised, it was an OSError, the runner's
            # fault, for what the bot's build did.
    return False


def _seal(root: Path) -> None:
    """Read-only for everyone; still readable (and programs runnable) by the bot's user.
    os.walk never follows a link the build left; links are left as they are."""
    for folder, _, files in os.walk(root, topdown=False):
        for name in files:
            path = os.path.join(folder, name)
            if not os.path.islink(path):
                os.chmod(path, (os.stat(path).st_mode & 0o555) | 0o444)
        if not os.path.islink(folder):
            os.chmod(folder, 0o555)


def _discard(root: Path) -> None:
    """Remove a build's staging folder, whatever the build left in it: coreutils' chmod
    and rm walk a tree of any depth (os.walk and shutil.rmtree recurse), and follow no
    link the build made."""
    if not root.exists():
        return
    # Read-only folders cannot be emptied by a non-root runner.
    subprocess.run(["chmod", "-R", "u+rwx", "--", str(root)], check=False, capture_output=True)
    # Best effort, as this runs while a build's failure propagates: a folder left behind
    # is a dot-named leftover in the cache, not a wrong result.
    subprocess.run(["rm", "-rf", "--", str(root)], check=False, capture_output=True)
