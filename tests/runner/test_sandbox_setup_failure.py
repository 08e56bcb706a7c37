"""A sandbox that fails to set itself up is the runner's fault, never the bot's crash.

bubblewrap reports on its status fd whether it got as far as running the bot's program;
a bwrap that ended without that report failed on its own (here: a read-only bind of a
path that does not exist, added to the test's own launch arguments), and the match is
played again, then recorded as an infrastructure failure with no seat blamed. A bot that
ends before `ready` is still its own crash.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from heights_runner import sandbox, tasks
from heights_runner.contract import INFRASTRUCTURE_FAILURE, BotRef, MatchSpec, SeatSpec, TimeLimits
from heights_runner.engines import LocalEngine
from heights_runner.launch import LaunchPolicy
from heights_runner.ledger import FolderLedger
from heights_runner.match import play_match
from heights_runner.sandbox import (
    BotGone,
    BotProcess,
    SandboxUnavailable,
    probe,
    python_binds,
    start_bot,
)
from heights_runner.sandbox.probe import _try_bwrap

pytestmark = pytest.mark.skipif(not probe().bwrap, reason="bubblewrap is not usable here")

MISSING = "/nonexistent-heights-test-bind"  # bwrap: "Can't find source path"
EXITS_AT_ONCE = {
    "status 0": ("import sys\nsys.exit(0)\n", "exited with status 0"),
    "status 3": ("import sys\nsys.exit(3)\n", "exited with status 3"),
    "SIGKILL": ("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n", "SIGKILL"),
}


def _bot(tmp_path: Path, source: str) -> Path:
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "main.py").write_text(source)
    return folder


def _start(folder: Path, extra_binds: Sequence[tuple[str, str]] = ()) -> BotProcess:
    exe, binds = python_binds()
    return start_bot(folder, [exe, "-u", "/bot/main.py"], ro_binds=[*binds, *extra_binds])


def test_a_bind_bwrap_cannot_make_is_sandbox_unavailable(tmp_path: Path) -> None:
    with (
        _start(_bot(tmp_path, "print('ready', flush=True)\n"), [(MISSING, "/extra")]) as bot,
        pytest.raises(SandboxUnavailable) as fault,
    ):
        bot.receive(10)
    assert str(fault.value) == (
        "bubblewrap failed to set up the sandbox (exited with status 1): "
        f"bwrap: Can't find source path {MISSING}: No such file or directory"
    )


def test_a_program_bwrap_cannot_exec_is_sandbox_unavailable(tmp_path: Path) -> None:
    # The interpreter's path is the runner's choice, never the bot's.
    with (
        start_bot(_bot(tmp_path, ""), ["/nonexistent/python3", "/bot/main.py"]) as bot,
        pytest.raises(SandboxUnavailable, match="execvp /nonexistent/python3"),
    ):
        bot.receive(10)


@pytest.mark.parametrize("case", sorted(EXITS_AT_ONCE))
def test_a_bot_that_ends_before_writing_a_byte_is_its_crash(case: str, tmp_path: Path) -> None:
    source, how = EXITS_AT_ONCE[case]
    with _start(_bot(tmp_path, source)) as bot, pytest.raises(BotGone) as fault:
        bot.receive(10)
    assert fault.value.reason == "crash"
    assert how in str(fault.value)


def test_the_status_pipe_stays_outside_the_sandbox(tmp_path: Path) -> None:
    """A bot cannot write bubblewrap's report for it: no descriptor past stdio reaches it."""
    source = (
        "import os\n"
        "def is_open(fd):\n"
        "    try:\n"
        "        os.fstat(fd)\n"
        "        return True\n"
        "    except OSError:\n"
        "        return False\n"
        "print([fd for fd in range(1024) if is_open(fd)], flush=True)\n"
    )
    with _start(_bot(tmp_path, source)) as bot:
        assert bot.receive(10) == "[0, 1, 2]"


def test_a_bwrap_without_the_status_fd_is_reported_unusable(tmp_path: Path) -> None:
    """bubblewrap before 0.5 has no --json-status-fd: every start would fail, so the
    probe says so (and an untrusted bot is refused) instead."""
    old = tmp_path / "bwrap"
    old.write_text(
        "#!/bin/sh\n"
        'for arg; do [ "$arg" = --json-status-fd ] && '
        "{ echo 'bwrap: Unknown option --json-status-fd' >&2; exit 1; }; done\n"
        'exec /usr/bin/bwrap "$@"\n'
    )
    old.chmod(0o755)
    usable, line = _try_bwrap(str(old))
    assert not usable
    assert line.endswith("cannot create namespaces: bwrap: Unknown option --json-status-fd")
    assert _try_bwrap("/usr/bin/bwrap")[0]


def _spec(match_id: str) -> MatchSpec:
    return MatchSpec(
        match_id,
        4242,
        (SeatSpec("a", BotRef.builtin("random")), SeatSpec("b", BotRef.builtin("random"))),
        options={"round_cap": 2},
        limits=TimeLimits(start_ms=10_000),
    )


@pytest.fixture
def broken_binds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every bot the runner starts asks bwrap for one more bind, of a missing path."""
    real = sandbox.start_bot

    def start(
        workdir: Path, argv: Sequence[str], *, ro_binds: Sequence[tuple[str, str]] = (), **kw: Any
    ) -> BotProcess:
        return real(workdir, argv, ro_binds=[*ro_binds, (MISSING, "/extra")], **kw)

    monkeypatch.setattr(sandbox, "start_bot", start)


@pytest.mark.usefixtures("broken_binds")
def test_play_match_raises_the_runners_fault(tmp_path: Path) -> None:
    with pytest.raises(SandboxUnavailable, match="Can't find source path"):
        play_match(_spec("setup-1"), LocalEngine, LaunchPolicy((tmp_path / "bots").resolve()))


@pytest.mark.usefixtures("broken_binds")
def test_the_match_is_played_again_then_fails_blaming_no_seat(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    attempts: list[str] = []
    real_run_spec = tasks.run_spec

    def run_spec(spec: MatchSpec) -> Any:
        attempts.append(spec.match_id)
        return real_run_spec(spec)

    monkeypatch.setattr(tasks, "run_spec", run_spec)
    monkeypatch.setattr(tasks, "_ledger", lambda: FolderLedger(tmp_path / "ledger"))
    monkeypatch.setattr(tasks, "_engine_factory", lambda: LocalEngine)
    monkeypatch.setattr(tasks, "RETRY_FIRST_S", 0.0)
    result = tasks.run_spec_retrying(_spec("setup-2"), retries=1, within_s=60.0)
    assert attempts == ["setup-2", "setup-2"]  # played again, on the same spec and seed
    assert result.status == "failed"
    assert result.error == (
        f"{INFRASTRUCTURE_FAILURE}SandboxUnavailable: bubblewrap failed to set up the sandbox "
        f"(exited with status 1): bwrap: Can't find source path {MISSING}: "
        "No such file or directory"
    )
    assert result.seats == ()  # no seat, so no forfeit and nothing rated
    assert FolderLedger(tmp_path / "ledger").get("setup-2") == result


def test_without_the_broken_bind_the_same_match_plays(tmp_path: Path) -> None:
    """The control: the fault above is the injected bind, not the match."""
    result = play_match(_spec("setup-3"), LocalEngine, LaunchPolicy((tmp_path / "bots").resolve()))
    assert result.status == "finished"
    assert all(seat.forfeit is None for seat in result.seats)
