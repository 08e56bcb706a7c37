"""CPU accounting for the benchmarks: a process tree's time, ended children included."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from heights_cli.cpu_usage import tree_seconds

BURN = "import time\nend = time.process_time() + 0.3\nwhile time.process_time() < end: pass\n"


def test_a_tree_counts_the_time_of_children_that_ended_and_were_waited_for() -> None:
    before = tree_seconds([os.getpid()])
    # A grandchild burns the CPU: the shell waits for it, this process for the shell.
    subprocess.run(["sh", "-c", f'"{sys.executable}" -c "$0"', BURN], check=True)
    assert tree_seconds([os.getpid()]) - before >= 0.25


def test_a_process_that_is_not_there_counts_nothing() -> None:
    assert tree_seconds([2**22 + 1]) == 0.0  # above the kernel's pid_max: never a process


def test_the_machine_counters_grow_and_leave_steal_apart() -> None:
    from heights_cli.cpu_usage import busy_seconds, stolen_seconds

    busy, stolen = busy_seconds(), stolen_seconds()
    end = time.process_time() + 0.2
    while time.process_time() < end:
        pass
    assert busy_seconds() - busy >= 0.15  # this process's own burn is machine work
    assert stolen_seconds() >= stolen >= 0.0


def test_a_split_tree_puts_a_named_subtree_and_its_ended_children_on_one_side() -> None:
    from heights_cli.cpu_usage import tree_split_seconds

    outside0, inside0 = tree_split_seconds([os.getpid()], "sh")
    # The burning grandchild runs under `sh`, then ends: its time is the inside's.
    subprocess.run(["sh", "-c", f'"{sys.executable}" -c "$0"', BURN], check=True)
    outside1, inside1 = tree_split_seconds([os.getpid()], "sh")
    assert inside1 - inside0 >= 0.25
    assert outside1 - outside0 < 0.25
