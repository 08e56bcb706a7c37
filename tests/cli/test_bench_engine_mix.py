"""`heights bench-engine-mix`: the load test's game calls through the real handlers."""

from __future__ import annotations

import asyncio
import json

import pytest

from heights_cli.bench_engine_mix import play
from heights_cli.main import main


def test_the_mix_is_the_load_tests_and_repeats_for_its_seed() -> None:
    first = asyncio.run(play(pool=3, calls=4000, seed=4))
    again = asyncio.run(play(pool=3, calls=4000, seed=4))
    assert first.apply_calls + first.list_calls == 4000
    # Most calls apply; the turn passing to the other seat asks for its legal actions.
    assert first.apply_calls > 4 * first.list_calls > 0
    assert first.games_created > 3  # games ended and were replaced in the pool
    assert (again.apply_calls, again.list_calls, again.games_created) == (
        first.apply_calls,
        first.list_calls,
        first.games_created,
    )
    assert first.apply_cpu_us > 0
    assert first.list_cpu_us > 0


def test_no_calls_only_creates_the_pool(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench-engine-mix", "--pool", "2", "--calls", "0", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["games_created"] == 2
    empty = asyncio.run(play(pool=2, calls=0, seed=1))
    assert (empty.apply_calls, empty.list_calls, empty.games_created) == (0, 0, 2)
