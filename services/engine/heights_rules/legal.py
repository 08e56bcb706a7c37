"""Legal actions of the pending decision, as sorted action ids."""

from __future__ import annotations

from typing import Final

from heights_rules.actions import OFFSETS, ActionKind
from heights_rules.catalogue import MARKET_SIZE
from heights_rules.components import MEEPLES, N_BUCKETS, Bucket
from heights_rules.economy import payment_sources
from heights_rules.effects import usable_buildings
from heights_rules.frames import F, PickEffect, Purpose
from heights_rules.main_phase import main_legal, upgrade_targets
from heights_rules.market import affordable_spaces, prime_costs, start_spaces
from heights_rules.solo import mayor_build_options
from heights_rules.state import State

_O: Final = OFFSETS
_K = ActionKind
# The commonest decisions, resolved before the table lookup below (Final: compiled code
# reads these as C values, not from the module's dict).
_PAY_ID: Final = _O[_K.PAY]
_ROLL_ID: Final = _O[_K.ROLL]
_PLACE_ID: Final = _O[_K.PLACE]
_RALLY_ID: Final = _O[_K.RALLY]
_STOP_ID: Final = _O[_K.STOP]


def legal_ids(s: State) -> list[int]:
    """`legal_actions`, worked out once per decision (applying an action clears it)."""
    if s._legal is None:
        s._legal = legal_actions(s)
    return s._legal


def legal_actions(s: State) -> list[int]:
    if not s.stack:
        return []
    kind, p, a, b, c = s.stack[-1]
    if kind is F.MAIN:
        return main_legal(s, p)
    if kind is F.PAY:
        return [_PAY_ID + src for src in payment_sources(s, p)]
    if kind is F.ROLL:
        return [_ROLL_ID]
    if kind is F.RISK:
        return [_RALLY_ID, _STOP_ID]
    if kind is F.PLACE:
        return [_PLACE_ID + space for space in _place_spaces(s, p, a, c)]
    if kind is F.MAYOR_BUILD:
        return mayor_build_options(s)
    return _FRAME_LEGAL[kind](s, p, a, b, c)


def _place_spaces(s: State, p: int, purpose: int, extra: object) -> list[int]:
    if purpose == Purpose.START:
        return start_spaces(s, p)
    if purpose == Purpose.MAYOR:
        assert isinstance(extra, tuple)
        return sorted(extra)
    funds = s.funds(p)
    if purpose == Purpose.BUY:
        assert isinstance(extra, int)
        return affordable_spaces(s, p, funds - extra)
    return sorted(space for space, cost in prime_costs(s) if cost <= funds)


def _start(s: State, p: int, a: int, b: int, c: object) -> list[int]:
    if not start_spaces(s, p):
        return []
    return [_O[_K.START] + pos for pos in range(MARKET_SIZE) if s.market[0][pos] >= 0]


def _aside(s: State, p: int, a: int, b: int, c: object) -> list[int]:
    m = s.meeples[p]
    return [
        _O[_K.ASIDE] + colour
        for colour in range(len(MEEPLES))
        if m[colour * N_BUCKETS + Bucket.EXHAUSTED]
    ]


def _strike(s: State, p: int, a: int, b: int, c: object) -> list[int]:
    m = s.meeples[p]
    out = []
    for colour in range(len(MEEPLES)):
        for bucket in (Bucket.HARD, Bucket.STEADY):
            if m[colour * N_BUCKETS + bucket]:
                out.append(_O[_K.PICK] + colour * N_BUCKETS + bucket)
    return out


def _upgrade(s: State, p: int, a: int, taken: int, c: object) -> list[int]:
    out = [_O[_K.DONE]] if taken else []
    out.extend(
        _O[_K.PICK] + colour * N_BUCKETS + bucket for colour, bucket in upgrade_targets(s, p)
    )
    return sorted(out)


def _use(s: State, p: int, level: int, b: int, c: object) -> list[int]:
    return sorted(_O[_K.USE] + s.space_of[t] for t in usable_buildings(s, p, level))


def _pick(s: State, p: int, effect: int, b: int, c: object) -> list[int]:
    m = s.meeples[p]
    colours = [b] if effect == PickEffect.CONVERT else range(len(MEEPLES))
    return [
        _O[_K.PICK] + colour * N_BUCKETS + bucket
        for colour in colours
        for bucket in range(N_BUCKETS)
        if m[colour * N_BUCKETS + bucket]
    ]


def _cube(s: State, p: int, a: int, b: int, c: object) -> list[int]:
    return list(range(_O[_K.CUBE], _O[_K.CUBE] + 4))


def _gain(s: State, p: int, mask: int, b: int, c: object) -> list[int]:
    return [_O[_K.GAIN] + colour for colour in range(len(MEEPLES)) if mask >> colour & 1]


def _take(s: State, p: int, a: int, b: int, c: object) -> list[int]:
    return [
        _O[_K.TAKE] + level * MARKET_SIZE + pos
        for level in (0, 1)
        for pos in range(MARKET_SIZE)
        if s.market[level][pos] >= 0
    ]


def _target(s: State, p: int, a: int, b: int, c: object) -> list[int]:
    return [_O[_K.TARGET] + i for i in range(len(s.targets[p]))]


_FRAME_LEGAL: Final = {
    F.START: _start,
    F.ASIDE: _aside,
    F.STRIKE: _strike,
    F.UPGRADE: _upgrade,
    F.USE: _use,
    F.PICK: _pick,
    F.CUBE: _cube,
    F.GAIN: _gain,
    F.TAKE: _take,
    F.TARGET: _target,
}
