"""Completing a building (RULES.md §4.3.11; the Mayor's version in §8.3)."""

from __future__ import annotations

from heights_rules.components import MEEPLES, Score
from heights_rules.economy import gain_meeple, meeple_available
from heights_rules.frames import F, frame
from heights_rules.outcome import MAYOR_SEAT
from heights_rules.state import State


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
        from heights_rules.scoring import evaluate

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
