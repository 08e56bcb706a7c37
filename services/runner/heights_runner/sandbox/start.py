"""Starting a bot: bubblewrap, cgroups, rlimits and seccomp put together."""

from __future__ import annotations

import contextlib
import os
import resource
import stat
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from heights_runner.sandbox import bwrap, cgroups, lifetime, seccomp
from heights_runner.sandbox.cgroups import BotCgroup
from heights_runner.sandbox.limits import Limits, SandboxUnavailable
from heights_runner.sandbox.probe import Capabilities, probe
from heights_runner.sandbox.process import BotProcess, kill_tree
from heights_runner.sandbox.status import BwrapStatus, exec_failed
from heights_runner.sandbox.trees import remove_tree

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
    `rw_binds` (host, inside) pairs. A runtime's `Mounts` come from `toolchains`.
    `scratch` (inside, bytes): a one-shot run's writable folder, a tmpfs of that size
    that outlives the run for its caller to copy from (`OneShot.scratch`)."""

    ro_binds: Sequence[tuple[str, str]] = ()
    rw_binds: Sequence[tuple[str, str]] = ()
    usr: Sequence[str] | None = None
    scratch: tuple[str, int] | None = None


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
    block_fd: int | None = None  # bwrap waits on it before the program (a scratch's hold)


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
            scratch=launch.mounts.scratch,
            block_fd=launch.block_fd,
        )
        # bwrap gets no environment of its own either: --clearenv and --setenv build the bot's.
        preexec = _preexec(launch.rlimits, launch.procs_paths, drop_uid=False, installer=None)
        fds = tuple(fd for fd in (seccomp_fd, status_fd, launch.block_fd) if fd is not None)
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


class Scratch:
    """A one-shot run's scratch folder, held after the run until `close()`: under bwrap its
    tmpfs (an open folder keeps it, and nothing else, after its namespace is gone), read
    at `path`; unsandboxed (a trusted run) a plain folder of the runner's, unbounded."""

    def __init__(self, fd: int | None = None, folder: Path | None = None) -> None:
        self._fd = fd
        self._folder = folder

    @property
    def path(self) -> Path:
        if self._fd is not None:
            return Path(f"/proc/self/fd/{self._fd}")
        assert self._folder is not None
        return self._folder

    def full(self) -> bool:
        """Whether the tmpfs has no block left: what was written was cut at its size."""
        if self._fd is None:
            return False
        stats = os.fstatvfs(self._fd)
        return stats.f_bavail == 0

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        if self._folder is not None:
            remove_tree(self._folder)
            self._folder = None


@dataclass(frozen=True, slots=True)
class OneShot:
    """How a one-shot run (a build) ended: its status (None: killed at its deadline),
    the end of its output, whether the memory limit killed it, and its scratch folder
    (`Mounts.scratch`; the caller closes it)."""

    returncode: int | None
    output: str
    oom: bool
    scratch: Scratch | None = None


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
        if done.scratch is not None:
            done.scratch.close()
        lines = [line.strip() for line in done.output.splitlines() if line.strip()]
        why = lines[-1][:200] if lines else "no message"
        if exec_failed(why, argv[0]):  # set up, and the program named could not be run
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
    deadline = time.monotonic() + timeout_s
    scratch, launch, block_w = _scratch_for(caps, launch)
    with tempfile.TemporaryFile() as out:
        launch = replace(launch, output=out.fileno())
        try:
            popen = _start_bwrap(caps, launch, status) if caps.bwrap else _start_bare(caps, launch)
        except (OSError, subprocess.SubprocessError) as exc:
            cgroup.remove()
            _close_all(scratch, launch.block_fd, block_w)
            raise SandboxUnavailable(f"cannot start {launch.argv[0]}: {exc}") from exc
        _close_all(None, launch.block_fd)
        try:
            if block_w is not None:
                scratch = _hold_scratch(popen, status, launch.mounts, deadline)
                if scratch is not None:
                    os.write(block_w, b"x")  # the program may start now
            code: int | None = popen.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            code = None
        except BaseException:
            if scratch is not None:
                scratch.close()
            raise
        finally:
            _close_all(None, block_w)
            kill_tree(popen, cgroup)
            oom = cgroup.oom_killed()
            cgroup.remove()
        size = out.seek(0, os.SEEK_END)
        out.seek(max(0, size - output_bytes))
        text = out.read().decode("utf-8", errors="replace")
    return OneShot(code, text, oom, scratch)


def _close_all(scratch: Scratch | None, *fds: int | None) -> None:
    if scratch is not None:
        scratch.close()
    for fd in fds:
        if fd is not None:
            os.close(fd)


def _scratch_for(caps: Capabilities, launch: _Launch) -> tuple[Scratch | None, _Launch, int | None]:
    """A run with a scratch folder: under bwrap, a pipe bwrap waits on until the runner
    holds the tmpfs (`_hold_scratch`); unsandboxed, a plain folder bound in its place."""
    mounts = launch.mounts
    if mounts.scratch is None:
        return None, launch, None
    if caps.bwrap:
        block_r, block_w = os.pipe()
        return None, replace(launch, block_fd=block_r), block_w
    folder = Path(tempfile.mkdtemp(prefix=".scratch-", dir=launch.workdir.parent))
    folder.chmod(0o777)  # as a build's staging was: the program may run as "nobody"
    rw_binds = [*mounts.rw_binds, (str(folder), mounts.scratch[0])]
    bare = Mounts(mounts.ro_binds, rw_binds, mounts.usr)
    return Scratch(folder=folder), replace(launch, mounts=bare), None


def _hold_scratch(
    popen: subprocess.Popen[bytes], status: BwrapStatus | None, mounts: Mounts, deadline: float
) -> Scratch | None:
    """Open the sandbox's scratch tmpfs while bwrap waits on its block fd, mounts made.

    bwrap says its first process's pid as soon as it is cloned, before any mount; the
    tmpfs is at /proc/PID/root/<inside> once bwrap has moved into the sandbox's root,
    and stays there while it waits: until then the path is missing or not a tmpfs of
    the scratch's size. An open folder keeps the tmpfs after the sandbox is gone.
    None when bwrap ended first (run_once reports why it failed to set up)."""
    assert status is not None
    assert mounts.scratch is not None
    inside, size = mounts.scratch
    pid = status.child_pid(deadline)
    if pid is None:  # bwrap ended (its status pipe closed), or is ending
        with contextlib.suppress(subprocess.TimeoutExpired):
            popen.wait(max(0.0, deadline - time.monotonic()))
    while pid is not None and popen.poll() is None and time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            fd = os.open(f"/proc/{pid}/root{inside}", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            stats = os.fstatvfs(fd)
            if stats.f_blocks * stats.f_frsize == size:
                return Scratch(fd=fd)
            os.close(fd)
        time.sleep(0.001)
    if popen.poll() is not None:
        return None
    raise SandboxUnavailable(f"bubblewrap did not set up the scratch tmpfs at {inside} in time")
