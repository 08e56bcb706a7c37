"""Named rule options (every [PROPOSAL] of RULES.md) and the game configuration.

The options in force are part of every game's configuration and replay, so another
reading of an ambiguous rule can be played and still be reproduced.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import Enum, StrEnum
from typing import Any

from heights_rules.catalogue import DEFAULT_CATALOGUE, LEGACY_CATALOGUE, load_catalogue

# The rules revision every new game is played under. A replay records the revision of
# its game (no field: revision 1), and the rules branch on it only where a defect fix
# changed play (docs/engine.md, "Rules revisions"), so every recorded game still verifies.
RULES_REVISION = 2


class EndTrigger(StrEnum):
    """A-02: what triggers the end of the game."""

    CONSTRUCTED = "CONSTRUCTED"  # every cube of a colour in play is on buildings (rulebook)
    SUPPLY_EMPTY = "SUPPLY_EMPTY"  # a colour's supply runs out (video, solo sheet)


class StartSpacing(StrEnum):
    """A-05: which spaces near another player's starting tile are forbidden."""

    MANHATTAN_LE_2 = "MANHATTAN_LE_2"
    SAME_LINE_LE_2 = "SAME_LINE_LE_2"
    MANHATTAN_LE_3 = "MANHATTAN_LE_3"


@dataclass(frozen=True, slots=True)
class RuleOptions:
    """Every rule the sources leave open, with the project's default (RULES.md §13)."""

    landing_hard_permille: int = 100  # A-01 / decision 4: P(HARD)
    landing_steady_permille: int = 300  # A-01 / decision 4: P(STEADY); the rest is EXHAUSTED
    end_trigger: EndTrigger = EndTrigger.CONSTRUCTED  # A-02 / decision 5
    round_cap: int = 40  # A-22 / decision 5: safety valve, ends with ROUND_CAP
    start_spacing: StartSpacing = StartSpacing.MANHATTAN_LE_2  # A-05 / decision 6
    market_costs_reversed: bool = False  # the alternate preset, cheap end at the draw pile
    sweeten_on_free_take: bool = True  # a City Planner take at position >= 3 sweetens
    meeple_supply_limited: bool = True  # A-23 / decision 7
    wild_supply_limit: int = 0  # A-24 / decision 7: 0 = unlimited, else tokens in circulation
    tribune_retroactive: bool = True  # City Tribune also doubles earlier politicians
    count_activated_architects: bool = False  # Botanical Gardens counts used HARD ones
    first_game_ads: bool = False  # fixed Ads 9, 10 and 12 instead of a random draw
    mayor_step_b_cubes: int = 12
    mayor_step_a_cubes: int = 3  # solo sheet, Step A
    mayor_vp_per_cube: int = 1  # §12.2: the lost number in Step A scoring
    mayor_hard: bool = False  # solo difficulty: three rolls from round 10 on

    def __post_init__(self) -> None:
        if not (
            0 <= self.landing_hard_permille
            and 0 <= self.landing_steady_permille
            and self.landing_hard_permille + self.landing_steady_permille < 1000
        ):
            raise ValueError("landing probabilities must leave a chance of EXHAUSTED")
        if not 1 <= self.round_cap <= 200:
            raise ValueError("round_cap must be in 1..200")
        if self.wild_supply_limit < 0 or self.mayor_step_b_cubes < 0 or self.mayor_step_a_cubes < 0:
            raise ValueError("limits must not be negative")

    def to_dict(self) -> dict[str, Any]:
        # Every observation carries the options, so this runs at each decision: the
        # values (scalars and enums) are read once per distinct options and copied.
        known = _OPTION_DICTS.get(self)
        if known is None:
            if len(_OPTION_DICTS) >= 256:
                _OPTION_DICTS.clear()
            values = ((name, getattr(self, name)) for name in _OPTION_NAMES)
            known = _OPTION_DICTS[self] = {
                k: (v.value if isinstance(v, Enum) else v) for k, v in values
            }
        return dict(known)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RuleOptions:
        """Options from a dict; unknown names are an error, missing ones take defaults."""
        known = {f.name: f for f in fields(cls)}
        unknown = sorted(set(data) - set(known))
        if unknown:
            raise ValueError(f"unknown rule options: {', '.join(unknown)}")
        values: dict[str, Any] = {}
        for name, value in data.items():
            default = getattr(cls(), name)
            if isinstance(default, Enum):
                try:
                    values[name] = type(default)(value)
                except ValueError:
                    choices = ", ".join(m.value for m in type(default))
                    raise ValueError(f"option {name} must be one of {choices}") from None
            elif isinstance(default, bool):
                if not isinstance(value, bool):
                    raise ValueError(f"option {name} must be a boolean")
                values[name] = value
            else:
                if not isinstance(value, int) or isinstance(value, bool):
                    raise ValueError(f"option {name} must be an integer")
                values[name] = value
        return cls(**values)


_OPTION_NAMES = tuple(f.name for f in fields(RuleOptions))
_OPTION_DICTS: dict[RuleOptions, dict[str, Any]] = {}


@dataclass(frozen=True, slots=True)
class GameConfig:
    """Everything that, with the seed and the decisions, determines a game."""

    players: int = 2  # seats that make decisions: 2-4, or 1 in solo (plus the Mayor)
    solo: bool = False
    options: RuleOptions = RuleOptions()
    catalogue_id: str = DEFAULT_CATALOGUE
    catalogue_sha256: str = ""
    rules_revision: int = RULES_REVISION

    def __post_init__(self) -> None:
        if not 1 <= self.rules_revision <= RULES_REVISION:
            raise ValueError(
                f"rules revision {self.rules_revision} is unknown; "
                f"this engine plays revisions 1 to {RULES_REVISION}"
            )
        if self.solo and self.players != 1:
            raise ValueError("a solo game has exactly one player (against the Mayor)")
        if not self.solo and not 2 <= self.players <= 4:
            raise ValueError("a game has 2 to 4 players, or 1 in solo mode")
        catalogue = load_catalogue(self.catalogue_id)
        if not self.catalogue_sha256:
            object.__setattr__(self, "catalogue_sha256", catalogue.sha256)
        elif self.catalogue_sha256 != catalogue.sha256:
            raise ValueError(
                f"catalogue {self.catalogue_id} has hash {catalogue.sha256[:12]}…, "
                f"not {self.catalogue_sha256[:12]}…"
            )

    @classmethod
    def solo_game(cls, options: RuleOptions = RuleOptions(), **more: Any) -> GameConfig:
        return cls(players=1, solo=True, options=options, **more)

    @property
    def board_players(self) -> int:
        """Player count for setup tables: solo is set up as a 2-player game."""
        return 2 if self.solo else self.players

    def to_dict(self) -> dict[str, Any]:
        # Revision 1 writes no field, so games recorded before revisions keep their bytes.
        revision = {"rules_revision": self.rules_revision} if self.rules_revision > 1 else {}
        return {
            "players": self.players,
            "solo": self.solo,
            "options": self.options.to_dict(),
            "catalogue": {"id": self.catalogue_id, "sha256": self.catalogue_sha256},
        } | revision

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameConfig:
        catalogue = data.get("catalogue", {})
        return cls(
            players=int(data["players"]),
            solo=bool(data.get("solo", False)),
            options=RuleOptions.from_dict(data.get("options", {})),
            catalogue_id=catalogue.get("id", LEGACY_CATALOGUE),
            catalogue_sha256=catalogue.get("sha256", ""),
            rules_revision=_revision(data.get("rules_revision", 1)),
        )


def _revision(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"rules_revision must be an integer 1 to {RULES_REVISION}")
    return value
