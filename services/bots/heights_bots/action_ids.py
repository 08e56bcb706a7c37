"""Action-id arithmetic the bots use on their hot path (the engine's block layout)."""

from __future__ import annotations

from heights_rules import ACTIVATE_MODES, MARKET_SIZE, MAX_STACKS, OFFSETS, ActionKind

N_MODES = len(ACTIVATE_MODES)
MODE_HARD, MODE_HARD_AS_STEADY, MODE_STEADY = 0, 1, 2

END = OFFSETS[ActionKind.END_TURN]
RALLY = OFFSETS[ActionKind.RALLY]
STOP = OFFSETS[ActionKind.STOP]
DONE = OFFSETS[ActionKind.DONE]
START = OFFSETS[ActionKind.START]
ASIDE = OFFSETS[ActionKind.ASIDE]
ACTIVATE = OFFSETS[ActionKind.ACTIVATE]
PICK = OFFSETS[ActionKind.PICK]
BUY = OFFSETS[ActionKind.BUY]
TAKE = OFFSETS[ActionKind.TAKE]
PLACE = OFFSETS[ActionKind.PLACE]
PAY = OFFSETS[ActionKind.PAY]
TRADE = OFFSETS[ActionKind.TRADE]
WILD = OFFSETS[ActionKind.WILD]
CUBE = OFFSETS[ActionKind.CUBE]
BUILD = OFFSETS[ActionKind.BUILD]
USE = OFFSETS[ActionKind.USE]
GAIN = OFFSETS[ActionKind.GAIN]
TARGET = OFFSETS[ActionKind.TARGET]
BUY_END = BUY + 2 * MARKET_SIZE
TAKE_END = TAKE + 2 * MARKET_SIZE
BUILD_END = USE
ACTIVATE_END = PICK


def activate(colour: int, mode: int) -> int:
    return ACTIVATE + colour * N_MODES + mode


def build_target(action: int) -> tuple[int, int]:
    """(space, stack) of a BUILD id."""
    return divmod(action - BUILD, MAX_STACKS)


def market_ref(action: int, base: int) -> tuple[int, int]:
    """(level, position) of a BUY or TAKE id."""
    return divmod(action - base, MARKET_SIZE)
