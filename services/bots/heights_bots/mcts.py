"""The mcts bot: information-set Monte Carlo tree search within a wall-clock budget.

Each round samples one world consistent with what the seat knows (draw-pile order,
other seats' Targets, future dice: `heights_rules.determinize` of the seat's
information set), and every root move still in the race is played in a copy of that
world (common random numbers, as in `search`: dice are keyed by seat and turn, so the
world rolls the same dice whatever the moves, and root moves are compared on paired
samples). Below the root move, a tree over the seat's own decisions of the current
turn (single-observer ISMCTS: one tree shared by every sampled world; chance steps and
forced moves are stepped through) chooses the follow-up moves by UCB1 counted over the
iterations in which each move was available, with progressive widening in greedy's
order: a node offers greedy's move first and one more of its `candidates` each time its
visits pass `widen` times the next square, so a few samples are not spread over poor
follow-ups (at the default `WIDEN`, measured best at 0.6 s a decision, greedy plays the
follow-ups and the search is in effect a flat race over the root moves). Past
the tree, every seat plays greedy up to the horizon (the end of the seat's
`horizon`-th own turn), where the heuristic evaluation judges the position for the seat
(its predicted margin over the best opponent).

The root is a race: after each round, a move whose paired mean trails the leader's by
more than `RACE_Z` standard errors of the paired difference drops out, so the budget
goes to the moves still in doubt. The move played is the leader, if it beats greedy's
move in the shared worlds by more than a margin; else greedy's.

The bot reads only its information set: the state handed in is reduced to it first, so
the true state and any determinization of it give the same search (with an iteration
budget; a wall-clock budget also depends on the machine's speed).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from heights_bots import action_ids as ids
from heights_bots.candidates import candidates
from heights_bots.search import greedy_rollout
from heights_rules import CHANCE, GameState, KeyedRng, determinize, from_infoset, infoset

# Exploration constant in units of the spread of the values seen so far (VP margins).
EXPLORATION = 0.7
# A root move is dropped once it trails the leader by this many standard errors of the
# paired difference (after at least RACE_MIN rounds: fewer give no usable error).
RACE_Z = 2.5
RACE_MIN = 4
# A floor on the paired differences' variance (VP^2): a few close samples say little.
RACE_VAR_FLOOR = 4.0
# Progressive widening's default: a node's second follow-up move is offered only after
# this many walks, so below the root greedy plays the rest of the turn (in effect a flat
# race). Measured at the default budget against search, two players: a tree widening at
# 4 won 0.485 of 67 games, this 0.674 of 43 (0.737 of 19 on seeds the tree won 0.421 of;
# docs/ranking.md).
WIDEN = 1_000_000
# A decision the race settles early leaves time unspent; a later decision may use it, up
# to this multiple of the budget (0.75 s at the default 0.6 s: a quarter of the runner's
# 1 s move limit stays spare for the protocol and a slow machine).
CREDIT_CAP = 1.25
# A game's thinking time is capped well inside the runner's 120 s per seat (a two-player
# game has about 90 searched decisions a seat, at most 0.6 s each on average, and some
# 300 quick ones): past this share of it, decisions get a tenth of the budget.
GAME_SECONDS = 70.0


@dataclass(slots=True)
class _Node:
    """One decision of the seat in the tree: statistics per move (ISMCTS availability)."""

    visits: dict[int, int] = field(default_factory=dict)
    total: dict[int, float] = field(default_factory=dict)
    available: dict[int, int] = field(default_factory=dict)
    children: dict[int, _Node] = field(default_factory=dict)
    n: int = 0  # walks through this node, which set how many moves it offers


# The default budget a searched decision: seconds on its clock, and at most this many
# simulations (docs/ranking.md, "mcts").
SECONDS = 0.6
ITERATIONS = 5000


class MctsBot:
    """Single-observer ISMCTS with a paired race at the root and greedy rollouts.

    `seconds` is the time per searched decision (None: iterations only); a decision
    the race settles early lends what it left to later ones (at most `CREDIT_CAP` times
    `seconds` for one);
    `iterations` caps the simulations (deterministic when the time cap is off);
    `horizon` is how many of the seat's own turn ends a rollout plays to. A move other
    than greedy's is played only if it beats greedy's, in the same sampled worlds, by
    more than `margin` VP on average. A tree node offers its k-th follow-up move once
    its walks reach `widen` * (k - 1)^2. `clock` measures `seconds`: the wall clock, as
    the runner's move limit does; `time.thread_time` (CPU time) makes a measurement of
    the bot's strength independent of what else the machine runs.
    """

    name = "mcts"

    def __init__(
        self,
        seed: int,
        seconds: float | None = SECONDS,
        iterations: int = ITERATIONS,
        horizon: int = 4,
        margin: float = 0.2,
        *,
        widen: int = WIDEN,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        if iterations < 1 or horizon < 1 or widen < 1:
            raise ValueError("iterations, horizon and widen must be at least 1")
        if seconds is not None and not seconds > 0:
            raise ValueError(f"seconds must be positive or None, got {seconds}")
        self.seconds = seconds
        self.iterations = iterations
        self.horizon = horizon
        self.margin = margin
        self.widen = widen
        self._clock = clock
        self._rng = KeyedRng(seed)
        self._spent = 0.0  # thinking time so far this game
        self._searched = 0  # decisions searched so far this game

    def act(self, state: GameState, seat: int) -> int:
        return self.act_with_note(state, seat)[0]

    def act_with_note(self, state: GameState, seat: int) -> tuple[int, str]:
        started = self._clock()  # ranking the candidates is thinking time too
        moves = candidates(state, seat, state.legal_actions())
        if len(moves) == 1:
            return moves[0], "greedy (nothing to search)"
        root_state = from_infoset(infoset(state, seat))
        children = {move: _Node() for move in moves}
        values: dict[int, list[float]] = {move: [] for move in moves}
        alive = list(moves)
        spread = _Spread()
        deadline = self._deadline(started)
        spent = 0
        while spent < self.iterations and len(alive) > 1:
            world = determinize(root_state, seat, self._key(state.steps, len(values[alive[0]])))
            for move in alive:
                if spent >= self.iterations or (
                    deadline is not None and spent > 0 and self._clock() > deadline
                ):
                    break
                value = self._iterate(children[move], move, world.clone(), seat, spread.value)
                values[move].append(value)
                spread.add(value)
                spent += 1
            else:
                alive = _race(alive, values)
                continue
            break
        self._spent += self._clock() - started
        self._searched += 1
        return self._verdict(moves, alive, values, spent)

    def _verdict(
        self, moves: list[int], alive: list[int], values: dict[int, list[float]], spent: int
    ) -> tuple[int, str]:
        """The race's leader, if it beats greedy's move in the same worlds by the margin."""
        greedy = moves[0]
        best = _leader(alive, values, max(len(values[m]) for m in alive))
        n = min(len(values[best]), len(values[greedy]))
        if best == greedy or n == 0:
            return greedy, f"mcts {spent} iterations: greedy's move is best"
        edge = _mean(values[best][:n]) - _mean(values[greedy][:n])
        if edge <= self.margin:
            return greedy, f"mcts {spent} iterations: best edge {edge:+.2f} too small, greedy's"
        return best, f"mcts {spent} iterations, {n} paired: {edge:+.2f} VP over greedy's"

    def _deadline(self, started: float) -> float | None:
        if self.seconds is None:
            return None
        if self._spent >= GAME_SECONDS:
            return started + self.seconds / 10
        credit = max(0.0, self._searched * self.seconds - self._spent)
        return started + min(self.seconds * CREDIT_CAP, self.seconds + credit)

    def _key(self, step: int, world: int) -> int:
        digest = self._rng.digest(b"mcts-world", step, world)
        return int.from_bytes(digest[:8], "little") >> 1

    def _iterate(self, node: _Node, first: int, d: GameState, seat: int, spread: float) -> float:
        """Root move `first` in world `d`, a walk down its tree, a rollout; the value,
        backed up along the walk."""
        path: list[tuple[_Node, int]] = []
        ends = int(first == ids.END)
        d.apply(first)
        while not ends and not d.is_terminal():
            player = d.current_player()
            if player == CHANCE:
                d.apply(d.legal_actions()[0])
                continue
            if player != seat:
                break
            moves = candidates(d, seat, d.legal_actions())
            move = moves[0] if len(moves) == 1 else _select(node, moves, spread, self.widen)
            if len(moves) > 1:
                path.append((node, move))
                node = node.children.setdefault(move, _Node())
            ends += move == ids.END
            d.apply(move)  # the tree covers the seat's own turn; what follows is rollout
        value = greedy_rollout(d, seat, ends, self.horizon)
        for parent, move in path:
            parent.n += 1
            parent.visits[move] = parent.visits.get(move, 0) + 1
            parent.total[move] = parent.total.get(move, 0.0) + value
        return value


def _select(node: _Node, moves: list[int], spread: float, widen: int) -> int:
    """UCB1 over the first moves available in this world (greedy's order), one more
    move offered each time the node's walks pass `widen` times the next square
    (progressive widening); an untried move offered goes first."""
    offered = moves[: 1 + math.isqrt(node.n // widen)]
    for move in offered:
        node.available[move] = node.available.get(move, 0) + 1
    for move in offered:
        if move not in node.visits:
            return move
    c = EXPLORATION * spread

    def ucb(move: int) -> float:
        n = node.visits[move]
        return node.total[move] / n + c * math.sqrt(math.log(node.available[move]) / n)

    return max(offered, key=ucb)


def _race(alive: list[int], values: dict[int, list[float]]) -> list[int]:
    """The moves still in the race after a round: those not clearly behind the leader."""
    rounds = min(len(values[m]) for m in alive)
    if rounds < RACE_MIN:
        return alive
    leader = _leader(alive, values, rounds)
    lead = values[leader][:rounds]
    kept = []
    for move in alive:
        diffs = [a - b for a, b in zip(lead, values[move][:rounds], strict=True)]
        mean = _mean(diffs)
        var = 0.0
        for x in diffs:
            var += (x - mean) * (x - mean)
        var /= rounds - 1
        error = math.sqrt(max(var, RACE_VAR_FLOOR) / rounds)
        if move == leader or mean <= RACE_Z * error:
            kept.append(move)
    return kept


def _leader(moves: list[int], values: dict[int, list[float]], rounds: int) -> int:
    """The move with the best mean over its first `rounds` values (the earliest on a tie)."""
    best, best_mean = moves[0], _mean(values[moves[0]][:rounds])
    for move in moves[1:]:
        mean = _mean(values[move][:rounds])
        if mean > best_mean:
            best, best_mean = move, mean
    return best


def _mean(values: list[float]) -> float:
    if not values:
        return -1e9
    total = 0.0
    for v in values:
        total += v
    return total / len(values)


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
