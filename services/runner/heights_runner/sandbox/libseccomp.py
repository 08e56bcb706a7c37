"""A typed ctypes binding of the few libseccomp calls the sandbox's filter needs.

libseccomp (Debian's `libseccomp2`) keeps the syscall tables of every architecture and
writes the architecture checks a filter needs; this module only calls it. Its own Python
bindings are built against the C headers (Debian's python3-seccomp serves only Debian's
interpreter) and `pyseccomp`, a ctypes binding on PyPI, has not been released since
2021 and ships no type information, so the handful of prototypes below are kept here.
"""

from __future__ import annotations

import ctypes
import functools
import os
from dataclasses import dataclass
from enum import IntEnum
from types import TracebackType

SONAME = "libseccomp.so.2"
# 2.5.0 is the first release whose tables know clone3 and io_uring.
MIN_VERSION = (2, 5, 0)

# <seccomp.h> actions
ACT_ALLOW = 0x7FFF0000
ACT_KILL_PROCESS = 0x80000000


def act_errno(code: int) -> int:
    """SCMP_ACT_ERRNO: the call fails with `code` and does nothing."""
    return 0x00050000 | (code & 0xFFFF)


class Attr(IntEnum):
    """enum scmp_filter_attr (the ones used here)."""

    ACT_DEFAULT = 1
    ACT_BADARCH = 2


class Op(IntEnum):
    """enum scmp_compare."""

    NE = 1
    EQ = 4
    MASKED_EQ = 7


@dataclass(frozen=True, slots=True)
class ArgCmp:
    """One argument test of a rule: `args[arg] <op> value` (MASKED_EQ: `& mask == value`)."""

    arg: int
    op: Op
    value: int
    mask: int = 0


class _ScmpArgCmp(ctypes.Structure):
    _fields_ = [
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    ]


class _ScmpVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint), ("minor", ctypes.c_uint), ("micro", ctypes.c_uint)]


class LibseccompError(OSError):
    """libseccomp is missing or too old, or refused a call (the message says which)."""


@functools.cache
def _lib() -> ctypes.CDLL:
    try:
        lib = ctypes.CDLL(SONAME)
    except OSError as exc:
        raise LibseccompError(f"{SONAME} not found (apt-get install libseccomp2): {exc}") from exc
    lib.seccomp_version.restype = ctypes.POINTER(_ScmpVersion)
    lib.seccomp_version.argtypes = []
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_release.restype = None
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    lib.seccomp_attr_set.restype = ctypes.c_int
    lib.seccomp_attr_set.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32]
    lib.seccomp_syscall_resolve_name.restype = ctypes.c_int
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    # The array form: ctypes cannot pass structs through seccomp_rule_add's varargs.
    lib.seccomp_rule_add_array.restype = ctypes.c_int
    lib.seccomp_rule_add_array.argtypes = [
        ctypes.c_void_p,
        ctypes.c_uint32,
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.POINTER(_ScmpArgCmp),
    ]
    lib.seccomp_export_bpf.restype = ctypes.c_int
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    return lib


def version() -> tuple[int, int, int]:
    """The loaded libseccomp's version; LibseccompError if it is missing."""
    found = _lib().seccomp_version().contents
    return (found.major, found.minor, found.micro)


def check_usable() -> str:
    """A line naming the libseccomp in use; LibseccompError if missing or older than 2.5."""
    found = version()
    text = ".".join(map(str, found))
    if found < MIN_VERSION:
        wanted = ".".join(map(str, MIN_VERSION))
        raise LibseccompError(f"libseccomp {text} is too old: {wanted} or later is needed")
    return f"libseccomp {text}"


def syscall_number(name: str) -> int:
    """The native architecture's number for `name`, from libseccomp's tables."""
    number: int = _lib().seccomp_syscall_resolve_name(name.encode())
    if number == -1:  # __NR_SCMP_ERROR
        found = ".".join(map(str, version()))
        raise LibseccompError(f"libseccomp {found} does not know the syscall {name}")
    return number


def _check(rc: int, what: str) -> None:
    if rc < 0:
        raise LibseccompError(-rc, f"libseccomp {what}: {os.strerror(-rc)}")


class Filter:
    """A libseccomp filter context for the native architecture; use it in a `with`."""

    def __init__(self, default_action: int) -> None:
        self._lib = _lib()
        ctx = self._lib.seccomp_init(default_action)
        if not ctx:
            raise LibseccompError(f"seccomp_init({default_action:#x}) failed")
        self._ctx: int | None = ctx

    def _handle(self) -> int:
        if self._ctx is None:
            raise LibseccompError("filter used after release")
        return self._ctx

    def set_attr(self, attr: Attr, value: int) -> None:
        _check(self._lib.seccomp_attr_set(self._handle(), attr, value), f"attr {attr.name}")

    def add_rule(self, action: int, syscall: str, *args: ArgCmp) -> None:
        """`action` for `syscall` (when every one of `args` holds); unknown names raise."""
        number = syscall_number(syscall)
        handle = self._handle()
        array = (_ScmpArgCmp * max(1, len(args)))()
        for slot, cmp in zip(array, args, strict=False):
            slot.arg, slot.op = cmp.arg, cmp.op
            # SCMP_CMP_MASKED_EQ compares `arg & datum_a` with datum_b.
            masked = cmp.op == Op.MASKED_EQ
            slot.datum_a, slot.datum_b = (cmp.mask, cmp.value) if masked else (cmp.value, 0)
        rc = self._lib.seccomp_rule_add_array(handle, action, number, len(args), array)
        _check(rc, f"rule for {syscall}")

    def export_bpf(self, fd: int) -> None:
        """Write the filter as a classic-BPF program (`struct sock_filter`s) to `fd`."""
        _check(self._lib.seccomp_export_bpf(self._handle(), fd), "export_bpf")

    def release(self) -> None:
        if self._ctx is not None:
            self._lib.seccomp_release(self._ctx)
            self._ctx = None

    def __enter__(self) -> Filter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()
