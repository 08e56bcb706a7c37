"""What the runner and its callers exchange: a match to play and its result.

Plain, JSON-able data only, so a match crosses Celery (or any queue) as a message: the
platform sends a `MatchSpec` to the `matches` queue and receives a `MatchResult` as a
message on the `results` queue. Runner workers never see the platform's database; a bot
arrives with the task, by content hash with its bytes, and is cached by that hash.
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any, Literal, get_args

from heights_bots import BOT_NAMES
from heights_rules import DEFAULT_CATALOGUE

# How a process reaches the runner's broker (Redis, the embedded file broker or memory):
# the platform's Celery app speaks to the same one, so it takes the settings from here.
from heights_runner.broker import celery_broker_settings as celery_broker_settings  # noqa: PLC0414
from heights_runner.broker import describe as describe  # noqa: PLC0414

# A bot's files: the one check of an upload, which the platform runs at its door and the
# runner again before unpacking. Re-exported (PEP 484's `X as X`): the platform imports
# it from here, never from the runner's internals.
from heights_runner.bundle import BUNDLE_LIMITS as BUNDLE_LIMITS  # noqa: PLC0414
from heights_runner.bundle import MAX_BOT_BYTES as MAX_BOT_BYTES  # noqa: PLC0414
from heights_runner.bundle import Bundle as Bundle  # noqa: PLC0414
from heights_runner.bundle import BundleError as BundleError  # noqa: PLC0414
from heights_runner.bundle import bundle_check as bundle_check  # noqa: PLC0414

# The languages bots may be written in (served by the platform's `GET /api/v1/runtimes/`).
from heights_runner.runtimes import BUILD_LIMITS, MANIFEST
from heights_runner.runtimes import RUNTIMES as RUNTIMES  # noqa: PLC0414
from heights_runner.sandbox.limits import Limits

# Celery task names and queues: matches are long, results and qualification short.
TASK_PLAY_MATCH = "heights_runner.play_match"
TASK_RECORD_RESULT = "heights_platform.record_match_result"
TASK_MATCH_STARTED = "heights_platform.record_match_started"  # args: match_id
QUEUE_MATCHES = "matches"
QUEUE_SHORT = "short"
QUEUE_RESULTS = "results"

# The built-in bots are heights_bots' registry; the platform offers them by these names.
BUILTIN_BOTS: tuple[str, ...] = BOT_NAMES

# A submitted single file's kind is its suffix (its language); an archive is "zip".
BotKind = Literal["builtin", "py", "js", "java", "cpp", "rs", "zip"]
FileKind = Literal["py", "js", "java", "cpp", "rs", "zip"]
ForfeitReason = Literal[
    "start_timeout",  # no `ready` within the start limit
    "timeout",  # a move past its limit with the time bank spent, or the game budget
    "crash",  # the process ended before the game did
    "garbage",  # a line that is not a protocol message
    "illegal",  # an action id that is not legal in the current decision
    "flood",  # too much output on stdout or stderr
    "memory",  # killed for memory
    "sandbox",  # the sandbox refused to start the bot
    "build",  # a compiled bot's build failed (or overran its limits)
]
FORFEIT_REASONS: tuple[str, ...] = get_args(ForfeitReason)


@dataclass(frozen=True, slots=True)
class BotRef:
    """A bot: a built-in by name, or a submitted source file (its kind is its suffix:
    `py`, `js`, `java`, `cpp`, `rs`) or archive (`zip`)."""

    kind: BotKind
    name: str  # built-in name, or the file name as uploaded
    sha256: str = ""  # of `content`; empty for built-ins
    content_b64: str = ""  # the file or archive bytes, base64; empty for built-ins

    @classmethod
    def builtin(cls, name: str) -> BotRef:
        if name not in BUILTIN_BOTS:
            raise ValueError(f"unknown built-in bot {name!r}; built-ins: {', '.join(BUILTIN_BOTS)}")
        return cls("builtin", name)

    @classmethod
    def from_bytes(cls, kind: FileKind, name: str, content: bytes) -> BotRef:
        return cls(
            kind,
            name,
            hashlib.sha256(content).hexdigest(),
            base64.b64encode(content).decode("ascii"),
        )

    def content(self) -> bytes:
        """The bytes, checked against the hash they were sent with."""
        data = base64.b64decode(self.content_b64, validate=True)
        if hashlib.sha256(data).hexdigest() != self.sha256:
            raise ValueError(f"bot {self.name!r}: content does not match its sha256")
        return data


@dataclass(frozen=True, slots=True)
class TimeLimits:
    """Per-move limit, a bank shared by the whole game, and the start-up limit (ms).

    `game_ms` bounds a seat's thinking over the whole game (moves within `move_ms` too):
    without it a bot could take 0.99 s on each of hundreds of moves, and no one could
    say when a match must have ended. `max_decisions` bounds the game's length as the
    runner plays it (a 4-player game is ~1,300); past it the runner is at fault.
    """

    move_ms: int = 1000
    bank_ms: int = 10_000
    start_ms: int = 5000
    game_ms: int = 120_000
    max_decisions: int = 5000


@dataclass(frozen=True, slots=True)
class SeatSpec:
    name: str  # shown in the replay and results (e.g. "alice/rocket v3")
    bot: BotRef
    trusted: bool = False  # built-ins are; submitted code never is


@dataclass(frozen=True, slots=True)
class MatchSpec:
    """A match to play. `match_id` is the idempotency key of the whole pipeline."""

    match_id: str
    seed: int
    seats: tuple[SeatSpec, ...]
    solo: bool = False
    options: dict[str, Any] = field(default_factory=dict)  # RuleOptions fields by name
    catalogue: str = DEFAULT_CATALOGUE
    limits: TimeLimits = TimeLimits()
    reply_to: str = TASK_RECORD_RESULT  # task that receives the result; "" for none
    # Decisions with a single legal action are played by the engine, never sent to the
    # bot (docs/bot-protocol.md, "Forced decisions"). The platform leaves it on for every
    # match, so every rated game is played under the same rule.
    play_forced: bool = True

    @property
    def players(self) -> int:
        return len(self.seats)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MatchSpec:
        seats = tuple(
            SeatSpec(s["name"], BotRef(**s["bot"]), bool(s.get("trusted", False)))
            for s in data["seats"]
        )
        return cls(
            match_id=str(data["match_id"]),
            seed=int(data["seed"]),
            seats=seats,
            solo=bool(data.get("solo", False)),
            options=dict(data.get("options", {})),
            catalogue=str(data.get("catalogue", DEFAULT_CATALOGUE)),
            limits=TimeLimits(**_known(TimeLimits, dict(data.get("limits", {})))),
            reply_to=str(data.get("reply_to", TASK_RECORD_RESULT)),
            play_forced=bool(data.get("play_forced", True)),
        )


# What one attempt at a match costs the runner beyond its bots' own time: unpacking and
# starting the sandboxes, creating the game, finishing, storing and sending the result
# (SETUP), and the relay and engine call of every decision (a few ms; 20 on a busy
# machine). Generous: a match past its deadline is taken for lost.
ATTEMPT_SETUP_S = 30.0
DECISION_OVERHEAD_S = 0.02
# A match the runner could not play (a runner or engine fault) is played again from the
# start on the same seed, with waits of 2, 4, 8 ... s between attempts, only while the
# task is younger than this (tasks.run_spec_retrying).
RETRY_WINDOW_S = 120.0
# Between the runner's deadline and the platform's reaper: a result on its way is let in.
RESULT_GRACE_S = 30.0
# How a failed result's error begins: no bot is to blame (the runner could not play the
# match, or the platform's reaper found it past its deadline); never rated, no forfeit.
INFRASTRUCTURE_FAILURE = "infrastructure failure: "


def attempt_seconds(spec: MatchSpec) -> float:
    """The longest one attempt at `spec` may take: every seat's whole-game thinking
    (plus the one move that overdraws it), start-up, and the runner's own work."""
    limits = spec.limits
    thinking_ms = limits.start_ms + spec.players * (limits.game_ms + limits.move_ms)
    relay = limits.max_decisions * DECISION_OVERHEAD_S
    return thinking_ms / 1000.0 + relay + ATTEMPT_SETUP_S


def match_deadline_seconds(spec: MatchSpec) -> float:
    """How long after a runner took `spec` its result has been sent, retries included.

    The one deadline of a match: the runner starts no attempt that could end after it
    and derives its broker's visibility timeout from it; the platform's reaper re-sends,
    then fails, a match still unrecorded this long (plus RESULT_GRACE_S) after it started.
    """
    return RETRY_WINDOW_S + attempt_seconds(spec)


def largest_match_deadline_seconds(limits: TimeLimits | None = None) -> float:
    """The deadline of a 4-player match with `limits` (default: the default limits)."""
    seats = tuple(SeatSpec(f"seat{i}", BotRef.builtin("random")) for i in range(4))
    return match_deadline_seconds(MatchSpec("", 0, seats, limits=limits or TimeLimits()))


@dataclass(frozen=True, slots=True)
class Forfeit:
    seat: int
    reason: str  # one of FORFEIT_REASONS
    step: int  # the replay step at which the seat was taken over
    detail: str  # human-readable, e.g. "action 17 is not legal: …" (truncated)


@dataclass(frozen=True, slots=True)
class SeatResult:
    seat: int
    name: str
    rank: int  # heights_rules.ranking.final_ranks: ties shared, forfeits last, the Mayor ranked
    score: int
    forfeit: Forfeit | None
    moves: int  # decisions the bot itself made
    think_ms: int  # total time the bot took over its decisions, as measured by the runner
    max_move_ms: int
    # The bot's stderr: its last `Limits.stderr_bytes` (64 KiB), at most LOG_JSON_BYTES as
    # JSON (`log_tail`). The platform shows it to the bot's owner only; but a crashed
    # bot's last stderr line is quoted in its forfeit detail, which is public.
    log: str = ""


# A log as JSON, at most: 64 KiB of plain text fits with its escaped newlines, while a
# bot writing invalid or control bytes (each 6 bytes as JSON) cannot make a result, the
# runner's ledger or the platform's table carry more than this per seat.
LOG_JSON_BYTES = 96 * 2**10
LOG_CUT_NOTE = f"[earlier output cut: a log keeps at most {LOG_JSON_BYTES // 1024} KiB as JSON]\n"


def log_tail(text: str, limit: int = LOG_JSON_BYTES) -> str:
    """`text`, or its end after LOG_CUT_NOTE, within `limit` bytes as (ASCII) JSON."""

    def size(s: str) -> int:
        return len(json.dumps(s))

    if size(text) <= limit:
        return text
    low, high = 1, len(text)  # the smallest cut whose rest fits (size falls as cut grows)
    while low < high:
        middle = (low + high) // 2
        if size(LOG_CUT_NOTE + text[middle:]) <= limit:
            high = middle
        else:
            low = middle + 1
    return LOG_CUT_NOTE + text[low:]


def _known(cls: type, data: dict[str, Any]) -> dict[str, Any]:
    """`data` without keys `cls` lacks: a result from a newer runner still records."""
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in data.items() if k in names}


@dataclass(frozen=True, slots=True)
class MatchResult:
    match_id: str
    status: Literal["finished", "failed"]
    seed: int
    seed_commitment: str  # sha256 published before play
    seats: tuple[SeatResult, ...] = ()
    termination: str = ""
    rounds: int = 0
    outcome: dict[str, Any] = field(default_factory=dict)  # the engine's outcome JSON
    replay_b64: str = ""  # gzip replay record (heights_rules.replay), base64
    replay_sha256: str = ""  # of the gzip bytes
    seconds: float = 0.0
    error: str = ""  # for `failed`: why (never a bot fault: those are forfeits)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MatchResult:
        seats = tuple(
            SeatResult(
                **{k: v for k, v in _known(SeatResult, s).items() if k != "forfeit"},
                forfeit=Forfeit(**_known(Forfeit, s["forfeit"])) if s.get("forfeit") else None,
            )
            for s in data.get("seats", ())
        )
        return cls(**{**_known(cls, data), "seats": seats})

    def without_logs(self) -> MatchResult:
        """The result without the bots' logs (what the runner's ledger keeps)."""
        return replace(self, seats=tuple(replace(s, log="") for s in self.seats))

    def replay_bytes(self) -> bytes:
        blob = base64.b64decode(self.replay_b64, validate=True)
        if hashlib.sha256(blob).hexdigest() != self.replay_sha256:
            raise ValueError(f"match {self.match_id}: replay does not match its sha256")
        return blob


def runtimes_document() -> dict[str, Any]:
    """Every runtime with its limits, as `GET /api/v1/runtimes/` serves it: a bot's own
    limits (the sandbox's defaults; `processes` is the runtime's), its time limits, and
    a compiled bot's build limits."""
    bot = Limits()
    time = TimeLimits()
    return {
        "runtimes": [
            asdict(r) | {"compiled": r.compiled, "run": list(r.run), "packages": list(r.packages)}
            for r in RUNTIMES
        ],
        "manifest": MANIFEST,
        "limits": {
            "memory_mib": bot.memory_bytes // 2**20,
            "cpu_seconds": bot.cpu_seconds,
            "tmp_mib": bot.tmp_bytes // 2**20,
            "open_files": bot.open_files,
            "move_ms": time.move_ms,
            "bank_ms": time.bank_ms,
            "start_ms": time.start_ms,
            "game_ms": time.game_ms,
        },
        "build_limits": asdict(BUILD_LIMITS),
    }
