"""gRPC core under grpcio's public API: its Cython layer, `grpc._cython.cygrpc`.

The engine's ApplyActions stream (stream_exchange.py, on grpc.aio) and the runner's
client of it (heights_runner/caller_stream.py, on grpc's sync API) both drive it, to
send a message and receive the next one in one batch of gRPC core. It is not grpcio's
API: another grpcio may lack it or give its operations other arguments, so each user
checks once what it needs (`builds_messages`, then its own) and keeps grpc's public API
where that fails: slower, never wrong.
"""

import importlib
from typing import Any

NO_FLAGS = 0  # an operation's flags: none

cygrpc: Any  # no type stubs; None in a grpcio without this layer
try:
    cygrpc = importlib.import_module("grpc._cython.cygrpc")
except ImportError:  # pragma: no cover (the locked grpcio has it)
    cygrpc = None


def builds_messages(core: Any) -> bool:
    """Whether `core` (this layer as its user sees it; None: absent) builds a message's
    send and receive with the arguments both users give them, and a receive reads as
    they read it: built, never sent."""
    if core is None:
        return False
    try:
        core.SendMessageOperation(b"", NO_FLAGS)
        core.ReceiveMessageOperation(NO_FLAGS).message()
    except (AttributeError, TypeError):
        return False
    return True
