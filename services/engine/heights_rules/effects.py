"""Purple (Public Figure) abilities: the effect library that tiles refer to by name.

See docs/catalogue.md for the effects and their parameters. An effect is usable only
if it can run to the end, so a Public Figure can never lead to a dead end.
"""

from __future__ import annotations

from typing import Final

from heights_rules.catalogue import EffectRef, ScoringRef
from heights_rules.components import MEEPLE_NAMES, N_BUCKETS, Meeple, Score
from heights_rules.economy import gain_wild, meeple_available
from heights_rules.frames import F, PickEffect, frame
from heights_rules.scoring import evaluate
from heights_rules.state import State


def usable_buildings(s: State, p: int, level: int) -> list[int]:
    """p's completed buildings whose ability at `level` can be used now (§4.3.5)."""
    tiles = s.catalogue.tiles
    out = []
    for tile in s.owned[p]:
        purple = tiles[tile].purple
        if (
            purple is not None
            and s.complete[tile]
            and tile not in s.used_buildings
            and effect_usable(s, p, purple[level])
        ):
            out.append(tile)
    return out


def effect_usable(s: State, p: int, ref: EffectRef) -> bool:
    if ref.effect == "convert_meeple":
        source = Meeple[ref.params["from"]]
        target = Meeple[ref.params["to"]]
        owned = sum(s.meeples[p][source * N_BUCKETS : (source + 1) * N_BUCKETS])
        return owned > 0 and meeple_available(s, target)
    return ref.effect in _RUNNERS


def run_effect(s: State, p: int, tile: int, level: int) -> None:
    purple = s.catalogue.tiles[tile].purple
    assert purple is not None
    ref = purple[level]
    s.used_buildings.append(tile)
    s.log("ability", p, tile=s.catalogue.tiles[tile].id, level=level, effect=ref.effect)
    _RUNNERS[ref.effect](s, p, tile, ref)


def _gain_vp(s: State, p: int, tile: int, ref: EffectRef) -> None:
    s.add_score(p, Score.ABILITIES, int(ref.params["n"]), s.catalogue.tiles[tile].name)


def _gain_sp(s: State, p: int, tile: int, ref: EffectRef) -> None:
    s.sp += int(ref.params["n"])


def _gain_wild(s: State, p: int, tile: int, ref: EffectRef) -> None:
    gain_wild(s, p, int(ref.params["n"]))


def _gain_cubes(s: State, p: int, tile: int, ref: EffectRef) -> None:
    s.stack.append(frame(F.CUBE, p, int(ref.params["n"])))


def _convert(s: State, p: int, tile: int, ref: EffectRef) -> None:
    source, target = Meeple[ref.params["from"]], Meeple[ref.params["to"]]
    s.stack.append(frame(F.PICK, p, PickEffect.CONVERT, source, target))


def _sacrifice(s: State, p: int, tile: int, ref: EffectRef) -> None:
    s.stack.append(frame(F.PICK, p, PickEffect.SACRIFICE, int(ref.params["vp"])))


def _score(s: State, p: int, tile: int, ref: EffectRef) -> None:
    scoring = ScoringRef(ref.params["fn"], ref.params.get("params", {}))
    vp = evaluate(s, p, scoring, s.space_of[tile])
    s.add_score(p, Score.ABILITIES, vp, s.catalogue.tiles[tile].name)


def _double_politicians(s: State, p: int, tile: int, ref: EffectRef) -> None:
    """City Tribune hard (A-28): earlier politician VP again, later ones doubled."""
    if s.config.options.tribune_retroactive:
        s.add_score(p, Score.ABILITIES, s.pol_vp, s.catalogue.tiles[tile].name)
    s.pol_mult *= 2


_RUNNERS: Final = {
    "gain_vp": _gain_vp,
    "gain_sp": _gain_sp,
    "gain_wild": _gain_wild,
    "gain_cubes": _gain_cubes,
    "convert_meeple": _convert,
    "sacrifice_meeple": _sacrifice,
    "score": _score,
    "double_politicians": _double_politicians,
}


def pick_meeple(s: State, p: int, colour: int, bucket: int) -> None:
    """The PICK decision of a conversion or a sacrifice."""
    _, _, effect, b, c = s.stack.pop()
    m = s.meeples[p]
    m[colour * N_BUCKETS + bucket] -= 1
    s.meeple_supply[colour] += 1
    if effect == PickEffect.CONVERT:
        s.meeple_supply[c] -= 1
        m[c * N_BUCKETS + bucket] += 1  # the same state and position
        s.log("convert", p, source=MEEPLE_NAMES[colour], target=MEEPLE_NAMES[c])
    else:
        s.log("sacrifice", p, colour=MEEPLE_NAMES[colour])
        s.add_score(p, Score.ABILITIES, b, "sacrifice")
