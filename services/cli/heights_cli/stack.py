"""Starting and stopping the system's processes on one machine.

Used by `heights demo` / `heights up`, the benchmarks and the integration tests: each
service is a real process (the engine service, runner workers, the platform), started
with its environment, logged to a file, waited for until it is ready, and stopped with
SIGTERM (then SIGKILL) so that nothing is left running.
"""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from heights_cli.proc_stat import process_stat


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class Service:
    name: str
    proc: subprocess.Popen[bytes]
    log_path: Path
    address: str = ""

    def alive(self) -> bool:
        return self.proc.poll() is None

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 20.0) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                return
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)


def _wait(what: str, ready: Callable[[], bool], service: Service, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not ready():
        if not service.alive():
            raise RuntimeError(f"{what} exited during start-up:\n{service.log()[-3000:]}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} not ready after {timeout:.0f} s:\n{service.log()[-3000:]}")
        time.sleep(0.05)


@dataclass
class Stack:
    var_dir: Path
    env: Mapping[str, str] = field(default_factory=dict)  # added to every service's env
    services: list[Service] = field(default_factory=list)
    python: str = sys.executable
    # The engine's operator credential, given to every process of the stack: the engine
    # checks it, the runners create games with it (docs/engine-service.md).
    operator_token: str = field(default_factory=lambda: secrets.token_urlsafe(32))

    def _spawn(self, name: str, argv: list[str], env: Mapping[str, str]) -> Service:
        self.var_dir.mkdir(parents=True, exist_ok=True)
        log_path = self.var_dir / f"{name}.log"
        environ = dict(os.environ) | {
            "HEIGHTS_VAR_DIR": str(self.var_dir),
            "HEIGHTS_ENGINE_OPERATOR_TOKEN": self.operator_token,
            "HEIGHTS_RUNNER_ENGINE_OPERATOR_TOKEN": self.operator_token,
        }
        environ |= dict(self.env)
        environ |= dict(env)
        with open(log_path, "wb") as log:
            # A process group of its own: stopping it stops its children (Celery's pool).
            proc = subprocess.Popen(
                argv, env=environ, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        service = Service(name, proc, log_path)
        self.services.append(service)
        return service

    def engine(self, name: str = "engine", redis_url: str = "", **env: str) -> Service:
        port = free_port()
        service = self._spawn(
            name,
            [self.python, "-m", "heights_engine"],
            {
                "HEIGHTS_ENGINE_ADDRESS": f"127.0.0.1:{port}",
                "HEIGHTS_ENGINE_REDIS_URL": redis_url,
                "HEIGHTS_ENGINE_TOKEN_SECRET": env.pop("token_secret", "local-stack-secret"),
            }
            | env,
        )
        service.address = f"127.0.0.1:{port}"
        _wait(name, lambda: grpc_serving(service.address), service, 30)
        return service

    def runner(self, name: str = "runner", **env: str) -> Service:
        argv = [self.python, "-m", "heights_cli.main", "runner", "worker", "--loglevel", "INFO"]
        service = self._spawn(name, argv, env)
        _wait(name, lambda: " ready." in service.log(), service, 60)
        return service

    def process(self, name: str, argv: list[str], ready_text: str = "", **env: str) -> Service:
        service = self._spawn(name, argv, env)
        if ready_text:
            _wait(name, lambda: ready_text in service.log(), service, 60)
        return service

    def stop(self) -> None:
        for service in reversed(self.services):
            service.stop()
        self.services.clear()


def grpc_serving(address: str, timeout: float = 0.5) -> bool:
    """Whether the gRPC server at `address` (an engine) answers its health check
    SERVING within `timeout` seconds: how a stack, the load test and the tests know
    that an engine they started is ready."""
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    with grpc.insecure_channel(address) as channel:
        try:
            reply = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(), timeout=timeout
            )
        except grpc.RpcError:
            return False
    return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)


def processes_with_env(name: str, value: str) -> list[int]:
    """This user's processes whose environment holds `name=value` (Linux /proc): how
    `heights down` and the tests find whatever a stack started, its services' children
    included, even once the process that started them is gone."""
    wanted = f"{name}={value}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:  # gone meanwhile, or another user's
            continue
        if wanted in environ.split(b"\0"):
            found.append(int(entry.name))
    return sorted(found)


def running(pid: int) -> bool:
    """The process exists and has not ended (a zombie, ended but not yet reaped by its
    parent, has)."""
    found = process_stat(pid)
    return found is not None and found[1][0] != "Z"
