"""The rules core's public API is `heights_rules/__init__.py`, on purpose (as httpx's).

Everything the other packages use is exported there (the `rules-public-api` contract of
import-linter forbids them the submodules); these tests pin that list: a name exported
by accident, or a public name left out of `__all__`, fails here.
"""

from __future__ import annotations

import types

import heights_rules


def test_all_names_every_public_member_once() -> None:
    for name in heights_rules.__all__:  # the ones loaded on first use (replays) too
        getattr(heights_rules, name)
    members = {
        name
        for name, value in vars(heights_rules).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }
    assert len(set(heights_rules.__all__)) == len(heights_rules.__all__)
    assert set(heights_rules.__all__) == members


def test_every_exported_name_resolves_to_the_rules_core() -> None:
    for name in heights_rules.__all__:
        value = getattr(heights_rules, name)
        module = getattr(value, "__module__", None)
        if isinstance(value, (type, types.FunctionType)):
            assert module is not None
            assert module.startswith("heights_rules."), (name, module)


def test_the_exported_members_are_pinned() -> None:
    # A change here is a change of the rules core's contract with the rest of the project.
    assert heights_rules.__all__ == [
        "ACTION_SPACE_VERSION",
        "ACTIVATE_MODES",
        "CHANCE",
        "DEFAULT_CATALOGUE",
        "ENGINE_VERSION",
        "FILE_SUFFIX",
        "MARKET_SIZE",
        "MAX_JSON_DEPTH",
        "MAX_STACKS",
        "MAYOR_SEAT",
        "NUM_ACTIONS",
        "N_BUCKETS",
        "OFFSETS",
        "OPTION_SPECS",
        "PUBLIC",
        "RULES_REVISION",
        "SEED_BITS",
        "STATE_FIELDS",
        "TERMINAL",
        "Action",
        "ActionError",
        "ActionKind",
        "Bucket",
        "BuildingType",
        "Catalogue",
        "CatalogueError",
        "Cube",
        "DocumentTooDeepError",
        "DocumentTooLargeError",
        "EffectRef",
        "EndTrigger",
        "Event",
        "F",
        "GameConfig",
        "GameState",
        "IllegalActionError",
        "InvalidActionError",
        "KeyedRng",
        "Meeple",
        "OptionSpec",
        "Outcome",
        "Phase",
        "PickEffect",
        "Purpose",
        "Recorder",
        "Replay",
        "ReplayError",
        "ReplayTooDeepError",
        "ReplayTooLargeError",
        "RuleOptionError",
        "RuleOptions",
        "Score",
        "ScoringRef",
        "StartSpacing",
        "StateField",
        "Termination",
        "TileDef",
        "Verification",
        "ViewCache",
        "action_text",
        "bounded_json_loads",
        "describe_action_space",
        "determinize",
        "evaluate",
        "final_ranks",
        "from_infoset",
        "infoset",
        "lazy_exports",
        "load_catalogue",
        "make_patch",
        "market_cost",
        "new_game",
        "outcome",
        "place_costs",
        "players_ranked",
        "prime_costs",
        "replay_advance",
        "replay_start",
        "score_ranks",
        "shared_first_points",
        "simulate",
        "start_spaces",
        "target_values",
        "unasked_action",
        "upgrade_targets",
        "usable_buildings",
        "validate_options",
        "verify",
    ]
