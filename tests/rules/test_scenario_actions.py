"""Scenarios for refused actions and the action texts (actions.py, GameState.apply;
STYLE.md: python-chess's two error classes, symmetric parsing and formatting)."""

from __future__ import annotations

import pytest
from tests.rules.conftest import give, texts

from heights_rules import (
    NUM_ACTIONS,
    Action,
    ActionError,
    Bucket,
    GameState,
    IllegalActionError,
    InvalidActionError,
    Meeple,
)


def test_every_action_text_parses_back_to_its_id() -> None:
    for action_id in range(NUM_ACTIONS):
        text = Action.from_id(action_id).text()
        assert Action.parse(text).id == action_id, text
        assert Action.parse(text.upper()).id == action_id, text


@pytest.mark.parametrize(
    "action",
    ["buy L1#1", "activate black hard", "pick navy steady", "rally", "place A1", "target 1"],
)
def test_an_illegal_action_is_refused_and_changes_nothing(game: GameState, action: str) -> None:
    s = game
    give(s, 0, Meeple.BROWN, Bucket.HARD)
    assert action not in texts(s)
    before = s.to_bytes()
    with pytest.raises(IllegalActionError):
        s.apply(action)
    assert s.to_bytes() == before
    assert s.apply("activate brown hard")  # the state still plays on


@pytest.mark.parametrize(
    "action",
    [
        *["", "fly away", "end now", "pick navy", "activate brown"],
        *["buy L3#1", "buy L1#10", "buy L1#01", "build Z9/1", "build A1/7"],
        *[-1, NUM_ACTIONS, True, 2.0],
    ],
)
def test_a_malformed_action_is_invalid(game: GameState, action: object) -> None:
    s = game
    before = s.to_bytes()
    with pytest.raises(InvalidActionError):
        s.apply(action)  # type: ignore[arg-type]
    assert s.to_bytes() == before


def test_acting_out_of_turn_is_illegal(game: GameState) -> None:
    s = game
    before = s.to_bytes()
    with pytest.raises(IllegalActionError, match="seat 1 cannot act"):
        s.apply("end", seat=1)
    assert s.to_bytes() == before
    s.apply("end", seat=0)
    assert s.seat == 1


def test_both_refusals_are_value_errors() -> None:
    assert issubclass(IllegalActionError, ActionError)
    assert issubclass(InvalidActionError, ActionError)
    assert issubclass(ActionError, ValueError)
