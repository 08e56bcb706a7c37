"""Who finished where: ranks, forfeits, shared-first points and the Mayor's seat.

The one place for these facts. The engine ranks a finished game here (`score_ranks`); the
runner turns those ranks into a match's final ranks (`final_ranks`, forfeits last); the
platform and the CLI count points from final ranks (`shared_first_points`). Everything
else imports these rather than repeating them, so a solo game, a tie or a forfeit is
ranked the same by every component.

Ranks are 1-based "standard competition" ranks: tied players share a rank and the next
rank skips (1, 1, 3). In solo the Mayor is a player (`MAYOR_SEAT`), ranked like any
other: a solo bot the Mayor beats ranks 2.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from fractions import Fraction

MAYOR_SEAT: Final = 1  # solo: the Mayor plays as player 1, after the one seat that decides
SOLO_PLAYERS: Final = 2  # a solo game ranks two players: the seat and the Mayor
MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 4


def players_ranked(seats: int, *, solo: bool) -> int:
    """How many players a game ranks: its seats, plus the Mayor in solo."""
    return seats + 1 if solo else seats


def score_ranks(totals: Sequence[int], meeples: Sequence[int]) -> tuple[int, ...]:
    """The engine's ranks (RULES.md §7): most VP, then most meeples; still tied, shared."""
    if len(totals) != len(meeples):
        raise ValueError(f"{len(totals)} totals but {len(meeples)} meeple counts")
    keys = list(zip(totals, meeples, strict=True))
    return tuple(1 + sum(1 for other in keys if other > key) for key in keys)


def final_ranks(
    engine_ranks: Sequence[int], forfeited: Collection[int] = (), *, solo: bool = False
) -> tuple[int, ...]:
    """Every player's final rank (the Mayor's too, in solo) from the engine's ranks.

    A forfeiting seat ranks below every seat that did not forfeit (and below the Mayor),
    whatever its score. Forfeiting seats are ordered among themselves by the engine's
    ranks, ties shared; when a seat forfeited does not matter. That is how the runner
    has ranked every recorded match: the stand-in plays a forfeited seat to the end, so
    the engine ranks it like any other, and replay verification re-derives recorded
    ranks through this function, which must therefore not change for a given input.
    """
    _check_ranking(engine_ranks, solo=solo)
    lost = set(forfeited)
    _check_forfeited(lost, len(engine_ranks), solo=solo)
    clean = [r for p, r in enumerate(engine_ranks) if p not in lost]
    below = [r for p, r in enumerate(engine_ranks) if p in lost]
    return tuple(
        len(clean) + 1 + sum(1 for r in below if r < rank)
        if p in lost
        else 1 + sum(1 for r in clean if r < rank)
        for p, rank in enumerate(engine_ranks)
    )


def shared_first_points(ranks: Sequence[int]) -> tuple[Fraction, ...]:
    """Points of one game: 1 for a sole winner, 1/k each for k sharing first, else 0.

    `ranks` are every player's (the Mayor's too, in solo, so a first shared with the
    Mayor is worth 1/2). Fractions, so that three shared thirds add up to exactly 1;
    callers that store floats convert at the end.
    """
    if not ranks or any(r < 1 for r in ranks) or 1 not in ranks:
        raise ValueError(f"ranks {list(ranks)} need a first place (1) and no rank below 1")
    # Imported here: `fractions` (with `decimal` and `numbers`) is a few ms of every
    # sandboxed bot's start, and bots never score a game's points.
    from fractions import Fraction

    sharing = sum(1 for r in ranks if r == 1)
    return tuple(Fraction(1, sharing) if r == 1 else Fraction(0) for r in ranks)


def _check_ranking(ranks: Sequence[int], *, solo: bool) -> None:
    n = len(ranks)
    if solo and n != SOLO_PLAYERS:
        raise ValueError(f"a solo game ranks {SOLO_PLAYERS} players (the seat, the Mayor), not {n}")
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise ValueError(f"a game ranks {MIN_PLAYERS} to {MAX_PLAYERS} players, not {n}")
    if any(r != 1 + sum(1 for other in ranks if other < r) for r in ranks):
        raise ValueError(f"ranks {list(ranks)} are not 1-based with ties shared (as 1, 1, 3)")


def _check_forfeited(forfeited: set[int], players: int, *, solo: bool) -> None:
    outside = sorted(p for p in forfeited if not 0 <= p < players)
    if outside:
        raise ValueError(f"forfeited seats {outside} are not seats 0..{players - 1}")
    if solo and MAYOR_SEAT in forfeited:
        raise ValueError(f"the Mayor (player {MAYOR_SEAT}) cannot forfeit; only seat 0 can")
