"""`heights view`: a replay file from a real local match (a bot that crashes mid-game, a
seed above 2**53) in the platform's viewer, as one file opened from disk with no server
and from the local server, both in headless Chromium.

Writes out/view-html-screenshot.png and out/view-served-screenshot.png.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page
from tests.heights_command import heights
from tests.platform.browser import OUT_DIR, chromium, needs_chromium, watched

from heights_platform.replays.documents import step_documents
from heights_rules.replay import Replay
from heights_runner.sandbox import probe

BIG_SEED = 2**53 + 1  # a JavaScript number rounds it to 2**53
CRASHES_AT = 4  # the bot's decision that raises

CRASHY = f'''"""Plays the first legal action with a note, and crashes on decision {CRASHES_AT}."""
from heights_sdk import Bot, run


class Crashy(Bot):
    def __init__(self) -> None:
        super().__init__(name="crashy")
        self.decisions = 0

    def choose(self, decision):
        self.decisions += 1
        if self.decisions == {CRASHES_AT}:
            raise RuntimeError("broken on purpose")
        return decision.legal[0].id, f"crashy note {{self.decisions}}"


run(Crashy())
'''

pytestmark = pytest.mark.skipif(not probe().bwrap, reason="bubblewrap is not available")


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A real local match: the crashing bot forfeits and the stand-in plays its seat."""
    folder = tmp_path_factory.mktemp("view")
    (folder / "crashy.py").write_text(CRASHY)
    path = folder / "game.replay.gz"
    done = heights(
        *("match", "crashy.py", "random", "--seed", str(BIG_SEED)),
        *("--option", "round_cap=3", "--replay", str(path)),
        cwd=folder,
    )
    assert done.returncode == 1, done.stderr  # `heights match`: 1 when a bot forfeited
    record = Replay.from_bytes(path.read_bytes())
    [forfeit] = record.forfeits
    assert forfeit["seat"] == 0
    assert forfeit["reason"] == "crash"
    docs = list(step_documents(record))
    moves = [d["step"] for d in docs if d["action"] and d["action"]["actor"] == 0]
    return {
        "folder": folder,
        "path": path,
        "record": record,
        "docs": docs,
        "forfeit": forfeit,
        "own": max(s for s in moves if s < forfeit["step"]),  # the bot's last move
        "stand_in": min(s for s in moves if s >= forfeit["step"]),
    }


def _shown(page: Page, step: int) -> None:
    page.wait_for_selector(f'#replay-viewer[data-shown="{step}"]', state="attached")
    assert (page.text_content("#step-label") or "").startswith(f"Step {step} /")


def _check_truth(page: Page, played: dict[str, Any]) -> None:
    """The forfeit header, the exact seed, the bot's note on its own move and the
    stand-in's label on the moves after its forfeit."""
    own, stand_in, forfeit = played["own"], played["stand_in"], played["forfeit"]
    header = page.text_content('#players article[data-seat="0"] header') or ""
    assert f"forfeited at step {forfeit['step']}: crash" in header
    assert "broken on purpose" in (page.text_content('#seats li[data-seat="0"]') or "")
    info = page.text_content("#match-info") or ""
    assert f"seed {BIG_SEED}" in info
    assert str(2**53) not in info
    page.evaluate(f"location.hash = '#step={own}'")  # a link followed within the page
    _shown(page, own)
    assert page.get_attribute("#action", "data-stand-in") == "false"
    assert (page.text_content("#action") or "").startswith("crashy:")
    assert page.text_content("#debug") == f"note: {played['record'].debug[own]}"
    page.evaluate(f"location.hash = '#step={stand_in}'")
    _shown(page, stand_in)
    assert page.get_attribute("#action", "data-stand-in") == "true"
    assert (page.text_content("#action") or "").startswith("stand-in for crashy:")
    assert "[stand-in greedy]" in (page.text_content("#debug") or "")
    page.keyboard.press("ArrowRight")
    _shown(page, stand_in + 1)
    assert page.url.endswith(f"#step={stand_in + 1}")  # the URL follows the step


@needs_chromium
def test_html_page_renders_from_disk_with_no_server(played: dict[str, Any]) -> None:
    out = played["folder"] / "page.html"
    done = heights("view", str(played["path"]), "--html", str(out), cwd=played["folder"])
    assert done.returncode == 0, done.stderr
    assert str(out) in done.stdout
    with chromium() as browser:
        page, problems = watched(browser)
        requested: list[str] = []
        page.on("request", lambda request: requested.append(request.url))
        late = len(played["docs"]) - 2
        page.goto(f"{out.as_uri()}#step={late}")  # loading a step link shows that step
        _shown(page, late)
        assert (
            page.locator("#board g.cell").count() + page.locator("#board rect.water").count() == 120
        )
        _check_truth(page, played)
        OUT_DIR.mkdir(exist_ok=True)
        page.screenshot(path=str(OUT_DIR / "view-html-screenshot.png"), full_page=True)
    assert problems == []
    assert all(url.startswith(("file:", "data:")) for url in requested), requested


@pytest.fixture
def served(played: dict[str, Any]) -> Iterator[str]:
    """`heights view REPLAY` running; its base URL. Stopped with Ctrl-C (SIGINT)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "heights_cli.main", "view", str(played["path"])],
        cwd=played["folder"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()  # printed once the server listens
        assert " at http://127.0.0.1:" in line, line + (
            process.stderr.read() if process.stderr else ""
        )
        yield line.split(" at ", 1)[1].split()[0]
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0
        if process.stdout is not None:
            process.stdout.close()
        if process.stderr is not None:
            process.stderr.close()


def _get(url: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def test_served_steps_are_the_documents_of_the_replay(played: dict[str, Any], served: str) -> None:
    docs = played["docs"]
    for step in (0, played["stand_in"], len(docs) - 1):
        assert _get(f"{served}replay/steps/{step}/") == (200, docs[step])
    status, meta = _get(f"{served}replay/")
    assert status == 200
    assert meta["seed_text"] == str(BIG_SEED)
    assert meta["steps"] == len(docs) - 1
    assert meta["seats"][0]["forfeit"] == {
        k: played["forfeit"][k] for k in ("reason", "step", "detail")
    }
    assert [s["rank"] for s in meta["seats"]] == [2, 1]  # the forfeiting seat ranks last
    status, error = _get(f"{served}replay/steps/{len(docs)}/")
    assert status == 404
    assert error == {
        "code": "not_found",
        "message": f"step {len(docs)} is outside 0..{len(docs) - 1}",
        "details": {"steps": len(docs) - 1},
    }


@needs_chromium
def test_served_page_renders(played: dict[str, Any], served: str) -> None:
    with chromium() as browser:
        page, problems = watched(browser)
        page.goto(served)
        _shown(page, 0)
        _check_truth(page, played)
        OUT_DIR.mkdir(exist_ok=True)
        page.screenshot(path=str(OUT_DIR / "view-served-screenshot.png"), full_page=True)
    assert problems == []


def test_match_view_serves_the_match_it_played(tmp_path: Path) -> None:
    path = tmp_path / "duel.replay.gz"
    argv = ["match", "random", "greedy", "--view", "--option", "round_cap=1", "--replay"]
    process = subprocess.Popen(
        [sys.executable, "-m", "heights_cli.main", *argv, str(path)],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    try:
        lines = [process.stdout.readline()]
        while lines[-1] and not lines[-1].startswith("viewing "):
            lines.append(process.stdout.readline())
        assert lines[-1].startswith(f"viewing {path} at http://127.0.0.1:"), lines
        url = lines[-1].split(" at ", 1)[1].split()[0]
        status, meta = _get(f"{url}replay/")
        assert status == 200
        assert [s["name"] for s in meta["seats"]] == ["random", "greedy"]
        assert meta["steps"] == len(Replay.from_bytes(path.read_bytes()).actions)
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0
        process.stdout.close()


@needs_chromium
def test_a_solo_game_names_the_mayor_in_the_page(tmp_path: Path) -> None:
    """The Mayor is no seat of the match (no bot, no name): the page calls it the Mayor,
    in its player panel, on the board's legend and as a building's owner, not `seat 1`."""
    path = tmp_path / "solo.replay.gz"
    done = heights(
        *("match", "greedy", "--solo", "--seed", "3", "--option", "round_cap=2"),
        *("--replay", str(path)),
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    out = tmp_path / "solo.html"
    assert heights("view", str(path), "--html", str(out), cwd=tmp_path).returncode == 0
    with chromium() as browser:
        page, problems = watched(browser)
        page.goto(f"{out.as_uri()}#step={len(Replay.from_bytes(path.read_bytes()).actions)}")
        page.wait_for_selector("#replay-viewer[data-shown]", state="attached")
        header = page.text_content('#players article[data-seat="1"] header') or ""
        assert header.startswith("Seat 1: the Mayor"), header
        assert "the Mayor" in (page.text_content("#legend") or "")
        assert "seat 1" not in (page.text_content("#board") or "")
    assert problems == []


def test_a_file_that_is_not_a_replay_is_refused(tmp_path: Path) -> None:
    junk = tmp_path / "junk.replay.gz"
    junk.write_bytes(b'{"format": "something else"}')
    done = heights("view", str(junk), "--html", str(tmp_path / "x.html"), cwd=tmp_path)
    assert done.returncode == 2
    assert f"{junk}: not a Rolling Heights replay record" in done.stderr
    assert not (tmp_path / "x.html").exists()
    missing = heights("view", str(tmp_path / "nope.gz"), cwd=tmp_path)
    assert missing.returncode == 2
    assert "nope.gz: cannot read: No such file or directory" in missing.stderr


def test_the_viewer_modules_need_no_django() -> None:
    code = (
        "import sys, heights_cli.view_cmd\n"
        "assert not [m for m in sys.modules if m.split('.')[0] == 'django'], 'django imported'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


def _sigint_ignored() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def test_ctrl_c_stops_the_server_started_with_sigint_ignored(played: dict[str, Any]) -> None:
    """A shell without job control starts a background command with SIGINT ignored;
    "Ctrl-C stops" must hold all the same (before the fix the server never stopped)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "heights_cli.main", "view", str(played["path"])],
        cwd=played["folder"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        preexec_fn=_sigint_ignored,  # noqa: PLW1509 (no threads started before this fork)
    )
    try:
        assert process.stdout is not None
        assert " at http://127.0.0.1:" in process.stdout.readline()
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()
