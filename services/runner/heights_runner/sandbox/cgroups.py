"""Per-bot cgroups: memory, process count and CPU bandwidth for a bot and all it starts.

Both cgroup v1 (one hierarchy per controller) and v2 (one unified hierarchy) are handled.
Bot cgroups are created *below the runner's own cgroup*, so whatever limits the runner's
supervisor put on the runner still apply to its bots.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import re
import signal
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TypeAlias

log = logging.getLogger("heights.runner")

ROOT = Path("/sys/fs/cgroup")
_GROUP = "heights-sandbox"
# The file that must exist for a controller to be usable, per cgroup version.
_PROBE_FILE = {
    ("memory", False): "memory.limit_in_bytes",
    ("memory", True): "memory.max",
    ("pids", False): "pids.max",
    ("pids", True): "pids.max",
    ("cpu", False): "cpu.cfs_quota_us",
    ("cpu", True): "cpu.max",
}
# Best effort: without swap accounting these do not exist, and memory alone still holds.
_OPTIONAL = {"memory.memsw.limit_in_bytes", "memory.swap.max"}
_CPU_PERIOD_US = 100_000
SettingsMap: TypeAlias = dict[str, dict[str, str]]


def is_v2() -> bool:
    return (ROOT / "cgroup.controllers").exists()


def _own_path(controller: str) -> str | None:
    """The runner's cgroup in `controller`'s hierarchy ("" key for v2), from /proc/self/cgroup."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if controller in controllers.split(","):
            return path
    return None


def parent_dir(controller: str) -> Path | None:
    """Where bot cgroups for `controller` go ("memory", "pids", "cpu"); None if unavailable."""
    if is_v2():
        own = _own_path("")
        enabled = (ROOT / "cgroup.controllers").read_text().split()
        if own is None or controller not in enabled:
            return None
        return ROOT / own.lstrip("/") / _GROUP
    own = _own_path(controller)
    if own is None or not (ROOT / controller).is_dir():
        return None
    return ROOT / controller / own.lstrip("/") / _GROUP


def _ensure_parent(parent: Path, controller: str) -> None:
    parent.mkdir(exist_ok=True)
    if is_v2():
        # v2 only hands a controller to children that the parent enables for its subtree.
        with contextlib.suppress(OSError):
            (parent / "cgroup.subtree_control").write_text(f"+{controller}")


def writable(controller: str) -> tuple[bool, str]:
    """Can a bot cgroup be made here? (yes/no, and a line saying why) — tried for real."""
    parent = parent_dir(controller)
    if parent is None:
        return False, f"no {controller} cgroup controller mounted"
    probe = parent / f"probe-{uuid.uuid4().hex[:8]}"
    try:
        _ensure_parent(parent, controller)
        probe.mkdir()
        if not (probe / _PROBE_FILE[controller, is_v2()]).exists():
            return False, f"{controller} controller not enabled at {parent}"
    except OSError as exc:
        return False, f"cannot create a {controller} cgroup under {parent}: {exc.strerror}"
    finally:
        with contextlib.suppress(OSError):
            probe.rmdir()
    return True, f"{controller} cgroup under {parent}"


def _start_ticks(pid: int) -> int | None:
    """When `pid` started (clock ticks after boot, /proc/<pid>/stat field 22); None if it
    has ended (gone, or a zombie: its bots have had their parent-death signal).

    With the pid it names one process for good: a pid is reused, a (pid, start) pair is not.
    """
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):  # gone
        return None
    # Any other error (out of file descriptors, memory) says nothing of the process: it
    # propagates, and a sweep then kills nothing rather than a live runner's bots.
    # The command name (field 2) may hold spaces and parentheses: count from its end.
    fields = stat[stat.rindex(")") + 2 :].split()
    return None if fields[0] in ("Z", "X") else int(fields[19])


def _pid_namespace() -> int:
    """This process's PID namespace (its inode): pids mean something only inside it."""
    return os.stat("/proc/self/ns/pid").st_ino


@dataclass(frozen=True, slots=True)
class Owner:
    """The runner process that made a bot cgroup, as its name records it."""

    namespace: int
    pid: int
    start: int

    @classmethod
    def this_process(cls) -> Owner:
        return _owner(os.getpid())  # by pid: a forked pool process is an owner of its own

    @classmethod
    def of(cls, name: str) -> Owner | None:
        """The owner a cgroup's name records; None for a name in another (older) form."""
        match = _NAME.fullmatch(name)
        if match is None:
            return None
        return cls(int(match["ns"]), int(match["pid"]), int(match["start"]))

    def name(self) -> str:
        return f"bot-n{self.namespace}-p{self.pid}-s{self.start}-{uuid.uuid4().hex[:8]}"

    def provably_dead(self) -> bool:
        """Whether this owner has certainly ended. Only a process of our own PID namespace
        can be looked up: a runner in another one (another container sharing the cgroup
        tree) may be alive with a pid we cannot see, so its cgroups are never ours to end."""
        if self.namespace != _pid_namespace():
            return False
        return _start_ticks(self.pid) != self.start


@functools.cache
def _owner(pid: int) -> Owner:
    return Owner(_pid_namespace(), pid, _start_ticks(pid) or 0)


_NAME = re.compile(r"bot-n(?P<ns>\d+)-p(?P<pid>\d+)-s(?P<start>\d+)-[0-9a-f]+")


def sweep(min_age: float = 300.0) -> int:
    """End and remove what dead runners left in the bot cgroups; how many cgroups removed.

    A runner killed mid-match (SIGKILL, a Celery hard time limit, the OOM killer) never
    runs `close()`: its bots' cgroups stay, and whatever of a bot outlived it stays in
    them. A cgroup whose name records an owner that is provably dead has its processes
    killed and is removed; one whose owner lives (another worker on this machine, mid-match)
    is left alone. Any other cgroup (the older form of name, with no owner; an owner in
    another PID namespace, or one that may live) is removed only when empty and older
    than `min_age` (rmdir refuses one that holds a process).
    """
    removed = 0
    now = time.time()
    for controller in ("memory", "pids", "cpu"):
        parent = parent_dir(controller)
        if parent is None or not parent.is_dir():
            continue
        for path in parent.glob("bot-*"):
            owner = Owner.of(path.name)
            try:
                dead = owner is not None and owner.provably_dead()
            except OSError:  # /proc unreadable for a reason other than the owner's end
                dead = False
            if dead:
                left = BotCgroup([path], None)
                left.kill_all()
                removed += left.remove()
                continue
            # No owner, or one that may live (here, or in another PID namespace): only an
            # empty cgroup that has stood long enough goes (rmdir refuses a non-empty one).
            with contextlib.suppress(OSError):
                if now - path.stat().st_mtime > min_age:
                    path.rmdir()
                    removed += 1
    return removed


@dataclass(slots=True)
class BotCgroup:
    """The cgroups of one bot; the child enters them with `join(procs_paths())` before exec."""

    dirs: list[Path]
    memory_dir: Path | None

    @classmethod
    def create(cls, settings: SettingsMap) -> BotCgroup:
        """One cgroup per controller in `settings`, with its files written (see `settings`)."""
        # The name says whose it is, so that a later runner can tell a dead runner's
        # leftovers (`sweep`) from the cgroups of a runner beside it that is mid-match.
        name = Owner.this_process().name()
        group = cls([], None)
        try:
            for controller, files in settings.items():
                parent = parent_dir(controller)
                assert parent is not None
                _ensure_parent(parent, controller)
                path = parent / name
                if path not in group.dirs:  # v2: one directory serves every controller
                    path.mkdir()
                    group.dirs.append(path)
                if controller == "memory":
                    group.memory_dir = path
                for file, value in files.items():
                    with contextlib.suppress(*((OSError,) if file in _OPTIONAL else ())):
                        (path / file).write_text(value)
        except OSError:
            group.remove()
            raise
        return group

    def procs_paths(self) -> list[bytes]:
        return [bytes(d / "cgroup.procs") for d in self.dirs]

    def pids(self) -> set[int]:
        found: set[int] = set()
        for d in self.dirs:
            with contextlib.suppress(OSError):
                found.update(int(p) for p in (d / "cgroup.procs").read_text().split())
        return found

    def oom_killed(self) -> bool:
        if self.memory_dir is None:
            return False
        name = "memory.events" if is_v2() else "memory.oom_control"
        try:
            text = (self.memory_dir / name).read_text()
        except OSError:
            return False
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill" and int(value) > 0:
                return True
        return False

    def kill_all(self, timeout: float = 2.0) -> bool:
        """SIGKILL every process in the cgroups until none is left; False if some survive."""
        deadline = time.monotonic() + timeout
        for d in self.dirs:
            with contextlib.suppress(OSError):
                (d / "cgroup.kill").write_text("1")  # v2: atomic, no fork race
        while (pids := self.pids()) and time.monotonic() < deadline:
            # v1 has no cgroup.kill: repeat, since a fork bomb adds processes while we kill.
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.01)
        return not self.pids()

    def remove(self) -> int:
        """rmdir every directory; how many were removed (a survivor is logged, not raised:
        the bot has ended either way, and the next start's `sweep` tries again)."""
        removed = 0
        for d in self.dirs:
            # rmdir fails with EBUSY for a moment after the last process has exited.
            for _ in range(100):
                try:
                    d.rmdir()
                    removed += 1
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.01)
            else:
                log.warning("bot cgroup %s could not be removed: %s", d, sorted(self.pids()))
        return removed


def settings(memory: int | None, pids: int | None, cpu_cores: float | None) -> SettingsMap:
    """The files to write for each controller in use (None: controller not available)."""
    v2 = is_v2()
    out: SettingsMap = {}
    if memory is not None:
        if v2:
            out["memory"] = {"memory.max": str(memory), "memory.swap.max": "0"}
        else:
            # Without a memsw limit a bot could page itself out to swap instead of stopping.
            both = str(memory)
            out["memory"] = {"memory.limit_in_bytes": both, "memory.memsw.limit_in_bytes": both}
    if pids is not None:
        out["pids"] = {"pids.max": str(pids)}
    if cpu_cores is not None:
        quota = str(max(1000, int(cpu_cores * _CPU_PERIOD_US)))
        if v2:
            out["cpu"] = {"cpu.max": f"{quota} {_CPU_PERIOD_US}"}
        else:
            out["cpu"] = {"cpu.cfs_period_us": str(_CPU_PERIOD_US), "cpu.cfs_quota_us": quota}
    return out


def join(procs_paths: list[bytes]) -> None:
    """Move the calling process into the bot cgroups: only raw syscalls, for preexec_fn."""
    pid = str(os.getpid()).encode()
    for path in procs_paths:
        fd = os.open(path, os.O_WRONLY)
        try:
            os.write(fd, pid)
        finally:
            os.close(fd)
