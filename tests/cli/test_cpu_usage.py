"""CPU accounting for the benchmarks: a process tree's time, ended children included."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid

import pytest

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


def _burn_in_a_pid_namespace() -> None:
    """A burning process as a sandbox runs a bot: bubblewrap with a PID namespace."""
    subprocess.run(
        [
            "bwrap",
            "--ro-bind",
            "/",
            "/",
            "--proc",
            "/proc",
            "--dev",
            "/dev",
            "--unshare-user",
            "--unshare-pid",
            "--",
            sys.executable,
            "-c",
            BURN,
        ],
        check=True,
    )


def test_a_cpu_group_counts_what_a_pid_namespace_hides_from_the_tree() -> None:
    from heights_cli.cpu_usage import CpuGroup

    if shutil.which("bwrap") is None:
        pytest.skip("no bubblewrap")
    group = CpuGroup.enter(f"heights-test-{uuid.uuid4().hex[:8]}")
    if group is None:
        pytest.skip("no writable cgroup v1 cpuacct hierarchy here")
    try:
        tree0, group0 = tree_seconds([os.getpid()]), group.seconds()
        _burn_in_a_pid_namespace()
        tree1, group1 = tree_seconds([os.getpid()]), group.seconds()
    finally:
        group.leave()
    assert group1 - group0 >= 0.25
    # Why the benchmark needs the group: the namespace's processes are reaped inside it,
    # and their time reaches no parent outside.
    assert tree1 - tree0 < 0.25
    assert not group.path.exists()


def test_snapshots_count_a_live_process_between_them_and_split_off_the_kernels_threads() -> None:
    from heights_cli.cpu_usage import ProcessTimes, kernel_thread_pids, seconds_between

    child = subprocess.Popen([sys.executable, "-c", BURN + "time.sleep(30)\n"])
    try:
        before = ProcessTimes.now()
        deadline = time.monotonic() + 30
        while seconds_between(before, ProcessTimes.now(), {child.pid}) < 0.1:
            assert time.monotonic() < deadline, "the child burnt nothing after the snapshot"
            time.sleep(0.02)
        after = ProcessTimes.now()
        assert child.pid in after.descendants([os.getpid()])
        assert child.pid not in kernel_thread_pids(after)
        assert 2 in kernel_thread_pids(after)  # kthreadd itself
        assert 0.1 <= seconds_between(before, after, {child.pid}) <= 0.35
    finally:
        child.kill()
        child.wait()


def test_processes_are_found_by_their_command_name() -> None:
    from heights_cli.cpu_usage import pids_named

    with subprocess.Popen(["sleep", "30"]) as child:
        try:
            assert child.pid in pids_named("sleep")
            assert child.pid not in pids_named("sleeper")
        finally:
            child.kill()
