"""Final scoring and the outcome of a game (RULES.md §7, §8.5)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from heights_rules.components import SCORES, Score
from heights_rules.ranking import MAYOR_SEAT, score_ranks
from heights_rules.scoring import evaluate
from heights_rules.state import Phase, State, Termination


def final_scoring(s: State) -> None:
    """Ads, then the chosen Target, then tile end bonuses (A-50), then Wild Tokens."""
    cat = s.catalogue
    mayor = MAYOR_SEAT if s.solo else -1
    for p in range(s.n_players):
        for ad in s.ads:
            s.add_score(p, Score.ADS, evaluate(s, p, cat.ads[ad].scoring), cat.ads[ad].name)
        if s.target_choice[p] >= 0:
            target = cat.targets[s.target_choice[p]]
            s.add_score(p, Score.TARGET, evaluate(s, p, target.scoring), target.name)
        if p != mayor:
            for tile in s.owned[p]:
                bonus = cat.tiles[tile].end_bonus
                if bonus is not None and s.complete[tile]:
                    vp = evaluate(s, p, bonus, s.space_of[tile])
                    s.add_score(p, Score.END_BONUS, vp, cat.tiles[tile].name)
        s.add_score(p, Score.WILD_TOKENS, s.wild[p], "unused Wild Tokens")
    s.log("final", -1, totals=s.totals())


def target_values(s: State, p: int) -> list[int]:
    """What each of p's Targets would score on the current board."""
    return [evaluate(s, p, s.catalogue.targets[t].scoring) for t in s.targets[p]]


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of a finished game; ranks are 1-based and shared on a full tie."""

    termination: Termination
    rounds: int
    totals: tuple[int, ...]
    by_category: tuple[dict[str, int], ...]
    meeples: tuple[int, ...]
    ranks: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "termination": self.termination.value,
            "rounds": self.rounds,
            "totals": list(self.totals),
            "by_category": list(self.by_category),
            "meeples": list(self.meeples),
            "ranks": list(self.ranks),
        }


def outcome(s: State) -> Outcome:
    """Most VP wins; a tie goes to the most meeples; still tied, the victory is shared."""
    if s.phase is not Phase.OVER or s.termination is None:
        raise ValueError("the game is not over")
    totals = tuple(s.totals())
    meeples = tuple(s.meeple_count(p) for p in range(s.n_players))
    return Outcome(
        termination=s.termination,
        rounds=s.round,
        totals=totals,
        by_category=tuple({c.name: s.score[p][c] for c in SCORES} for p in range(s.n_players)),
        meeples=meeples,
        ranks=score_ranks(totals, meeples),
    )
