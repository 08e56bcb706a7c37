"""`heights platform migrate|serve|worker|beat|manage`: the Django platform's processes.

Settings come from the environment (HEIGHTS_PLATFORM_*, DATABASE_URL; see .env.example):
SQLite under var/ and the embedded file broker when nothing is configured.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any


def register(commands: Any) -> None:
    p: argparse.ArgumentParser = commands.add_parser(
        "platform", help="the REST platform (migrate, serve, worker, beat, manage)"
    )
    sub = p.add_subparsers(dest="platform_command", required=True, metavar="SUBCOMMAND")
    sub.add_parser("migrate", help="create or update the database schema").set_defaults(
        run=run_migrate
    )
    serve = sub.add_parser("serve", help="serve the API with gunicorn")
    serve.add_argument("--bind", default="127.0.0.1:8000")
    serve.add_argument("--workers", type=int, default=2)
    serve.set_defaults(run=run_serve)
    worker = sub.add_parser("worker", help="a Celery worker for results and platform tasks")
    worker.add_argument("--beat", action="store_true", help="also run the periodic scheduler")
    worker.add_argument("--concurrency", type=int, default=1)
    worker.set_defaults(run=run_worker)
    sub.add_parser("beat", help="the periodic scheduler (ladder matchmaking)").set_defaults(
        run=run_beat
    )
    manage = sub.add_parser("manage", help="a Django management command")
    manage.add_argument("args", nargs=argparse.REMAINDER)
    manage.set_defaults(run=run_manage)


def _django() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "heights_platform.settings")
    import django

    django.setup()


def run_migrate(args: argparse.Namespace) -> int:
    _django()
    from django.conf import settings
    from django.core.management import call_command

    engine = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
    if engine == "sqlite3":
        os.makedirs(os.path.dirname(settings.DATABASES["default"]["NAME"]), exist_ok=True)
        print(
            "platform: SQLite database (embedded; set DATABASE_URL for PostgreSQL)", file=sys.stderr
        )
    call_command("migrate", interactive=False, verbosity=1)
    return 0


def run_serve(args: argparse.Namespace) -> int:
    argv = [
        "gunicorn",
        "heights_platform.wsgi:application",
        "--bind",
        args.bind,
        "--workers",
        str(args.workers),
        "--access-logfile",
        "-",
    ]
    os.execvp(sys.executable, [sys.executable, "-m", *argv])


def _celery_app() -> Any:
    _django()
    from heights_platform.celery_app import app

    return app


def run_worker(args: argparse.Namespace) -> int:
    from heights_runner.contract import QUEUE_RESULTS

    app = _celery_app()
    argv = ["worker", "-Q", f"{QUEUE_RESULTS},platform", "-c", str(args.concurrency)]
    argv += ["-n", "platform-%i@%h", "--loglevel", "INFO", "--without-gossip", "--without-mingle"]
    if args.beat:
        argv += ["--beat", "--schedule", os.path.join(_var_dir(), "celerybeat-schedule")]
    app.worker_main(argv)
    return 0


def run_beat(args: argparse.Namespace) -> int:
    app = _celery_app()
    app.start(
        [
            "beat",
            "--loglevel",
            "INFO",
            "--schedule",
            os.path.join(_var_dir(), "celerybeat-schedule"),
        ]
    )
    return 0


def run_manage(args: argparse.Namespace) -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "heights_platform.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(["heights platform manage", *args.args])
    return 0


def _var_dir() -> str:
    path = os.environ.get("HEIGHTS_VAR_DIR", os.path.join(os.getcwd(), "var"))
    os.makedirs(path, exist_ok=True)
    return path
