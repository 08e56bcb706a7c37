"""Starting bots from a process whose gRPC channel is busy must not run gRPC's fork
handlers in the child: they restarted a poller there and killed ~1 bot start in 300 with
SIGABRT. gRPC logs each fork it would have handled but could not; with the support off,
it handles none and logs none."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

SERVER = """
from concurrent import futures
import grpc

def echo(requests, context):
    yield from requests

server = grpc.server(futures.ThreadPoolExecutor(4))
server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler(
    "e.E", {"S": grpc.stream_stream_rpc_method_handler(echo)})])
print(server.add_insecure_port("127.0.0.1:0"), flush=True)
server.start()
server.wait_for_termination()
"""

CLIENT = """
import sys, threading
if sys.argv[1] == "runner":
    import heights_runner  # what every runner process imports before grpc
import queue, subprocess
import grpc

channel = grpc.insecure_channel(f"127.0.0.1:{sys.argv[2]}")
stop = threading.Event()
def pump():
    q = queue.SimpleQueue()
    replies = channel.stream_stream("/e.E/S")(iter(q.get, None), timeout=60)
    while not stop.is_set():
        q.put(b"x"); next(replies)
    q.put(None)
thread = threading.Thread(target=pump, daemon=True)
thread.start()
aborted = 0
for _ in range(30):  # a preexec_fn makes Python fork (not vfork), as the sandbox does
    code = subprocess.run(["true"], preexec_fn=lambda: None, timeout=10).returncode
    aborted += code != 0
stop.set()
print("aborted", aborted)
"""


def _forks_grpc_handled(mode: str) -> int:
    """Forks gRPC logged it would handle, plus children that died before `true` ran."""
    env = {k: v for k, v in os.environ.items() if k != "GRPC_ENABLE_FORK_SUPPORT"}
    env["GRPC_VERBOSITY"] = "INFO"
    with subprocess.Popen(
        [sys.executable, "-c", SERVER], stdout=subprocess.PIPE, text=True, env=env
    ) as server:
        try:
            assert server.stdout is not None
            port = server.stdout.readline().strip()
            done = subprocess.run(
                [sys.executable, "-c", CLIENT, mode, port],
                check=False,
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
            )
        finally:
            server.kill()
    assert done.returncode == 0, done.stderr[-2000:]
    aborted = int(done.stdout.split()[-1])
    return done.stderr.count("fork() handlers") + aborted


def test_a_runner_process_forks_without_grpc_fork_handlers() -> None:
    assert _forks_grpc_handled("runner") == 0


@pytest.mark.skipif(os.cpu_count() == 1, reason="the control needs threads to overlap")
def test_without_the_runners_setting_grpc_would_handle_those_forks() -> None:
    # The control: the same process without heights_runner first shows the handlers (or
    # a child killed by them), so the test above can fail.
    assert _forks_grpc_handled("plain") > 0
