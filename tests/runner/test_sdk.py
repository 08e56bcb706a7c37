"""The Python SDK's protocol loop, driven through in-memory streams."""

from __future__ import annotations

import io
import json

import pytest

from heights_sdk import Bot, Choice, Decision, ProtocolError, run
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
        {"type": "ready", "name": "first", "features": []},  # hello offered none
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


class Recorder(Bot):
    """Answers the first legal action and keeps every observation it was given."""

    def __init__(self) -> None:
        super().__init__(name="recorder")
        self.seen: list[dict[str, object]] = []

    def choose(self, decision: Decision) -> int:
        self.seen.append(decision.observation)
        return decision.legal[0].id


HELLO_WITH_PATCHES: dict[str, object] = {
    "type": "hello",
    "protocol": 1,
    "seat": 0,
    "players": 2,
    "features": ["patch", "something-newer"],
}


def _patched(step: int, base: int, patch: list[dict[str, object]]) -> dict[str, object]:
    time = {"move_ms": 1000, "bank_ms": 500}
    return {"type": "decide", "step": step, "time": time, "base_step": base, "patch": patch}


def test_the_sdk_takes_patches_and_hands_the_bot_whole_observations() -> None:
    bot = Recorder()
    first = _decide(0, [4, 9])
    patch: list[dict[str, object]] = [
        {"op": "replace", "path": "/legal", "value": [{"id": 7, "text": "pick 7"}]},
        {"op": "replace", "path": "/players/0/score", "value": 5},
    ]
    out = _play(bot, [HELLO_WITH_PATCHES, first, _patched(3, 0, patch)])
    assert out[0] == {"type": "ready", "name": "recorder", "features": ["patch"]}
    assert [m["id"] for m in out[1:]] == [4, 7]
    assert bot.seen[1] == {
        "viewer": 0,
        "decision": "d",
        "legal": [{"id": 7, "text": "pick 7"}],
        "players": [{"score": 5}],
    }
    assert bot.seen[0] == first["observation"]  # the earlier observation is kept as it was


@pytest.mark.parametrize(
    ("message", "error"),
    [
        (_patched(3, 2, []), "holds 0"),  # from another step than the bot's last
        (_patched(3, 0, [{"op": "copy", "from": "/a", "path": "/b"}]), "unsupported operation"),
        (_patched(3, 0, [{"op": "remove", "path": "/nothing"}]), "no member"),
    ],
)
def test_a_patch_the_bot_cannot_apply_is_a_protocol_error(
    message: dict[str, object], error: str
) -> None:
    with pytest.raises(ProtocolError, match=error):
        _play(Recorder(), [HELLO_WITH_PATCHES, _decide(0, [4]), message])


def test_a_patch_before_any_observation_is_a_protocol_error() -> None:
    with pytest.raises(ProtocolError, match="holds -1"):
        _play(Recorder(), [HELLO_WITH_PATCHES, _patched(0, 0, [])])


class PicksTheEntry(Bot):
    """Hands back the `LegalAction` itself (with and without a note), not its id."""

    def choose(self, decision: Decision) -> Choice:
        last = decision.legal[-1]
        return (last, "the last one") if decision.step else last


def test_a_legal_action_object_is_sent_as_its_id() -> None:
    hello: dict[str, object] = {"type": "hello", "protocol": 1, "seat": 0, "players": 2}
    out = _play(PicksTheEntry(name="entry"), [hello, _decide(0, [4, 9]), _decide(3, [7, 8])])
    assert out[1:] == [
        {"type": "action", "id": 9},
        {"type": "action", "id": 8, "debug": "the last one"},
    ]


class AnswersNonsense(Bot):
    def choose(self, decision: Decision) -> Choice:
        return decision.observation  # type: ignore[return-value]  # the mistake under test


def test_an_answer_that_is_no_action_names_what_is_expected() -> None:
    hello: dict[str, object] = {"type": "hello", "protocol": 1, "seat": 0, "players": 2}
    with pytest.raises(TypeError, match=r"expected a legal action id .* or a LegalAction"):
        _play(AnswersNonsense(), [hello, _decide(0, [4])])


def test_a_decision_carries_every_clock_of_its_time_message() -> None:
    """move_ms, bank_ms and what is left of the seat's whole-game budget, game_ms
    (docs/bot-protocol.md, "Time"); None from a runner that sends no budget."""
    seen: list[tuple[int, int, int | None]] = []

    class Clocked(Bot):
        def choose(self, decision: Decision) -> int:
            seen.append((decision.move_ms, decision.bank_ms, decision.game_ms))
            return decision.legal[0].id

    hello: dict[str, object] = {"type": "hello", "protocol": 1, "seat": 0, "players": 2}
    budgeted = _decide(0, [4])
    budgeted["time"] = {"move_ms": 1000, "bank_ms": 9874, "game_ms": 118250}
    _play(Clocked(), [hello, budgeted, _decide(2, [7])])
    assert seen == [(1000, 9874, 118250), (1000, 500, None)]
