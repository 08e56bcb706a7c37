"""Rule options: one validation (`validate_options`) that names the option and what it allows."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from heights_rules import (
    OPTION_SPECS,
    EndTrigger,
    GameConfig,
    Replay,
    ReplayError,
    RuleOptionError,
    RuleOptions,
    StartSpacing,
    new_game,
    validate_options,
)
from heights_rules.replay import Recorder, verify


def _refusal(data: Any) -> RuleOptionError:
    with pytest.raises(RuleOptionError) as caught:
        validate_options(data)
    return caught.value


@pytest.mark.parametrize(
    ("data", "option", "allowed"),
    [
        ({"end_trigger": "constructed"}, "end_trigger", "CONSTRUCTED, SUPPLY_EMPTY"),
        ({"end_trigger": 1}, "end_trigger", "CONSTRUCTED, SUPPLY_EMPTY"),
        (
            {"start_spacing": "MANHATTAN"},
            "start_spacing",
            "MANHATTAN_LE_2, SAME_LINE_LE_2, MANHATTAN_LE_3",
        ),
        ({"mayor_hard": 1}, "mayor_hard", "true, false"),
        ({"mayor_hard": "true"}, "mayor_hard", "true, false"),
        ({"round_cap": True}, "round_cap", "integers 1..200"),
        ({"round_cap": 3.0}, "round_cap", "integers 1..200"),
        ({"round_cap": "3"}, "round_cap", "integers 1..200"),
        ({"round_cap": 0}, "round_cap", "integers 1..200"),
        ({"round_cap": 201}, "round_cap", "integers 1..200"),
        ({"wild_supply_limit": -1}, "wild_supply_limit", "integers 0..99"),
        ({"mayor_vp_per_cube": 10**100}, "mayor_vp_per_cube", "integers 0..10"),
    ],
)
def test_a_bad_value_names_its_option_and_the_allowed_values(
    data: dict[str, Any], option: str, allowed: str
) -> None:
    err = _refusal(data)
    assert isinstance(err, ValueError)
    assert (err.option, err.allowed) == (option, allowed)
    assert option in str(err)
    assert allowed.split(",", maxsplit=1)[0] in str(err)
    assert len(str(err)) < 200  # a huge value is not echoed whole


def test_an_unknown_option_lists_the_canonical_names() -> None:
    err = _refusal({"round_kap": 3})
    assert err.option == "round_kap"
    assert err.allowed.split(", ") == [spec.name for spec in OPTION_SPECS]
    assert _refusal({7: 1}).option == "7"
    assert _refusal(["round_cap"]).option == ""


def test_landing_chances_must_leave_room_for_exhausted() -> None:
    err = _refusal({"landing_hard_permille": 600, "landing_steady_permille": 400})
    assert err.option == "landing_steady_permille"
    assert err.allowed == "integers 0..399 with landing_hard_permille 600"
    validate_options({"landing_hard_permille": 600, "landing_steady_permille": 399})


def test_the_constructor_refuses_strings_for_enums() -> None:
    # The engine compares members by identity: a string would silently play other rules.
    with pytest.raises(RuleOptionError) as caught:
        RuleOptions(end_trigger="SUPPLY_EMPTY")  # type: ignore[arg-type]
    assert caught.value.option == "end_trigger"
    with pytest.raises(RuleOptionError):
        RuleOptions(start_spacing="MANHATTAN_LE_3")  # type: ignore[arg-type]
    with pytest.raises(RuleOptionError):
        RuleOptions(mayor_hard=1)  # type: ignore[arg-type]
    with pytest.raises(RuleOptionError):
        GameConfig(options={"round_cap": 3})  # type: ignore[arg-type]
    played = RuleOptions(end_trigger=EndTrigger.SUPPLY_EMPTY)
    assert played.end_trigger is EndTrigger.SUPPLY_EMPTY


def test_specs_describe_every_option_with_its_default() -> None:
    assert {s.name: s.default for s in OPTION_SPECS} == RuleOptions().to_dict()
    specs = {s.name: s.to_dict() for s in OPTION_SPECS}
    assert specs["end_trigger"]["choices"] == [m.value for m in EndTrigger]
    assert specs["start_spacing"]["choices"] == [m.value for m in StartSpacing]
    assert (specs["round_cap"]["min"], specs["round_cap"]["max"]) == (1, 200)
    assert specs["mayor_hard"] == {"name": "mayor_hard", "type": "bool", "default": False}


@st.composite
def _valid_options(draw: st.DrawFn) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for spec in OPTION_SPECS:
        if not draw(st.booleans()):
            continue
        if spec.kind == "enum":
            out[spec.name] = draw(st.sampled_from(spec.choices))
        elif spec.kind == "bool":
            out[spec.name] = draw(st.booleans())
        else:
            out[spec.name] = draw(st.integers(spec.low, spec.high))
    if out.get("landing_hard_permille", 100) + out.get("landing_steady_permille", 300) >= 1000:
        out.pop("landing_steady_permille", None)
        out.pop("landing_hard_permille", None)
    return out


@given(_valid_options())
def test_valid_options_round_trip_through_json(data: dict[str, Any]) -> None:
    options = validate_options(json.loads(json.dumps(data)))
    assert {k: options.to_dict()[k] for k in data} == data
    assert validate_options(options.to_dict()) == options


def _short_replay() -> Replay:
    state = new_game(GameConfig(players=2, options=RuleOptions(round_cap=1)), 5)
    recorder = Recorder(state, ["a", "b"])
    while not recorder.state.is_terminal():
        recorder.apply(recorder.state.legal_actions()[0])
    return recorder.replay


def test_a_replay_whose_options_do_not_validate_fails_with_a_clear_message() -> None:
    replay = _short_replay()
    assert verify(Replay.from_bytes(replay.to_bytes())).ok
    data = replay.to_dict()
    data["config"]["options"]["end_trigger"] = "constructed"
    with pytest.raises(ReplayError, match="rule options do not validate: option end_trigger"):
        Replay.from_bytes(json.dumps(data).encode())
