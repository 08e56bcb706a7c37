"""`heights demo` off a terminal: the final game's link dies with the platform, so the
demo leaves a page of it that opens with no server (downloaded from a live platform)."""

from __future__ import annotations

import base64
import gzip
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

from heights_cli.demo import final_game_page
from heights_platform.bots.models import Bot, BotVersion
from heights_platform.matches.services import match_create, match_result_record
from heights_platform.replays.models import Replay
from heights_runner.contract import MatchResult


@pytest.fixture
def replay(
    transactional_db: None,
    sent_tasks: list[dict[str, Any]],
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    play_result: Callable[..., MatchResult],
) -> Replay:
    bots = [make_active_bot(make_user("alice"), "alpha"), make_active_bot(make_user("bob"), "beta")]
    versions = [b.active_version for b in bots if isinstance(b.active_version, BotVersion)]
    match = match_create(kind="challenge", seats=versions, players=2, options={}, seed=77)
    match_result_record(result=play_result(match))
    return Replay.objects.get(match=match)


def test_the_final_game_is_left_as_a_page(
    live_server: Any, replay: Replay, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert final_game_page(live_server.url, replay.pk, tmp_path) == 0
    page = tmp_path / f"replay-{replay.pk}.html"
    assert str(page) in capsys.readouterr().out
    assert (tmp_path / f"replay-{replay.pk}.replay.gz").read_bytes() == bytes(replay.data)
    found = re.search(r'id="replay-data">([^<]+)<', page.read_text())
    assert found is not None
    data = json.loads(gzip.decompress(base64.b64decode(found[1])))
    assert len(data["steps"]) == replay.steps + 1
    assert data["meta"]["seed_text"] == "77"
