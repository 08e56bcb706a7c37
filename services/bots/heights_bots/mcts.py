"""The mcts bot: information-set Monte Carlo tree search within a wall-clock budget.

Each iteration samples one world consistent with what the seat knows (draw-pile order,
other seats' Targets, future dice: `heights_rules.determinize` of the
seat's information set) and walks a tree over the seat's own decisions of the current
turn (single-observer ISMCTS: one tree shared by every sampled world; chance steps and
forced moves are stepped through, since each world fixes its own dice). A node's
children are the moves worth comparing there (`candidates`, greedy's first), chosen by
UCB1 counted over the iterations in which each move was available. Past the tree, every
seat plays greedy up to the horizon (the end of the seat's `horizon`-th own turn), where
the heuristic evaluation judges the position for the seat (its predicted margin over
the best opponent). The root's k-th visit of each move plays in the k-th sampled world,
so root moves are compared in the same worlds (common random numbers, as in `search`:
dice are keyed by seat and turn). The move played is the root child visited most, if
it beats greedy's move in those shared worlds by more than a margin; else greedy's.

The bot reads only its information set: the state handed in is reduced to it first, so
the true state and any determinization of it give the same search (with an iteration
budget; a wall-clock budget also depends on the machine's speed).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from heights_bots import action_ids as ids
from heights_bots.candidates import candidates
from heights_bots.search import greedy_rollout
from heights_rules import CHANCE, GameState, KeyedRng, determinize, from_infoset, infoset

# Exploration constant in units of the spread of the values seen so far (VP margins).
EXPLORATION = 0.7
# A game's thinking time is capped well inside the runner's 120 s per seat: past this
# share of it, decisions get a tenth of the budget.
GAME_SECONDS = 60.0


@dataclass(slots=True)
class _Node:
    """One decision of the seat in the tree: statistics per move (ISMCTS availability)."""

    visits: dict[int, int] = field(default_factory=dict)
    total: dict[int, float] = field(default_factory=dict)
    available: dict[int, int] = field(default_factory=dict)
    children: dict[int, _Node] = field(default_factory=dict)


class MctsBot:
    """Single-observer ISMCTS with greedy rollouts.

    `seconds` caps the time per searched decision (None: iterations only);
    `iterations` caps the iterations (deterministic when the time cap is off);
    `horizon` is how many of the seat's own turn ends a rollout plays to. A move other
    than greedy's is played only if it beats greedy's, in the same sampled worlds, by
    more than `margin` VP on average.
    """

    name = "mcts"

    def __init__(
        self,
        seed: int,
        seconds: float | None = 0.5,
        iterations: int = 5000,
        horizon: int = 2,
        margin: float = 0.2,
    ) -> None:
        if iterations < 1 or horizon < 1:
            raise ValueError("iterations and horizon must be at least 1")
        if seconds is not None and not seconds > 0:
            raise ValueError(f"seconds must be positive or None, got {seconds}")
        self.seconds = seconds
        self.iterations = iterations
        self.horizon = horizon
        self.margin = margin
        self._rng = KeyedRng(seed)
        self._spent = 0.0  # thinking time so far this game

    def act(self, state: GameState, seat: int) -> int:
        return self.act_with_note(state, seat)[0]

    def act_with_note(self, state: GameState, seat: int) -> tuple[int, str]:
        moves = candidates(state, seat, state.legal_actions())
        if len(moves) == 1:
            return moves[0], "greedy (nothing to search)"
        started = time.perf_counter()
        root_state = from_infoset(infoset(state, seat))
        root = _Node()
        spread = _Spread()
        values: dict[int, list[float]] = {move: [] for move in moves}
        deadline = self._deadline(started)
        for i in range(self.iterations):
            if deadline is not None and i > 0 and time.perf_counter() > deadline:
                break
            # The root's moves depend only on what the seat knows, so the move is chosen
            # before the world; its k-th visit plays in world k, as every other root
            # move's k-th does: paired comparisons (common random numbers), as in search.
            move, _ = _select(root, moves, spread.value)
            world = determinize(root_state, seat, self._key(state.steps, len(values[move])))
            value = self._iterate(root, move, world, seat, spread.value)
            values[move].append(value)
            spread.add(value)
        self._spent += time.perf_counter() - started
        return self._verdict(moves, root, values, spread.n)

    def _verdict(
        self, moves: list[int], root: _Node, values: dict[int, list[float]], spent: int
    ) -> tuple[int, str]:
        """The most visited move, if it beats greedy's in the same worlds by the margin."""
        best = max(moves, key=lambda m: (root.visits.get(m, 0), -moves.index(m)))
        greedy = moves[0]
        n = min(len(values[best]), len(values[greedy]))
        if best == greedy or n == 0:
            return greedy, f"mcts {spent} iterations: greedy's move is best"
        edge = (sum(values[best][:n]) - sum(values[greedy][:n])) / n
        if edge <= self.margin:
            return greedy, f"mcts {spent} iterations: best edge {edge:+.2f} too small, greedy's"
        return best, f"mcts {spent} iterations, {n} paired: {edge:+.2f} VP over greedy's"

    def _deadline(self, started: float) -> float | None:
        if self.seconds is None:
            return None
        share = self.seconds if self._spent < GAME_SECONDS else self.seconds / 10
        return started + share

    def _key(self, step: int, iteration: int) -> int:
        digest = self._rng.digest(b"mcts-world", step, iteration)
        return int.from_bytes(digest[:8], "little") >> 1

    def _iterate(self, root: _Node, first: int, d: GameState, seat: int, spread: float) -> float:
        """One walk down the tree in world `d` from the root move `first`, a rollout, and
        the value backed up."""
        path: list[tuple[_Node, int]] = [(root, first)]
        ends = int(first == ids.END)
        d.apply(first)
        node: _Node | None = (
            None if ends or root.visits[first] == 0 else root.children.setdefault(first, _Node())
        )
        while node is not None and not d.is_terminal():
            player = d.current_player()
            if player == CHANCE:
                d.apply(d.legal_actions()[0])
                continue
            if player != seat:
                break
            moves = candidates(d, seat, d.legal_actions())
            if len(moves) == 1:
                move = moves[0]
            else:
                move, expanded = _select(node, moves, spread)
                path.append((node, move))
                node = None if expanded else node.children.setdefault(move, _Node())
            ends += move == ids.END
            d.apply(move)
            if ends:
                break  # the tree covers the seat's own turn; what follows is rollout
        value = greedy_rollout(d, seat, ends, self.horizon)
        for parent, move in path:
            parent.visits[move] = parent.visits.get(move, 0) + 1
            parent.total[move] = parent.total.get(move, 0.0) + value
        return value


def _select(node: _Node, moves: list[int], spread: float) -> tuple[int, bool]:
    """UCB1 over the moves available in this world, and whether the move is new here.

    An untried move goes first (greedy's before the others): it ends the walk down.
    """
    for move in moves:
        node.available[move] = node.available.get(move, 0) + 1
    for move in moves:
        if move not in node.visits:
            node.visits[move] = 0
            node.total[move] = 0.0
            return move, True
    c = EXPLORATION * spread

    def ucb(move: int) -> float:
        n = node.visits[move]
        if n == 0:
            return math.inf
        return node.total[move] / n + c * math.sqrt(math.log(node.available[move]) / n)

    return max(moves, key=ucb), False


@dataclass(slots=True)
class _Spread:
    """The running standard deviation of the values backed up (1 until there are a few)."""

    n: int = 0
    total: float = 0.0
    squares: float = 0.0

    def add(self, value: float) -> None:
        self.n += 1
        self.total += value
        self.squares += value * value

    @property
    def value(self) -> float:
        if self.n < 4:
            return 1.0
        mean = self.total / self.n
        return max(1.0, math.sqrt(max(0.0, self.squares / self.n - mean * mean)))
