"""Observations sent as changes: a JSON Patch (RFC 6902) from a seat's previous view.

A seat's observation is ~13 KB of JSON, and between two of its decisions only a few
parts change (the decision, the legal actions, some scores, cubes and the rules
stack). Encoding, sending and decoding the whole document at every decision was most
of what a match cost outside the bots' own thinking, so a runner can ask for the
difference instead (docs/engine-service.md, "Observation patches").

The patch uses three operations only: `add` and `remove` of object members, and
`replace`. Arrays whose length changed are replaced whole; arrays of the same length
are compared element by element. Applying the patch to the base document gives a
document that encodes to exactly the same JSON as the new one; the tests check that
over whole games.
"""

from __future__ import annotations

from typing import Any

Patch = list[dict[str, Any]]


def make_patch(old: Any, new: Any) -> Patch:
    """The operations that turn `old` into `new` (both plain JSON data)."""
    ops: Patch = []
    _diff(old, new, "", ops)
    return ops


def _pointer(key: str) -> str:
    # RFC 6901: "~" and "/" in a member name are escaped as "~0" and "~1".
    return key.replace("~", "~0").replace("/", "~1") if "~" in key or "/" in key else key


def _same(a: Any, b: Any) -> bool:
    # `True == 1` and `1 == 1.0` in Python, not in JSON: equal values of different types
    # differ, at any depth (`[False] == [0]` too). Python's `==` rejects most differences
    # at C speed; only containers it calls equal are walked for their members' types.
    if a is b:
        return True
    if type(a) is not type(b) or a != b:
        return False
    return (type(a) is not list and type(a) is not dict) or _same_types(a, b)


def _same_types(a: Any, b: Any) -> bool:
    """Whether `a` and `b`, equal by `==`, also hold the same types at every position.

    Two views of a seat are mostly equal, so this walks most of the document. It is
    written for the compiled build: a leaf's type is checked in the loop, not by a call
    of its own, and the containers are typed so that mypyc indexes and iterates them
    directly instead of through Python's generic protocols (together about half of
    its instructions, a third of a patch's).
    """
    if type(a) is list:
        old: list[Any] = a
        new: list[Any] = b
        for index in range(len(old)):
            x = old[index]
            y = new[index]
            kind = type(x)
            if kind is not type(y) or ((kind is list or kind is dict) and not _same_types(x, y)):
                return False
    elif type(a) is dict:
        members: dict[Any, Any] = a
        others: dict[Any, Any] = b
        for key, x in members.items():
            y = others[key]
            kind = type(x)
            if kind is not type(y) or ((kind is list or kind is dict) and not _same_types(x, y)):
                return False
    return type(a) is type(b)


def _diff(old: Any, new: Any, path: str, ops: Patch) -> None:
    if type(old) is dict and type(new) is dict:
        before: dict[Any, Any] = old
        after: dict[Any, Any] = new
        for key, value in after.items():
            if key not in before:
                ops.append({"op": "add", "path": f"{path}/{_pointer(key)}", "value": value})
            else:
                was = before[key]
                if not _same(was, value):
                    _diff(was, value, f"{path}/{_pointer(key)}", ops)
        for key in before:
            if key not in after:
                ops.append({"op": "remove", "path": f"{path}/{_pointer(key)}"})
    elif type(old) is list and type(new) is list and len(old) == len(new):
        items: list[Any] = old
        others: list[Any] = new
        for index in range(len(items)):
            a = items[index]
            b = others[index]
            if not _same(a, b):
                _diff(a, b, f"{path}/{index}", ops)
    else:
        ops.append({"op": "replace", "path": path, "value": new})
