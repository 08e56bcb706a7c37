"""The embedded file broker: messages appear whole, in order, and go through Celery."""

from __future__ import annotations

import os
import shutil
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from kombu import Connection, Exchange, Queue
from kombu.exceptions import OperationalError

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


# The runner's task_publish_retry_policy (celery_app.py), with fewer retries where the
# outage is meant to outlast them.
RETRY_POLICY = {"max_retries": 60, "interval_start": 0.0, "interval_step": 0.5, "interval_max": 2.0}


def _block(folder: Path) -> Path:
    """A file where the staging folder should be: no message can be written (OSError)."""
    staging = folder / "queue.staging"
    if staging.is_dir():
        shutil.rmtree(staging)
    staging.write_text("")
    return staging


def _publish(conn: Connection, policy: dict[str, float]) -> None:
    queue = Queue("results", Exchange("results"), "results")
    conn.Producer().publish(
        {"result": 1},
        exchange=queue.exchange,
        routing_key="results",
        declare=[queue],
        retry=True,
        retry_policy=policy,
    )


def test_a_failed_write_is_retried_until_the_folder_takes_it(tmp_path: Path) -> None:
    staging = _block(tmp_path)
    failures: list[BaseException] = []
    with _connection(tmp_path) as sender:
        publishing = threading.Thread(
            target=lambda: _catching(failures, lambda: _publish(sender, RETRY_POLICY))
        )
        publishing.start()
        time.sleep(1.5)  # the outage lasts a moment (without retries, the send failed at once)
        assert publishing.is_alive(), failures  # still retrying, not given up
        assert list((tmp_path / "queue").glob("*.msg")) == []
        staging.unlink()  # the disk is back
        publishing.join()
    assert failures == []
    with _connection(tmp_path) as receiver:
        queue = receiver.SimpleQueue("results")
        message = queue.get(timeout=1)
        assert message.payload == {"result": 1}
        message.ack()
        queue.close()
    assert [p.name for p in (tmp_path / "queue").iterdir() if p.name.startswith(".probe")] == []


def test_an_outage_past_the_retries_raises_the_brokers_error_and_writes_nothing(
    tmp_path: Path,
) -> None:
    _block(tmp_path)
    with _connection(tmp_path) as sender, pytest.raises(OperationalError) as raised:
        _publish(sender, {**RETRY_POLICY, "max_retries": 2})
    assert str(raised.value).startswith("file broker: cannot write ")
    assert "queue.staging" in str(raised.value)
    assert list((tmp_path / "queue").iterdir()) == []


def _catching(failures: list[BaseException], run: Callable[[], None]) -> None:
    try:
        run()
    except BaseException as exc:  # the test's thread: handed to the test to show
        failures.append(exc)
