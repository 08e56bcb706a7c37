"""The bubblewrap command line: what a bot sees of the machine."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from heights_runner.sandbox.limits import Limits

SANDBOX_UID = 65534  # "nobody", inside the user namespace
BOT_DIR = "/bot"
# Only what a dynamically linked interpreter needs: no /etc (passwd, secrets), /root, /home
# or /work. /usr is system software; the few /etc files are for the dynamic loader.
_ETC_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/localtime")
_TOP_DIRS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
# The sandbox user is mapped to the host user running bwrap; when that is root, procfs
# trusts it with global knobs (sysctls, sysrq). bwrap 0.8 leaves these writable, so cover them.
_PROC_COVER = ("sys", "sysrq-trigger", "irq", "bus", "fs", "latency_stats", "timer_list")


def bwrap_path() -> str | None:
    return shutil.which("bwrap", path="/usr/bin:/bin:/usr/local/bin")


def python_binds() -> tuple[str, list[tuple[str, str]]]:
    """This runner's base interpreter (never the venv) and the read-only binds it needs."""
    exe = os.path.realpath(sys._base_executable)  # type: ignore[attr-defined]
    binds: list[tuple[str, str]] = []
    for prefix in {os.path.realpath(sys.base_prefix), os.path.realpath(sys.base_exec_prefix)}:
        if prefix != "/usr" and not prefix.startswith("/usr/"):
            binds.append((prefix, prefix))
    return exe, sorted(binds)


def system_args() -> list[str]:
    args = ["--ro-bind", "/usr", "/usr"]
    for name in _TOP_DIRS:
        path = Path("/") / name
        if path.is_symlink():
            # Merged /usr: recreate the symlink instead of exposing anything new.
            args += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
    for name in _ETC_FILES:
        args += ["--ro-bind-try", name, name]
    return args


def command(
    bwrap: str,
    workdir: Path,
    argv: Sequence[str],
    *,
    limits: Limits,
    ro_binds: Sequence[tuple[str, str]],
    env: Mapping[str, str],
    seccomp_fd: int | None,
) -> list[str]:
    args = [
        bwrap,
        "--unshare-all",  # network, PID, IPC, UTS, cgroup and mount namespaces
        "--unshare-user",
        "--uid",
        str(SANDBOX_UID),
        "--gid",
        str(SANDBOX_UID),
        "--hostname",
        "bot",
        "--cap-drop",
        "ALL",
        "--die-with-parent",
        "--new-session",  # no TIOCSTI into the runner's terminal
        "--clearenv",
    ]
    for key, value in sorted(env.items()):
        args += ["--setenv", key, value]
    args += system_args()
    # The private /tmp comes before the read-only binds: when the runner's files live
    # under the host's /tmp (a checkout or a cache there), a later tmpfs would hide them.
    args += ["--size", str(limits.tmp_bytes), "--tmpfs", "/tmp"]
    for host, inside in ro_binds:
        args += ["--ro-bind", host, inside]
    args += ["--proc", "/proc", "--dev", "/dev"]
    for name in _PROC_COVER:
        args += ["--ro-bind-try", f"/proc/{name}", f"/proc/{name}"]
    # /dev is a writable tmpfs otherwise (including /dev/shm, with no size limit).
    args += ["--remount-ro", "/dev"]
    args += ["--ro-bind", str(workdir), BOT_DIR, "--chdir", BOT_DIR]
    # Last: the root itself is a tmpfs bwrap built; nothing but /tmp should stay writable.
    args += ["--remount-ro", "/"]
    if seccomp_fd is not None:
        args += ["--seccomp", str(seccomp_fd)]
    return [*args, "--", *argv]
