"""Starting a bot: bubblewrap, cgroups, rlimits and seccomp put together."""

from __future__ import annotations

import contextlib
import os
import resource
import stat
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from heights_runner.sandbox import bwrap, cgroups, seccomp
from heights_runner.sandbox.cgroups import BotCgroup
from heights_runner.sandbox.limits import Limits, SandboxUnavailable
from heights_runner.sandbox.probe import Capabilities, probe
from heights_runner.sandbox.process import BotProcess
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


def start_bot(
    workdir: Path,
    argv: Sequence[str],
    *,
    limits: Limits = Limits(),  # noqa: B008 - frozen, so a shared default is safe
    ro_binds: Sequence[tuple[str, str]] = (),
    env: Mapping[str, str] = {},
    trusted: bool = False,
    allow_unsandboxed: bool = False,
) -> BotProcess:
    """Start a bot with `workdir` at /bot (cwd) and only `env` as its environment."""
    caps = probe()
    if not caps.contains_untrusted and not (trusted or allow_unsandboxed):
        why = "; ".join(caps.reasons)
        raise SandboxUnavailable(f"an untrusted bot needs bubblewrap and seccomp: {why}")
    workdir = Path(workdir).resolve()
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
        workdir=workdir,
        argv=argv,
        limits=limits,
        ro_binds=ro_binds,
        env=env,
        rlimits=_rlimits(limits, caps.cgroup_memory, caps.cgroup_pids),
        procs_paths=cgroup.procs_paths(),
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
    return BotProcess(popen, limits=limits, cgroup=cgroup, sandboxed=caps.bwrap, status=status)


def _undo(cgroup: BotCgroup, status: BwrapStatus | None) -> None:
    cgroup.remove()
    if status is not None:
        status.close()


@dataclass(frozen=True, slots=True)
class _Launch:
    workdir: Path
    argv: Sequence[str]
    limits: Limits
    ro_binds: Sequence[tuple[str, str]]
    env: Mapping[str, str]
    rlimits: list[tuple[int, int]]
    procs_paths: list[bytes]


def _start_bwrap(
    caps: Capabilities, launch: _Launch, status: BwrapStatus
) -> subprocess.Popen[bytes]:
    assert caps.bwrap_path is not None
    seccomp_fd = seccomp.filter_fd() if caps.seccomp else None
    try:
        cmd = bwrap.command(
            caps.bwrap_path,
            launch.workdir,
            launch.argv,
            limits=launch.limits,
            ro_binds=launch.ro_binds,
            env=launch.env,
            seccomp_fd=seccomp_fd,
            hidden=bwrap.python_site_dirs(),
            status_fd=status.write_fd,
        )
        # bwrap gets no environment of its own either: --clearenv and --setenv build the bot's.
        preexec = _preexec(launch.rlimits, launch.procs_paths, drop_uid=False, installer=None)
        fds = (status.write_fd,) if seccomp_fd is None else (seccomp_fd, status.write_fd)
        return _popen(cmd, {}, None, preexec, fds)
    finally:
        status.handed_over()
        if seccomp_fd is not None:
            os.close(seccomp_fd)


def _start_bare(caps: Capabilities, launch: _Launch) -> subprocess.Popen[bytes]:
    """No bubblewrap: rlimits, cgroups, seccomp and, as root, the "nobody" user if it can."""
    binds = [*launch.ro_binds, (str(launch.workdir), bwrap.BOT_DIR)]
    cmd = [_to_host(arg, binds) for arg in launch.argv]
    env = {key: _to_host(value, binds) for key, value in launch.env.items()}
    # "nobody" must be able to reach the interpreter and the bot (not so under a 0700 /root).
    reachable = all(map(_reachable_by_others, [cmd[0], str(launch.workdir)]))
    drop = os.geteuid() == 0 and reachable
    installer = seccomp.Installer() if caps.seccomp else None
    preexec = _preexec(launch.rlimits, launch.procs_paths, drop_uid=drop, installer=installer)
    return _popen(cmd, env, launch.workdir, preexec, ())


def _popen(
    cmd: list[str],
    env: dict[str, str],
    cwd: Path | None,
    preexec: Callable[[], None],
    pass_fds: tuple[int, ...],
) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        cmd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=cwd,
        preexec_fn=preexec,  # noqa: PLW1509 - cgroup join and rlimits must precede exec
        start_new_session=True,
        pass_fds=pass_fds,
    )
