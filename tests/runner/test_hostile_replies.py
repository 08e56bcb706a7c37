"""Replies a bot can send that Python's own parsers or the engine's wire types choke on:
each is the bot's forfeit, never an exception out of the match (which the task would
retry and then record as an infrastructure failure, voiding a game the bot was losing).

Played through the engine service over gRPC (an action id is an int32 on the wire) with
real sandboxed bots; the in-process engine must judge the same replies the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from tests.engine.clients import OPERATOR_TOKEN
from tests.engine.conftest import InProcessServer

from heights_engine.settings import Settings
from heights_rules import Replay
from heights_runner.contract import BotRef, MatchResult, MatchSpec, SeatSpec, TimeLimits
from heights_runner.engines import Engine, LocalEngine
from heights_runner.grpc_engine import GrpcEngine, channel
from heights_runner.launch import LaunchPolicy
from heights_runner.match import play_match
from heights_runner.sandbox import probe

pytestmark = pytest.mark.skipif(not probe().bwrap, reason="bubblewrap is not available")

# A bot that plays legally until its third decision, then sends `line` and waits.
REPLIES_AT_THIRD = """
import sys, time
from heights_sdk import Bot, run
class B(Bot):
    moves = 0
    def choose(self, d):
        B.moves += 1
        if B.moves == 3:
            sys.stdout.write({line!r} + "\\n"); sys.stdout.flush(); time.sleep(30)
        return d.legal[0].id
run(B(name="hostile"))
"""

# A bot whose `ready` is `line`.
READY_IS = """
import sys, time
sys.stdin.readline()
sys.stdout.write({line!r} + "\\n"); sys.stdout.flush(); time.sleep(30)
"""

NESTED = "[" * 100_000  # json.loads: RecursionError, not a JSONDecodeError
LONG_NUMBER = '{"type":"action","id":' + "9" * 5000 + "}"  # ValueError: over 4300 digits

# reply -> the forfeit reason it earns
REPLIES: dict[str, tuple[str, str]] = {
    "nested_arrays": (NESTED, "garbage"),
    "nested_in_an_action": ('{"type":"action","id":0,"debug":' + NESTED + "}", "garbage"),
    "a_5000_digit_id": (LONG_NUMBER, "garbage"),
    # Readable integers that no action is, nor any int32 the wire could carry.
    "id_past_int32": ('{"type":"action","id":2147483648}', "illegal"),
    "id_below_int32": ('{"type":"action","id":-2147483649}', "illegal"),
    "id_of_2_to_the_100": ('{"type":"action","id":' + str(2**100) + "}", "illegal"),
}

READIES: dict[str, str] = {
    "nested_arrays": NESTED,
    "a_5000_digit_field": '{"type":"ready","name":"x","n":' + "9" * 5000 + "}",
}


@pytest.fixture(scope="module")
def engine_address() -> Iterator[str]:
    server = InProcessServer(Settings(address="127.0.0.1:0", operator_token=OPERATOR_TOKEN))
    yield server.address
    server.stop()


def _play(source: str, tmp: Path, make_engine: Callable[[MatchSpec], Engine]) -> MatchResult:
    hostile = BotRef.from_bytes("py", "main.py", source.encode())
    spec = MatchSpec(
        f"hostile-reply-{tmp.name}",
        20261126,
        (SeatSpec("hostile", hostile), SeatSpec("greedy", BotRef.builtin("greedy"), True)),
        options={"round_cap": 2},
        # Generous times: time is not what these test.
        limits=TimeLimits(move_ms=10_000, bank_ms=10_000, start_ms=20_000, game_ms=120_000),
    )
    return play_match(spec, make_engine, LaunchPolicy(tmp / "bots"))


def _grpc(address: str) -> Callable[[MatchSpec], Engine]:
    chan = channel(address)
    return lambda spec: GrpcEngine(spec, chan, OPERATOR_TOKEN)


def _forfeit_of(result: MatchResult) -> tuple[str, int]:
    hostile, other = result.seats
    assert result.status == "finished"
    assert other.forfeit is None
    assert hostile.forfeit is not None, "the hostile bot did not forfeit"
    assert hostile.rank == 2
    return hostile.forfeit.reason, hostile.forfeit.step


@pytest.mark.parametrize("case", sorted(REPLIES))
def test_a_reply_the_parsers_or_the_wire_refuse_is_the_bots_forfeit(
    case: str, engine_address: str, tmp_path: Path
) -> None:
    line, reason = REPLIES[case]
    source = REPLIES_AT_THIRD.format(line=line)
    for name, make_engine in (("grpc", _grpc(engine_address)), ("local", LocalEngine)):
        folder = tmp_path / name
        folder.mkdir()
        got, step = _forfeit_of(_play(source, folder, make_engine))
        assert got == reason, (name, got)
        assert step > 0


@pytest.mark.parametrize("case", sorted(READIES))
def test_a_ready_the_parsers_refuse_is_the_bots_forfeit_at_the_start(
    case: str, engine_address: str, tmp_path: Path
) -> None:
    result = _play(READY_IS.format(line=READIES[case]), tmp_path, _grpc(engine_address))
    assert _forfeit_of(result) == ("garbage", 0)


# Legal actions whose notes (and a name) hold a lone surrogate: valid JSON ("\ud800",
# which json.dumps writes so), but no UTF-8 can encode it. The replay's encoder raised
# UnicodeEncodeError at the end of the match: any bot could void any game it played.
SURROGATE_NOTES = """
from heights_sdk import Bot, run
class B(Bot):
    def choose(self, d):
        return d.legal[0].id, "lone \\ud800 surrogate"
run(B(name="sur\\udc00rogate"))
"""


def test_notes_with_lone_surrogates_are_kept_as_text_and_the_game_counts(
    engine_address: str, tmp_path: Path
) -> None:
    for name, make_engine in (("grpc", _grpc(engine_address)), ("local", LocalEngine)):
        folder = tmp_path / name
        folder.mkdir()
        result = _play(SURROGATE_NOTES, folder, make_engine)
        assert result.status == "finished"
        assert all(seat.forfeit is None for seat in result.seats), result.seats
        notes = Replay.from_bytes(result.replay_bytes()).debug.values()
        assert "lone ? surrogate" in notes, (name, sorted(notes)[:3])
