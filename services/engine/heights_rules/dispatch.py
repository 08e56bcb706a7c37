"""Applying one (already validated) action to the state, then running the engine's steps."""

from __future__ import annotations

from typing import Final

from heights_rules import main_phase, turn
from heights_rules.actions import ACTIVATE_MODES, MAX_STACKS, ActionKind, split_id
from heights_rules.catalogue import MARKET_SIZE
from heights_rules.components import N_BUCKETS
from heights_rules.economy import gain_cube, gain_meeple, pay_unit
from heights_rules.effects import pick_meeple, run_effect
from heights_rules.frames import F, Purpose, frame
from heights_rules.market import finish_payment, on_place, take_from_market
from heights_rules.solo import mayor_build_choice, mayor_on_place
from heights_rules.state import State


def apply_action(s: State, action_id: int) -> None:
    kind, arg = split_id(action_id)
    top = s.stack[-1]
    p = top[1]
    if kind is ActionKind.ROLL:
        turn.resolve_roll(s)
    elif kind is ActionKind.PICK:
        _pick(s, p, top[0], *divmod(arg, N_BUCKETS))
    elif kind is ActionKind.PAY:
        _pay(s, p, arg)
    else:
        _HANDLERS[kind](s, p, arg)
    turn.advance(s)


def _pick(s: State, p: int, frame_kind: F, colour: int, bucket: int) -> None:
    if frame_kind is F.STRIKE:
        turn.strike_return(s, p, colour, bucket)
    elif frame_kind is F.UPGRADE:
        main_phase.upgrade(s, p, colour, bucket)
    else:
        pick_meeple(s, p, colour, bucket)


def _pay(s: State, p: int, source: int) -> None:
    pay_unit(s, p, source)
    _, _, left, purpose, ctx = s.stack.pop()
    if left > 1:
        s.stack.append(frame(F.PAY, p, left - 1, purpose, ctx))
    else:
        finish_payment(s, p, purpose, ctx)


def _start(s: State, p: int, pos: int) -> None:
    s.stack.pop()
    tile = take_from_market(s, p, 0, pos, sweetens=False)
    s.stack.append(frame(F.PLACE, p, Purpose.START, tile, 0))


def _activate(s: State, p: int, arg: int) -> None:
    colour, mode = divmod(arg, len(ACTIVATE_MODES))
    main_phase.activate(s, p, colour, mode)


def _use(s: State, p: int, space: int) -> None:
    level = s.stack.pop()[2]
    run_effect(s, p, s.on_cell[space], level)


def _cube(s: State, p: int, colour: int) -> None:
    left = s.stack.pop()[2] - 1
    if left:
        s.stack.append(frame(F.CUBE, p, left))
    gain_cube(s, p, colour)


def _gain(s: State, p: int, colour: int) -> None:
    s.stack.pop()
    gain_meeple(s, p, colour)


def _target(s: State, p: int, index: int) -> None:
    s.stack.pop()
    s.target_choice[p] = s.targets[p][index]
    s.log("target", p, target=s.catalogue.targets[s.target_choice[p]].id)


def _build(s: State, p: int, arg: int) -> None:
    space, stack = divmod(arg, MAX_STACKS)
    if s.stack[-1][0] is F.MAYOR_BUILD:
        mayor_build_choice(s, stack)
    else:
        main_phase.build(s, p, space, stack)


def _place(s: State, p: int, space: int) -> None:
    if s.stack[-1][2] == Purpose.MAYOR:
        mayor_on_place(s, space)
    else:
        on_place(s, p, space)


def _done(s: State, p: int, arg: int) -> None:
    s.stack.pop()


_HANDLERS: Final = {
    ActionKind.END_TURN: lambda s, p, a: turn.end_turn(s, p),
    ActionKind.RALLY: lambda s, p, a: turn.rally(s, p, go=True),
    ActionKind.STOP: lambda s, p, a: turn.rally(s, p, go=False),
    ActionKind.DONE: _done,
    ActionKind.START: _start,
    ActionKind.ASIDE: turn.set_aside,
    ActionKind.ACTIVATE: _activate,
    ActionKind.BUY: lambda s, p, a: main_phase.buy(s, p, *divmod(a, MARKET_SIZE)),
    ActionKind.TAKE: lambda s, p, a: main_phase.take(s, p, *divmod(a, MARKET_SIZE)),
    ActionKind.PLACE: _place,
    ActionKind.TRADE: main_phase.trade,
    ActionKind.WILD: main_phase.use_wild,
    ActionKind.CUBE: _cube,
    ActionKind.BUILD: _build,
    ActionKind.USE: _use,
    ActionKind.GAIN: _gain,
    ActionKind.TARGET: _target,
}
