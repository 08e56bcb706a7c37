"""`Games.apply` builds its answer while the store's append travels.

RedisStore writes the append's command when `append` is called, before the caller
awaits it, so the views are built during the round trip; an append that is refused
must then leave nothing of this replica changed, its patch bases included.
"""

from __future__ import annotations

import asyncio
import copy
import time

import pytest
import redis
from tests.engine.records import game_record

from heights_engine.errors import Code, EngineError
from heights_engine.games import Games
from heights_engine.redis_store import RedisStore
from heights_engine.store import MemoryStore
from heights_rules import GameConfig


def test_a_redis_append_is_written_before_it_is_awaited(redis_url: str, redis_prefix: str) -> None:
    async def scenario() -> None:
        store = RedisStore(
            redis_url, prefix=redis_prefix, max_games=10, game_ttl=600, finished_ttl=600
        )
        await store.create(game_record("early"), [], False)
        assert await store.actions("early") == []  # connected
        appending = store.append("early", 0, [5, 6], False)
        # Not awaited yet, and this loop blocked: Redis has the command all the same.
        other = redis.Redis.from_url(redis_url)
        deadline = time.monotonic() + 10
        while other.llen(f"{redis_prefix}:game:early:log") < 2:
            assert time.monotonic() < deadline, "the append never reached Redis"
            time.sleep(0.01)
        assert await appending == 2
        assert await store.actions("early") == [5, 6]
        stale = store.append("early", 0, [7], False)
        with pytest.raises(EngineError) as refused:
            await stale
        assert refused.value.code == Code.ABORTED
        assert await store.actions("early") == [5, 6]
        other.close()
        await store.close()

    asyncio.run(scenario())


def test_a_refused_append_leaves_the_patch_bases_as_they_were() -> None:
    async def scenario() -> None:
        store = MemoryStore(max_games=10, game_ttl=600, finished_ttl=600)
        here = Games(store, cache_size=10, token_secret=b"s")
        there = Games(store, cache_size=10, token_secret=b"s")  # another replica
        live, tokens = await here.create(
            request_id="r1", config=GameConfig(players=2), seed=3, seat_names=[]
        )
        game_id = live.record.game_id

        async def decide(games: Games, expected: int) -> int:
            state = (await games.synced(game_id)).state if games is there else live.state
            seat = state.current_player()
            applied = await games.apply(
                game_id,
                tokens[seat],
                expected,
                state.legal_actions()[0],
                "",
                with_view=False,
                view_tokens=[t for s, t in enumerate(tokens) if s != seat],
                view_bases=[-1, -1],
                play_forced=True,
            )
            return applied.sequence

        sequence = await decide(here, live.sequence)
        bases = copy.deepcopy(here._bases)
        assert bases  # the next mover's view is kept as its base
        seat = live.state.current_player()
        action = live.state.legal_actions()[0]
        await decide(there, sequence)  # the log moves on behind this replica's back
        with pytest.raises(EngineError) as refused:
            await here.apply(
                game_id,
                tokens[seat],
                sequence,
                action,
                "",
                view_tokens=[t for s, t in enumerate(tokens) if s != seat],
                view_bases=[sequence, sequence],
                play_forced=True,
            )
        assert refused.value.code == Code.ABORTED
        assert here._bases == bases

    asyncio.run(scenario())
