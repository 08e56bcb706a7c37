"""Starting a bot: bubblewrap, cgroups, rlimits and seccomp put together."""

from __future__ import annotations

import contextlib
import os
import resource
import stat
import subprocess
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from heights_runner.sandbox import bwrap, cgroups, lifetime, seccomp
from heights_runner.sandbox.cgroups import BotCgroup
from heights_runner.sandbox.limits import Limits, SandboxUnavailable
from heights_runner.sandbox.probe import Capabilities, probe
from heights_runner.sandbox.process import BotProcess, kill_tree
from heights_runner.sandbox.status import BwrapStatus

_NOBODY = 65534


def _rlimits(limits: Limits, cgroup_memory: bool, cgroup_pids: bool) -> list[tuple[int, int]]:
    pairs = [
        (resource.RLIMIT_CPU, limits.cpu_seconds),
        (resource.RLIMIT_NOFILE, limits.open_files),
        (resource.RLIMIT_FSIZE, limits.file_bytes),
        (resource.RLIMIT_CORE, 0),
    ]
    if not cgroup_memory:
        pairs.append((resource.RLIMIT_AS, limits.memory_bytes))
    if not cgroup_pids and os.geteuid() != 0:
        # Counts every process of the host user, so only meaningful for a non-root runner.
        pairs.append((resource.RLIMIT_NPROC, limits.processes))
    return pairs


def _preexec(
    rlimits: list[tuple[int, int]],
    procs_paths: list[bytes],
    *,
    drop_uid: bool,
    installer: seccomp.Installer | None,
) -> Callable[[], None]:
    tie_to_runner = lifetime.parent_death_kill()

    def run() -> None:
        # Cgroups first, while still root; the soft CPU limit sends SIGXCPU, the hard one
        # SIGKILL a second later, for a bot that ignores SIGXCPU.
        cgroups.join(procs_paths)
        for which, value in rlimits:
            hard = value + 1 if which == resource.RLIMIT_CPU else value
            resource.setrlimit(which, (value, hard))
        if drop_uid:
            os.setgroups([])
            os.setgid(_NOBODY)
            os.setuid(_NOBODY)
        tie_to_runner()  # after setuid, which would clear it
        if installer is not None:
            installer.install()

    return run


def _reachable_by_others(path: str) -> bool:
    """Could "nobody" reach `path`? (every parent searchable by others)."""
    current = Path(path).resolve()
    for parent in [*reversed(current.parents), current]:
        with contextlib.suppress(OSError):
            mode = parent.stat().st_mode
            if stat.S_ISDIR(mode) and not mode & stat.S_IXOTH:
                return False
    return True


def _to_host(value: str, binds: Sequence[tuple[str, str]]) -> str:
    """Rewrite sandbox paths in an argument or PATH-like value to host paths (no bwrap)."""
    parts = value.split(":")
    for i, part in enumerate(parts):
        for host, inside in binds:
            if part == inside or part.startswith(inside.rstrip("/") + "/"):
                parts[i] = host + part[len(inside) :]
                break
    return ":".join(parts)


@dataclass(frozen=True, slots=True)
class Mounts:
    """What a process sees besides the system's libraries: `usr` (host paths under /usr
    and elsewhere, bound read-only where they are; None: all of /usr), `ro_binds` and
    `rw_binds` (host, inside) pairs. A runtime's `Mounts` come from `toolchains`."""

    ro_binds: Sequence[tuple[str, str]] = ()
    rw_binds: Sequence[tuple[str, str]] = ()
    usr: Sequence[str] | None = None


def start_bot(
    workdir: Path,
    argv: Sequence[str],
    *,
    limits: Limits = Limits(),  # noqa: B008 - frozen, so a shared default is safe
    ro_binds: Sequence[tuple[str, str]] = (),
    env: Mapping[str, str] = {},
    trusted: bool = False,
    allow_unsandboxed: bool = False,
    mounts: Mounts | None = None,
    trace: Sequence[str] = (),
    own_program: bool = False,
) -> BotProcess:
    """Start a bot with `workdir` at /bot (cwd) and only `env` as its environment;
    `trace`: the runtime's lines after an error (`Runtime.trace`), for its last words;
    `own_program`: `argv[0]` is the bot's (its build's artefact), so bwrap failing to
    exec it is the bot's crash, not a sandbox that could not be set up."""
    mounts = mounts or Mounts()
    mounts = Mounts([*mounts.ro_binds, *ro_binds], mounts.rw_binds, mounts.usr)
    caps, cgroup, launch = _prepare(
        workdir,
        argv=argv,
        limits=limits,
        mounts=mounts,
        env=env,
        may_run_bare=trusted or allow_unsandboxed,
    )
    status: BwrapStatus | None = None
    try:
        if caps.bwrap:
            status = BwrapStatus()
            popen = _start_bwrap(caps, launch, status)
        else:
            popen = _start_bare(caps, launch)
    except (OSError, subprocess.SubprocessError) as exc:
        _undo(cgroup, status)
        raise SandboxUnavailable(f"cannot start {argv[0]}: {exc}") from exc
    except BaseException:
        _undo(cgroup, status)
        raise
    try:
        return BotProcess(
            popen,
            limits=limits,
            cgroup=cgroup,
            sandboxed=caps.bwrap,
            status=status,
            trace=trace,
            own_program=argv[0] if own_program else None,
        )
    except BaseException:  # no thread for stderr (a process out of threads), an interrupt
        _undo(cgroup, status, popen)
        raise


def _undo(
    cgroup: BotCgroup, status: BwrapStatus | None, popen: subprocess.Popen[bytes] | None = None
) -> None:
    """What a start that failed made: the process (its group, its cgroups), the cgroups."""
    if popen is not None:
        kill_tree(popen, cgroup)
        for stream in (popen.stdin, popen.stdout, popen.stderr):
            if stream is not None:
                stream.close()
    cgroup.remove()
    if status is not None:
        status.close()


def _prepare(
    workdir: Path,
    *,
    argv: Sequence[str],
    limits: Limits,
    mounts: Mounts,
    env: Mapping[str, str],
    may_run_bare: bool,
) -> tuple[Capabilities, BotCgroup, _Launch]:
    """Refuse what cannot be contained here; else the process's cgroups and launch."""
    caps = probe()
    if not caps.contains_untrusted and not may_run_bare:
        why = "; ".join(caps.reasons)
        raise SandboxUnavailable(f"an untrusted bot needs bubblewrap and seccomp: {why}")
    try:
        cgroup = BotCgroup.create(
            cgroups.settings(
                limits.memory_bytes if caps.cgroup_memory else None,
                limits.processes if caps.cgroup_pids else None,
                limits.cpu_cores if caps.cgroup_cpu else None,
            )
        )
    except OSError as exc:
        raise SandboxUnavailable(f"cannot create the bot's cgroups: {exc}") from exc
    launch = _Launch(
        workdir=Path(workdir).resolve(),
        argv=argv,
        limits=limits,
        mounts=mounts,
        env=env,
        rlimits=_rlimits(limits, caps.cgroup_memory, caps.cgroup_pids),
        procs_paths=cgroup.procs_paths(),
    )
    return caps, cgroup, launch


@dataclass(frozen=True, slots=True)
class _Launch:
    workdir: Path
    argv: Sequence[str]
    limits: Limits
    mounts: Mounts
    env: Mapping[str, str]
    rlimits: list[tuple[int, int]]
    procs_paths: list[bytes]
    output: int | None = None  # a file for stdout and stderr both (a one-shot run), or pipes


def _start_bwrap(
    caps: Capabilities, launch: _Launch, status: BwrapStatus | None = None
) -> subprocess.Popen[bytes]:
    """bwrap with the launch's sandbox; `status` (start_bot's) gets bwrap's own report."""
    assert caps.bwrap_path is not None
    seccomp_fd = seccomp.filter_fd() if caps.seccomp else None
    try:
        status_fd = None if status is None else status.write_fd
        cmd = bwrap.command(
            caps.bwrap_path,
            launch.workdir,
            launch.argv,
            limits=launch.limits,
            ro_binds=launch.mounts.ro_binds,
            rw_binds=launch.mounts.rw_binds,
            usr=launch.mounts.usr,
            env=launch.env,
            seccomp_fd=seccomp_fd,
            hidden=bwrap.python_site_dirs(),
            status_fd=status_fd,
        )
        # bwrap gets no environment of its own either: --clearenv and --setenv build the bot's.
        preexec = _preexec(launch.rlimits, launch.procs_paths, drop_uid=False, installer=None)
        fds = tuple(fd for fd in (seccomp_fd, status_fd) if fd is not None)
        return _popen(cmd, env={}, cwd=None, preexec=preexec, pass_fds=fds, output=launch.output)
    finally:
        if status is not None:
            status.handed_over()
        if seccomp_fd is not None:
            os.close(seccomp_fd)


def _start_bare(caps: Capabilities, launch: _Launch) -> subprocess.Popen[bytes]:
    """No bubblewrap: rlimits, cgroups, seccomp and, as root, the "nobody" user if it can."""
    mounts = launch.mounts
    binds = [*mounts.ro_binds, *mounts.rw_binds, (str(launch.workdir), bwrap.BOT_DIR)]
    cmd = [_to_host(arg, binds) for arg in launch.argv]
    env = {key: _to_host(value, binds) for key, value in launch.env.items()}
    # "nobody" must be able to reach the interpreter and the bot (not so under a 0700 /root),
    # and write where a build writes.
    reachable = all(map(_reachable_by_others, [cmd[0], str(launch.workdir)]))
    drop = os.geteuid() == 0 and reachable and not mounts.rw_binds
    installer = seccomp.Installer() if caps.seccomp else None
    preexec = _preexec(launch.rlimits, launch.procs_paths, drop_uid=drop, installer=installer)
    return _popen(
        cmd, env=env, cwd=launch.workdir, preexec=preexec, pass_fds=(), output=launch.output
    )


def _popen(
    cmd: list[str],
    *,
    env: dict[str, str],
    cwd: Path | None,
    preexec: Callable[[], None],
    pass_fds: tuple[int, ...],
    output: int | None,
) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        cmd,
        stdin=subprocess.PIPE if output is None else subprocess.DEVNULL,
        stdout=subprocess.PIPE if output is None else output,
        stderr=subprocess.PIPE if output is None else output,
        env=env,
        cwd=cwd,
        preexec_fn=preexec,  # noqa: PLW1509 - cgroup join and rlimits must precede exec
        start_new_session=True,
        pass_fds=pass_fds,
    )


@dataclass(frozen=True, slots=True)
class OneShot:
    """How a one-shot run (a build) ended: its status (None: killed at its deadline),
    the end of its output, and whether the memory limit killed it."""

    returncode: int | None
    output: str
    oom: bool


def run_once(
    workdir: Path,
    argv: Sequence[str],
    *,
    limits: Limits,
    mounts: Mounts,
    env: Mapping[str, str],
    timeout_s: float,
    output_bytes: int,
    allow_unsandboxed: bool = False,
) -> OneShot:
    """Run `argv` in the sandbox to its end (or `timeout_s`), stdout and stderr together
    into a file (RLIMIT_FSIZE bounds it); the last `output_bytes` of it are returned.
    SandboxUnavailable when bubblewrap could not set the sandbox up (the runner's fault);
    ProgramNotRun, one of those, when it could not exec `argv[0]`."""
    caps, cgroup, launch = _prepare(
        workdir, argv=argv, limits=limits, mounts=mounts, env=env, may_run_bare=allow_unsandboxed
    )
    # As for a bot (BotProcess._setup_failed): a bwrap that ended on its own without
    # reporting the program's exit failed to set the sandbox up, and the build never ran.
    status = BwrapStatus() if caps.bwrap else None
    try:
        done = _run_once(
            caps, cgroup, launch, status, timeout_s=timeout_s, output_bytes=output_bytes
        )
        set_up = (
            status is None
            or done.returncode is None
            or done.returncode < 0
            or done.oom
            or status.program_started()
        )
    finally:
        if status is not None:
            status.close()
    if not set_up:
        lines = [line.strip() for line in done.output.splitlines() if line.strip()]
        why = lines[-1][:200] if lines else "no message"
        if why.startswith(f"bwrap: execvp {argv[0]}: "):
            # Only bwrap writes before the exec, so this line is its own: the sandbox was
            # set up, and the program named could not be run.
            raise ProgramNotRun(f"cannot run {argv[0]}: {why}", done.output)
        raise SandboxUnavailable(
            f"bubblewrap failed to set up the sandbox (exited with status {done.returncode}): {why}"
        )
    return done


class ProgramNotRun(SandboxUnavailable):
    """bubblewrap set the sandbox up but could not exec `argv[0]` (not found, not
    executable). The runner's fault unless the program is the caller's to name: a
    build command is the bot's own (bot.json), and `builds` makes that its failure."""

    def __init__(self, message: str, output: str) -> None:
        super().__init__(message)
        self.output = output


def _run_once(
    caps: Capabilities,
    cgroup: BotCgroup,
    launch: _Launch,
    status: BwrapStatus | None,
    *,
    timeout_s: float,
    output_bytes: int,
) -> OneShot:
    with tempfile.TemporaryFile() as out:
        launch = replace(launch, output=out.fileno())
        try:
            popen = _start_bwrap(caps, launch, status) if caps.bwrap else _start_bare(caps, launch)
        except (OSError, subprocess.SubprocessError) as exc:
            cgroup.remove()
            raise SandboxUnavailable(f"cannot start {launch.argv[0]}: {exc}") from exc
        try:
            code: int | None = popen.wait(timeout_s)
        except subprocess.TimeoutExpired:
            code = None
        finally:
            kill_tree(popen, cgroup)
            oom = cgroup.oom_killed()
            cgroup.remove()
        size = out.seek(0, os.SEEK_END)
        out.seek(max(0, size - output_bytes))
        text = out.read().decode("utf-8", errors="replace")
    return OneShot(code, text, oom)
