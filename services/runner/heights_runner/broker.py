"""Broker settings shared by the runner and the platform, and the embedded file broker.

Production uses Redis. With nothing configured, messages go through a folder (kombu's
filesystem transport) so a newcomer needs no server. That transport writes a message in
place, so a reader polling the folder can pick up a half-written file; here each message
is written beside the folder and renamed into it, which is atomic on one file system.

A write that fails (a full disk, the folder gone or unusable) is the broker being away,
as a Redis that does not answer is: it raises the transport's connection error, so a
publish with a retry policy (the runner's `task_publish_retry_policy`) keeps trying, and
each retry first checks that the staging folder takes a write again.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
import uuid
from pathlib import Path
from typing import Any, ClassVar

from kombu.exceptions import ChannelError
from kombu.exceptions import ConnectionError as BrokerConnectionError
from kombu.transport import filesystem, virtual
from kombu.utils.json import dumps

FILE_SCHEME = "file://"


_last_stamp = 0
_stamp_lock = threading.Lock()


def _stamp() -> int:
    """Wall-clock nanoseconds, strictly increasing within this process.

    kombu reads the folder in name order, so a name that starts with this keeps one
    sender's messages first in, first out, even when two share a clock tick or the clock
    steps back (a millisecond stamp with a random tie-break once put 4 before 3).
    """
    global _last_stamp  # noqa: PLW0603 (one counter per process, by design)
    with _stamp_lock:
        _last_stamp = max(time.time_ns(), _last_stamp + 1)
        return _last_stamp


def _write_atomically(folder: Path, name: str, data: bytes) -> None:
    """`data` into `folder`/`name`, staged beside `folder`; BrokerConnectionError if not."""
    staging = folder.with_name(f"{folder.name}.staging")
    part = staging / name
    try:
        staging.mkdir(parents=True, exist_ok=True)
        part.write_bytes(data)
        os.replace(part, folder / name)
    except OSError as exc:
        with contextlib.suppress(OSError):
            part.unlink()
        raise BrokerConnectionError(f"file broker: cannot write {part}: {exc}") from exc


class AtomicFilesystemChannel(filesystem.Channel):
    # kombu's stubs give its two base classes incompatible `_put` signatures.
    def _put(self, queue: str, payload: Any, **kwargs: Any) -> None:  # type: ignore[override]
        name = f"{_stamp()}_{uuid.uuid4()}.{queue}.msg"  # 19 digits until 2286
        _write_atomically(Path(self.data_folder_out), name, dumps(payload).encode())


class AtomicFilesystemTransport(filesystem.Transport):
    Channel = AtomicFilesystemChannel
    # Declaring these (the errors kombu assumed recoverable without them) makes
    # `Connection.ensure` keep retrying after a reconnection instead of giving up on the
    # second failure; a publish retry policy then runs its course, as it does on Redis.
    recoverable_connection_errors = (BrokerConnectionError, ChannelError)
    recoverable_channel_errors = ()
    # kombu keeps one set of declared bindings for every filesystem connection in a
    # process, so a second broker folder was taken as bound already: its exchange file
    # was never written and what was sent to it was routed nowhere. One set per folder.
    _states: ClassVar[dict[str, virtual.BrokerState]] = {}

    def __init__(self, client: Any, **kwargs: Any) -> None:
        super().__init__(client, **kwargs)
        folder = os.path.abspath(client.transport_options.get("control_folder", "control"))
        self.state = self._states.setdefault(folder, virtual.BrokerState())
        self._out = client.transport_options.get("data_folder_out")

    def establish_connection(self) -> Any:
        """Connected only when a message can be written: kombu's retry policy waits
        between attempts to connect, so this is what spaces a publish's retries."""
        if self._out:
            name = f".probe-{uuid.uuid4()}"  # no reader takes it: not a `.msg`
            _write_atomically(Path(self._out), name, b"probe")
            with contextlib.suppress(OSError):
                (Path(self._out) / name).unlink()
        return super().establish_connection()


def default_broker_dir() -> Path:
    return Path(os.environ.get("HEIGHTS_VAR_DIR", Path.cwd() / "var")) / "broker"


def celery_broker_settings(url: str, prefix: str | None = None) -> dict[str, Any]:
    """Celery settings for a broker URL: redis://…, amqp://…, or file://DIR (or empty).

    `prefix` (default: HEIGHTS_BROKER_PREFIX) namespaces every Redis key, so several
    deployments (or test runs) can share one Redis; the platform and the runner must
    use the same one.
    """
    if prefix is None:
        prefix = os.environ.get("HEIGHTS_BROKER_PREFIX", "")
    if url.startswith(("redis://", "rediss://")):
        options = {"global_keyprefix": prefix} if prefix else {}
        return {"broker_url": url, "broker_transport_options": options}
    if url and not url.startswith(FILE_SCHEME):
        return {"broker_url": url}
    folder = Path(url[len(FILE_SCHEME) :]) if url else default_broker_dir()
    (folder / "queue").mkdir(parents=True, exist_ok=True)
    return {
        "broker_url": "filesystem://",
        "broker_transport": f"{__name__}:AtomicFilesystemTransport",
        "broker_transport_options": {
            "data_folder_in": str(folder / "queue"),
            "data_folder_out": str(folder / "queue"),
            # kombu's default is ./control: keep exchange bindings beside the queue.
            "control_folder": str(folder / "control"),
            "store_processed": False,
        },
    }


def describe(url: str) -> str:
    if url and not url.startswith(FILE_SCHEME):
        return url.rsplit("@", maxsplit=1)[-1]  # never log credentials
    return f"file broker in {url[len(FILE_SCHEME) :] if url else default_broker_dir()} (embedded)"
