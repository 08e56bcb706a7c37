"""Applying a JSON Patch (RFC 6902) to an observation, leaving the old one untouched.

The runner may send a decision's observation as the change from this seat's previous
one (docs/bot-protocol.md, "Observation patches"). The result shares every unchanged
part with the previous document and copies only the containers on the patched paths,
so a bot that kept an earlier observation still holds it as it was.

Supported: `add`, `remove` and `replace` (all the runner sends), on object members and
array elements (`-` appends). Anything else is a `PatchError`.
"""

from __future__ import annotations

from typing import Any


class PatchError(ValueError):
    """The patch does not apply to the document."""


def _keys(path: str) -> list[str]:
    if path == "":
        return []
    if not path.startswith("/"):
        raise PatchError(f"JSON pointer {path!r} must start with '/'")
    keys = path[1:].split("/")
    if "~" in path:  # rare: the escapes of "/" and "~" in a member's name
        return [part.replace("~1", "/").replace("~0", "~") for part in keys]
    return keys


def _index(container: list[Any], key: str, *, insert: bool) -> int:
    if insert and key == "-":
        return len(container)
    if not key.isdigit() or (len(key) > 1 and key[0] == "0"):
        raise PatchError(f"{key!r} is not an array index")
    index = int(key)
    if index > len(container) or (index == len(container) and not insert):
        raise PatchError(f"array index {index} is out of range")
    return index


def apply_patch(document: Any, ops: Any) -> Any:
    """A new document: `document` with `ops` applied (`document` itself is not changed)."""
    if not isinstance(ops, list):
        raise PatchError("a patch is a list of operations")
    root: Any = _copy(document)
    # The containers this patch copied (by id; each is held by the new document, so no
    # id is reused meanwhile): changed in place, where the old document's are copied.
    copied = {id(root)}
    for op in ops:
        if not isinstance(op, dict) or not isinstance(op.get("path"), str):
            raise PatchError(f"malformed operation {op!r:.80}")
        kind, keys = op.get("op"), _keys(op["path"])
        if kind not in ("add", "remove", "replace"):
            raise PatchError(f"unsupported operation {kind!r}")
        if kind != "remove" and "value" not in op:
            raise PatchError(f"{kind} at {op['path']!r} has no value")
        if not keys:
            if kind == "remove":
                raise PatchError("cannot remove the whole document")
            root = op["value"]
            copied = {id(root)}
            continue
        parent = root
        for key in keys[:-1]:
            parent = _child(parent, key, copied)
        _apply(parent, kind, keys[-1], op.get("value"))
    return root


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return dict(value)
    if isinstance(value, list):
        return list(value)
    return value


def _child(parent: Any, key: str, copied: set[int]) -> Any:
    """The container at `key`, copied first unless this patch already made it."""
    slot: Any
    if isinstance(parent, dict):
        child = parent.get(key, _MISSING)  # one look-up, not `in` and then `[]`
        if child is _MISSING:
            raise PatchError(f"no member {key!r}")
        slot = key
    elif isinstance(parent, list):
        slot = _index(parent, key, insert=False)
        child = parent[slot]
    else:
        raise PatchError(f"cannot descend into a {type(parent).__name__} at {key!r}")
    if id(child) in copied or not isinstance(child, dict | list):
        return child
    child = _copy(child)
    parent[slot] = child
    copied.add(id(child))
    return child


_MISSING = object()


def _apply(parent: Any, kind: str, key: str, value: Any) -> None:
    if isinstance(parent, dict):
        if kind != "add" and key not in parent:
            raise PatchError(f"no member {key!r} to {kind}")
        if kind == "remove":
            del parent[key]
        else:
            parent[key] = value
    elif isinstance(parent, list):
        index = _index(parent, key, insert=kind == "add")
        if kind == "add":
            parent.insert(index, value)
        elif kind == "remove":
            del parent[index]
        else:
            parent[index] = value
    else:
        raise PatchError(f"cannot {kind} {key!r} in a {type(parent).__name__}")
