"""Rolling Heights rules core: pure, deterministic, no I/O.

Build a game with `new_game(GameConfig(players=N), seed)`, then loop: `current_player()`
is a seat, `CHANCE` (apply the single ROLL action) or `TERMINAL`; `legal_actions()`
lists action ids; `apply(action)` plays one. See docs/engine.md for the contract.

This module is the rules core's public API, and the only one: the engine service, the
runner, the bots, the platform and the CLI import from `heights_rules`, never from its
submodules (the `rules-public-api` contract in pyproject.toml; the list is pinned by
tests/rules/test_public_api.py). Something the rest needs is made public here, on purpose.
"""

import typing as _typing

from heights_rules.actions import (
    ACTION_SPACE_VERSION,
    ACTIVATE_MODES,
    MAX_STACKS,
    NUM_ACTIONS,
    OFFSETS,
    Action,
    ActionKind,
    action_text,
    describe_action_space,
)
from heights_rules.catalogue import (
    DEFAULT_CATALOGUE,
    MARKET_SIZE,
    Catalogue,
    EffectRef,
    ScoringRef,
    TileDef,
    load_catalogue,
)
from heights_rules.components import N_BUCKETS, Bucket, BuildingType, Cube, Meeple, Score
from heights_rules.effects import usable_buildings
from heights_rules.errors import (
    ActionError,
    CatalogueError,
    DocumentTooDeepError,
    DocumentTooLargeError,
    IllegalActionError,
    InvalidActionError,
    ReplayError,
    ReplayTooDeepError,
    ReplayTooLargeError,
)
from heights_rules.final import Outcome, outcome, target_values
from heights_rules.frames import F, PickEffect, Purpose
from heights_rules.game import GameState, determinize, from_infoset, new_game, unasked_action
from heights_rules.lazy import lazy_exports
from heights_rules.limits import MAX_JSON_DEPTH

# Bounded reading of untrusted JSON (rule options, replays), under a name of its own.
from heights_rules.limits import loads as bounded_json_loads
from heights_rules.main_phase import upgrade_targets
from heights_rules.market import market_cost, place_costs, prime_costs, start_spaces
from heights_rules.observation import PUBLIC, ViewCache, infoset
from heights_rules.options import (
    OPTION_SPECS,
    RULES_REVISION,
    EndTrigger,
    GameConfig,
    OptionSpec,
    RuleOptionError,
    RuleOptions,
    StartSpacing,
    validate_options,
)
from heights_rules.patches import make_patch
from heights_rules.ranking import (
    MAYOR_SEAT,
    final_ranks,
    players_ranked,
    score_ranks,
    shared_first_points,
)
from heights_rules.rng import SEED_BITS, KeyedRng
from heights_rules.scoring import evaluate
from heights_rules.state import CHANCE, TERMINAL, Event, Phase, Termination
from heights_rules.state_fields import STATE_FIELDS, StateField

if _typing.TYPE_CHECKING:
    from heights_rules.replay import (
        ENGINE_VERSION,
        FILE_SUFFIX,
        Recorder,
        Replay,
        Verification,
        replay_advance,
        replay_start,
        simulate,
        verify,
    )

# Replay records (and gzip, zlib and their hashing with them) load on first use: a
# sandboxed bot imports this package at every start, four a match, and never reads or
# writes a replay; the engine, the runner and the platform load it at their first use.
_LAZY = dict.fromkeys(
    (
        "ENGINE_VERSION",
        "FILE_SUFFIX",
        "Recorder",
        "Replay",
        "Verification",
        "replay_advance",
        "replay_start",
        "simulate",
        "verify",
    ),
    "heights_rules.replay",
)


__getattr__ = lazy_exports(__name__, _LAZY)

__all__ = [
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
