"""Tournament standings with tie-breaks.

Order: points (a win is 1 point, a first place shared by k players 1/k each, anything
else 0; a bye scores `bye_points`), then average rank (lower is better: separates the
seconds from the lasts in multiplayer games), then Buchholz (the sum of the points of
every opponent met, once per game: beating strong opponents counts more; meant for
Swiss), then head-to-head among the players still tied (net pairwise wins), then total
game score. Players equal on all of these share a place (1, 2, 2, 4) and are listed in
the given order.

Points, average rank and Buchholz are exact fractions internally, so 1/3 + 1/3 + 1/3
ties with 1 and equal players never split on float rounding.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Generic, TypeVar

from heights_platform.competition.elo import actual_score
from heights_rules import shared_first_points

P = TypeVar("P", bound=Hashable)


@dataclass(frozen=True, slots=True)
class GameRecord(Generic[P]):
    """One finished game: ranks (1 = best, ties share a rank) and optional game scores."""

    ranks: Mapping[P, int]
    scores: Mapping[P, float] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Standing(Generic[P]):
    """One row of the table; `place` is shared by players tied on every criterion."""

    player: P
    place: int
    points: float
    games: int
    average_rank: float | None  # None before the first game
    buchholz: float
    head_to_head: float
    score: float
    byes: int


@dataclass(slots=True)
class _Tally(Generic[P]):
    points: Fraction = Fraction(0)
    rank_sum: int = 0
    games: int = 0
    score: float = 0.0
    opponents: list[P] = field(default_factory=list)
    buchholz: Fraction = Fraction(0)
    head_to_head: float = 0.0


def game_points(ranks: Mapping[P, int]) -> dict[P, Fraction]:
    """Points of one game by player (heights_rules.ranking.shared_first_points)."""
    return dict(zip(ranks, shared_first_points(list(ranks.values())), strict=True))


def compute_standings(
    players: Sequence[P],
    games: Iterable[GameRecord[P]],
    *,
    byes: Mapping[P, int] | None = None,
    bye_points: float = 1.0,
    use_buchholz: bool = True,
) -> list[Standing[P]]:
    """The standings of `players` (in seed order: the last, stable tie-break), best first.

    Every player in a game must be in `players`. Set `use_buchholz=False` for a round
    robin, where everyone met the same field and Buchholz only mirrors own points.
    """
    game_list = list(games)
    byes = byes or {}
    tallies = _tally(players, game_list, byes, Fraction(bye_points))
    if use_buchholz:
        for t in tallies.values():
            t.buchholz = sum((tallies[o].points for o in t.opponents), Fraction(0))
    ranked = _rank(players, tallies, game_list)
    rows: list[Standing[P]] = []
    for i, (p, key) in enumerate(ranked):
        shared = i > 0 and ranked[i - 1][1] == key
        place = rows[-1].place if shared else i + 1
        rows.append(_row(p, place=place, t=tallies[p], byes=byes.get(p, 0)))
    return rows


_Key = tuple[Fraction, Fraction, Fraction, float, float]


def _rank(
    players: Sequence[P], tallies: Mapping[P, _Tally[P]], games: Sequence[GameRecord[P]]
) -> list[tuple[P, _Key]]:
    """Players best first with their full sort keys (equal keys share a place)."""

    def primary(p: P) -> tuple[Fraction, Fraction, Fraction]:
        t = tallies[p]
        average = Fraction(t.rank_sum, t.games) if t.games else Fraction(10**9)
        return (-t.points, average, -t.buchholz)

    ranked: list[tuple[P, _Key]] = []
    ordered = sorted(players, key=primary)  # stable: seed order inside ties
    for key, tied in itertools.groupby(ordered, key=primary):
        group = list(tied)
        # Head-to-head only means something within a tied group, so it is computed here.
        for p, net in _head_to_head(group, games).items():
            tallies[p].head_to_head = net
        full: dict[P, _Key] = {
            p: (*key, -tallies[p].head_to_head, -tallies[p].score) for p in group
        }
        ranked.extend((p, full[p]) for p in sorted(group, key=full.__getitem__))
    return ranked


def _tally(
    players: Sequence[P],
    games: Sequence[GameRecord[P]],
    byes: Mapping[P, int],
    bye_points: Fraction,
) -> dict[P, _Tally[P]]:
    tallies = {p: _Tally[P](points=bye_points * byes.get(p, 0)) for p in players}
    for game in games:
        unknown = [p for p in game.ranks if p not in tallies]
        if unknown:
            raise ValueError(f"players {unknown} are not in the tournament")
        for p, got in game_points(game.ranks).items():
            t = tallies[p]
            t.points += got
            t.rank_sum += game.ranks[p]
            t.games += 1
            t.score += game.scores.get(p, 0.0)
            t.opponents.extend(o for o in game.ranks if o != p)
    return tallies


def _head_to_head(group: Sequence[P], games: Sequence[GameRecord[P]]) -> dict[P, float]:
    """Net pairwise results (+0.5 won, 0 shared, -0.5 lost) inside a tied group only.

    Net rather than raw (1 / 0.5 / 0) so that a shared result counts for nothing and a
    player is not ahead merely for having met the group more often.
    """
    h2h: dict[P, float] = defaultdict(float)
    if len(group) < 2:
        return h2h
    members = set(group)
    for game in games:
        inside = [p for p in game.ranks if p in members]
        for a, b in itertools.permutations(inside, 2):
            h2h[a] += actual_score(game.ranks[a], game.ranks[b]) - 0.5
    return h2h


def _row(p: P, *, place: int, t: _Tally[P], byes: int) -> Standing[P]:
    return Standing(
        player=p,
        place=place,
        points=float(t.points),
        games=t.games,
        average_rank=float(Fraction(t.rank_sum, t.games)) if t.games else None,
        buchholz=float(t.buchholz),
        head_to_head=t.head_to_head,
        score=t.score,
        byes=byes,
    )
