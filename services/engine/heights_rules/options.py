"""Named rule options (every [PROPOSAL] of RULES.md) and the game configuration.

The options in force are part of every game's configuration and replay, so another
reading of an ambiguous rule can be played and still be reproduced.
"""

from __future__ import annotations

from collections.abc import Mapping
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
        _check_values(self)

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
    def from_dict(cls, data: Mapping[str, Any]) -> RuleOptions:
        """Options from their JSON form (`validate_options`)."""
        return validate_options(data)


_OPTION_NAMES = tuple(f.name for f in fields(RuleOptions))
_OPTION_DICTS: dict[RuleOptions, dict[str, Any]] = {}


class RuleOptionError(ValueError):
    """A rule option that does not validate: `option` names it, `allowed` says what may be
    given instead (option names for an unknown one, values otherwise)."""

    def __init__(self, option: str, allowed: str, message: str) -> None:
        super().__init__(message)
        self.option = option
        self.allowed = allowed


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One option's canonical name, JSON type, allowed values and default."""

    name: str
    kind: str  # "enum", "bool" or "int"
    default: str | bool | int
    choices: tuple[str, ...] = ()  # enum values
    low: int = 0  # int range, inclusive
    high: int = 0

    @property
    def allowed(self) -> str:
        if self.kind == "enum":
            return ", ".join(self.choices)
        if self.kind == "bool":
            return "true, false"
        return f"integers {self.low}..{self.high}"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "type": self.kind, "default": self.default}
        if self.kind == "enum":
            out["choices"] = list(self.choices)
        elif self.kind == "int":
            out["min"], out["max"] = self.low, self.high
        return out


# Ranges of the integer options. Every input has a bound; these are wide enough for any
# variant worth playing (the components hold 30 Wild Tokens and 12 cubes per building).
_INT_RANGES: dict[str, tuple[int, int]] = {
    "landing_hard_permille": (0, 999),
    "landing_steady_permille": (0, 999),
    "round_cap": (1, 200),
    "wild_supply_limit": (0, 99),
    "mayor_step_b_cubes": (0, 99),
    "mayor_step_a_cubes": (0, 99),
    "mayor_vp_per_cube": (0, 10),
}
_ENUMS: dict[str, type[StrEnum]] = {"end_trigger": EndTrigger, "start_spacing": StartSpacing}


def _spec(name: str, default: Any) -> OptionSpec:
    if name in _ENUMS:
        return OptionSpec(name, "enum", default.value, tuple(m.value for m in _ENUMS[name]))
    if isinstance(default, bool):
        return OptionSpec(name, "bool", default)
    low, high = _INT_RANGES[name]
    return OptionSpec(name, "int", default, low=low, high=high)


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _check_value(spec: OptionSpec, value: object) -> None:
    """Raise RuleOptionError unless `value` is a member (enum) or in range (the
    constructor's types: an enum field takes its enum's members, never their strings,
    since the engine compares members by identity)."""
    if spec.kind == "enum":
        enum = _ENUMS[spec.name]
        if type(value) is not enum:
            raise RuleOptionError(
                spec.name,
                spec.allowed,
                f"option {spec.name} must be a member of {enum.__name__}, not {_short(value)}; "
                f"allowed: {spec.allowed}",
            )
    elif spec.kind == "bool":
        if not isinstance(value, bool):
            raise RuleOptionError(
                spec.name,
                spec.allowed,
                f"option {spec.name} must be a boolean, not {_short(value)}; allowed: true, false",
            )
    elif (
        isinstance(value, bool) or not isinstance(value, int) or not spec.low <= value <= spec.high
    ):
        raise RuleOptionError(
            spec.name,
            spec.allowed,
            f"option {spec.name} takes {spec.allowed}, not {_short(value)}",
        )


def _check_values(options: RuleOptions) -> None:
    for spec in OPTION_SPECS:
        _check_value(spec, getattr(options, spec.name))
    hard, steady = options.landing_hard_permille, options.landing_steady_permille
    if hard + steady >= 1000:
        raise RuleOptionError(
            "landing_steady_permille",
            f"integers 0..{999 - hard} with landing_hard_permille {hard}",
            f"options landing_hard_permille + landing_steady_permille must be below 1000 "
            f"(the rest is the chance of EXHAUSTED), not {hard} + {steady}",
        )


def validate_options(data: object) -> RuleOptions:
    """The one validation of rule options in their JSON form (library, engine service,
    platform and command line all call it): names must be known, enums given by value,
    booleans as booleans, integers in range; missing options take their defaults.
    Raises `RuleOptionError` naming the first option that does not validate."""
    if not isinstance(data, Mapping):
        raise RuleOptionError(
            "", "an object of NAME: VALUE", f"rule options must be an object, not {_short(data)}"
        )
    names = ", ".join(_OPTION_NAMES)
    values: dict[str, Any] = {}
    for name, value in data.items():
        spec = _SPECS_BY_NAME.get(name) if isinstance(name, str) else None
        if spec is None:
            raise RuleOptionError(
                str(name)[:40], names, f"unknown rule option {_short(name)}; allowed: {names}"
            )
        if spec.kind == "enum":
            if not isinstance(value, str) or value not in spec.choices:
                raise RuleOptionError(
                    name,
                    spec.allowed,
                    f"option {name} must be one of {spec.allowed}, not {_short(value)}",
                )
            values[name] = _ENUMS[name](value)
        else:
            values[name] = value
    return RuleOptions(**values)


OPTION_SPECS: tuple[OptionSpec, ...] = tuple(_spec(f.name, f.default) for f in fields(RuleOptions))
_SPECS_BY_NAME = {spec.name: spec for spec in OPTION_SPECS}


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
        if not isinstance(self.options, RuleOptions):
            raise RuleOptionError(
                "",
                "RuleOptions",
                f"options must be RuleOptions (RuleOptions.from_dict reads JSON), "
                f"not {type(self.options).__name__}",
            )
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
