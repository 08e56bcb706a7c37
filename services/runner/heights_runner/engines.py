"""The engine a match is played on: in this process, or the engine service over gRPC.

Both present one small interface, `Engine`, so the match driver (match.py) is the same
for `heights match` on an author's machine and for a Celery worker. The gRPC engine is
the authority on the server; the local one exists so that local play needs no server.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from heights_rules import (
    TERMINAL,
    GameConfig,
    IllegalActionError,
    InvalidActionError,
    Recorder,
    RuleOptions,
    make_patch,
    new_game,
    outcome,
    unasked_action,
)
from heights_runner.contract import MatchSpec

OVER = -1  # `to_move` once the game has ended


class EngineUnavailableError(RuntimeError):
    """The engine service cannot be reached; the match is retried, not failed."""


class EngineRefusedError(ValueError):
    """The engine refused the bot's action as illegal, invalid or out of turn: the acting
    bot forfeits. Raised only for those reasons (see `grpc_engine.BOT_FAULT_REASONS`)."""


class EngineFaultError(RuntimeError):
    """The engine refused or failed a call for a reason that is not the bot's (a stale
    sequence, an unknown game, a request the runner built wrong, an internal error): a
    runner fault, so the match is played again or fails, and no bot is blamed."""

    def __init__(self, message: str, reason: str = "") -> None:
        super().__init__(message)
        self.reason = reason  # the engine's ErrorInfo reason, when it sent one


@dataclass(slots=True)
class Turn:
    """A decision for the seat to move, with the seat's observation as JSON text.

    The runner relays the text as it is (it never needs to read it: the engine checks
    the answer), so it is parsed only on demand, e.g. for a stand-in bot. For a seat
    that takes patches the engine may send only `patch_json`, the JSON Patch from the
    seat's observation at `patch_base`; `full` then fetches the whole observation when
    one is needed after all.
    """

    seat: int
    step: int
    observation_json: str
    patch_json: str = ""
    patch_base: int = -1
    full: Callable[[], str] | None = None
    _parsed: dict[str, Any] | None = None

    def whole_json(self) -> str:
        """The full observation, fetched when the turn came as a patch."""
        if not self.observation_json:
            if self.full is None:
                raise RuntimeError(f"step {self.step}: a patch with no way to the full view")
            self.observation_json = self.full()
        return self.observation_json

    def observation(self) -> dict[str, Any]:
        if self._parsed is None:
            self._parsed = json.loads(self.whole_json())
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
    # Seats whose bots take observation patches; the match sets it before each `apply`.
    patch_seats: set[int]

    def to_move(self) -> int:
        """The seat to decide, or OVER."""
        ...

    def turn(self) -> Turn:
        """The current decision as the seat to move sees it."""
        ...

    def apply(self, seat: int, action: int) -> None:
        """Play `action` for `seat` (chance steps that follow are rolled by the engine, and
        with the spec's `play_forced` the forced decisions that follow are played)."""
        ...

    def finish(self) -> Finished: ...

    def close(self) -> None: ...


def _dumps(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"))


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
        self.patch_seats: set[int] = set()
        self._play_forced = spec.play_forced
        state = new_game(game_config(spec), spec.seed)
        self._rec = Recorder(state, [seat.name for seat in spec.seats])
        # Seat -> (step, observation) of the last view handed out, as the service keeps.
        self._bases: dict[int, tuple[int, dict[str, Any]]] = {}
        self._roll(forced=False)  # as the service's CreateGame: chance steps only

    def _roll(self, *, forced: bool) -> None:
        """Chance steps, and with `forced` the decisions that have one legal action (as
        the service's ApplyAction with `play_forced`: this runner holds every seat)."""
        seats = frozenset(range(self._rec.state.config.players)) if forced else frozenset()
        while (step := unasked_action(self._rec.state, seats)) is not None:
            self._rec.apply(step)

    def to_move(self) -> int:
        seat = self._rec.state.current_player()
        return OVER if seat == TERMINAL else seat

    def turn(self) -> Turn:
        state = self._rec.state
        seat = state.current_player()
        step = len(self._rec.replay.actions)
        observation = state.observation(seat)
        if seat not in self.patch_seats:
            self._bases.pop(seat, None)
            return Turn(seat, step, _dumps(observation))
        known = self._bases.get(seat)
        self._bases[seat] = (step, observation)
        if known is None:
            return Turn(seat, step, _dumps(observation))
        patch = _dumps(make_patch(known[1], observation))
        return Turn(seat, step, "", patch, known[0], full=lambda: _dumps(observation))

    def apply(self, seat: int, action: int) -> None:
        """As the service decides: the rules' own refusals are the bot's; anything else
        the rules core raises is a fault of ours (EngineFaultError)."""
        state = self._rec.state
        step = len(self._rec.replay.actions)
        try:
            if state.current_player() != seat:
                raise IllegalActionError(f"it is not seat {seat}'s decision")
            self._rec.apply(action)  # the state is unchanged when this refuses
        except (IllegalActionError, InvalidActionError) as err:
            raise EngineRefusedError(f"action {action} at step {step}: {err}") from None
        except Exception as err:
            raise EngineFaultError(f"rules core failed at step {step}: {err!r}") from err
        self._roll(forced=self._play_forced)

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
