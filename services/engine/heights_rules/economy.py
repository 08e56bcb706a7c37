"""Cubes, Spending Power and Wild Tokens: gaining, paying and constructing (RULES.md §4.3, §5).

Misc (orange) cubes are stored per player as four tagged counts next to the four real
colours (`cubes[p][4 + c]` is a misc cube standing for colour c). A misc cube is only
ever gained for a colour whose supply is empty (A-18), paid first (A-20), and built
only once every real cube of its colour is on buildings (A-21).
"""

from __future__ import annotations

from typing import Final

from heights_rules.components import CUBE_NAMES, MEEPLE_NAMES, Bucket, Score
from heights_rules.options import EndTrigger
from heights_rules.state import State

N_CUBES: Final = 4  # len(CUBES), a literal so that compiled code inlines it
MISC: Final = N_CUBES  # offset of the misc counts in a player's cube list


def gain_cube(s: State, p: int, colour: int) -> None:
    """Take one cube of `colour` from the supply, or a misc cube standing for it (§5.2)."""
    misc = s.supply[colour] == 0
    if misc:
        s.cubes[p][MISC + colour] += 1
    else:
        s.supply[colour] -= 1
        s.cubes[p][colour] += 1
    s.log("cube", p, colour=CUBE_NAMES[colour], misc=misc)
    if not misc and s.supply[colour] == 0:
        supply_ran_out(s, colour)


def supply_ran_out(s: State, colour: int) -> None:
    if not s.misc_in_play:
        s.misc_in_play = True
        s.log("misc_enters", -1, colour=CUBE_NAMES[colour])
    if s.config.options.end_trigger is EndTrigger.SUPPLY_EMPTY:
        trigger_end(s, f"{CUBE_NAMES[colour].lower()} supply ran out")


def gain_wild(s: State, p: int, n: int) -> None:
    limit = s.config.options.wild_supply_limit
    if limit:
        n = max(0, min(n, limit - wild_in_circulation(s)))
    if n:
        s.wild[p] += n
        s.log("wild", p, gained=n)


def wild_in_circulation(s: State) -> int:
    return sum(s.wild) + sum(s.tile_wild)


def payment_sources(s: State, p: int) -> list[int]:
    """Legal PAY arguments: 0 = SP, 1..4 real cubes, 5..8 misc cubes; misc first (A-20)."""
    held = s.cubes[p]
    out = [0] if s.sp > 0 else []
    if held[MISC] or held[MISC + 1] or held[MISC + 2] or held[MISC + 3]:
        out.extend(1 + MISC + c for c in range(N_CUBES) if held[MISC + c])
    else:
        out.extend(1 + c for c in range(N_CUBES) if held[c])
    return out


def pay_unit(s: State, p: int, source: int) -> None:
    """Pay one unit; spent real cubes go back to the supply at once (A-19)."""
    if source == 0:
        s.sp -= 1
        return
    index = source - 1
    s.cubes[p][index] -= 1
    if index < MISC:
        s.supply[index] += 1


def can_build_colour(s: State, p: int, colour: int) -> bool:
    """Whether p can put a cube on a stack of this colour now (§4.3.10, §5.4)."""
    held = s.cubes[p]
    return held[colour] > 0 or (
        held[MISC + colour] > 0 and s.on_buildings[colour] == s.total[colour]
    )


def place_real_cube(s: State, colour: int) -> None:
    """A real cube lands on a building: the game-end check of §6."""
    s.on_buildings[colour] += 1
    if (
        s.on_buildings[colour] == s.total[colour]
        and s.config.options.end_trigger is EndTrigger.CONSTRUCTED
    ):
        trigger_end(s, f"every {CUBE_NAMES[colour].lower()} cube is on a building")


def is_full(s: State, tile: int) -> bool:
    fill = s.fill[tile]
    return all(f == h for f, (_, h) in zip(fill, s.catalogue.tiles[tile].stacks, strict=True))


def trigger_end(s: State, why: str) -> None:
    """The end is triggered once: finish this round, then play one more (§6)."""
    if s.end_round == 0:
        s.end_round = s.round + 1
        s.log("end_triggered", -1, why=why, final_round=s.end_round)


def gain_meeple(s: State, p: int, colour: int) -> None:
    """A gained meeple is non-active for the rest of the turn (§4.3.11)."""
    s.meeple_supply[colour] -= 1
    s.meeples[p][colour * len(Bucket) + Bucket.IDLE] += 1
    s.log("meeple", p, colour=MEEPLE_NAMES[colour])


def meeple_available(s: State, colour: int) -> bool:
    return s.meeple_supply[colour] > 0 or not s.config.options.meeple_supply_limited


def score_politicians(s: State, p: int, vp: int) -> None:
    s.pol_vp += vp
    s.add_score(p, Score.POLITICIANS, vp, "politician")
    if s.pol_mult > 1:
        s.add_score(p, Score.ABILITIES, vp * (s.pol_mult - 1), "City Tribune doubling")
