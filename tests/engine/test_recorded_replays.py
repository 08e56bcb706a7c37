"""The engine service's VerifyReplay verifies replays recorded before rules revision 2
(tests/rules/replays/) with the behaviour they were played under."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.engine.clients import stub

from heights_engine.proto import engine_service_pb2 as pb

REPLAYS = sorted((Path(__file__).parents[1] / "rules" / "replays").glob("*.rhr"))


@pytest.mark.parametrize("path", REPLAYS, ids=lambda p: p.stem)
def test_verify_replay_accepts_a_revision_1_record(memory_server: str, path: Path) -> None:
    verified = stub(memory_server).VerifyReplay(pb.VerifyReplayRequest(replay=path.read_bytes()))
    assert verified.ok, verified.message
    assert verified.message.startswith("identical")
