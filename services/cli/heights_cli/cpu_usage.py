"""CPU time read from /proc, for benchmarks and load tests that report where time went.

Linux only (the machines we measure on). Seconds, summed over all cores.
"""

from __future__ import annotations

import contextlib
import os
import resource
from pathlib import Path


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
        with contextlib.suppress(OSError):
            stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(stat[11]) + int(stat[12])  # utime, stime
    return total / os.sysconf("SC_CLK_TCK")


def tree_seconds(roots: list[int]) -> float:
    """CPU seconds the process trees under `roots` used so far, ended children included.

    A live process counts its own time; one that ended counts in its parent's
    cutime/cstime once waited for (bubblewrap and the runner wait for theirs), so each
    second is counted once.
    """
    children: dict[int, list[int]] = {}
    stats: dict[int, list[str]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                stat = Path(entry, "stat").read_text().rsplit(")", 1)[1].split()
                stats[int(entry.name)] = stat
                children.setdefault(int(stat[1]), []).append(int(entry.name))
    total, todo, seen = 0, list(roots), set()
    while todo:
        pid = todo.pop()
        if pid in seen or pid not in stats:
            continue
        seen.add(pid)
        total += sum(int(v) for v in stats[pid][11:15])  # utime, stime, cutime, cstime
        todo += children.get(pid, [])
    return total / os.sysconf("SC_CLK_TCK")


def tree_split_seconds(roots: list[int], boundary: str) -> tuple[float, float]:
    """`tree_seconds` of `roots` split in two: the processes outside any subtree whose
    root's command name is `boundary` (say `bwrap`: the runner without its bots), and
    everything under such subtrees, ended ones included (their parents waited for them).
    """
    children: dict[int, list[int]] = {}
    stats: dict[int, list[str]] = {}
    names: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                head, tail = Path(entry, "stat").read_text().rsplit(")", 1)
                pid = int(entry.name)
                stats[pid], names[pid] = tail.split(), head.split("(", 1)[1]
                children.setdefault(int(stats[pid][1]), []).append(pid)
    outside = inside = 0
    todo, seen = [(pid, False) for pid in roots], set()
    while todo:
        pid, under = todo.pop()
        if pid in seen or pid not in stats:
            continue
        seen.add(pid)
        under = under or names[pid] == boundary
        own, waited = stats[pid][11:13], stats[pid][13:15]
        if under:
            inside += sum(int(v) for v in (*own, *waited))
        else:  # a waited-for child of the runner is an ended sandbox: its bot's time
            outside += sum(int(v) for v in own)
            inside += sum(int(v) for v in waited)
        todo += [(child, under) for child in children.get(pid, [])]
    tick = os.sysconf("SC_CLK_TCK")
    return outside / tick, inside / tick


def pids_named(command: str) -> list[int]:
    """Processes whose command name (/proc/PID/comm) is `command`."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if Path(entry, "comm").read_text().strip() == command:
                    found.append(int(entry.name))
    return found


def children_seconds() -> float:
    """CPU seconds of this process's waited-for children (locust, say)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime
