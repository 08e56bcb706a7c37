"""A runner process reads the engine's answers in the thread that waits for them.

heights_runner turns gRPC's EventEngine client off (heights_runner/__init__.py): the
match's thread then polls the channel's socket itself, and no I/O thread of gRPC's has
to wake for each answer and hand it over. Counted here as the context switches of the
process's other threads over 200 pings on a caller-driven stream: each answer read by
one of gRPC's I/O threads is at least one switch of that thread.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest
from tests.engine.clients import OPERATOR_TOKEN
from tests.engine.conftest import InProcessServer

from heights_engine.settings import Settings

PINGS = 200
CLIENT = """
import os, sys
if sys.argv[1] == "runner":
    import heights_runner  # what every runner process imports before grpc
import grpc
from heights_engine.proto import engine_service_pb2 as pb
from heights_runner.caller_stream import open_caller_stream
from heights_runner.grpc_engine import APPLY_ACTIONS

def switches():
    counts = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            status = open(f"/proc/self/task/{tid}/status").read()
        except OSError:  # a thread that ended meanwhile
            continue
        counts[tid] = int(status.split("voluntary_ctxt_switches:")[1].split()[0])
    return counts

with grpc.insecure_channel(sys.argv[2]) as chan:
    stream = open_caller_stream(chan, APPLY_ACTIONS, 60)
    ping = pb.ApplyActionsRequest(ping=True).SerializeToString()
    for _ in range(20):
        stream.call(ping)
    before = switches()
    for _ in range(int(sys.argv[3])):
        assert pb.ApplyActionsResponse.FromString(stream.call(ping)).pong
    after = switches()
    stream.close()
caller = str(os.getpid())
print(sum(n - before.get(tid, 0) for tid, n in after.items() if tid != caller))
"""


@pytest.fixture(scope="module")
def address() -> Iterator[str]:
    server = InProcessServer(Settings(address="127.0.0.1:0", operator_token=OPERATOR_TOKEN))
    yield server.address
    server.stop()


def _other_threads_switches(mode: str, address: str) -> int:
    env = {k: v for k, v in os.environ.items() if k != "GRPC_EXPERIMENTS"}
    done = subprocess.run(
        [sys.executable, "-c", CLIENT, mode, address, str(PINGS)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return int(done.stdout.split()[-1])


def test_a_runner_process_reads_the_answers_in_the_waiting_thread(address: str) -> None:
    assert _other_threads_switches("runner", address) < PINGS


def test_without_the_runners_setting_grpcs_io_threads_wake_for_each_answer(
    address: str,
) -> None:
    """The control: the count above can tell the two apart."""
    assert _other_threads_switches("bare", address) >= PINGS


def test_an_operators_own_grpc_experiments_are_kept() -> None:
    code = "import heights_runner, os; print(os.environ['GRPC_EXPERIMENTS'])"
    env = dict(os.environ) | {"GRPC_EXPERIMENTS": "-event_engine_dns"}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "-event_engine_dns"
