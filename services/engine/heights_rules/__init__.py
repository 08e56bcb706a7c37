"""Rolling Heights rules core: pure, deterministic, no I/O.

Build a game with `new_game(GameConfig(players=N), seed)`, then loop: `current_player()`
is a seat, `CHANCE` (apply the single ROLL action) or `TERMINAL`; `legal_actions()`
lists action ids; `apply(action)` plays one. See docs/engine.md for the contract.
"""

from heights_rules.actions import (
    ACTION_SPACE_VERSION,
    NUM_ACTIONS,
    Action,
    ActionKind,
    describe_action_space,
)
from heights_rules.catalogue import DEFAULT_CATALOGUE, Catalogue, load_catalogue
from heights_rules.components import Bucket, BuildingType, Cube, Meeple, Score
from heights_rules.errors import (
    ActionError,
    CatalogueError,
    IllegalActionError,
    InvalidActionError,
    ReplayError,
)
from heights_rules.final import Outcome, outcome
from heights_rules.options import RULES_REVISION, EndTrigger, GameConfig, RuleOptions, StartSpacing
from heights_rules.outcome import (
    MAYOR_SEAT,
    final_ranks,
    players_ranked,
    score_ranks,
    shared_first_points,
)
from heights_rules.replay import ENGINE_VERSION, Replay, verify
from heights_rules.setup import new_game
from heights_rules.state import CHANCE, TERMINAL, Event, GameState, Phase, Termination

__all__ = [
    "ACTION_SPACE_VERSION",
    "CHANCE",
    "DEFAULT_CATALOGUE",
    "ENGINE_VERSION",
    "MAYOR_SEAT",
    "NUM_ACTIONS",
    "RULES_REVISION",
    "TERMINAL",
    "Action",
    "ActionError",
    "ActionKind",
    "Bucket",
    "BuildingType",
    "Catalogue",
    "CatalogueError",
    "Cube",
    "EndTrigger",
    "Event",
    "GameConfig",
    "GameState",
    "IllegalActionError",
    "InvalidActionError",
    "Meeple",
    "Outcome",
    "Phase",
    "Replay",
    "ReplayError",
    "RuleOptions",
    "Score",
    "StartSpacing",
    "Termination",
    "describe_action_space",
    "final_ranks",
    "load_catalogue",
    "new_game",
    "outcome",
    "players_ranked",
    "score_ranks",
    "shared_first_points",
    "verify",
]
