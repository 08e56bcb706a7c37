"""The embedded file broker: messages appear whole, in order, and go through Celery."""

from __future__ import annotations

import os
from pathlib import Path

from kombu import Connection

from heights_runner.broker import celery_broker_settings


def _connection(folder: Path) -> Connection:
    settings = celery_broker_settings(f"file://{folder}")
    return Connection(
        settings["broker_url"],
        transport=settings["broker_transport"],
        transport_options=settings["broker_transport_options"],
    )


def test_messages_are_renamed_into_the_queue_folder_whole(tmp_path: Path) -> None:
    with _connection(tmp_path) as conn:
        queue = conn.SimpleQueue("matches")
        for i in range(5):
            queue.put({"n": i, "payload": "x" * 100_000})
        # Only complete messages are ever in the folder readers poll; nothing is left
        # half-written beside it.
        names = os.listdir(tmp_path / "queue")
        assert len([n for n in names if n.endswith(".matches.msg")]) == 5
        assert os.listdir(tmp_path / "queue.staging") == []
        got = [queue.get(timeout=1) for _ in range(5)]
        assert [m.payload["n"] for m in got] == [0, 1, 2, 3, 4]
        for message in got:
            message.ack()
        queue.close()
    assert not (Path.cwd() / "control").exists()  # kombu's default folder is not used


def test_redis_urls_pass_through_with_a_key_prefix() -> None:
    settings = celery_broker_settings("redis://127.0.0.1:6379/0", prefix="arena-a:")
    assert settings["broker_url"] == "redis://127.0.0.1:6379/0"
    assert settings["broker_transport_options"] == {"global_keyprefix": "arena-a:"}


def test_one_senders_messages_stay_in_order_within_a_clock_tick(tmp_path: Path) -> None:
    with _connection(tmp_path) as conn:
        queue = conn.SimpleQueue("matches")
        for i in range(200):  # many to a millisecond: the order must not rest on chance
            queue.put({"n": i})
        got = [queue.get(timeout=1) for _ in range(200)]
        assert [m.payload["n"] for m in got] == list(range(200))
        for message in got:
            message.ack()
        queue.close()


def test_a_second_broker_folder_in_one_process_receives_its_messages(tmp_path: Path) -> None:
    # kombu shares declared bindings across filesystem connections; a second folder was
    # taken as bound and its messages routed nowhere.
    for name in ("first", "second"):
        with _connection(tmp_path / name) as conn:
            queue = conn.SimpleQueue("matches")
            queue.put({"folder": name})
            message = queue.get(timeout=1)
            assert message.payload == {"folder": name}
            message.ack()
            queue.close()
