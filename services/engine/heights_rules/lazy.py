"""Names a package hands on from modules it imports on their first use (PEP 562).

A sandboxed bot imports the rules core and the built-in bots' package at every start,
four a match, and uses little of either: what it never touches (replays, with gzip and
zlib; the bots it does not play) is not imported. One way of doing that for both
packages, so that both find, refuse and keep a name alike.
"""

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, modules: Mapping[str, str]) -> Callable[[str], Any]:
    """A module `__getattr__` for `package`: a name of `modules` (name -> its module) is
    imported from its module when first asked for, and kept on the package, so that
    later look-ups find it as any other attribute; any other name is an AttributeError."""

    def get(name: str) -> Any:
        module = modules.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    return get
