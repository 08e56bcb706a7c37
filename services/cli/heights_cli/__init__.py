"""The `heights` command-line interface."""

import os

# Before anything imports grpc: why, in heights_runner/__init__.py.
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "0")
