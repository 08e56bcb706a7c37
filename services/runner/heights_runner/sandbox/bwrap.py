"""The bubblewrap command line: what a bot sees of the machine."""

from __future__ import annotations

import functools
import os
import shutil
import site
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


@functools.cache
def python_site_dirs() -> tuple[str, ...]:
    """The base interpreter's site-packages (Debian: dist-packages), hidden from bots.

    python_binds() binds the interpreter's whole prefix (or /usr holds it), and with it
    whatever was pip-installed there: a bot would import it (`site` puts these on
    sys.path, and a bot could add them itself), so they are covered, not just left off.
    """
    prefixes = list(dict.fromkeys([sys.base_prefix, sys.base_exec_prefix]))
    found = {os.path.realpath(path) for path in site.getsitepackages(prefixes)}
    return tuple(sorted(path for path in found if os.path.isdir(path)))


def _covers(hidden: str, binds: Sequence[tuple[str, str]]) -> bool:
    """Whether to hide `hidden`: not when a bind asks for it or for something in it."""
    return not any(
        inside == hidden or inside.startswith(hidden.rstrip("/") + "/") for _, inside in binds
    )


def _inside(path: str, roots: Sequence[str]) -> bool:
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


def system_args(usr: Sequence[str] | None = None) -> list[str]:
    """The system, read-only: all of /usr, or only the paths in `usr` (a runtime's own:
    `toolchains`), and the top-level links and loader files every program needs."""
    if usr is None:
        args = ["--ro-bind", "/usr", "/usr"]
    else:
        args = [arg for path in dict.fromkeys(usr) for arg in ("--ro-bind", path, path)]
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
    hidden: Sequence[str] = (),
    rw_binds: Sequence[tuple[str, str]] = (),
    usr: Sequence[str] | None = None,
    status_fd: int | None = None,
    scratch: tuple[str, int] | None = None,
    block_fd: int | None = None,
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
    args += system_args(usr)
    # The private /tmp comes before the read-only binds: when the runner's files live
    # under the host's /tmp (a checkout or a cache there), a later tmpfs would hide them.
    args += ["--size", str(limits.tmp_bytes), "--tmpfs", "/tmp"]
    for host, inside in ro_binds:
        args += ["--ro-bind", host, inside]
    for host, inside in rw_binds:  # a build's output folder, nothing else
        args += ["--bind", host, inside]
    if scratch is not None:  # a build's output: a tmpfs of a fixed size, not the disk
        args += ["--size", str(scratch[1]), "--tmpfs", scratch[0]]
    # An empty read-only tmpfs over each that something bound shows: what was installed
    # there is not there (elsewhere it is not there anyway; a tmpfs would only add folders).
    shown = [inside for _, inside in ro_binds] + list(["/usr"] if usr is None else usr)
    for path in hidden:
        if _inside(path, shown) and _covers(path, ro_binds):
            args += ["--tmpfs", path, "--remount-ro", path]
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
    if status_fd is not None:
        # How the runner tells a sandbox that failed to set itself up from a bot that
        # crashed (sandbox/status.py).
        args += ["--json-status-fd", str(status_fd)]
    if block_fd is not None:
        # The program waits, its mounts made, until the runner holds its scratch tmpfs.
        args += ["--block-fd", str(block_fd)]
    return [*args, "--", *argv]
