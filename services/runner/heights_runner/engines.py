"""The engine a match is played on: in this process, or the engine service over gRPC.

Both present one small interface, `Engine`, so the match driver (match.py) is the same
for `heights match` on an author's machine and for a Celery worker. The gRPC engine is
the authority on the server; the local one exists so that local play needs no server.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from typing import Any, Protocol

from heights_rules import GameConfig, outcome
from heights_rules.options import RuleOptions
from heights_rules.replay import Recorder
from heights_rules.setup import new_game
from heights_rules.state import CHANCE, TERMINAL
from heights_runner.contract import MatchSpec

OVER = -1  # `to_move` once the game has ended


class EngineUnavailableError(RuntimeError):
    """The engine service cannot be reached; the match is retried, not failed."""


class EngineRefusedError(ValueError):
    """The engine refused an action; the acting bot forfeits."""


@dataclass(slots=True)
class Turn:
    """A decision for the seat to move, with the seat's observation as JSON text.

    The runner relays the text as it is (it never needs to read it: the engine checks
    the answer), so it is parsed only on demand, e.g. for a stand-in bot.
    """

    seat: int
    step: int
    observation_json: str
    _parsed: dict[str, Any] | None = None

    def observation(self) -> dict[str, Any]:
        if self._parsed is None:
            self._parsed = json.loads(self.observation_json)
        return self._parsed


@dataclass(frozen=True, slots=True)
class Finished:
    ranks: tuple[int, ...]
    totals: tuple[int, ...]
    termination: str
    rounds: int
    outcome: dict[str, Any]
    replay: bytes  # the engine's gzip replay record
    seed: int
    commitment: str


class Engine(Protocol):
    game_id: str
    commitment: str

    def to_move(self) -> int:
        """The seat to decide, or OVER."""
        ...

    def turn(self) -> Turn:
        """The current decision as the seat to move sees it."""
        ...

    def apply(self, seat: int, action: int) -> None:
        """Play `action` for `seat` (chance steps that follow are rolled by the engine)."""
        ...

    def finish(self) -> Finished: ...

    def close(self) -> None: ...


def game_config(spec: MatchSpec) -> GameConfig:
    options = RuleOptions.from_dict(spec.options) if spec.options else RuleOptions()
    return GameConfig(
        players=spec.players, solo=spec.solo, options=options, catalogue_id=spec.catalogue
    )


class LocalEngine:
    """heights_rules in this process, with the service's seed commitment scheme."""

    def __init__(self, spec: MatchSpec) -> None:
        from heights_engine import tokens

        self.game_id = f"local-{spec.match_id}"
        self._salt = secrets.token_bytes(16)
        self.commitment = tokens.commitment(spec.seed, self._salt)
        state = new_game(game_config(spec), spec.seed)
        self._rec = Recorder(state, [seat.name for seat in spec.seats])
        self._roll()

    def _roll(self) -> None:
        state = self._rec.state
        while state.current_player() == CHANCE:
            self._rec.apply(state.legal_actions()[0])

    def to_move(self) -> int:
        seat = self._rec.state.current_player()
        return OVER if seat == TERMINAL else seat

    def turn(self) -> Turn:
        state = self._rec.state
        seat = state.current_player()
        view = json.dumps(state.observation(seat), separators=(",", ":"))
        return Turn(seat, len(self._rec.replay.actions), view)

    def apply(self, seat: int, action: int) -> None:
        state = self._rec.state
        if state.current_player() != seat or action not in state.legal_actions():
            raise EngineRefusedError(
                f"action {action} is not legal at step {len(self._rec.replay.actions)}"
            )
        self._rec.apply(action)
        self._roll()

    def finish(self) -> Finished:
        state = self._rec.state
        result = outcome(state)
        return Finished(
            ranks=result.ranks,
            totals=result.totals,
            termination=result.termination.value,
            rounds=result.rounds,
            outcome=result.to_dict(),
            replay=self._rec.replay.to_bytes(),
            seed=state.seed,
            commitment=self.commitment,
        )

    def close(self) -> None:
        pass
