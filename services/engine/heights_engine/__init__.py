"""Rolling Heights game-engine service: the rules core served over gRPC.

`heights engine serve` (or `python -m heights_engine`) runs it; the contract is
protos/rollingheights/engine/v1/ and docs/engine-service.md describes the service.
"""

from heights_engine.settings import Settings, SettingsError, load_settings

__all__ = ["Settings", "SettingsError", "load_settings", "main"]


def main() -> int:
    """Serve with the settings from the environment until SIGTERM."""
    import asyncio

    from heights_engine.server import configure_logging, serve

    settings = load_settings()
    configure_logging(settings.log_level)
    asyncio.run(serve(settings))
    return 0
