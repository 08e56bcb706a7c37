"""Every way a bot's life ends leaves no process and no cgroup of it behind.

Real sandboxed processes throughout. A "runner" killed mid-game is a real process of its
own (tests/runner/cleanup_runner.py) that starts a bot and is then sent SIGKILL, as a
Celery hard time limit or the OOM killer would; what it left is then counted by the
bot's argv marker (every process of the bot's carries it, bwrap's included) and by the
bot's cgroup directories, which `cgroups.sweep()` (what a starting runner runs) removes.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from heights_runner.sandbox import Limits, cgroups, probe, python_binds, start_bot
from heights_runner.sandbox import start as start_module
from heights_runner.sandbox.cgroups import Owner

pytestmark = pytest.mark.skipif(not probe().bwrap, reason="bubblewrap is not usable here")
HOSTILE = Path(__file__).parent / "hostile"
ROOT = Path(__file__).resolve().parents[2]
# Ignores SIGTERM, SIGHUP and its stdin's end: only a SIGKILL ends it.
STUBBORN = """
import signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGHUP, signal.SIG_IGN)
print("ready", flush=True)
time.sleep(3600)
"""


def processes_with(marker: str) -> list[int]:
    """Live processes (zombies are not) with `marker` in their argv."""
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            with contextlib.suppress(OSError):
                if marker.encode() in (proc / "cmdline").read_bytes() and _alive(int(proc.name)):
                    found.append(int(proc.name))
    return found


def wait_until_none(marker: str, within_s: float = 10.0) -> list[int]:
    """The marker's live processes, once none is left or `within_s` has passed (a SIGKILL
    and its parent-death signals take a moment on a loaded machine)."""
    deadline = time.monotonic() + within_s
    while (left := processes_with(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def _bot_folder(tmp_path: Path, source: str) -> Path:
    folder = tmp_path / f"bot-{uuid.uuid4().hex[:6]}"
    folder.mkdir()
    (folder / "main.py").write_text(source)
    return folder


def test_close_cut_short_by_an_exception_still_ends_the_bot(tmp_path: Path) -> None:
    """A Celery soft time limit (here SIGALRM) raised into close() while it waits."""
    marker = f"cleanup-marker-{uuid.uuid4().hex}"
    exe, binds = python_binds()
    argv = [exe, "-u", "/bot/main.py", marker]
    bot = start_bot(_bot_folder(tmp_path, STUBBORN), argv, ro_binds=binds)
    dirs = list(bot._cgroup.dirs) if bot._cgroup else []
    assert bot.receive(10) == "ready"

    def soft_time_limit(*_: object) -> None:
        raise TimeoutError("soft time limit")

    previous = signal.signal(signal.SIGALRM, soft_time_limit)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.05)  # inside close()'s 0.2 s grace
        with pytest.raises(TimeoutError):
            bot.close(grace=5.0)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert processes_with(marker) == []
    assert [d for d in dirs if d.exists()] == []
    bot.close()  # the match's own finally: nothing left to do, and no error


def _start_runner(tmp_path: Path, bare: bool) -> tuple[subprocess.Popen[bytes], str, list[Path]]:
    """A runner process playing one stubborn bot; it, the bot's marker, the bot's cgroups."""
    folder = _bot_folder(tmp_path, STUBBORN)
    marker = f"cleanup-marker-{uuid.uuid4().hex}"
    runner = subprocess.Popen(
        [sys.executable, "-m", "tests.runner.cleanup_runner", str(folder), marker]
        + (["--bare"] if bare else []),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        env=os.environ | {"PYTHONPATH": str(ROOT)},
    )
    assert runner.stdout is not None
    line = runner.stdout.readline().decode()
    assert line.startswith("started"), line
    dirs = [Path(d) for d in line.split()[1:]]
    return runner, marker, dirs


@pytest.fixture
def dead_runner_cleanup() -> Iterator[list[str]]:
    """Markers whose processes the test could not end are killed at teardown."""
    markers: list[str] = []
    yield markers
    for marker in markers:
        for pid in processes_with(marker):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("bare", [False, True], ids=["bubblewrap", "trusted-without-bwrap"])
def test_a_runner_killed_mid_game_leaves_nothing_once_a_runner_starts(
    tmp_path: Path, bare: bool, dead_runner_cleanup: list[str]
) -> None:
    runner, marker, dirs = _start_runner(tmp_path, bare)
    dead_runner_cleanup.append(marker)
    assert processes_with(marker)
    assert dirs
    assert all(d.is_dir() for d in dirs)
    runner.send_signal(signal.SIGKILL)
    runner.wait()
    assert runner.stdout is not None
    runner.stdout.close()
    # The bot dies with its runner (its parent-death signal), sandboxed or not.
    assert wait_until_none(marker) == []
    # Its cgroups stay until a runner starts: the next one removes them.
    cgroups.sweep()
    assert [d for d in dirs if d.exists()] == []


def _dead_owner() -> Owner:
    """An owner that has certainly ended: a process started, and reaped, here."""
    child = subprocess.Popen(["sleep", "0.2"])
    stat = Path(f"/proc/{child.pid}/stat").read_text()
    start = int(stat.rsplit(")", 1)[1].split()[19])
    child.wait()
    return Owner(os.stat("/proc/self/ns/pid").st_ino, child.pid, start)


def _occupied(name: str) -> tuple[Path, int]:
    """A pids cgroup `name` holding a sleeping process that is not our child (as a bot
    that outlived its runner is not the next runner's); the directory and the pid."""
    parent = cgroups.parent_dir("pids")
    assert parent is not None
    parent.mkdir(exist_ok=True)
    path = parent / name
    path.mkdir()
    procs = [bytes(path / "cgroup.procs")]
    shell = subprocess.run(
        ["sh", "-c", "sleep 3600 >/dev/null 2>&1 & echo $!"],
        preexec_fn=lambda: cgroups.join(procs),
        capture_output=True,
        check=True,
    )
    return path, int(shell.stdout)


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not probe().cgroup_pids, reason="no writable pids cgroup")
def test_sweep_ends_a_dead_runners_leftovers_and_spares_the_living() -> None:
    dead = _dead_owner()
    alien = Owner(dead.namespace + 1, dead.pid, dead.start)  # another PID namespace's
    cases = {
        "dead": _occupied(dead.name()),
        "alive": _occupied(Owner.this_process().name()),
        "alien": _occupied(alien.name()),
    }
    try:
        cgroups.sweep()
        path, pid = cases["dead"]
        deadline = time.monotonic() + 10
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(pid)
        assert not path.exists()
        for case in ("alive", "alien"):  # mid-match, or not provably dead: not ours to end
            path, pid = cases[case]
            assert _alive(pid), case
            assert path.is_dir(), case
    finally:
        for path, pid in cases.values():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            cgroups.BotCgroup([path], None).remove()


@pytest.mark.skipif(not probe().cgroup_pids, reason="no writable pids cgroup")
def test_sweep_kills_nothing_when_proc_cannot_be_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """An error reading /proc other than the process's absence (out of file descriptors,
    of memory) proves nothing: the sweep must not take it for the owner's death."""
    path, pid = _occupied(_dead_owner().name())

    def unreadable(pid: int) -> int | None:
        raise OSError(errno.EMFILE, "Too many open files")

    monkeypatch.setattr(cgroups, "_start_ticks", unreadable)
    try:
        cgroups.sweep()
        assert _alive(pid)
        assert path.is_dir()
    finally:
        os.kill(pid, signal.SIGKILL)
        cgroups.BotCgroup([path], None).remove()


@pytest.mark.skipif(not probe().cgroup_pids, reason="no writable pids cgroup")
def test_sweep_removes_an_old_empty_cgroup_whatever_its_owner() -> None:
    """A cgroup of another PID namespace's runner (its owner cannot be looked up) is
    never emptied by force, but once empty and old it goes, as a nameless one does."""
    alien = _dead_owner()
    parent = cgroups.parent_dir("pids")
    assert parent is not None
    path = parent / Owner(alien.namespace + 1, alien.pid, alien.start).name()
    path.mkdir()
    try:
        cgroups.sweep()  # young: kept, another runner may be about to use it
        assert path.is_dir()
        cgroups.sweep(min_age=0.0)
        assert not path.exists()
    finally:
        with contextlib.suppress(FileNotFoundError):
            path.rmdir()


def test_owner_round_trips_through_the_name() -> None:
    owner = Owner.this_process()
    assert Owner.of(owner.name()) == owner
    assert not owner.provably_dead()
    assert Owner.of("bot-0123456789ab") is None  # the older form: no owner recorded


def test_fork_bomb_and_escapee_leave_no_cgroup(tmp_path: Path) -> None:
    """A bot that forks (setsid, double fork) and one that fills its pids limit."""
    exe, binds = python_binds()
    for name, limits in (("escapee", Limits()), ("fork_bomb", Limits(processes=8))):
        folder = tmp_path / name
        folder.mkdir()
        shutil.copy(HOSTILE / f"{name}.py", folder / "main.py")
        marker = f"cleanup-marker-{uuid.uuid4().hex}"
        bot = start_bot(folder, [exe, "-u", "/bot/main.py", marker], limits=limits, ro_binds=binds)
        dirs = list(bot._cgroup.dirs) if bot._cgroup else []
        bot.receive(20)
        bot.close()
        assert processes_with(marker) == [], name
        assert [d for d in dirs if d.exists()] == [], name


def test_close_leaves_stderr_to_its_drainer_while_a_survivor_holds_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dead_runner_cleanup: list[str]
) -> None:
    """Without cgroups or bubblewrap (a trusted bot on a bare machine) a setsid'd
    grandchild outlives close() holding stderr open: the drainer thread still reads it, so
    close() must not close it under that thread (the fd number would go to the next pipe
    opened, and the thread would read another bot's output). The drainer closes it itself."""
    caps = dataclasses.replace(
        probe(),
        bwrap=False,
        user_namespace=False,
        bwrap_path=None,
        cgroup_memory=False,
        cgroup_pids=False,
        cgroup_cpu=False,
    )
    monkeypatch.setattr(start_module, "probe", lambda: caps)
    folder = tmp_path / "escapee"
    folder.mkdir()
    shutil.copy(HOSTILE / "escapee.py", folder / "main.py")
    marker = f"cleanup-marker-{uuid.uuid4().hex}"
    dead_runner_cleanup.append(marker)
    exe, binds = python_binds()
    bot = start_bot(folder, [exe, "-u", "/bot/main.py", marker], ro_binds=binds, trusted=True)
    assert bot.receive(10) == "spawned"
    stderr = bot._popen.stderr
    assert stderr is not None
    pipe = os.fstat(stderr.fileno()).st_ino
    bot.close()
    assert processes_with(marker), "nothing survived: the case is not the one under test"
    assert bot._drainer.is_alive()
    assert os.fstat(stderr.fileno()).st_ino == pipe  # still open, still that pipe
    for pid in processes_with(marker):
        os.kill(pid, signal.SIGKILL)
    bot._drainer.join(timeout=10)
    assert not bot._drainer.is_alive()
    assert stderr.closed


def test_a_start_that_fails_after_the_process_began_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The process is running when BotProcess cannot start its stderr thread (a runner
    out of threads): start_bot raises, and the process and its cgroups are gone."""
    marker = f"cleanup-marker-{uuid.uuid4().hex}"
    exe, binds = python_binds()
    made: list[Path] = []
    real_create = cgroups.BotCgroup.create

    def create(settings: cgroups.SettingsMap) -> cgroups.BotCgroup:
        group = real_create(settings)
        made.extend(group.dirs)
        return group

    def no_thread(self: threading.Thread) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(cgroups.BotCgroup, "create", staticmethod(create))
    monkeypatch.setattr(threading.Thread, "start", no_thread)
    with pytest.raises(RuntimeError, match="new thread"):
        start_bot(
            _bot_folder(tmp_path, STUBBORN), [exe, "-u", "/bot/main.py", marker], ro_binds=binds
        )
    monkeypatch.undo()
    assert made
    assert processes_with(marker) == []
    assert [d for d in made if d.exists()] == []
