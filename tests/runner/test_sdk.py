"""The Python SDK's protocol loop, driven through in-memory streams."""

from __future__ import annotations

import io
import json

import pytest

from heights_sdk import Bot, Decision, ProtocolError, run
from heights_sdk.starter import StarterBot


class FirstBot(Bot):
    def choose(self, decision: Decision) -> int:
        return decision.legal[0].id


def _decide(step: int, ids: list[int]) -> dict[str, object]:
    legal = [{"id": i, "text": f"pick {i}"} for i in ids]
    return {
        "type": "decide",
        "step": step,
        "observation": {"viewer": 0, "decision": "d", "legal": legal, "players": [{"score": 3}]},
        "time": {"move_ms": 1000, "bank_ms": 500},
    }


def _play(bot: Bot, messages: list[dict[str, object]]) -> list[dict[str, object]]:
    stdin = io.StringIO("".join(json.dumps(m) + "\n" for m in messages))
    stdout = io.StringIO()
    run(bot, stdin, stdout)
    return [json.loads(line) for line in stdout.getvalue().splitlines()]


def test_the_loop_answers_hello_and_each_decision() -> None:
    hello: dict[str, object] = {"type": "hello", "protocol": 1, "seat": 0, "players": 2}
    end: dict[str, object] = {"type": "end", "ranks": [1, 2], "scores": [5, 3], "outcome": {}}
    out = _play(FirstBot(name="first"), [hello, _decide(0, [4, 9]), _decide(3, [7]), end])
    assert out == [
        {"type": "ready", "name": "first"},
        {"type": "action", "id": 4},
        {"type": "action", "id": 7},
    ]


def test_the_starter_bot_prefers_building_and_explains_why() -> None:
    hello = {"type": "hello", "protocol": 1, "seat": 0, "players": 2}
    decide = _decide(0, [1])
    decide["observation"] = {
        "viewer": 0,
        "legal": [{"id": 1, "text": "pass"}, {"id": 2, "text": "build A1/1"}],
    }
    out = _play(StarterBot(name="starter"), [hello, decide])
    assert out[1] == {"type": "action", "id": 2, "debug": "first build"}


def test_another_protocol_version_is_refused() -> None:
    with pytest.raises(ProtocolError):
        _play(FirstBot(), [{"type": "hello", "protocol": 2, "seat": 0, "players": 2}])
