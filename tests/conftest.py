"""Settings for every test process, made before any test module imports grpc."""

import os

# Tests start bots from processes with busy gRPC channels, as runner workers do: gRPC's
# fork handlers must be off there too (why: services/runner/heights_runner/__init__.py).
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "0")
