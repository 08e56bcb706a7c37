"""`heights runner worker|probe`: a Celery worker that plays matches, and the sandbox check."""

from __future__ import annotations

import argparse
import socket
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from heights_runner.settings import RunnerSettings


def register(commands: Any) -> None:
    p: argparse.ArgumentParser = commands.add_parser(
        "runner", help="the match runner (heights runner worker)"
    )
    sub = p.add_subparsers(dest="runner_command", required=True, metavar="SUBCOMMAND")
    worker = sub.add_parser("worker", help="a Celery worker for the matches and short queues")
    worker.add_argument("--concurrency", type=int, default=None, help="HEIGHTS_RUNNER_CONCURRENCY")
    worker.add_argument("--loglevel", default="INFO")
    worker.set_defaults(run=run_worker)
    probe = sub.add_parser("probe", help="print what isolation this machine allows")
    probe.set_defaults(run=run_probe)


def run_probe(args: argparse.Namespace) -> int:
    from heights_runner import sandbox
    from heights_runner.runtimes import RUNTIMES
    from heights_runner.sandbox.toolchains import describe

    caps = sandbox.probe()
    for line in caps.describe():
        print(line)
    print("bot runtimes:")
    for line in describe(RUNTIMES):
        print(f"  {line}")
    return 0 if caps.contains_untrusted else 1


def run_worker(args: argparse.Namespace) -> int:
    from heights_runner.settings import RunnerSettings

    settings = RunnerSettings.from_env()
    if not settings.metrics_port:
        return _run_worker(args, settings)
    # Before anything imports prometheus_client (heights_runner.metrics says why).
    from heights_runner.metrics_files import prepare_multiprocess_dir, remove_multiprocess_dir

    folder = prepare_multiprocess_dir(settings.cache_dir / "metrics")
    try:
        return _run_worker(args, settings)
    finally:
        remove_multiprocess_dir(folder)


def _run_worker(args: argparse.Namespace, settings: RunnerSettings) -> int:
    from heights_runner import broker, sandbox
    from heights_runner.celery_app import app
    from heights_runner.contract import QUEUE_MATCHES, QUEUE_SHORT

    caps = sandbox.probe()
    print(f"runner: broker {broker.describe(settings.broker_url)}", file=sys.stderr)
    engine = settings.engine_address or "in-process engine (embedded; no engine service set)"
    print(f"runner: engine {engine}", file=sys.stderr)
    for line in caps.describe():
        print(f"runner: sandbox: {line}", file=sys.stderr)
    from heights_runner.runtimes import RUNTIMES
    from heights_runner.sandbox.toolchains import describe

    for line in describe(RUNTIMES):
        print(f"runner: bot runtime {line}", file=sys.stderr)
    if not caps.contains_untrusted and not settings.allow_unsandboxed:
        print("runner: untrusted bots will be refused (no bubblewrap or seccomp)", file=sys.stderr)
    if settings.metrics_port:
        from heights_runner.metrics import serve

        serve(settings.metrics_port)
    concurrency = args.concurrency or settings.concurrency
    app.worker_main(
        [
            "worker",
            "-Q",
            f"{QUEUE_MATCHES},{QUEUE_SHORT}",
            "-c",
            str(concurrency),
            "-P",
            settings.pool,
            "-n",
            f"runner-{socket.gethostname()}-%i@%h",
            "--loglevel",
            args.loglevel,
            "--without-gossip",
            "--without-mingle",
        ]
    )  # runs until the worker stops, then exits the process
