"""Progress bars: drawn on a terminal, absent when the output is piped."""

from __future__ import annotations

import io
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from heights_cli.progress import ProgressBar
from heights_runner.sandbox import probe


def _read_all(fd: int) -> str:
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the other end closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks).decode(errors="replace")


def test_a_bar_into_a_pipe_writes_nothing() -> None:
    piped = io.StringIO()
    with ProgressBar("tournament", 3, "matches", stream=piped) as bar:
        for done in range(1, 4):
            bar.update(done, f"last {done}.0 s")
    assert not bar.shown
    assert piped.getvalue() == ""


def test_a_bar_on_a_terminal_shows_the_count() -> None:
    parent, child = pty.openpty()
    try:
        with open(child, "w", closefd=False) as terminal:
            with ProgressBar("tournament", 3, "matches", stream=terminal) as bar:
                bar.update(2, "last 1.5 s")
                bar.update(3, "last 0.5 s")
            assert bar.shown
    finally:
        os.close(child)
    drawn = _read_all(parent)
    os.close(parent)
    assert "tournament" in drawn
    assert "3/3" in drawn
    assert "last 0.5 s" in drawn


@pytest.mark.skipif(not probe().bwrap, reason="bubblewrap is not available")
def test_heights_tournament_draws_its_bar_on_a_terminal_only(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "heights_cli.main", "tournament", "random", "greedy"]
    command += ["--games", "2", "--option", "round_cap=1", "--json"]
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE")}
    parent, child = pty.openpty()
    try:
        proc = subprocess.Popen(
            command, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=child, text=True
        )
    finally:
        os.close(child)
    stdout, _ = proc.communicate(timeout=300)
    on_terminal = _read_all(parent)
    os.close(parent)
    assert proc.returncode == 0, on_terminal
    assert "2/2" in on_terminal
    assert "matches" in on_terminal
    assert '"name"' in stdout  # the standings, on stdout as JSON, not mixed with the bar

    piped = subprocess.run(
        command, cwd=tmp_path, env=env, capture_output=True, text=True, check=False
    )
    assert piped.returncode == 0, piped.stderr
    assert "2/2" not in piped.stderr
    assert "\r" not in piped.stderr
