"""Hostile bots (tests/runner/hostile/): each is contained, faults as it should, leaves nothing.

Limits are kept small so that a failure of the sandbox cannot hurt the machine running it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import json
import os
import platform
import shutil
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from heights_runner.sandbox import (
    BotFlood,
    BotGone,
    BotProcess,
    BotTimeout,
    Limits,
    probe,
    python_binds,
    seccomp,
    start_bot,
)
from heights_runner.sandbox import start as start_module

pytestmark = pytest.mark.skipif(not probe().bwrap, reason="bubblewrap is not usable here")
HOSTILE = Path(__file__).parent / "hostile"
Start = Callable[..., BotProcess]


def _processes_with(marker: str) -> list[int]:
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            with contextlib.suppress(OSError):
                if marker.encode() in (proc / "cmdline").read_bytes():
                    found.append(int(proc.name))
    return found


@pytest.fixture
def hostile(tmp_path: Path) -> Iterator[Start]:
    """Starts tests/runner/hostile/<name>.py; at teardown, closes it and checks nothing lives."""
    started: list[tuple[BotProcess, str]] = []

    def start(name: str, limits: Limits = Limits(), trusted: bool = False) -> BotProcess:  # noqa: B008
        folder = tmp_path / f"{name}-{len(started)}"
        folder.mkdir()
        shutil.copy(HOSTILE / f"{name}.py", folder / "main.py")
        marker = f"hostile-marker-{uuid.uuid4().hex}"  # in every process's argv, forks included
        exe, binds = python_binds()
        argv = [exe, "-u", "/bot/main.py", marker]
        bot = start_bot(folder, argv, limits=limits, ro_binds=binds, trusted=trusted)
        started.append((bot, marker))
        return bot

    yield start
    for bot, marker in started:
        bot.close()
        assert _processes_with(marker) == []


def test_network_is_unreachable(hostile: Start) -> None:
    # 127.0.0.1:6379 is a real Redis on the development machine; it must stay out of reach.
    results = json.loads(hostile("network").receive(10))
    for family in ("AF_INET", "AF_INET6", "AF_NETLINK", "AF_PACKET", "redis"):
        assert results[family] == f"refused: {errno.EPERM}", family
    assert results["AF_UNIX"] == "open"


def test_host_files_and_environment_stay_hidden(
    hostile: Start, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HEIGHTS_FAKE_SECRET", "hunter2")
    line = hostile("snoop").receive(10)
    found = json.loads(line)
    assert "hunter2" not in line
    for path in ("/etc/passwd", "/etc/shadow", "/home", "/work"):
        assert found[path] == "refused: FileNotFoundError", path
    assert not {"home", "work", "var", "srv", "opt"} & set(found["/"])
    # /root exists inside only when the interpreter is installed under it (bound alone).
    _, binds = python_binds()
    visible = {
        Path(inside).relative_to("/root").parts[0]
        for _, inside in binds
        if inside.startswith("/root/")
    }
    if visible:
        assert found["/root"] == f"ok: {sorted(visible)!r}"
    assert set(found["environ"]) <= {"PWD", "LC_CTYPE"}


def test_writes_outside_tmp_fail(hostile: Start) -> None:
    results = json.loads(hostile("write_outside").receive(10))
    assert results.pop("/tmp/x") == "written"
    assert results.pop("/proc/sys/vm/swappiness") in {"EROFS", "EACCES", "EPERM"}
    assert all(outcome != "written" for outcome in results.values()), results


def test_tmp_is_bounded(hostile: Start) -> None:
    limits = Limits(tmp_bytes=4 * 2**20)
    result = json.loads(hostile("fill_tmp", limits).receive(10))
    assert result["written"] <= limits.tmp_bytes
    assert result["error"] == f"OSError: {errno.ENOSPC}"


def _without_seccomp(monkeypatch: pytest.MonkeyPatch) -> None:
    """bubblewrap as usual, no filter (only a trusted bot may be started so)."""
    caps = dataclasses.replace(probe(), seccomp=False)
    monkeypatch.setattr(start_module, "probe", lambda: caps)


x86_64_only = pytest.mark.skipif(platform.machine() != "x86_64", reason="x86_64 machine code")
# Calls the kernel itself refuses an unprivileged caller before looking at the arguments
# (may_mount() first), and calls whose refusal depends on sysctls (kernel.perf_event_paranoid,
# unprivileged_bpf_disabled, vm.unprivileged_userfaultfd, io_uring_disabled): with these
# the filter's EPERM cannot be told from the kernel's on every machine.
_EPERM_ANYWAY = {"pivot_root", "move_mount", "fsopen", "fsmount", "fspick"}
_SYSCTL_DEPENDENT = {"bpf", "perf_event_open", "userfaultfd"} | {
    f"io_uring_{call}" for call in ("setup", "enter", "register")
}


@x86_64_only
def test_seccomp_refuses_every_denied_call_class(hostile: Start) -> None:
    results = json.loads(hostile("syscalls").receive(10))
    assert results.pop("clone3") == "ENOSYS"  # so that libc falls back to clone
    expected = {f"clone({flag})" for flag in seccomp.CLONE_NS_FLAGS}
    expected |= {*seccomp.DENIED_SYSCALLS, "socketpair(AF_INET)"}
    assert set(results) == expected  # the bot tries every call the filter names
    assert results == dict.fromkeys(expected, "EPERM")


@x86_64_only
def test_without_the_filter_the_same_calls_fail_otherwise(
    hostile: Start, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The control for the test above: its EPERMs come from the filter, not the kernel.
    _without_seccomp(monkeypatch)
    results = json.loads(hostile("syscalls", trusted=True).receive(10))
    assert results.pop("clone3") != "ENOSYS"
    for call in _EPERM_ANYWAY | _SYSCTL_DEPENDENT:
        results.pop(call)
    assert len(results) == 22
    assert "EPERM" not in results.values(), results


@x86_64_only
@pytest.mark.parametrize("abi", ["i386", "x32"])
def test_a_call_through_another_abi_kills_the_bot(hostile: Start, abi: str) -> None:
    bot = hostile("foreign_abi")
    assert bot.receive(10) == "ready"
    bot.send(abi)
    with pytest.raises(BotGone) as fault:
        bot.receive(10)
    assert fault.value.reason == "crash"
    assert bot.exit_info() == "killed by SIGSYS"


@x86_64_only
def test_without_the_filter_the_other_abi_call_returns(
    hostile: Start, monkeypatch: pytest.MonkeyPatch
) -> None:
    _without_seccomp(monkeypatch)
    bot = hostile("foreign_abi", trusted=True)
    assert bot.receive(10) == "ready"
    bot.send("x32")  # returns ENOSYS or a pid, as the kernel has x32 or not: never SIGSYS
    assert bot.receive(10).startswith("survived ")


def test_fork_bomb_is_contained_and_cleaned_up(hostile: Start) -> None:
    bot = hostile("fork_bomb", Limits(processes=8))
    word, count = bot.receive(20).split()
    assert word == "refused"
    assert int(count) > 0
    # The fixture closes it and checks that none of its processes is left.


def test_memory_hog_is_killed(hostile: Start) -> None:
    bot = hostile("memory_hog", Limits(memory_bytes=64 * 2**20))
    assert bot.receive(10) == "allocating"
    with pytest.raises(BotGone) as fault:
        bot.receive(20)
    if probe().cgroup_memory:
        assert fault.value.reason == "memory"
        assert bot.exit_info() == "killed by SIGKILL (memory limit)"
    else:
        assert fault.value.reason == "crash"  # MemoryError under RLIMIT_AS


def test_infinite_loop_times_out_then_hits_cpu_limit(hostile: Start) -> None:
    bot = hostile("spin", Limits(cpu_seconds=1))
    assert bot.receive(10) == "ready"
    with pytest.raises(BotTimeout) as fault:
        bot.receive(0.3)
    assert fault.value.reason == "timeout"
    with pytest.raises(BotGone):
        bot.receive(10)
    assert bot.exit_info() == "killed by SIGXCPU (CPU limit)"


def _cpu_seconds(pids: set[int]) -> float:
    ticks = 0
    for pid in pids:
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])  # utime, stime
    return ticks / os.sysconf("SC_CLK_TCK")


@pytest.mark.skipif(not probe().cgroup_cpu, reason="no cpu cgroup controller")
def test_cpu_hog_gets_only_its_share(hostile: Start) -> None:
    bot = hostile("cpu_hog", Limits(cpu_cores=0.2))
    assert bot.receive(10) == "spinning"
    assert bot._cgroup is not None
    time.sleep(1.5)
    # Unlimited, three spinning processes would take about 3 s of CPU on two cores.
    assert _cpu_seconds(bot._cgroup.pids()) < 0.2 * 1.5 + 0.3


def test_sleeper_times_out(hostile: Start) -> None:
    bot = hostile("sleeper")
    assert bot.receive(10) == "ready"
    with pytest.raises(BotTimeout):
        bot.receive(0.2)


def test_stdout_flood_is_a_flood(hostile: Start) -> None:
    bot = hostile("stdout_flood", Limits(output_bytes=2 * 2**20))
    lines = 0
    with pytest.raises(BotFlood) as fault:  # noqa: PT012 - lines arrive until the flood fault
        while lines < 100_000:
            bot.receive(10)
            lines += 1
    assert fault.value.reason == "flood"
    assert lines < 3000  # about output_bytes / 1001 bytes per line


def test_stderr_flood_neither_hangs_nor_grows(hostile: Start) -> None:
    limits = Limits(output_bytes=4 * 2**20, stderr_bytes=1024)
    bot = hostile("stderr_flood", limits)
    assert bot.receive(10) == "ready"
    with pytest.raises(BotFlood):
        bot.receive(20)
    text = bot.stderr_text()
    assert text.startswith("[")
    assert text.endswith("e" * 1024)
    assert len(text) < 1024 + 100


def test_five_mib_line_is_a_flood(hostile: Start) -> None:
    with pytest.raises(BotFlood, match="line longer"):
        hostile("long_line").receive(10)


def test_crash_at_start_is_a_crash(hostile: Start) -> None:
    bot = hostile("crash")
    with pytest.raises(BotGone) as fault:
        bot.receive(10)
    assert fault.value.reason == "crash"
    assert bot.exit_info() == "exited with status 1"
    assert "hostile bot crashing at start" in bot.stderr_text()


def test_double_forked_setsid_child_does_not_outlive_close(hostile: Start) -> None:
    bot = hostile("escapee")
    assert bot.receive(10) == "spawned"
    bot.close()  # the fixture then checks, by the marker in argv, that nothing is left
