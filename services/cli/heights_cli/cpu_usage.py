"""CPU time read from /proc, for benchmarks and load tests that report where time went.

Linux only (the machines we measure on). Seconds, summed over all cores.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import resource
from pathlib import Path

from heights_cli.proc_stat import process_stat


def _machine_ticks() -> list[int]:
    """/proc/stat's first line: user nice system idle iowait irq softirq steal ..."""
    return [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]


def busy_seconds() -> float:
    """CPU seconds this machine's own work took since boot, from /proc/stat.

    Steal (time the hypervisor gave our virtual CPUs to someone else) is not ours and is
    left out; `stolen_seconds` reports it.
    """
    fields = _machine_ticks()
    return sum(fields[i] for i in (0, 1, 2, 5, 6)) / os.sysconf("SC_CLK_TCK")


def stolen_seconds() -> float:
    """CPU seconds the hypervisor took from this machine's virtual CPUs since boot."""
    return _machine_ticks()[7] / os.sysconf("SC_CLK_TCK")


def process_seconds(pids: list[int]) -> float:
    """CPU seconds (user + system) the processes used so far; a gone process counts 0."""
    total = 0
    for pid in pids:
        if (found := process_stat(pid)) is not None:
            total += int(found[1][11]) + int(found[1][12])  # utime, stime
    return total / os.sysconf("SC_CLK_TCK")


def _processes() -> dict[int, tuple[str, list[str]]]:
    """Every live process: its command name and /proc/PID/stat's fields after the name
    (index 1 is the parent; 11-14 utime, stime, cutime, cstime; 19 the start time)."""
    found: dict[int, tuple[str, list[str]]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (stat := process_stat(int(entry.name))) is not None:
            found[int(entry.name)] = stat
    return found


def _children(processes: dict[int, tuple[str, list[str]]]) -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for pid, (_, stat) in processes.items():
        children.setdefault(int(stat[1]), []).append(pid)
    return children


def tree_seconds(roots: list[int]) -> float:
    """CPU seconds the process trees under `roots` used so far, ended children included.

    A live process counts its own time; one that ended counts in its parent's
    cutime/cstime once waited for (bubblewrap and the runner wait for theirs), so each
    second is counted once.
    """
    return sum(tree_split_seconds(roots, boundary=""))  # no command is named ""


def tree_split_seconds(roots: list[int], boundary: str) -> tuple[float, float]:
    """`tree_seconds` of `roots` split in two: the processes outside any subtree whose
    root's command name is `boundary` (say `bwrap`: the runner without its bots), and
    everything under such subtrees, ended ones included (their parents waited for them).
    """
    processes = _processes()
    children = _children(processes)
    outside = inside = 0
    todo, seen = [(pid, False) for pid in roots], set()
    while todo:
        pid, under = todo.pop()
        if pid in seen or pid not in processes:
            continue
        seen.add(pid)
        name, stat = processes[pid]
        under = under or name == boundary
        own, waited = stat[11:13], stat[13:15]
        if under:
            inside += sum(int(v) for v in (*own, *waited))
        else:  # a waited-for child of the runner is an ended sandbox: its bot's time
            outside += sum(int(v) for v in own)
            inside += sum(int(v) for v in waited)
        todo += [(child, under) for child in children.get(pid, [])]
    tick = os.sysconf("SC_CLK_TCK")
    return outside / tick, inside / tick


def pids_named(command: str) -> list[int]:
    """Processes whose command name (/proc/PID/comm, as stat shows it) is `command`."""
    return [pid for pid, (name, _) in _processes().items() if name == command]


def children_seconds() -> float:
    """CPU seconds of this process's waited-for children (locust, say)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


KTHREADD = 2  # the kernel's thread creator: its children are the kernel's own threads


@dataclasses.dataclass(frozen=True, slots=True)
class ProcessTimes:
    """Every process's own CPU ticks at one moment, keyed by (pid, start time) so that a
    pid reused meanwhile is a new process."""

    ticks: dict[tuple[int, int], int]
    parents: dict[int, int]
    names: dict[int, str]

    @classmethod
    def now(cls) -> ProcessTimes:
        ticks, parents, names = {}, {}, {}
        for pid, (name, stat) in _processes().items():
            ticks[pid, int(stat[19])] = int(stat[11]) + int(stat[12])  # utime, stime
            parents[pid], names[pid] = int(stat[1]), name
        return cls(ticks, parents, names)

    def descendants(self, roots: list[int]) -> set[int]:
        """`roots` and every live process under them."""
        children: dict[int, list[int]] = {}
        for pid, parent in self.parents.items():
            children.setdefault(parent, []).append(pid)
        found, todo = set(), list(roots)
        while todo:
            pid = todo.pop()
            if pid not in found:
                found.add(pid)
                todo += children.get(pid, [])
        return found


def seconds_between(before: ProcessTimes, after: ProcessTimes, pids: set[int]) -> float:
    """Own CPU seconds the live processes `pids` used between two snapshots (all of a
    process's time if it started in between; processes that ended meanwhile are not seen)."""
    ticks = sum(t - before.ticks.get(key, 0) for key, t in after.ticks.items() if key[0] in pids)
    return ticks / os.sysconf("SC_CLK_TCK")


def kernel_thread_pids(snapshot: ProcessTimes) -> set[int]:
    return {KTHREADD} | {pid for pid, parent in snapshot.parents.items() if parent == KTHREADD}


def interrupt_seconds() -> float:
    """CPU seconds in hard and soft interrupts (irq, softirq columns of /proc/stat).

    With tick-based accounting (no CONFIG_IRQ_TIME_ACCOUNTING) a tick that lands in an
    interrupt is also charged to the task it interrupted: these overlap the processes'
    times, except for interrupts served while a core was idle.
    """
    fields = _machine_ticks()
    return (fields[5] + fields[6]) / os.sysconf("SC_CLK_TCK")


CPUACCT = Path("/sys/fs/cgroup/cpuacct")  # cgroup v1's CPU accounting hierarchy


@dataclasses.dataclass(frozen=True, slots=True)
class CpuGroup:
    """A cgroup v1 `cpuacct` group holding this process and all it starts from then on.

    A process tree's counts (`tree_seconds`) miss the processes of a PID namespace, such
    as a sandboxed bot under bubblewrap's `--unshare-pid`: they are reaped inside the
    namespace and their time never reaches a parent outside it. A cgroup counts every
    task in it however it ends. Only where cpuacct is mounted and writable (root on a
    cgroup v1 machine); under cgroup v2, moving this process into a child group would
    keep the runner from enabling controllers for its bots' groups below, so `enter`
    gives None there.
    """

    path: Path
    home: Path

    @classmethod
    def enter(cls, name: str) -> CpuGroup | None:
        own = _own_path_in("cpuacct")
        if own is None or not (CPUACCT / "cpuacct.usage").exists():
            return None
        home = CPUACCT / own.lstrip("/")
        path = home / name
        try:
            path.mkdir()
            (path / "cgroup.procs").write_text(str(os.getpid()))
        except OSError:
            with contextlib.suppress(OSError):
                path.rmdir()
            return None
        return cls(path, home)

    def seconds(self) -> float:
        return int((self.path / "cpuacct.usage").read_text()) / 1e9

    def leave(self) -> None:
        """This process back to where it was, and the group removed once it is empty
        (the processes this one started must have ended)."""
        with contextlib.suppress(OSError):
            (self.home / "cgroup.procs").write_text(str(os.getpid()))
            self.path.rmdir()


def _own_path_in(controller: str) -> str | None:
    """This process's cgroup in a v1 hierarchy holding `controller`, from /proc/self/cgroup."""
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            if controller in controllers.split(","):
                return path
    return None
