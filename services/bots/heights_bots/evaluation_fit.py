"""Fitting the evaluation's weights: least squares on greedy self-play.

`python -m heights_bots.evaluation_fit [games per player count]` plays greedy games at
2, 3 and 4 players, records every player's features each time a turn ends, and fits
the weights that best predict each player's final score relative to the others: the
regression is on differences to the other players' mean, so what all players share
(how long the game will last, the turn) drops out and only what separates them is
weighed. Paste the printed weights into `evaluation.WEIGHTS` after a catalogue or
greedy change.
"""

from __future__ import annotations

import sys

from heights_bots import action_ids as ids
from heights_bots.evaluation import FEATURES, features
from heights_bots.greedy import greedy_action
from heights_bots.reading import turns_left
from heights_rules import CHANCE, GameConfig, new_game, outcome

RIDGE = 1e-3  # keeps the solve stable when a feature hardly varies


def samples(players: int, games: int, seed: int) -> tuple[list[list[float]], list[float]]:
    """(feature rows, final scores) of every player at every turn end of `games` games."""
    rows: list[list[float]] = []
    finals: list[float] = []
    for game in range(games):
        state = new_game(GameConfig(players=players), seed + game)
        pending: list[tuple[int, list[float]]] = []
        while not state.is_terminal():
            player = state.current_player()
            if player == CHANCE:
                state.apply(state.legal_actions()[0])
                continue
            action = greedy_action(state, player)
            state.apply(action)
            if action == ids.END and not state.is_terminal():
                turns = turns_left(state)
                pending += [(q, features(state, q, turns)) for q in range(state.n_players)]
        totals = outcome(state).totals
        n = state.n_players
        for start in range(0, len(pending), n):
            group = [row for _, row in pending[start : start + n]]
            for q, row in enumerate(group):
                others = [r for p, r in enumerate(group) if p != q]
                mean = [sum(col) / len(others) for col in zip(*others, strict=True)]
                rows.append([x - y for x, y in zip(row, mean, strict=True)])
                rest = sum(totals[p] for p in range(n) if p != q) / (n - 1)
                finals.append(float(totals[q] - rest))
    return rows, finals


def least_squares(rows: list[list[float]], ys: list[float]) -> list[float]:
    """Ridge-regularised normal equations, solved by Gaussian elimination."""
    n = len(rows[0])
    a = [[0.0] * n for _ in range(n)]
    b = [0.0] * n
    for row, y in zip(rows, ys, strict=True):
        for i, xi in enumerate(row):
            if xi:
                b[i] += xi * y
                ai = a[i]
                for j, xj in enumerate(row):
                    ai[j] += xi * xj
    for i in range(n):
        a[i][i] += RIDGE * len(rows)
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        b[col], b[pivot] = b[pivot], b[col]
        for r in range(n):
            if r != col and a[r][col]:
                factor = a[r][col] / a[col][col]
                a[r] = [x - factor * y for x, y in zip(a[r], a[col], strict=True)]
                b[r] -= factor * b[col]
    return [b[i] / a[i][i] for i in range(n)]


def main(argv: list[str]) -> int:
    games = int(argv[0]) if argv else 100
    rows: list[list[float]] = []
    ys: list[float] = []
    for players in (2, 3, 4):
        more_rows, more_ys = samples(players, games, seed=10_000 * players)
        rows += more_rows
        ys += more_ys
    weights = least_squares(rows, ys)
    error = sum(
        (sum(w * x for w, x in zip(weights, row, strict=True)) - y) ** 2
        for row, y in zip(rows, ys, strict=True)
    )
    print(f"{len(rows)} samples, RMS error {(error / len(rows)) ** 0.5:.2f} VP")
    for name, w in zip(FEATURES, weights, strict=True):
        print(f"    {w:.3f},  # {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
