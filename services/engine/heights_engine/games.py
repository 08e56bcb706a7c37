"""The authority on every game: create, read, apply, replay, over any `GameStore`.

The store's log is the truth; this replica keeps live states in a bounded LRU cache and
brings one up to date by replaying the log entries it has not seen (all of them when
the game is not cached). An action is checked on a copy of the state, followed by the
chance steps it leads to, and the whole batch is appended atomically at the expected
sequence before the cache moves on: a refused request changes nothing anywhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import re
import time
import uuid
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from heights_engine import metrics, tokens
from heights_engine.errors import Code, EngineError, invalid, stale
from heights_engine.store import GameRecord, GameStore
from heights_engine.views import SPECTATOR, Step, View, build_view
from heights_rules import (
    CHANCE,
    Action,
    GameConfig,
    GameState,
    IllegalActionError,
    InvalidActionError,
    Recorder,
    Replay,
    ReplayError,
    ReplayTooDeepError,
    ReplayTooLargeError,
    Verification,
    ViewCache,
    make_patch,
    new_game,
    simulate,
    unasked_action,
    verify,
)

_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
MAX_NAME = 64
# Games whose last sent seat views are kept as the bases of observation patches. A
# 4-player game's four bases take ~250 KiB, so they are kept for fewer games than the
# states: a game that loses them gets its next view in full, then patches again.
PATCH_BASE_GAMES = 256

# Per game: seat -> (sequence, observation) of the last view sent to that seat.
Bases = dict[int, tuple[int, dict[str, Any]]]


@dataclass(slots=True)
class LiveGame:
    """A game's state as this replica last saw it, with the actor of every step."""

    record: GameRecord
    config: GameConfig
    state: GameState
    actions: list[int]
    actors: list[int]
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    # Tokens already checked against the stored hashes, with their seats: a runner names
    # every seat's token at every decision, and hashing them was ~5% of an ApplyAction.
    # Only tokens that passed are kept, so a guess still meets the constant-time check.
    checked_tokens: dict[str, int] = field(default_factory=dict)
    # The parts of its views that did not change since the last one (the map, the state's
    # lists) are built once and shared, so the next mover's patch skips them at a glance.
    view_cache: ViewCache = field(default_factory=ViewCache)

    @property
    def sequence(self) -> int:
        return len(self.actions)

    def view(self, viewer: int) -> View:
        return build_view(
            self.record, self.config, self.state, self.sequence, viewer, cache=self.view_cache
        )

    def steps(self, after: int) -> list[Step]:
        return [Step(i, self.actions[i], self.actors[i]) for i in range(after, self.sequence)]


# Applied and _Reply are built on every ApplyAction and never changed after. Not frozen:
# a frozen dataclass's __init__ sets each field through object.__setattr__, which made
# these two ~5% of the handler's instructions a load test call (loadtests/README.md,
# "What a game call's handler spends").
@dataclass(slots=True)
class Applied:
    """An accepted action: the steps appended and the game right after them."""

    steps: list[Step]
    live: LiveGame
    seat: int  # the acting seat
    sequence: int
    to_move: int  # -1 once the game is over
    legal: list[int]  # the acting seat's legal actions when it is to move again
    view: View | None  # the acting seat's view, when asked for
    next_view: View | None = None  # the next mover's view, when the caller holds its token


@dataclass(slots=True)
class _Reply:
    """`Games.apply`'s answer, built before the append is confirmed."""

    to_move: int
    legal: list[int]
    view: View | None
    next_view: View | None  # whole: the seat's next patch base
    sent_next_view: View | None  # as sent: a patch from the seat's base when there is one


def check_id(value: str, what: str) -> str:
    if not _ID.fullmatch(value):
        raise invalid("MALFORMED_ID", f"{what} must be 1 to 64 characters of [A-Za-z0-9_-]")
    return value


def play(
    state: GameState,
    action: int,
    actions: list[int],
    actors: list[int],
    forced_for: frozenset[int] = frozenset(),
) -> None:
    """Apply `action`, then every chance step after it, recording each with its actor.

    With `forced_for`, a decision of one of those seats that has a single legal action is
    played too, as a chance step is (docs/engine-service.md, "Forced decisions"): it is
    recorded with its seat as the actor, exactly as if the seat had chosen it.
    """
    actors.append(state.current_player())
    state.apply(action)  # a refusal here is the bot's (ILLEGAL_ACTION)
    actions.append(action)
    try:
        _play_unasked(state, actions, actors, forced_for)
    except Exception as err:
        # The steps after it were chosen by the rules core itself: a failure there is a
        # fault of ours, never the bot's whose action came first (nor a forced seat's).
        raise EngineError(
            Code.INTERNAL, "RULES_FAULT", f"the rules core failed at step {len(actions)}: {err!r}"
        ) from err


def _play_unasked(
    state: GameState, actions: list[int], actors: list[int], forced_for: frozenset[int]
) -> None:
    while (step := unasked_action(state, forced_for)) is not None:
        actors.append(state.current_player())
        state.apply(step)
        actions.append(step)


class Games:
    """The game authority of one replica."""

    def __init__(
        self,
        store: GameStore,
        *,
        cache_size: int,
        token_secret: bytes,
        patch_base_games: int = PATCH_BASE_GAMES,
    ) -> None:
        self.store = store
        self._cache: OrderedDict[str, LiveGame] = OrderedDict()
        self._cache_size = cache_size
        self._secret = token_secret
        self._bases: OrderedDict[str, Bases] = OrderedDict()
        self._bases_size = patch_base_games

    # ------------------------------------------------------------------ writes
    async def create(
        self, *, request_id: str, config: GameConfig, seed: int | None, seat_names: list[str]
    ) -> tuple[LiveGame, list[str]]:
        check_id(request_id, "request_id")
        names = _seat_names(seat_names, config.players)
        fingerprint = _fingerprint(config, seed, names)
        game_id = uuid.uuid4().hex
        seed = tokens.new_seed() if seed is None else seed
        salt, nonce = tokens.new_salt(), tokens.new_nonce()
        seat_tokens = [
            tokens.seat_token(self._secret, game_id, nonce, s) for s in range(config.players)
        ]
        state = new_game(config, seed)
        actions: list[int] = []
        actors: list[int] = []
        while state.current_player() == CHANCE:
            play(state, state.legal_actions()[0], actions, actors)
        record = GameRecord(
            game_id=game_id,
            config=config.to_dict(),
            seed=seed,
            salt_hex=salt.hex(),
            commitment=tokens.commitment(seed, salt),
            seat_names=names,
            token_hashes=tuple(tokens.token_hash(t) for t in seat_tokens),
            token_nonce=nonce,
            request_id=request_id,
            fingerprint=fingerprint,
            # Bookkeeping of the stored record, never read by the rules: not part of the
            # seed, the state or the replay (only the seeded generator rolls).
            created_at=time.time(),
        )
        stored = await self.store.create(record, actions, state.is_terminal())
        if stored.game_id == game_id:
            live = LiveGame(record, config, state, actions, actors)
            self._remember(live)
            return live, seat_tokens
        return await self._retried(stored, fingerprint)

    async def _retried(self, stored: GameRecord, fingerprint: str) -> tuple[LiveGame, list[str]]:
        if stored.fingerprint != fingerprint:
            raise invalid("REQUEST_ID_REUSED", "request_id was used for a different game")
        seat_tokens = [
            tokens.seat_token(self._secret, stored.game_id, stored.token_nonce, s)
            for s in range(len(stored.token_hashes))
        ]
        if tuple(tokens.token_hash(t) for t in seat_tokens) != stored.token_hashes:
            raise EngineError(
                Code.FAILED_PRECONDITION,
                "TOKENS_UNRECOVERABLE",
                "the game was created by a replica with another token secret",
            )
        return await self.synced(stored.game_id), seat_tokens

    async def apply(
        self,
        game_id: str,
        token: str,
        expected: int,
        action_id: int,
        text: str,
        *,
        with_view: bool = True,
        view_tokens: Sequence[str] = (),
        view_bases: Sequence[int] = (),
        play_forced: bool = False,
    ) -> Applied:
        """Play a seat's action: the steps appended and the game as it is right after.

        Optimistic on the cache: when the cached game is at `expected`, the action is
        checked on it and appended without reading the log first, because the append
        itself succeeds only if the log still has `expected` actions (so the cache was
        current). Any refusal on that path is decided again on a caught-up state.
        With `play_forced`, the decisions with a single legal action that follow, of the
        seats whose tokens the caller named, are played and appended in the same batch.
        """
        live = self._cache.get(game_id)
        if live is None:  # only well-formed ids are ever cached: checked on a miss
            check_id(game_id, "game_id")
        if expected < 0:  # malformed, not a race a retry could win
            raise invalid("BAD_SEQUENCE", "expected_sequence must not be negative")
        if live is None:
            live = await self.synced(game_id)
        else:
            metrics.CACHE_HIT.inc()
            self._cache.move_to_end(game_id)
        seat = self.seat_for(live, token, required=True)
        # Checked before anything is applied: a bad token refuses the whole request.
        held = {seat}
        for other in view_tokens:
            held.add(self.seat_for(live, other, required=True))
        if view_bases and len(view_bases) != live.config.players:
            raise invalid(
                "BAD_VIEW_BASES", f"view_bases needs one entry per seat ({live.config.players})"
            )
        action = _resolve(action_id, text)
        forced_for = frozenset(held) if play_forced else frozenset()
        async with live.lock:
            fresh = expected != live.sequence
            if fresh:
                await self._caught_up(live)
            while True:
                try:
                    work, actions, actors = self._tried(live, expected, seat, action, forced_for)
                    # The store's command leaves now (Redis: written in this call), and the
                    # views are built while it travels: the reply is then usually in the
                    # socket when the loop next polls, so this task is resumed without the
                    # loop going to sleep for it. Awaited straight after, the loop slept
                    # and was woken at every decision (a context switch), and the views
                    # waited for Redis. Built from `work`, they are dropped if the append
                    # is refused: nothing of this replica changes before it is accepted.
                    appending = self.store.append(game_id, expected, actions, work.is_terminal())
                    try:
                        reply = self._reply(
                            live,
                            expected,
                            seat,
                            work,
                            actions,
                            held,
                            view_tokens,
                            view_bases,
                            with_view,
                        )
                    except BaseException:
                        with contextlib.suppress(Exception):
                            await appending
                        raise
                    await appending
                    break
                except EngineError:
                    if fresh:
                        raise
                    fresh = True
                    await self._caught_up(live)
            live.state = work
            live.actions.extend(actions)
            live.actors.extend(actors)
            if reply.next_view is not None and view_bases:
                self._keep_base(game_id, reply.next_view)
            applied = Applied(
                steps=live.steps(expected),
                live=live,
                seat=seat,
                sequence=live.sequence,
                to_move=reply.to_move,
                legal=reply.legal,
                view=reply.view,
                next_view=reply.sent_next_view,
            )
        _count_steps(actors)
        return applied

    def _reply(  # noqa: PLR0917 (apply's one helper: its request's parts)
        self,
        live: LiveGame,
        expected: int,
        seat: int,
        work: GameState,
        actions: list[int],
        held: set[int],
        view_tokens: Sequence[str],
        view_bases: Sequence[int],
        with_view: bool,
    ) -> _Reply:
        """What `apply` answers about `work`, the state the append will make current.

        Read-only on this replica (the patch bases are kept by `_keep_base` once the
        append is accepted); the views go in the order they always did, next mover first,
        so that they share the game's view cache as before.
        """
        game_id = live.record.game_id
        sequence = expected + len(actions)
        to_move = -1 if work.is_terminal() else work.current_player()
        next_view = sent = None
        if to_move in held and view_tokens:
            next_view = sent = build_view(
                live.record, live.config, work, sequence, to_move, cache=live.view_cache
            )
            if view_bases:
                sent = self._patch_from(game_id, next_view, view_bases[to_move])
        legal = work.legal_actions() if to_move == seat else []
        view = None
        if with_view:
            view = build_view(live.record, live.config, work, sequence, seat, cache=live.view_cache)
        return _Reply(to_move, legal, view, next_view, sent)

    def _patch_from(self, game_id: str, view: View, held: int) -> View:
        """`view` as a patch from the caller's base `held` when this replica sent that base
        (the seat's last one here). A view is a function of the game's state and the seat,
        so a base of the same sequence is the same document whichever replica built it."""
        bases = self._bases.get(game_id)
        known = None if bases is None else bases.get(view.viewer)
        if known is None or known[0] != held or held < 0:
            return view
        return view.as_patch(make_patch(known[1], view.observation), held)

    def _keep_base(self, game_id: str, view: View) -> None:
        """`view` (whole) as its seat's base for the next patch."""
        bases = self._bases.get(game_id)
        if bases is None:
            bases = self._bases[game_id] = {}
            while len(self._bases) > self._bases_size:
                self._bases.popitem(last=False)
        else:
            self._bases.move_to_end(game_id)
        bases[view.viewer] = (view.sequence, view.observation)

    @staticmethod
    def _tried(
        live: LiveGame, expected: int, seat: int, action: int, forced_for: frozenset[int]
    ) -> tuple[GameState, list[int], list[int]]:
        """The state after `action` (on a copy) with the steps it leads to, if allowed."""
        if live.state.is_terminal():
            raise EngineError(Code.FAILED_PRECONDITION, "GAME_OVER", "the game is over")
        if expected != live.sequence:
            raise stale(expected, live.sequence)
        if live.state.current_player() != seat:
            raise EngineError(
                Code.FAILED_PRECONDITION,
                "NOT_YOUR_TURN",
                f"it is seat {live.state.current_player()}'s decision, not seat {seat}'s",
            )
        work = live.state.clone()
        actions: list[int] = []
        actors: list[int] = []
        try:
            play(work, action, actions, actors, forced_for)
        except IllegalActionError as err:
            raise EngineError(Code.FAILED_PRECONDITION, "ILLEGAL_ACTION", str(err)) from None
        return work, actions, actors

    async def delete(self, game_id: str, *, force: bool = False) -> None:
        """Remove a game; one in progress only when forced (its players lose it)."""
        check_id(game_id, "game_id")
        if not force and not (await self.synced(game_id)).state.is_terminal():
            raise EngineError(
                Code.FAILED_PRECONDITION,
                "GAME_IN_PROGRESS",
                "the game is not over: archive it when it ends, or delete it with force",
            )
        self._cache.pop(game_id, None)
        self._bases.pop(game_id, None)
        metrics.LIVE_GAMES.set(len(self._cache))
        if not await self.store.delete(game_id):
            raise EngineError(Code.NOT_FOUND, "GAME_NOT_FOUND", f"no game {game_id!r}")

    # ------------------------------------------------------------------ reads
    async def synced(self, game_id: str) -> LiveGame:
        """The game, brought up to date with the store's log."""
        check_id(game_id, "game_id")
        live = self._cache.get(game_id)
        if live is None:
            metrics.CACHE_MISS.inc()
            return await self._rebuild(game_id)
        metrics.CACHE_HIT.inc()
        self._cache.move_to_end(game_id)
        async with live.lock:
            await self._caught_up(live)
        return live

    def seat_for(self, live: LiveGame, token: str, *, required: bool = False) -> int:
        """The seat a token belongs to; SPECTATOR without a token (unless required)."""
        if not token:
            if required:
                raise invalid("SEAT_TOKEN_REQUIRED", "this call needs a seat token")
            return SPECTATOR
        seat = live.checked_tokens.get(token)
        if seat is not None:
            return seat
        seat = tokens.seat_of(token, live.record.token_hashes)
        if seat is None:
            raise EngineError(
                Code.PERMISSION_DENIED, "BAD_SEAT_TOKEN", "the token is no seat's of this game"
            )
        live.checked_tokens[token] = seat
        return seat

    async def replay(self, game_id: str) -> Replay:
        live = await self.synced(game_id)
        if not live.state.is_terminal():
            raise EngineError(Code.FAILED_PRECONDITION, "GAME_NOT_OVER", "the game is not over")
        return await asyncio.to_thread(_record, live)

    async def state_at(self, game_id: str, step: int, viewer: int) -> tuple[View, Step | None]:
        live = await self.synced(game_id)
        if not live.state.is_terminal():
            raise EngineError(Code.FAILED_PRECONDITION, "GAME_NOT_OVER", "the game is not over")
        if not 0 <= step <= live.sequence:
            raise invalid("STEP_OUT_OF_RANGE", f"step must be in [0, {live.sequence}]")
        if viewer != SPECTATOR and not 0 <= viewer < live.config.players:
            raise invalid("BAD_VIEWER", f"viewer must be -1 or a seat below {live.config.players}")
        replay = Replay(live.config, live.record.seed, list(live.record.seat_names), live.actions)
        state = await asyncio.to_thread(simulate, replay, step)
        last = Step(step - 1, live.actions[step - 1], live.actors[step - 1]) if step else None
        return build_view(live.record, live.config, state, step, viewer), last

    @staticmethod
    async def verify(blob: bytes) -> Verification:
        # Off the event loop: reading is bounded but up to ~a second of CPU at the limits.
        return await asyncio.to_thread(_verified, blob)

    # ------------------------------------------------------------------ cache
    async def _rebuild(self, game_id: str) -> LiveGame:
        record = await self.store.load(game_id)
        log = await self.store.actions(game_id)
        config = GameConfig.from_dict(record.config)
        state = new_game(config, record.seed)
        actors: list[int] = []
        for action in log:
            actors.append(state.current_player())
            state.apply(action)
        live = self._cache.get(game_id)
        if live is not None:  # another request rebuilt it meanwhile
            return live
        live = LiveGame(record, config, state, list(log), actors)
        self._remember(live)
        return live

    async def _caught_up(self, live: LiveGame) -> None:
        """`_catch_up`, forgetting the game when the store no longer has it."""
        try:
            await self._catch_up(live)
        except EngineError:
            self._cache.pop(live.record.game_id, None)  # deleted or expired
            raise

    async def _catch_up(self, live: LiveGame) -> None:
        for action in await self.store.actions(live.record.game_id, live.sequence):
            live.actors.append(live.state.current_player())
            live.state.apply(action)
            live.actions.append(action)

    def _remember(self, live: LiveGame) -> None:
        self._cache[live.record.game_id] = live
        while len(self._cache) > self._cache_size:
            evicted, _ = self._cache.popitem(last=False)
            self._bases.pop(evicted, None)
        metrics.LIVE_GAMES.set(len(self._cache))


def _count_steps(actors: list[int]) -> None:
    """Count a decision appended with the steps after it (`actors`: the decision's first)."""
    metrics.DECISIONS.inc()
    # Most decisions are followed by neither: a counter's inc takes its lock.
    if len(actors) > 1:
        forced = sum(1 for actor in actors[1:] if actor != CHANCE)
        if forced:
            metrics.FORCED_DECISIONS.inc(forced)
        if len(actors) - 1 > forced:
            metrics.CHANCE_STEPS.inc(len(actors) - 1 - forced)


def _resolve(action_id: int, text: str) -> int:
    try:
        parsed = Action.parse(text).id if text else Action.from_id(action_id).id
    except (InvalidActionError, ValueError) as err:
        raise invalid("INVALID_ACTION", str(err)) from None
    if text and action_id and action_id != parsed:
        raise invalid("ACTION_MISMATCH", f"action id {action_id} is not {text!r}")
    return parsed


def _seat_names(names: list[str], players: int) -> tuple[str, ...]:
    if not names:
        return tuple(f"seat {s}" for s in range(players))
    if len(names) != players:
        raise invalid("BAD_SEAT_NAMES", f"give no seat names or exactly {players}")
    if any(not n or len(n) > MAX_NAME for n in names):
        raise invalid("BAD_SEAT_NAMES", f"a seat name has 1 to {MAX_NAME} characters")
    return tuple(names)


def _fingerprint(config: GameConfig, seed: int | None, names: tuple[str, ...]) -> str:
    doc: dict[str, Any] = {"config": config.to_dict(), "seed": seed, "seats": list(names)}
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()


def _verified(blob: bytes) -> Verification:
    try:
        replay = Replay.from_bytes(blob)
    except (ReplayTooLargeError, ReplayTooDeepError) as err:
        reason = "REPLAY_TOO_LARGE" if isinstance(err, ReplayTooLargeError) else "DOCUMENT_TOO_DEEP"
        raise EngineError(
            Code.INVALID_ARGUMENT, reason, str(err), {"field": "replay", "limit": str(err.limit)}
        ) from None
    except ReplayError as err:
        raise invalid("MALFORMED_REPLAY", str(err)) from None
    return verify(replay)


def _record(live: LiveGame) -> Replay:
    recorder = Recorder(new_game(live.config, live.record.seed), list(live.record.seat_names))
    for action in live.actions:
        recorder.apply(action)
    return recorder.replay
