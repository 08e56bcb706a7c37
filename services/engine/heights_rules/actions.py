"""The action space: every decision is one action with a stable integer id and a text form.

Ids are laid out in blocks, one block per kind, in the order of `ActionKind`; the
block sizes below are the contract (`ACTION_SPACE_VERSION`). An action is a kind
plus one argument (an index into its block), `Action.from_id(a.id) == a` and
`Action.parse(a.text()) == a`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Final

from heights_rules.catalogue import MARKET_SIZE
from heights_rules.components import CUBES, MEEPLES, N_BUCKETS, Bucket, Cube, Meeple, lower
from heights_rules.errors import InvalidActionError
from heights_rules.geometry import SPACES, parse_space, space_name

ACTION_SPACE_VERSION = 1
MAX_STACKS: Final = 6


class ActionKind(IntEnum):
    ROLL = 0  # chance: the engine rolls (meeples or the Mayor's die)
    END_TURN = 1  # end MAIN; CLEANUP follows
    RALLY = 2  # RISK: roll the exhausted meeples again
    STOP = 3  # RISK: go to MAIN
    DONE = 4  # stop an "up to" choice early (a hard Public Servant's second step)
    START = 5  # starting placement: take the level-1 plan at a market position
    ASIDE = 6  # PREP with more than 10 meeples: keep one of this colour out of the roll
    ACTIVATE = 7  # activate a meeple: colour x (hard, hard-as-steady, steady)
    PICK = 8  # choose one of your meeples: colour x bucket (strike, upgrade, effects)
    BUY = 9  # buy the plan at (level, position)
    TAKE = 10  # City Planner hard: take the plan at (level, position) free
    PLACE = 11  # put the plan being placed on a space
    PAY = 12  # pay one unit: Spending Power, a real cube, or a misc cube by tag
    TRADE = 13  # commodity trade for a cube colour
    WILD = 14  # discard a Wild Token for a cube colour
    CUBE = 15  # choose a cube colour (an ability that gains cubes)
    BUILD = 16  # put one cube on (space, stack)
    USE = 17  # a Public Figure uses the ability of the building on a space
    GAIN = 18  # choose the colour of a rewarded meeple
    TARGET = 19  # final scoring: keep Target 1 or 2


# Activation modes: (position the meeple is in, level of the ability used).
ACTIVATE_MODES: Final[tuple[tuple[Bucket, int], ...]] = (
    (Bucket.HARD, 1),
    (Bucket.HARD, 0),
    (Bucket.STEADY, 0),
)
_MODE_TEXT = ("hard", "hard-as-steady", "steady")
# PAY sources: 0 = Spending Power, 1..4 real cubes, 5..8 misc cubes by tag.
PAY_SP = 0

_SIZES: dict[ActionKind, int] = {
    ActionKind.ROLL: 1,
    ActionKind.END_TURN: 1,
    ActionKind.RALLY: 1,
    ActionKind.STOP: 1,
    ActionKind.DONE: 1,
    ActionKind.START: MARKET_SIZE,
    ActionKind.ASIDE: len(MEEPLES),
    ActionKind.ACTIVATE: len(MEEPLES) * len(ACTIVATE_MODES),
    ActionKind.PICK: len(MEEPLES) * N_BUCKETS,
    ActionKind.BUY: 2 * MARKET_SIZE,
    ActionKind.TAKE: 2 * MARKET_SIZE,
    ActionKind.PLACE: SPACES,
    ActionKind.PAY: 1 + 2 * len(CUBES),
    ActionKind.TRADE: len(CUBES),
    ActionKind.WILD: len(CUBES),
    ActionKind.CUBE: len(CUBES),
    ActionKind.BUILD: SPACES * MAX_STACKS,
    ActionKind.USE: SPACES,
    ActionKind.GAIN: len(MEEPLES),
    ActionKind.TARGET: 2,
}
OFFSETS: Final[dict[ActionKind, int]] = {}
_total = 0
for _kind in ActionKind:
    OFFSETS[_kind] = _total
    _total += _SIZES[_kind]
NUM_ACTIONS: Final = _total
_KIND_OF_ID: Final[list[ActionKind]] = [k for k in ActionKind for _ in range(_SIZES[k])]

_SIMPLE_TEXT = {
    ActionKind.ROLL: "roll",
    ActionKind.END_TURN: "end",
    ActionKind.RALLY: "rally",
    ActionKind.STOP: "stop",
    ActionKind.DONE: "done",
}
_KEYWORD = {
    ActionKind.START: "start",
    ActionKind.ASIDE: "aside",
    ActionKind.ACTIVATE: "activate",
    ActionKind.PICK: "pick",
    ActionKind.BUY: "buy",
    ActionKind.TAKE: "take",
    ActionKind.PLACE: "place",
    ActionKind.PAY: "pay",
    ActionKind.TRADE: "trade",
    ActionKind.WILD: "wild",
    ActionKind.CUBE: "cube",
    ActionKind.BUILD: "build",
    ActionKind.USE: "use",
    ActionKind.GAIN: "gain",
    ActionKind.TARGET: "target",
}
_KIND_OF_WORD = {v: k for k, v in _SIMPLE_TEXT.items()} | {v: k for k, v in _KEYWORD.items()}
_PAY_TEXT = ("sp", *(lower(c.name) for c in CUBES), *(f"misc-{lower(c.name)}" for c in CUBES))


@dataclass(frozen=True, slots=True)
class Action:
    """One decision: a kind and an argument in `range(size(kind))`."""

    kind: ActionKind
    arg: int = 0

    def __post_init__(self) -> None:
        if not 0 <= self.arg < _SIZES[self.kind]:
            raise InvalidActionError(f"argument {self.arg} out of range for {self.kind.name}")

    @property
    def id(self) -> int:
        return OFFSETS[self.kind] + self.arg

    @classmethod
    def from_id(cls, action_id: int) -> Action:
        if isinstance(action_id, bool) or not 0 <= action_id < NUM_ACTIONS:
            raise InvalidActionError(f"action id {action_id!r} is not in [0, {NUM_ACTIONS})")
        kind = _KIND_OF_ID[action_id]
        return cls(kind, action_id - OFFSETS[kind])

    def text(self) -> str:
        kind, arg = self.kind, self.arg
        if kind in _SIMPLE_TEXT:
            return _SIMPLE_TEXT[kind]
        word = _KEYWORD[kind]
        if kind is ActionKind.START:
            return f"{word} L1#{arg + 1}"
        if kind in (ActionKind.ASIDE, ActionKind.GAIN):
            return f"{word} {lower(Meeple(arg).name)}"
        if kind is ActionKind.ACTIVATE:
            colour, mode = divmod(arg, len(ACTIVATE_MODES))
            return f"{word} {lower(Meeple(colour).name)} {_MODE_TEXT[mode]}"
        if kind is ActionKind.PICK:
            colour, bucket = divmod(arg, N_BUCKETS)
            return f"{word} {lower(Meeple(colour).name)} {lower(Bucket(bucket).name)}"
        if kind in (ActionKind.BUY, ActionKind.TAKE):
            level, pos = divmod(arg, MARKET_SIZE)
            return f"{word} L{level + 1}#{pos + 1}"
        if kind in (ActionKind.PLACE, ActionKind.USE):
            return f"{word} {space_name(arg)}"
        if kind is ActionKind.PAY:
            return f"{word} {_PAY_TEXT[arg]}"
        if kind in (ActionKind.TRADE, ActionKind.WILD, ActionKind.CUBE):
            return f"{word} {lower(Cube(arg).name)}"
        if kind is ActionKind.BUILD:
            space, stack = divmod(arg, MAX_STACKS)
            return f"{word} {space_name(space)}/{stack + 1}"
        return f"{word} {arg + 1}"  # TARGET

    def __str__(self) -> str:
        return self.text()

    @classmethod
    def parse(cls, text: str) -> Action:
        """The action whose canonical text is `text`; InvalidActionError otherwise."""
        words = text.strip().lower().split()
        if not words or words[0] not in _KIND_OF_WORD:
            raise InvalidActionError(f"unknown action {text!r}")
        kind = _KIND_OF_WORD[words[0]]
        try:
            action = cls(kind, _parse_arg(kind, words[1:]))
        except (ValueError, KeyError, IndexError) as err:
            raise InvalidActionError(f"cannot parse action {text!r}: {err}") from None
        if action.text().lower() != " ".join(words):  # parsing ignores case
            raise InvalidActionError(f"not the canonical form: {text!r} (is {action.text()!r})")
        return action


def _enum_index(names: tuple[str, ...], word: str) -> int:
    if word not in names:
        raise ValueError(f"{word!r} is not one of {', '.join(names)}")
    return names.index(word)


_MEEPLE_WORDS = tuple(lower(m.name) for m in MEEPLES)
_CUBE_WORDS = tuple(lower(c.name) for c in CUBES)
_BUCKET_WORDS = tuple(lower(b.name) for b in Bucket)


def _market_ref(word: str) -> int:
    if len(word) < 4 or word[0] != "l" or word[2] != "#" or word[1] not in "12":
        raise ValueError(f"{word!r} is not a market position like L1#3")
    return (int(word[1]) - 1) * MARKET_SIZE + int(word[3:]) - 1


def _parse_arg(kind: ActionKind, words: list[str]) -> int:
    if kind in _SIMPLE_TEXT:
        if words:
            raise ValueError("takes no argument")
        return 0
    if len(words) != (2 if kind in (ActionKind.ACTIVATE, ActionKind.PICK) else 1):
        raise ValueError("wrong number of words")
    word = words[0]
    if kind is ActionKind.START:
        if not word.startswith("l1#"):
            raise ValueError("starting plans come from L1")
        return _market_ref(word)
    if kind in (ActionKind.ASIDE, ActionKind.GAIN):
        return _enum_index(_MEEPLE_WORDS, word)
    if kind is ActionKind.ACTIVATE:
        colour = _enum_index(_MEEPLE_WORDS, word)
        return colour * len(ACTIVATE_MODES) + _enum_index(_MODE_TEXT, words[1])
    if kind is ActionKind.PICK:
        colour = _enum_index(_MEEPLE_WORDS, word)
        return colour * N_BUCKETS + _enum_index(_BUCKET_WORDS, words[1])
    if kind in (ActionKind.BUY, ActionKind.TAKE):
        return _market_ref(word)
    if kind in (ActionKind.PLACE, ActionKind.USE):
        return parse_space(word)
    if kind is ActionKind.PAY:
        return _enum_index(_PAY_TEXT, word)
    if kind in (ActionKind.TRADE, ActionKind.WILD, ActionKind.CUBE):
        return _enum_index(_CUBE_WORDS, word)
    if kind is ActionKind.BUILD:
        space, _, stack = word.partition("/")
        return parse_space(space) * MAX_STACKS + int(stack) - 1
    return int(word) - 1  # TARGET


def split_id(action_id: int) -> tuple[ActionKind, int]:
    """(kind, argument) of a valid id without building an Action (the engine's hot path)."""
    kind = _KIND_OF_ID[action_id]
    return kind, action_id - OFFSETS[kind]


# Texts by id: the ids are a fixed, bounded set, and every view lists ~30 of them.
_TEXTS: Final[dict[int, str]] = {}


def action_text(action_id: int) -> str:
    """The canonical text of a valid id, built once per id (InvalidActionError otherwise)."""
    text = _TEXTS.get(action_id)
    if text is None:
        text = _TEXTS[action_id] = Action.from_id(action_id).text()
    return text


def action_id(kind: ActionKind, arg: int = 0) -> int:
    """The id of (kind, arg) without building an Action (the engine's hot path)."""
    return OFFSETS[kind] + arg


def describe_action_space() -> list[dict[str, object]]:
    """The documented layout: one entry per kind with its id range."""
    return [
        {"kind": k.name, "first_id": OFFSETS[k], "size": _SIZES[k], "example": _example(k)}
        for k in ActionKind
    ]


def _example(kind: ActionKind) -> str:
    return Action(kind, 0).text()
