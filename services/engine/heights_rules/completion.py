"""Building and completing a building (RULES.md §4.3.11, §5.1; the Mayor's version in §8.3)."""

from __future__ import annotations

from heights_rules.components import MEEPLES, Score
from heights_rules.economy import MISC, gain_meeple, is_full, meeple_available, place_real_cube
from heights_rules.frames import F, frame
from heights_rules.ranking import MAYOR_SEAT
from heights_rules.scoring import evaluate
from heights_rules.state import State


def build_cube(s: State, p: int, tile: int, stack: int) -> None:
    """Put one of p's cubes on a stack of p's tile; real cubes first (§5.1)."""
    colour = s.catalogue.tiles[tile].stacks[stack][0]
    held = s.cubes[p]
    if held[colour] > 0:
        held[colour] -= 1
        place_real_cube(s, colour)
    else:
        held[MISC + colour] -= 1
    fill = list(s.fill[tile])
    fill[stack] += 1
    s.fill[tile] = tuple(fill)
    s.log("build", p, tile=s.catalogue.tiles[tile].id, stack=stack)
    if is_full(s, tile):
        complete_building(s, tile)


def complete_building(s: State, tile: int) -> None:
    """Score the tile, hand out its meeples, cap it; the end check ran per cube."""
    p = s.owner[tile]
    s.complete[tile] = True
    t = s.catalogue.tiles[tile]
    s.log("complete", p, tile=t.id)
    if s.solo and p == MAYOR_SEAT:
        # The Mayor scores per cube in the building and never from the tile (§8.3).
        s.add_score(p, Score.MAYOR_CUBES, s.config.options.mayor_vp_per_cube * t.cubes, t.name)
        return
    s.add_score(p, Score.COMPLETION, t.vp, t.name)
    if t.variable_vp is not None:
        s.add_score(p, Score.VARIABLE, evaluate(s, p, t.variable_vp, s.space_of[tile]), t.name)
    for choice in t.meeples:
        available = [c for c in choice if meeple_available(s, c)]
        if len(available) == 1:
            gain_meeple(s, p, available[0])
        elif len(available) > 1:
            mask = sum(1 << c for c in available)
            s.stack.append(frame(F.GAIN, p, mask))
        else:
            names = "/".join(MEEPLES[c].name for c in choice)
            s.log("meeple_lost", p, colours=names, why="supply empty")
