"""One seat of a match: its bot process, its clock, and what happens when it fails.

The runner measures time itself: a move may take `move_ms`; beyond that the excess is
drawn from the game's bank; an empty bank is a timeout, and so is thinking past the
seat's whole-game budget (`game_ms`, every move counted). A faulty bot forfeits once, and
from then on the built-in greedy bot plays its seat in this process (so the other seats'
game stays meaningful); the forfeit is recorded with its reason and step.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field

from heights_bots.bot import Bot, make_bot, seat_seed
from heights_rules import from_infoset
from heights_runner import protocol, sandbox
from heights_runner.botfiles import BotFileError
from heights_runner.builds import BuildFailedError
from heights_runner.contract import Forfeit, MatchSpec, TimeLimits
from heights_runner.engines import Turn
from heights_runner.launch import LaunchPolicy, start_seat

DETAIL_CHARS = 300


@dataclass(slots=True)
class SeatClock:
    limits: TimeLimits
    bank_ms: float = field(init=False)
    think_ms: float = 0.0
    max_move_ms: float = 0.0
    moves: int = 0

    def __post_init__(self) -> None:
        self.bank_ms = float(self.limits.bank_ms)

    @property
    def game_left_ms(self) -> float:
        return self.limits.game_ms - self.think_ms

    def budget_binds(self) -> bool:
        """Whether the game budget, not move + bank, bounds the next move."""
        return self.game_left_ms < self.limits.move_ms + max(0.0, self.bank_ms)

    def allowance_s(self) -> float:
        move_and_bank = self.limits.move_ms + max(0.0, self.bank_ms)
        return max(0.0, min(move_and_bank, self.game_left_ms)) / 1000.0

    def charge(self, elapsed_ms: float) -> bool:
        """Book one move; False when it overdrew the bank or the game budget (a timeout)."""
        self.moves += 1
        self.think_ms += elapsed_ms
        self.max_move_ms = max(self.max_move_ms, elapsed_ms)
        self.bank_ms -= max(0.0, elapsed_ms - self.limits.move_ms)
        return self.bank_ms >= 0 and self.game_left_ms >= 0


class Seat:
    def __init__(self, spec: MatchSpec, seat: int, policy: LaunchPolicy) -> None:
        self.spec = spec
        self.seat = seat
        self.policy = policy
        self.clock = SeatClock(spec.limits)
        self.forfeit: Forfeit | None = None
        self.name = ""
        self.features: frozenset[str] = frozenset()
        self.stderr = ""
        self._process: sandbox.BotProcess | None = None
        self._stand_in: Bot | None = None

    # -------------------------------------------------------------- lifecycle
    def launch(self) -> None:
        """Start the process and send hello (the reply is awaited in `ready`)."""
        # sandbox.SandboxUnavailable (no bubblewrap, no cgroup, no exec) and OSError (the
        # bot cache unwritable) are this machine's faults: they propagate, and the match
        # is played again or fails without blaming the bot.
        try:
            # A bot gets its own seed, never the match seed (seat_seed is one-way).
            bot_seed = seat_seed(self.spec.seed, self.seat)
            self._process = start_seat(self.spec.seats[self.seat], bot_seed, self.policy)
            self._process.send(protocol.hello(self.spec, self.seat))
        except BotFileError as err:
            # The bot's files failed validation: the bot's fault. Not any ValueError: bytes
            # that do not match the spec's sha256, or are not base64, were damaged in
            # storage or on the way (BotRef.content), and a bug of ours may raise one too.
            self._fail("sandbox", str(err), 0)
        except BuildFailedError as err:
            # The build's output is the owner's log; its first error is quoted, as a
            # crashed bot's last stderr line is.
            self.stderr = f"[build output, its last {len(err.output)} characters]\n{err.output}"
            self._fail(err.reason, f"{err}; output: {err.headline()}", 0)
        except sandbox.BotFault as err:
            self._fail(err.reason, self._fault_detail(err), 0)

    def ready(self, deadline: float) -> None:
        """Wait (until `deadline`, a monotonic time) for the bot's `ready`."""
        if self._process is None or self.forfeit:
            return
        try:
            line = self._process.receive(max(0.0, deadline - time.monotonic()))
            self.name, self.features = protocol.parse_ready(line)
        except sandbox.BotTimeout:
            self._fail("start_timeout", "no `ready` within the start-up limit", 0)
        except sandbox.BotFault as err:
            self._fail(err.reason, self._fault_detail(err), 0)
        except protocol.ProtocolViolationError as err:
            self._fail(err.reason, err.detail, 0)

    def end(self, ranks: list[int], scores: list[int], outcome: dict[str, object]) -> None:
        if self._process is not None and not self.forfeit:
            # The game is over: a bot that left early loses nothing more.
            with contextlib.suppress(sandbox.BotFault):
                self._process.send(protocol.end(ranks, scores, dict(outcome)))
        self.close()

    def close(self) -> None:
        if self._process is not None:
            self._process.close()
            self.stderr = self._process.stderr_text()  # complete: close read it to the end
            self._process = None

    # -------------------------------------------------------------- decisions
    @property
    def takes_patches(self) -> bool:
        """Whether this seat's next observation may be sent as a patch."""
        return (
            self.forfeit is None and self._process is not None and protocol.PATCH in self.features
        )

    def decide(self, turn: Turn) -> tuple[int, str]:
        if self.forfeit is None and self._process is not None:
            choice = self._ask(turn)
            if choice is not None:
                return choice
        return self._stand_in_move(turn)

    def _ask(self, turn: Turn) -> tuple[int, str] | None:
        assert self._process is not None
        clock = self.clock
        message = protocol.decide(
            turn,
            self.spec.limits.move_ms,
            int(clock.bank_ms),
            game_ms=int(clock.game_left_ms),
            patch=self.takes_patches,
        )
        start = time.monotonic()
        try:
            self._process.send(message)
            line = self._process.receive(clock.allowance_s())
            elapsed = (time.monotonic() - start) * 1000.0
            choice = protocol.parse_action(line)
        except sandbox.BotTimeout:
            # What this move could take, told before the move is charged (the clock is
            # as it was when it began): written only for a timeout, not every decision.
            waited = self._allowance_text()
            clock.charge((time.monotonic() - start) * 1000.0)
            self._fail("timeout", f"no answer within {waited}", turn.step)
            return None
        except sandbox.BotFault as err:
            self._fail(err.reason, self._fault_detail(err), turn.step)
            return None
        except protocol.ProtocolViolationError as err:
            self._fail(err.reason, err.detail, turn.step)
            return None
        if not clock.charge(elapsed):
            spent = "game budget" if clock.game_left_ms < 0 else "bank"
            self._fail("timeout", f"move took {elapsed:.0f} ms with the {spent} spent", turn.step)
            return None
        return choice

    def _allowance_text(self) -> str:
        clock = self.clock
        if clock.budget_binds():
            left_s, game_s = max(0.0, clock.game_left_ms) / 1000.0, clock.limits.game_ms / 1000.0
            return f"{left_s:.1f} s (what was left of the {game_s:g} s game budget)"
        move_s, bank_s = self.spec.limits.move_ms / 1000.0, max(0.0, clock.bank_ms) / 1000.0
        return f"{move_s + bank_s:.1f} s ({move_s:g} s move + {bank_s:.1f} s bank)"

    def _stand_in_move(self, turn: Turn) -> tuple[int, str]:
        if self._stand_in is None:
            self._stand_in = make_bot("greedy", seat_seed(self.spec.seed, self.seat))
        state = from_infoset(turn.observation()["infoset"], owned=True)
        action, note = self._stand_in.act_with_note(state, self.seat)
        return action, f"[stand-in greedy] {note}"[: protocol.MAX_DEBUG]

    def refused(self, detail: str, step: int) -> None:
        """The engine refused this bot's action: it forfeits; the stand-in takes over."""
        self._fail("illegal", detail, step)

    # -------------------------------------------------------------- faults
    def _fault_detail(self, err: sandbox.BotFault) -> str:
        """The fault, how the process ended, and its last stderr line (its last words)."""
        if self._process is None:
            return str(err)
        info = self._process.exit_info()
        detail = f"{err}" + (f" ({info})" if info and info not in str(err) else "")
        last = self._process.stderr_last_line()
        return f"{detail}; stderr: {last}" if last else detail

    def _fail(self, reason: str, detail: str, step: int) -> None:
        if self.forfeit is None:
            self.forfeit = Forfeit(self.seat, reason, step, detail[:DETAIL_CHARS])
        self.close()
