"""A classic-BPF seccomp filter, built here so no libseccomp is needed.

The filter is a deny list on top of the namespaces bubblewrap sets up: the calls it refuses
either reach the network (sockets other than AF_UNIX), inspect or escape the sandbox
(ptrace, namespaces, mounts) or widen the kernel's attack surface (bpf, io_uring,
userfaultfd, keyrings). Everything else is allowed so that an ordinary interpreter runs.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import struct
from dataclasses import dataclass

# <linux/filter.h> and <linux/seccomp.h>
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_JSET_K = 0x45
_RET_K = 0x06
_RET_ALLOW = 0x7FFF0000
_RET_KILL_PROCESS = 0x80000000
_RET_ERRNO = 0x00050000
_OFF_NR = 0
_OFF_ARCH = 4
_OFF_ARG0 = 16  # low 32 bits of args[0] on little-endian machines
_AF_UNIX = 1
_X32_BIT = 0x40000000
# Any namespace flag in clone(): a nested user namespace would give the bot fresh capabilities.
_CLONE_NS_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000
_CLONE_NS_FLAGS |= 0x20000000 | 0x40000000 | 0x00000080


@dataclass(frozen=True, slots=True)
class _Arch:
    audit: int
    numbers: dict[str, int]
    x32: bool  # x86_64 also accepts x32 syscalls (high bit set): refuse them all


# Syscalls common to the "generic" table (same number on x86_64 and aarch64).
_NEW = {
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
    "open_tree": 428,
    "move_mount": 429,
    "fsopen": 430,
    "fsconfig": 431,
    "fsmount": 432,
    "fspick": 433,
    "clone3": 435,
}
_ARCHES = {
    "x86_64": _Arch(
        0xC000003E,
        {
            "socket": 41,
            "socketpair": 53,
            "clone": 56,
            "ptrace": 101,
            "personality": 135,
            "pivot_root": 155,
            "chroot": 161,
            "mount": 165,
            "umount2": 166,
            "add_key": 248,
            "request_key": 249,
            "keyctl": 250,
            "unshare": 272,
            "perf_event_open": 298,
            "setns": 308,
            "bpf": 321,
            "userfaultfd": 323,
            **_NEW,
        },
        x32=True,
    ),
    "aarch64": _Arch(
        0xC00000B7,
        {
            "socket": 198,
            "socketpair": 199,
            "clone": 220,
            "ptrace": 117,
            "personality": 92,
            "pivot_root": 41,
            "chroot": 51,
            "mount": 40,
            "umount2": 39,
            "add_key": 217,
            "request_key": 218,
            "keyctl": 219,
            "unshare": 97,
            "perf_event_open": 241,
            "setns": 268,
            "bpf": 280,
            "userfaultfd": 282,
            **_NEW,
        },
        x32=False,
    ),
}
_ARCHES["arm64"] = _ARCHES["aarch64"]

DENIED_SYSCALLS = tuple(
    name for name in _ARCHES["x86_64"].numbers if name not in {"socket", "socketpair", "clone"}
)


def supported() -> bool:
    return platform.machine() in _ARCHES


def _insn(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def _ret(value: int) -> bytes:
    return _insn(_RET_K, 0, 0, value)


def filter_bytes() -> bytes:
    """The BPF program for this machine; ValueError on an architecture we have no table for."""
    arch = _ARCHES.get(platform.machine())
    if arch is None:
        raise ValueError(f"no seccomp table for {platform.machine()}")
    eperm = _RET_ERRNO | errno.EPERM
    nums = arch.numbers
    prog = [
        _insn(_LD_W_ABS, 0, 0, _OFF_ARCH),
        # A foreign ABI (i386 via int 0x80) would bypass the table: kill instead.
        _insn(_JEQ_K, 1, 0, arch.audit),
        _ret(_RET_KILL_PROCESS),
        _insn(_LD_W_ABS, 0, 0, _OFF_NR),
    ]
    if arch.x32:
        prog += [_insn(_JGE_K, 0, 1, _X32_BIT), _ret(eperm)]
    for name in ("socket", "socketpair"):
        # Only local sockets: AF_INET, AF_INET6, AF_NETLINK, AF_PACKET … fail with EPERM.
        prog += [
            _insn(_JEQ_K, 0, 4, nums[name]),
            _insn(_LD_W_ABS, 0, 0, _OFF_ARG0),
            _insn(_JEQ_K, 0, 1, _AF_UNIX),
            _ret(_RET_ALLOW),
            _ret(eperm),
        ]
    prog += [
        _insn(_JEQ_K, 0, 4, nums["clone"]),
        _insn(_LD_W_ABS, 0, 0, _OFF_ARG0),
        _insn(_JSET_K, 0, 1, _CLONE_NS_FLAGS),
        _ret(eperm),
        _ret(_RET_ALLOW),
        # clone3 passes its flags in memory a filter cannot read; ENOSYS makes libc use clone.
        _insn(_JEQ_K, 0, 1, nums["clone3"]),
        _ret(_RET_ERRNO | errno.ENOSYS),
    ]
    for name in DENIED_SYSCALLS:
        if name != "clone3":
            prog += [_insn(_JEQ_K, 0, 1, nums[name]), _ret(eperm)]
    prog.append(_ret(_RET_ALLOW))
    return b"".join(prog)


def filter_fd() -> int:
    """A memfd holding the program, positioned at 0, for `bwrap --seccomp FD`."""
    fd = os.memfd_create("heights-seccomp", 0)  # not CLOEXEC: bwrap inherits it
    os.write(fd, filter_bytes())
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]


class Installer:
    """Installs the filter on the calling process; prepared before fork, run in preexec_fn.

    Used only where bubblewrap is missing (trusted bots); everything is allocated up front
    because the child between fork and exec should do as little as possible.
    """

    _PR_SET_NO_NEW_PRIVS = 38
    _PR_SET_SECCOMP = 22
    _SECCOMP_MODE_FILTER = 2

    def __init__(self) -> None:
        self._program = filter_bytes()
        self._fprog = _SockFprog(len(self._program) // 8, self._program)
        self._prctl = ctypes.CDLL(None, use_errno=True).prctl

    def install(self) -> None:
        if self._prctl(self._PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "PR_SET_NO_NEW_PRIVS failed")
        ref = ctypes.byref(self._fprog)
        if self._prctl(self._PR_SET_SECCOMP, self._SECCOMP_MODE_FILTER, ref, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "PR_SET_SECCOMP failed")
