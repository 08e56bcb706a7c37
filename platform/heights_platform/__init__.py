"""The platform: accounts, bots, ladders, matches, tournaments and replays over a REST API.

Business logic lives in each app's `services.py` (writes) and `selectors.py` (reads);
`apis.py` modules are thin. The runner is reached only through Celery task names
(heights_runner.contract), never imported for its internals.
"""
