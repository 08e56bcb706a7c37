"""What containment this machine offers, found once by trying it."""

from __future__ import annotations

import functools
import os
import subprocess
from dataclasses import dataclass

from heights_runner.sandbox import cgroups, seccomp
from heights_runner.sandbox.bwrap import bwrap_path, system_args


@dataclass(frozen=True, slots=True)
class Capabilities:
    bwrap: bool
    user_namespace: bool
    seccomp: bool
    cgroup_memory: bool
    cgroup_pids: bool
    cgroup_cpu: bool
    bwrap_path: str | None
    reasons: tuple[str, ...]  # one line per layer: what is used, or why it is not

    @property
    def contains_untrusted(self) -> bool:
        """Namespaces and the seccomp filter both: what an untrusted bot is started under."""
        return self.bwrap and self.seccomp

    def describe(self) -> list[str]:
        """Lines for the worker's start-up log."""
        state = "sandboxed with bubblewrap" if self.bwrap else "NO bubblewrap"
        return [f"bot sandbox: {state}", *(f"  {line}" for line in self.reasons)]


def _try_bwrap(path: str) -> tuple[bool, str]:
    # With the status fd every start uses (0.5+), so an older bwrap is reported unusable
    # here rather than failing every start (sandbox/status.py).
    status = ["--json-status-fd", "1"]
    cmd = [path, "--unshare-all", "--unshare-user", *status, *system_args(), "--", "/usr/bin/true"]
    try:
        done = subprocess.run(cmd, capture_output=True, timeout=10, check=False, env={})
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, f"bubblewrap at {path} does not run: {exc}"
    if done.returncode != 0:
        err = done.stderr.decode(errors="replace").strip()
        return False, f"bubblewrap at {path} cannot create namespaces: {err}"
    return True, f"bubblewrap {path}: user, PID, network, IPC, UTS and mount namespaces"


def _kernel_has_seccomp() -> bool:
    try:
        with open("/proc/self/status") as status:
            return any(line.startswith("Seccomp:") for line in status)
    except OSError:
        return False


@functools.cache
def probe() -> Capabilities:
    """What this machine offers, tried for real once per process (`probe.cache_clear()`)."""
    reasons: list[str] = []
    path = bwrap_path()
    usable = False
    if path is None:
        reasons.append("bubblewrap not installed (apt-get install bubblewrap)")
    else:
        usable, line = _try_bwrap(path)
        reasons.append(line)
    has_seccomp, line = seccomp.availability()
    if has_seccomp and not _kernel_has_seccomp():
        has_seccomp, line = False, "seccomp: NOT used: the kernel has no seccomp"
    reasons.append(line)
    memory, line = cgroups.writable("memory")
    reasons.append(line if memory else f"{line}; memory limited by RLIMIT_AS instead")
    pids, line = cgroups.writable("pids")
    if pids:
        reasons.append(line)
    elif os.geteuid() == 0:
        reasons.append(f"{line}; process count NOT limited (RLIMIT_NPROC is useless as root)")
    else:
        reasons.append(f"{line}; process count limited by RLIMIT_NPROC (per host user)")
    cpu, line = cgroups.writable("cpu")
    reasons.append(line if cpu else f"{line}; CPU bandwidth NOT limited (only CPU time)")
    if swept := cgroups.sweep():
        reasons.append(f"removed {swept} stale bot cgroups left by an earlier runner")
    return Capabilities(
        bwrap=usable,
        user_namespace=usable,
        seccomp=has_seccomp,
        cgroup_memory=memory,
        cgroup_pids=pids,
        cgroup_cpu=cpu,
        bwrap_path=path if usable else None,
        reasons=tuple(reasons),
    )
