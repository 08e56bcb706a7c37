"""The match runner: bots in sandboxes, matches played through the engine, Celery workers."""
