"""`Record`: immutable named fields, for the catalogue's types, at a fraction of the cost
of defining a dataclass.

A frozen dataclass writes and compiles its `__init__`, `__eq__`, `__hash__`, `__repr__`,
`__setattr__` and `__delattr__` from source when its class statement runs: ~5 million
instructions a class (callgrind, Python 3.11). The catalogue's seven as records cut a
greedy bot's start to `ready` from 265.7 M to 242.8 M instructions, four bots a match
(docs/runner.md, "A built-in bot's start-up"). A `Record` subclass gets the same
behaviour from the generic methods below:
its fields are its annotations, in order, kept in `__slots__`; it is built positionally
or by keyword, all fields required; equal to a record of the same class with equal
fields, hashed as the tuple of its fields (as a frozen dataclass is, so set and dict
orders stay as they were), printed as `Name(field=value, ...)`, and read-only. Type
checkers see the constructor through `dataclass_transform`.
"""

from __future__ import annotations

from typing import Any, dataclass_transform


class _RecordMeta(type):
    def __new__(
        mcs, name: str, bases: tuple[type, ...], namespace: dict[str, Any], **kwargs: Any
    ) -> _RecordMeta:
        if "__slots__" not in namespace:
            fields = tuple(namespace.get("__annotations__", {}))
            namespace["__slots__"] = fields
            namespace["__match_args__"] = fields
        return super().__new__(mcs, name, bases, namespace, **kwargs)


@dataclass_transform(eq_default=True, frozen_default=True)
class Record(metaclass=_RecordMeta):
    """Subclass with annotated fields and no defaults; see the module's docstring."""

    __slots__: tuple[str, ...] = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        names = self.__slots__
        if not kwargs and len(args) == len(names):
            for name, value in zip(names, args, strict=True):
                object.__setattr__(self, name, value)
            return
        if len(args) > len(names):
            raise TypeError(f"{type(self).__name__}() takes {len(names)} fields, got {len(args)}")
        values = dict(zip(names, args, strict=False))
        for name, value in kwargs.items():
            if name not in names or name in values:
                raise TypeError(f"{type(self).__name__}() got an unexpected or repeated {name!r}")
            values[name] = value
        missing = [name for name in names if name not in values]
        if missing:
            raise TypeError(f"{type(self).__name__}() missing {', '.join(missing)}")
        for name in names:
            object.__setattr__(self, name, values[name])

    def _fields(self) -> tuple[Any, ...]:
        return tuple([getattr(self, name) for name in self.__slots__])

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Record)
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        pairs = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__qualname__}({pairs})"

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"cannot assign to field {name!r} of a {type(self).__name__}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r} of a {type(self).__name__}")

    def __reduce__(self) -> tuple[type[Record], tuple[Any, ...]]:
        # copy, deepcopy and pickle rebuild a record through its constructor (the default
        # would set its slots one by one, which a read-only record refuses).
        return type(self), self._fields()
