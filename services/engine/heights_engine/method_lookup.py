"""grpc.aio's per-call method look-up, without the reference cycle grpcio's leaves.

grpcio's `_find_method_handler` (Cython, grpc/_cython/_cygrpc/aio/server.pyx.pxi) runs
at the start of every call and defines a closure, `query_handlers`, that Cython keeps in
the coroutine's own scope object: the scope holds the closure and the closure holds the
scope. So every call, the empty health check as much as ApplyAction, leaves 5 objects
(the scope, the closure, the call's `_HandlerCallDetails`, its metadata tuple and item)
that only the cyclic collector frees (found with `gc.DEBUG_SAVEALL`). With the
interpreter's first threshold of 700, that ran generation 0 every ~140 calls, and each
collection walked the game states cloned since the last one: ~25 us of CPU a game call
at 1,000 calls/s (loadtests/README.md, "The look-up's reference cycle"), next to nothing
for a call that clones nothing.

`install` puts in its place the same look-up written without the closure: the resolver's
bound method is handed on instead, so nothing points back at the call and reference
counting frees it all when the call ends. It finds the same handler through the same
interceptors. grpcio's Cython calls the function through its module's globals, so the
replacement is picked up for every call after it. It depends on grpcio's private names
and how they are called; on a grpcio release other than the one it was written for, or
one that lacks a name, grpcio's own look-up stays, with a warning: slower under load,
never wrong.
"""

from __future__ import annotations

import importlib
import logging
from typing import Any

log = logging.getLogger("heights_engine")

_cygrpc: Any = importlib.import_module("grpc._cython.cygrpc")
# grpcio's own look-up, kept to put back (`restore`) and to tell whether ours is in.
_ORIGINAL: Any = getattr(_cygrpc, "_find_method_handler", None)
_NEEDED = ("_find_method_handler", "_HandlerCallDetails", "_run_interceptor", "_MethodResolver")


async def find_method_handler(
    method: str, metadata: tuple[Any, ...], method_resolver: Any, interceptors: tuple[Any, ...]
) -> Any:
    """The handler of `method`, through the interceptors: grpcio's, minus the closure."""
    details = _cygrpc._HandlerCallDetails(method, metadata)
    if interceptors:
        return await _cygrpc._run_interceptor(
            iter(interceptors), method_resolver.resolve_handler, details
        )
    return method_resolver.resolve_handler(details)


# The grpcio releases whose `_find_method_handler` this one was written from and tested
# against (the lock pins 1.85.1). Names alone do not say a private function is still
# called the same way: on any other release grpcio's own look-up stays.
WRITTEN_FOR = ("1.85.",)


def install() -> bool:
    """Use `find_method_handler` for every call from now on; whether it is in use."""
    version = str(getattr(importlib.import_module("grpc"), "__version__", "?"))
    missing = [name for name in _NEEDED if not hasattr(_cygrpc, name)]
    if not hasattr(getattr(_cygrpc, "_MethodResolver", None), "resolve_handler"):
        missing.append("_MethodResolver.resolve_handler")
    if not version.startswith(WRITTEN_FOR):
        missing.append(f"a look-up written for it (this one is for {', '.join(WRITTEN_FOR)}*)")
    if missing:
        log.warning(
            "grpcio %s lacks %s: its own method look-up stays (a reference cycle a call)",
            version,
            ", ".join(missing),
        )
        return False
    _cygrpc._find_method_handler = find_method_handler
    return True


def restore() -> None:
    """Put grpcio's own look-up back (for tests that compare the two)."""
    if _ORIGINAL is not None:
        _cygrpc._find_method_handler = _ORIGINAL


def installed() -> bool:
    return getattr(_cygrpc, "_find_method_handler", None) is find_method_handler
