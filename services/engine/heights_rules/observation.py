"""What each viewer may see: a seat's observation, the public view, and determinization.

A seat sees everything public plus its own Targets; nobody sees the order of the draw
piles, the other seats' Targets (until they are chosen at the end) or the seed. The
`infoset` of an observation is the state document with exactly those parts scrubbed;
a search bot rebuilds it with `from_infoset` and fills the hidden parts with
`determinize`, which draws them from a key of its own.
"""

from __future__ import annotations

from typing import Any

from heights_rules.actions import Action
from heights_rules.catalogue import MARKET_SIZE
from heights_rules.components import CUBES, MEEPLES, N_BUCKETS, SCORES, Bucket, lower
from heights_rules.economy import MISC
from heights_rules.final import target_values
from heights_rules.geometry import space_name
from heights_rules.market import market_cost
from heights_rules.rng import KeyedRng
from heights_rules.serialize import from_dict, to_dict
from heights_rules.state import CHANCE, TERMINAL, GameState, Phase

PUBLIC = -1  # the spectator's viewpoint
HIDDEN = -1  # a hidden Target in an infoset


def infoset(s: GameState, viewer: int) -> dict[str, Any]:
    """The state document with what `viewer` must not know removed."""
    data = to_dict(s)
    data["seed"] = 0
    data["piles"] = [sorted(pile) for pile in s.piles]  # contents are public, order is not
    over = s.phase is Phase.OVER
    data["targets"] = [
        targets if (p == viewer or over) else [HIDDEN] * len(targets)
        for p, targets in enumerate(s.targets)
    ]
    data["redacted_for"] = viewer
    return data


def from_infoset(data: dict[str, Any], owned: bool = False) -> GameState:
    """A state from an infoset; hidden parts stay hidden until `determinize`.

    With `owned`, `data` (e.g. just parsed from JSON) is consumed rather than copied.
    """
    clean = {k: v for k, v in data.items() if k != "redacted_for"}
    return from_dict(clean, owned)


def determinize(s: GameState, viewer: int, key: int) -> GameState:
    """A full state consistent with what `viewer` knows, the hidden parts drawn by `key`.

    Fresh draw piles order, other seats' hidden Targets from the Targets the viewer
    has not seen, and a fresh seed for every future roll.
    """
    rng = KeyedRng(key)
    d = s.clone()
    d.seed = key
    d.rng = rng
    d.piles = [rng.shuffled(sorted(pile), b"pile%d" % level) for level, pile in enumerate(s.piles)]
    if any(HIDDEN in targets for targets in s.targets):
        seen = {t for targets in s.targets for t in targets if t != HIDDEN}
        seen.update(t for t in s.target_choice if t >= 0)
        pool = rng.shuffled([t for t in range(len(s.catalogue.targets)) if t not in seen], b"tg")
        d.targets = [list(targets) for targets in s.targets]
        for p, targets in enumerate(d.targets):
            if p != viewer and HIDDEN in targets:
                # A Target already chosen (and so revealed) is one of the pair.
                known = [s.target_choice[p]] if s.target_choice[p] >= 0 else []
                d.targets[p] = sorted(known + [pool.pop() for _ in targets[len(known) :]])
    d.events = []
    d._legal = None
    return d


def observation(s: GameState, viewer: int = PUBLIC) -> dict[str, Any]:
    """A readable view for `viewer` (a seat, or PUBLIC) plus its infoset."""
    to_move = s.current_player()
    view: dict[str, Any] = {
        "viewer": viewer,
        "to_move": {CHANCE: "chance", TERMINAL: "terminal"}.get(to_move, to_move),
        "decision": s.decision_text(),
        "legal": [],
        "phase": s.phase.value,
        "round": s.round,
        "start_seat": s.start_seat,
        "turn_seat": s.seat,
        "end_triggered": bool(s.end_round),
        "final_round": s.end_round or None,
        "turn": {"sp": s.sp, "bought": s.bought, "politician_vp": s.pol_vp},
        "players": [_player_view(s, p, viewer) for p in range(s.n_players)],
        "markets": [_market_view(s, level) for level in (0, 1)],
        "draw_piles": [len(pile) for pile in s.piles],
        "supply": {
            "cubes": {lower(c.name): s.supply[c] for c in CUBES},
            "cubes_in_play": {lower(c.name): s.total[c] for c in CUBES},
            "on_buildings": {lower(c.name): s.on_buildings[c] for c in CUBES},
            "misc_in_play": s.misc_in_play,
            "meeples": {lower(m.name): s.meeple_supply[m] for m in MEEPLES},
        },
        "ads": [s.catalogue.ads[a].id for a in s.ads],
        "map": _map_view(s),
        "infoset": infoset(s, viewer),
    }
    if to_move == viewer or (viewer == PUBLIC and to_move >= 0):
        view["legal"] = [{"id": a, "text": Action.from_id(a).text()} for a in s.legal_actions()]
    return view


def _player_view(s: GameState, p: int, viewer: int) -> dict[str, Any]:
    m = s.meeples[p]
    cubes = s.cubes[p]
    view: dict[str, Any] = {
        "player": p,
        "mayor": s.solo and p == 1,
        "score": sum(s.score[p]),
        "score_by_category": {c.name: s.score[p][c] for c in SCORES},
        "wild_tokens": s.wild[p],
        "cubes": {lower(c.name): cubes[c] for c in CUBES},
        "misc_cubes": {lower(c.name): cubes[MISC + c] for c in CUBES},
        "meeples": {
            lower(colour.name): {
                lower(b.name): m[colour * N_BUCKETS + b]
                for b in Bucket
                if m[colour * N_BUCKETS + b]
            }
            for colour in MEEPLES
            if any(m[colour * N_BUCKETS : (colour + 1) * N_BUCKETS])
        },
        "tiles": [s.catalogue.tiles[t].id for t in s.owned[p]],
    }
    if s.target_choice[p] >= 0:
        view["chosen_target"] = s.catalogue.targets[s.target_choice[p]].id
    if p == viewer or s.phase is Phase.OVER:
        view["targets"] = [s.catalogue.targets[t].id for t in s.targets[p]]
        if p == viewer:
            view["target_values"] = target_values(s, p)
    return view


def _market_view(s: GameState, level: int) -> list[dict[str, Any]]:
    row = s.market[level]
    return [
        {
            "position": pos + 1,
            "tile": s.catalogue.tiles[row[pos]].id if row[pos] >= 0 else None,
            "cost": market_cost(s, level, pos),
            "wild_tokens": s.tile_wild[row[pos]] if row[pos] >= 0 else 0,
        }
        for pos in range(MARKET_SIZE)
    ]


def _map_view(s: GameState) -> dict[str, Any]:
    geo = s.geo
    spaces = []
    for space in geo.land_spaces:
        cell: dict[str, Any] = {"space": space_name(space), "neighborhood": geo.neighborhood[space]}
        if geo.prime[space]:
            cell["prime"] = geo.prime[space]
        if geo.zoning_vp[space]:
            cell["zoning"] = {
                "types": [t.name for t in _types(geo.zoning_types[space])],
                "vp": geo.zoning_vp[space],
            }
        tile = s.on_cell[space]
        if tile >= 0:
            cell["building"] = {
                "tile": s.catalogue.tiles[tile].id,
                "owner": s.owner[tile],
                "fill": list(s.fill[tile]),
                "complete": s.complete[tile],
            }
        spaces.append(cell)
    return {
        "boards": [
            s.catalogue.boards[sl.board_side].id + ("r" if sl.rotated else "") for sl in geo.slots
        ],
        "land": spaces,
    }


def _types(mask: int) -> list[Any]:
    from heights_rules.components import BuildingType

    return [t for t in BuildingType if mask >> t & 1]
