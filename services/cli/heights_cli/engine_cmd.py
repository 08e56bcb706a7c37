"""`heights engine serve`: run the game-engine gRPC service.

Configuration comes from the `HEIGHTS_ENGINE_*` environment variables (see
.env.example); `--address` and `--redis-url` override the two most often changed.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from typing import Any


def register(commands: Any) -> None:
    p: argparse.ArgumentParser = commands.add_parser(
        "engine", help="the game-engine gRPC service (heights engine serve)"
    )
    sub = p.add_subparsers(dest="engine_command", required=True, metavar="SUBCOMMAND")
    serve = sub.add_parser("serve", help="serve EngineService until SIGTERM")
    serve.add_argument("--address", help="host:port to listen on (HEIGHTS_ENGINE_ADDRESS)")
    serve.add_argument(
        "--redis-url", help="Redis URL of the shared game store (HEIGHTS_ENGINE_REDIS_URL)"
    )
    serve.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import asyncio

    from heights_engine import SettingsError, load_settings
    from heights_engine.server import configure_logging, serve

    try:
        settings = load_settings()
        overrides = {"address": args.address, "redis_url": args.redis_url}
        settings = dataclasses.replace(
            settings, **{k: v for k, v in overrides.items() if v is not None}
        )
        configure_logging(settings.log_level)
        asyncio.run(serve(settings))
    except SettingsError as err:  # also what stops the start: Redis away, port taken
        print(f"heights engine serve: {err}", file=sys.stderr)
        return 2
    return 0
