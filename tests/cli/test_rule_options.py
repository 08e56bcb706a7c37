"""`--option NAME=VALUE` on every command that takes it, and `heights catalogue --options`."""

from __future__ import annotations

import json

import pytest

from heights_cli.main import main
from heights_cli.options_arg import parse_rule_options
from heights_rules import OPTION_SPECS, EndTrigger


@pytest.mark.parametrize(
    ("pair", "named", "allowed"),
    [
        ("end_trigger=constructed", "end_trigger", "CONSTRUCTED, SUPPLY_EMPTY"),
        ("round_kap=3", "'round_kap'", "round_cap"),
        ("round_cap=three", "round_cap", "integers 1..200"),
        ("round_cap=0", "round_cap", "integers 1..200"),
        ("mayor_hard=maybe", "mayor_hard", "true, false"),
        ("round_cap", "--option needs NAME=VALUE", "NAME=VALUE"),
    ],
)
@pytest.mark.parametrize("command", ["selfplay", "stats", "match"])
def test_a_bad_option_is_a_usage_error_naming_it(
    capsys: pytest.CaptureFixture[str], command: str, pair: str, named: str, allowed: str
) -> None:
    argv = [command, "random", "greedy"] if command == "match" else [command]
    with pytest.raises(SystemExit) as exited:
        main(
            [*argv, "--games", "1", "--option", pair] if command != "match" else [*argv, "-o", pair]
        )
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "argument --option/-o" in err
    assert named in err
    assert allowed in err


def test_options_are_checked_together_whatever_their_order(
    capsys: pytest.CaptureFixture[str],
) -> None:
    pairs = ["landing_hard_permille=900", "landing_steady_permille=50"]
    assert parse_rule_options(pairs).landing_hard_permille == 900
    with pytest.raises(SystemExit) as exited:
        main(["selfplay", "--games", "1", "-o", pairs[0], "-o", "landing_steady_permille=100"])
    assert exited.value.code == 2
    assert "below 1000" in capsys.readouterr().err


def test_good_options_reach_the_game(capsys: pytest.CaptureFixture[str]) -> None:
    options = parse_rule_options(["end_trigger=SUPPLY_EMPTY", "mayor_hard=yes", "round_cap=2"])
    assert options.end_trigger is EndTrigger.SUPPLY_EMPTY
    assert (options.mayor_hard, options.round_cap) == (True, 2)
    assert main(["selfplay", "--games", "1", "--json", "-o", "round_cap=1"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["mean_rounds"] == 1


def test_catalogue_lists_every_option_with_its_allowed_values(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["catalogue", "--options"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = {line.split()[0]: line for line in lines[1:]}
    assert list(rows) == [spec.name for spec in OPTION_SPECS]
    assert rows["end_trigger"].endswith("CONSTRUCTED, SUPPLY_EMPTY")
    assert rows["round_cap"].split()[1:] == ["40", "integers", "1..200"]
    assert main(["catalogue", "--options", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed == [spec.to_dict() for spec in OPTION_SPECS]
