"""Turn flow: PREP, RISK, CLEANUP, rounds and the end of the game (RULES.md §4, §6)."""

from __future__ import annotations

from typing import Final

from heights_rules.components import MEEPLE_NAMES, MEEPLES, N_BUCKETS, Bucket
from heights_rules.economy import MISC, gain_wild
from heights_rules.final import final_scoring
from heights_rules.frames import F, RollKind, frame
from heights_rules.market import place_tokens, slide_and_refill
from heights_rules.ranking import MAYOR_SEAT
from heights_rules.solo import mayor_build_auto, mayor_roll
from heights_rules.state import Phase, State, Termination

MAX_ACTIVE: Final = 10
_HARD: Final = int(Bucket.HARD)
_STEADY: Final = int(Bucket.STEADY)
_EXHAUSTED: Final = int(Bucket.EXHAUSTED)
_IDLE: Final = int(Bucket.IDLE)
_PREP_ROLL_LIMIT: Final = 10_000  # a safety bound; the chance of reaching it is 0.6**10000


def start_turn(s: State, p: int) -> None:
    """PREP begins: every meeple goes in the box; with more than 10, some are set aside."""
    s.seat = p
    s.turn_no[p] += 1
    s.roll_idx = 0
    s.log("turn", p, round=s.round, turn=s.turn_no[p])
    s.stack.append(frame(F.MAIN, p))
    m = s.meeples[p]
    total = 0
    for base in range(0, len(m), N_BUCKETS):
        n = m[base + Bucket.IDLE]
        m[base + Bucket.IDLE] = 0
        m[base + _EXHAUSTED] = n
        total += n
    if total == 0:
        return  # no meeples (all sacrificed): straight to MAIN
    s.stack.append(frame(F.ROLL, p, RollKind.PREP))
    if total > MAX_ACTIVE:
        s.stack.append(frame(F.ASIDE, p, total - MAX_ACTIVE))


def set_aside(s: State, p: int, colour: int) -> None:
    m = s.meeples[p]
    m[colour * N_BUCKETS + _EXHAUSTED] -= 1
    m[colour * N_BUCKETS + Bucket.IDLE] += 1
    left = s.stack.pop()[2] - 1
    if left:
        s.stack.append(frame(F.ASIDE, p, left))


def roll_exhausted(s: State, p: int) -> int:
    """Roll every active Exhausted meeple once; returns how many came up working.

    Keyed by (seat, the seat's turn number, roll index): a seat's dice never depend on
    other seats' decisions. Each meeple reads 16 bits of the digest.
    """
    options = s.config.options
    hard_below = options.landing_hard_permille * 65536 // 1000
    steady_below = hard_below + options.landing_steady_permille * 65536 // 1000
    digest = s.rng.digest(b"roll", p, s.turn_no[p], s.roll_idx)
    s.roll_idx += 1
    m = s.meeples[p]
    i = working = 0
    results: dict[str, list[int]] = {}
    for colour in range(len(MEEPLES)):
        base = colour * N_BUCKETS
        n = m[base + _EXHAUSTED]
        if not n:
            continue
        hard = steady = 0
        for _ in range(n):
            v = digest[i] | digest[i + 1] << 8
            i += 2
            if v < hard_below:
                hard += 1
            elif v < steady_below:
                steady += 1
        m[base + _HARD] += hard
        m[base + _STEADY] += steady
        m[base + _EXHAUSTED] -= hard + steady
        working += hard + steady
        results[MEEPLE_NAMES[colour]] = [hard, steady, n - hard - steady]
    s.log("roll", p, results=results)
    return working


def count(s: State, p: int, bucket: int) -> int:
    """p's meeples in one bucket, all colours."""
    m = s.meeples[p]
    n = 0
    for i in range(bucket, len(m), N_BUCKETS):
        n += m[i]
    return n


def resolve_roll(s: State) -> None:
    """The ROLL chance step."""
    _, p, kind, mayor_rolls_left, _ = s.stack.pop()
    if kind == RollKind.MAYOR:
        if mayor_rolls_left:
            s.stack.append(frame(F.ROLL, -1, RollKind.MAYOR, mayor_rolls_left - 1))
        mayor_roll(s)
        return
    if kind == RollKind.PREP:
        active = count(s, p, _EXHAUSTED)
        need = (active + 1) // 2  # at least half working, rounded up (§4.1)
        working = 0
        for _ in range(_PREP_ROLL_LIMIT):
            if working >= need:
                break
            working += roll_exhausted(s, p)
        if count(s, p, _EXHAUSTED):
            s.stack.append(frame(F.RISK, p))
    elif kind == RollKind.RALLY:
        if roll_exhausted(s, p) == 0:
            _strike(s, p)
        elif count(s, p, _EXHAUSTED):
            s.stack.append(frame(F.RISK, p))
    else:  # a steady City Planner: one re-roll that cannot bust
        roll_exhausted(s, p)


def _strike(s: State, p: int) -> None:
    """Bust: return half (rounded down) of the working meeples, gain a Wild Token (§4.2)."""
    lose = (count(s, p, _HARD) + count(s, p, _STEADY)) // 2
    s.log("strike", p, returned=lose)
    gain_wild(s, p, 1)
    if lose:
        s.stack.append(frame(F.STRIKE, p, lose))


def rally(s: State, p: int, go: bool) -> None:
    s.stack.pop()
    if go:
        s.stack.append(frame(F.ROLL, p, RollKind.RALLY))


def strike_return(s: State, p: int, colour: int, bucket: int) -> None:
    m = s.meeples[p]
    m[colour * N_BUCKETS + bucket] -= 1
    m[colour * N_BUCKETS + _EXHAUSTED] += 1
    left = s.stack.pop()[2] - 1
    if left:
        s.stack.append(frame(F.STRIKE, p, left))


def end_turn(s: State, p: int) -> None:
    """CLEANUP (§4.4): return cubes, lose SP, sweeten, slide and refill, gather meeples."""
    s.stack.pop()
    held = s.cubes[p]
    for colour in range(MISC):
        s.supply[colour] += held[colour]
        held[colour] = 0
        held[MISC + colour] = 0
    s.sp = 0
    place_tokens(s)
    slide_and_refill(s)
    m = s.meeples[p]
    for base in range(0, len(m), N_BUCKETS):
        n = 0
        for i in range(base, base + N_BUCKETS):
            n += m[i]
            m[i] = 0
        m[base + Bucket.IDLE] = n
    s.bought = False
    s.pol_vp = 0
    s.pol_mult = 1
    s.used_buildings = []
    s.log("end_turn", p)


def advance(s: State) -> None:
    """Run the engine's own steps until a decision or a roll is pending, or the game ends."""
    while True:
        if s.stack:
            if s.stack[-1][0] is F.MAYOR_BUILD and mayor_build_auto(s):
                continue
            return
        if s.phase is Phase.START:
            _next_start_placement(s)
        elif s.phase is Phase.TURN:
            _after_turn(s)
        elif s.phase is Phase.MAYOR:
            _after_round(s)
        elif s.phase is Phase.TARGETS:
            final_scoring(s)
            s.phase = Phase.OVER
            return
        else:
            return


def _next_start_placement(s: State) -> None:
    s.order.pop(0)
    if s.order:
        s.stack.append(frame(F.START, s.order[0]))
        return
    slide_and_refill(s)
    s.round = 1
    s.phase = Phase.TURN
    start_turn(s, s.start_seat)


def _after_turn(s: State) -> None:
    if s.solo:
        s.phase = Phase.MAYOR
        s.roll_idx = 0
        rolls = mayor_rolls(s)
        s.log("mayor_turn", MAYOR_SEAT, rolls=rolls)
        s.stack.append(frame(F.ROLL, -1, RollKind.MAYOR, rolls - 1))
        return
    nxt = (s.seat + 1) % s.n_seats
    if nxt == s.start_seat and _round_over(s):
        return
    start_turn(s, nxt)


def _after_round(s: State) -> None:
    if _round_over(s):
        return
    s.phase = Phase.TURN
    start_turn(s, 0)


def mayor_rolls(s: State) -> int:
    """One die roll a turn, two from round 6, three from round 12 (10 when hard) (§8.3)."""
    three_from = 10 if s.config.options.mayor_hard else 12
    if s.round >= three_from:
        return 3
    return 2 if s.round >= 6 else 1


def _round_over(s: State) -> bool:
    """The round has ended: end the game or start the next round."""
    if s.end_round and s.round >= s.end_round:
        _game_over(s, Termination.TRIGGER)
        return True
    if s.round >= s.config.options.round_cap:
        _game_over(s, Termination.ROUND_CAP)
        return True
    s.round += 1
    return False


def _game_over(s: State, termination: Termination) -> None:
    s.termination = termination
    s.phase = Phase.TARGETS
    s.log("game_end", -1, termination=termination.value, rounds=s.round)
    for p in reversed(range(s.n_seats)):
        s.stack.append(frame(F.TARGET, p))
