"""The search's heuristic evaluation: a predicted final score for each player.

A player's position is summed up as a few features (score so far, Wild Tokens, meeples
of each colour times the turns left, what its unfinished plans promise and still need,
the Ads and its best Target as they would score now), and the predicted final score is
their weighted sum. The weights in `WEIGHTS` were fitted by least squares on the final
scores of greedy self-play games (`python -m heights_bots.evaluation_fit`
regenerates them), so the prediction is calibrated for play like the rollout policy's.

A position is judged by the seat's prediction minus the best opponent's. Opponents'
Targets are not read: in a determinized state they are sampled, and the samples would
only add noise to every comparison; the average Target value stands in for them.
"""

from __future__ import annotations

from heights_bots.reading import production, tile_remaining, turns_left
from heights_bots.tables import MAX_ACTIVE, NB, PURPLE, tile_facts
from heights_rules import GameState, Score, evaluate, outcome, target_values

FEATURES = (
    "score",
    "wild",
    *(f"meeples_{c}_x_turns" for c in range(9)),
    "excess_meeples_x_turns",
    "purple_pairs_x_turns",
    "plans_fixed",
    "plans_reward_x_turns_after",
    *(f"plans_left_{c}" for c in range(4)),
    "plans_open",
    "ads",
    "target",
)
# Fitted by `evaluation_fit` on 500 greedy games at each of 2, 3 and 4 players on
# reconstructed-v4 (221,370 samples; RMS error of the predicted score margin 11.7 VP,
# 12.2 on 300 held-out games, where the weights fitted on reconstructed-v1 gave 12.8).
WEIGHTS: tuple[float, ...] = (
    0.968,  # score
    0.979,  # wild
    0.229,  # meeples_0_x_turns
    0.025,  # meeples_1_x_turns
    0.557,  # meeples_2_x_turns
    0.230,  # meeples_3_x_turns
    0.441,  # meeples_4_x_turns
    0.531,  # meeples_5_x_turns
    0.041,  # meeples_6_x_turns
    0.079,  # meeples_7_x_turns
    0.619,  # meeples_8_x_turns
    -0.301,  # excess_meeples_x_turns
    0.510,  # purple_pairs_x_turns
    0.404,  # plans_fixed
    0.117,  # plans_reward_x_turns_after
    -0.540,  # plans_left_0
    -0.555,  # plans_left_1
    -0.782,  # plans_left_2
    -0.578,  # plans_left_3
    3.549,  # plans_open
    0.856,  # ads
    0.771,  # target
)
MEAN_TARGET = 6.0  # the average of a Target's value at a search horizon, for opponents
MAYOR_VP_PER_CUBE = 0.7  # a Mayor's building is usually finished on a later die roll


def evaluate_for(s: GameState, seat: int) -> float:
    """The seat's predicted final score minus the best other player's (VP).

    At the end of a game this is exact, except that opponents' Targets are left out.
    """
    if s.is_terminal():
        totals = outcome(s).totals
        others = (t - s.score[q][Score.TARGET] for q, t in enumerate(totals) if q != seat)
        return float(totals[seat] - max(others))
    turns = turns_left(s)
    mine = predicted_score(s, seat, turns, own=True)
    return mine - max(predicted_score(s, q, turns) for q in range(s.n_players) if q != seat)


def predicted_score(s: GameState, q: int, turns: int, own: bool = False) -> float:
    if s.solo and q == 1:
        return _mayor(s, q)
    return sum(w * f for w, f in zip(WEIGHTS, features(s, q, turns, own), strict=True))


def features(s: GameState, q: int, turns: int, own: bool = True) -> list[float]:
    """The feature vector of player q (`own`: read q's Targets, else assume the mean)."""
    after = max(0, turns - 1)  # the current turn's work is already on the board
    m = s.meeples[q]
    counts = [sum(m[c * NB : (c + 1) * NB]) for c in range(9)]
    facts = tile_facts(s.catalogue)
    buildings = sum(1 for t in s.owned[q] if s.complete[t] and facts[t].has_purple)
    out = [float(sum(s.score[q])), float(s.wild[q])]
    out += [float(n * after) for n in counts]
    out.append(float(max(0, sum(counts) - MAX_ACTIVE) * after))
    out.append(float(min(counts[PURPLE], buildings) * after))
    out += _plans(s, q, turns)
    out.append(float(sum(evaluate(s, q, s.catalogue.ads[a].scoring) for a in s.ads)))
    if own and s.targets[q]:
        out.append(float(max(target_values(s, q))))
    else:
        out.append(MEAN_TARGET)
    return out


def _plans(s: GameState, q: int, turns: int) -> list[float]:
    """Unfinished plans: printed VP, rewards times the turns left once done, cubes left."""
    facts = tile_facts(s.catalogue)
    fixed = reward = 0.0
    left = [0, 0, 0, 0]
    open_plans = 0
    output = production(s, q)
    for tile in s.owned[q]:
        if s.complete[tile]:
            continue
        f = facts[tile]
        remaining = tile_remaining(s, tile)
        delay = sum(remaining) / output
        fixed += f.fixed
        reward += f.reward_value * max(0.0, turns - 1 - delay)
        open_plans += 1
        for c in range(4):
            left[c] += remaining[c]
    return [fixed, reward, *(float(n) for n in left), float(open_plans)]


def _mayor(s: GameState, q: int) -> float:
    """The Mayor scores a point per cube of a building when a later roll finishes it."""
    facts = tile_facts(s.catalogue)
    value = float(sum(s.score[q]) + s.wild[q])
    value += sum(evaluate(s, q, s.catalogue.ads[a].scoring) for a in s.ads)
    return value + MAYOR_VP_PER_CUBE * sum(facts[t].cubes for t in s.owned[q] if not s.complete[t])
