"""Building a compiled bot in the sandbox, once per content hash.

The build runs the bundle's build command (the manifest's, or the language's default)
in the bot's folder, read-only at /bot, with only `/build` writable and only the
compiler's files mounted, under BUILD_LIMITS (wall and CPU time, memory, processes,
file size). /build is a tmpfs of a fixed size, not the runner's disk, so a build cannot
fill the disk; what it leaves there is the artefact, copied to the runner's bot cache
(at most so many files and bytes, checked before each is written) as
`<sha256>.build/` and made read-only, so a bot is built once per runner, not per
match. A build that fails, overruns or produces nothing is the bot's fault
(`BuildFailedError`, forfeit reason `build`), and its output's end goes to the owner's
log; a runner that lacks the compiler is this machine's fault.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import tempfile
from pathlib import Path

from heights_runner import sandbox
from heights_runner.bundle import Bundle
from heights_runner.runtimes import BUILD_DIR, BUILD_LIMITS, BuildLimits
from heights_runner.sandbox.start import Mounts, OneShot, ProgramNotRun, run_once
from heights_runner.sandbox.toolchains import SYSTEM_PATH, build_toolchain
from heights_runner.sandbox.trees import remove_tree

_MIB = 2**20
MAX_DEPTH = 64  # folders nested in an artefact: javac's packages need a handful
_NO_SPACE = "No space left on device"  # strerror(ENOSPC), as compilers print it (LANG=C)


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
        _run(bundle, workdir, staging, allow_unsandboxed)
        os.rename(staging, target)
    except OSError:
        remove_tree(staging)
        if not target.is_dir():
            raise
        # Another worker built the same bot first; its artefact is the same.
    except BaseException:
        remove_tree(staging)
        raise
    return target


def _run(bundle: Bundle, workdir: Path, staging: Path, allow_unsandboxed: bool) -> None:
    tools = build_toolchain(bundle.runtime)
    argv = list(bundle.build)
    argv[0] = tools.programs.get(argv[0], argv[0])  # the host's g++, rustc, javac …
    limits = BUILD_LIMITS
    command = " ".join(bundle.build)
    try:
        done = run_once(
            workdir,
            argv,
            limits=build_limits(),
            mounts=Mounts(tools.ro_binds, (), tools.usr, (BUILD_DIR, limits.output_mib * _MIB)),
            # LANG=C: plain ASCII quotes in compilers' messages (sources are read as UTF-8).
            env={"PATH": SYSTEM_PATH, "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C"},
            timeout_s=limits.seconds,
            output_bytes=limits.log_kib * 1024,
            allow_unsandboxed=allow_unsandboxed,
        )
    except ProgramNotRun as err:
        if bundle.build[0] in tools.programs:
            raise  # the host's compiler, bound in by the runner: its fault
        # A program the bot's bot.json names (a typo, a script not executable).
        raise BuildFailedError(
            f"build failed: `{command[:120]}` could not be run", err.output
        ) from None
    assert done.scratch is not None
    try:
        why = _failed(done, limits) or _copy_out(done.scratch.path, staging, limits)
    finally:
        done.scratch.close()
    if why is not None:
        raise BuildFailedError(f"build failed: `{command[:120]}` {why}", done.output)


def _too_big(limits: BuildLimits) -> str:
    mib = limits.output_mib
    return f"wrote more than {mib} MiB to {BUILD_DIR}; a build's output is at most {mib} MiB"


def _failed(done: OneShot, limits: BuildLimits) -> str | None:
    """Why the build failed, if it did; a full /build first: the compiler's own error
    (`No space left on device`, its status) is what being cut short made it say."""
    assert done.scratch is not None
    if done.scratch.full():
        return _too_big(limits)
    if done.returncode is None:
        return f"took over {limits.seconds} s"
    if done.oom:
        return f"ran out of its {limits.memory_mib} MiB memory ({BUILD_DIR} and /tmp count)"
    if done.returncode != 0 and _NO_SPACE in done.output:
        # ld removes the program it could not finish, so /build is not full afterwards;
        # which of the two tmpfs filled is not known (the message is the bot's either way).
        return (
            f"ran out of space; a build's output is at most {limits.output_mib} MiB, "
            f"its /tmp {limits.tmp_mib} MiB (`{_NO_SPACE}`)"
        )
    if done.returncode != 0:
        return f"exited with status {done.returncode}"
    return None


def _copy_out(source: Path, target: Path, limits: BuildLimits) -> str | None:
    """Copy the build's /build to `target` on the runner's disk, or say why not.

    Each entry is counted and each file's size (its length, holes included: a sparse
    file is written out whole) added up before it is written, so the disk gets at most
    the bounds whatever the tmpfs held (hard links, sparse files, many empty files).
    Walked without recursion (1,500 nested folders raised RecursionError in os.walk);
    links are copied as links, never followed. What the build made unreadable (`chmod
    0`) is made readable first: the deployed runner owns it but has no capability to
    read past its modes, and a PermissionError here was a runner fault.
    A path the copy cannot make on the runner (its folder is longer than /build) is the
    build's: ENAMETOOLONG.

    The copy is sealed as it is made: read-only for everyone, still readable (and its
    programs runnable) by the bot's user; its folders, `target` too, once all is in."""
    entries = size = 0
    todo = [(str(source), str(target), 0)]
    folders = [str(target)]
    while todo:
        folder, into, level = todo.pop()
        if level > MAX_DEPTH:
            return _too_deep()
        try:
            _owner_may(folder, os.stat(folder).st_mode, 0o700)
            with os.scandir(folder) as found:
                for entry in found:
                    entries += 1
                    if entries > limits.output_files:
                        n = limits.output_files
                        return (
                            f"wrote more than {n:,} files and folders to {BUILD_DIR}; "
                            f"a build's output is at most {n:,}"
                        )
                    copy = os.path.join(into, entry.name)
                    if entry.is_symlink():
                        os.symlink(os.readlink(entry.path), copy)
                    elif entry.is_dir(follow_symlinks=False):
                        os.mkdir(copy, 0o700)
                        folders.append(copy)
                        todo.append((entry.path, copy, level + 1))
                    elif entry.is_file(follow_symlinks=False):
                        stats = entry.stat(follow_symlinks=False)
                        size += stats.st_size
                        if size > limits.output_mib * _MIB:
                            return _too_big(limits)
                        _owner_may(entry.path, stats.st_mode, 0o400)
                        shutil.copyfile(entry.path, copy, follow_symlinks=False)
                        os.chmod(copy, (stats.st_mode & 0o555) | 0o444)
                    else:
                        return f"wrote {entry.name!r}, which is not a file, folder or link"
        except OSError as err:
            if err.errno != errno.ENAMETOOLONG:  # long names reach PATH_MAX sooner
                raise
            return _too_deep()
    if not entries:
        return f"wrote nothing to {BUILD_DIR}"
    for folder in folders:
        os.chmod(folder, 0o555)
    return None


def _owner_may(path: str, mode: int, bits: int) -> None:
    """Give the owner `bits` of `path` (a file or folder in the build's tmpfs, never a link)."""
    if mode & bits != bits:
        os.chmod(path, stat.S_IMODE(mode) | bits)


def _too_deep() -> str:
    return f"wrote folders nested too deep in {BUILD_DIR} (over {MAX_DEPTH}, or past PATH_MAX)"
