"""Container health checks: exit 0 when healthy, 1 when not, 2 on a usage error.

Copied into every image as /opt/heights/healthcheck.py and run by Docker's HEALTHCHECK,
by Compose and by Kubernetes exec probes, so one file says what "healthy" means:

    python healthcheck.py grpc [HOST:PORT]        # grpc.health.v1 Check is SERVING
    python healthcheck.py http URL [HOST_HEADER]  # GET answers 2xx
    python healthcheck.py broker ENV_VAR          # the Redis in $ENV_VAR answers PING

`grpc` without an address checks the port of HEIGHTS_ENGINE_ADDRESS on 127.0.0.1.
Standard library and grpcio only, and no Django: a check must stay cheap (it runs every
few seconds) and must not depend on the settings of the process it checks.
"""

from __future__ import annotations

import os
import socket
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Sequence

TIMEOUT_SECONDS = 3.0
USAGE = "usage: healthcheck.py grpc [HOST:PORT] | http URL [HOST_HEADER] | broker ENV_VAR"


def engine_target(environ: dict[str, str]) -> str:
    """127.0.0.1 and the port the engine listens on (HEIGHTS_ENGINE_ADDRESS)."""
    address = environ.get("HEIGHTS_ENGINE_ADDRESS", "") or "127.0.0.1:50051"
    return f"127.0.0.1:{address.rpartition(':')[2]}"


def check_grpc(target: str) -> bool:
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    with grpc.insecure_channel(target) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        try:
            reply = stub.Check(health_pb2.HealthCheckRequest(), timeout=TIMEOUT_SECONDS)
        except grpc.RpcError:
            return False
    return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)


def check_http(url: str, host: str = "") -> bool:
    request = urllib.request.Request(url, headers={"Host": host} if host else {})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:
            return 200 <= int(response.status) < 300
    except (urllib.error.URLError, OSError):
        return False


def _resp(*parts: str) -> bytes:
    """A Redis command in RESP, the protocol's own framing."""
    out = [f"*{len(parts)}\r\n".encode()]
    for part in parts:
        data = part.encode()
        out.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(out)


def check_redis(url: str) -> bool:
    """PING over a plain socket (AUTH first when the URL has a password)."""
    parsed = urllib.parse.urlsplit(url)
    if parsed.scheme != "redis" or not parsed.hostname:
        return False
    commands = []
    if parsed.password:
        password = urllib.parse.unquote(parsed.password)
        user = urllib.parse.unquote(parsed.username or "")
        commands.append(_resp("AUTH", user, password) if user else _resp("AUTH", password))
    commands.append(_resp("PING"))
    try:
        with socket.create_connection(
            (parsed.hostname, parsed.port or 6379), timeout=TIMEOUT_SECONDS
        ) as sock:
            sock.sendall(b"".join(commands))
            replies = b""
            while replies.count(b"\r\n") < len(commands):
                chunk = sock.recv(4096)
                if not chunk:
                    return False
                replies += chunk
    except OSError:
        return False
    lines = replies.split(b"\r\n")[: len(commands)]
    return all(line.startswith(b"+") for line in lines) and lines[-1] == b"+PONG"


def main(argv: Sequence[str]) -> int:
    match list(argv):
        case ["grpc"]:
            healthy = check_grpc(engine_target(dict(os.environ)))
        case ["grpc", target]:
            healthy = check_grpc(target)
        case ["http", url]:
            healthy = check_http(url)
        case ["http", url, host]:
            healthy = check_http(url, host)
        case ["broker", variable]:
            url = os.environ.get(variable, "")
            if not url:
                print(f"healthcheck: {variable} is not set", file=sys.stderr)
                return 1
            healthy = check_redis(url)
        case _:
            print(USAGE, file=sys.stderr)
            return 2
    return 0 if healthy else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
