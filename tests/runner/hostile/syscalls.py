"""Tries every call the seccomp filter refuses (x86_64 numbers); prints {call: outcome}.

The arguments are harmless and chosen, where the kernel allows, so that without the
filter the call fails some other way (EINVAL, EBADF, ENOENT ...) or succeeds harmlessly:
the test can then tell the filter's EPERM from the kernel's own refusal.
"""

import ctypes
import errno
import json
from collections.abc import Callable

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
CLONE_THREAD = 0x00010000  # without CLONE_SIGHAND: EINVAL, so no child is ever made
CLONE_SETTLS = 0x00080000  # not an unshare flag: EINVAL
NS_FLAGS = {
    "NEWTIME": 0x80,
    "NEWNS": 0x20000,
    "NEWCGROUP": 0x2000000,
    "NEWUTS": 0x4000000,
    "NEWIPC": 0x8000000,
    "NEWUSER": 0x10000000,
    "NEWPID": 0x20000000,
    "NEWNET": 0x40000000,
}
MISSING = b"/nonexistent-heights"


def sys(number: int, *args: object) -> Callable[[], int]:
    return lambda: int(libc.syscall(number, *args))


calls: dict[str, Callable[[], int]] = {
    "socketpair(AF_INET)": sys(53, 2, 1, 0, None),
    "clone3": sys(435, None, 0),
    "unshare": sys(272, 0x10000000 | CLONE_SETTLS),
    "setns": sys(308, -1, 0),
    "mount": sys(165, None, MISSING, None, 0, None),
    "umount2": sys(166, b"/tmp", 0xFFFF),
    "pivot_root": sys(155, MISSING, MISSING),
    "chroot": sys(161, MISSING),
    "open_tree": sys(428, -1, b"", 0xFFFFFFFF),
    "move_mount": sys(429, -1, b"", -1, b"", 0xFFFFFFFF),
    "fsopen": sys(430, b"tmpfs", 0xFFFF),
    "fsconfig": sys(431, -1, 0xFFFF, None, None, 0),
    "fsmount": sys(432, -1, 0xFFFF, 0),
    "fspick": sys(433, -1, b"", 0xFFFF),
    "mount_setattr": sys(442, -1, b"", 0xFFFFFFFF, None, 0),
    "ptrace": sys(101, 16, 999_999, None, None),  # PTRACE_ATTACH to no such process
    "personality": sys(135, 0xFFFFFFFF),  # only asks
    "add_key": sys(248, None, None, None, 0, 0),
    "request_key": sys(249, None, None, None, 0),
    "keyctl": sys(250, 9999, 0, 0, 0, 0),
    "perf_event_open": sys(298, None, 0, -1, -1, 0),
    "bpf": sys(321, 9999, None, 0),
    "userfaultfd": sys(323, 0xFFFF),
    "io_uring_setup": sys(425, 0, None),
    "io_uring_enter": sys(426, -1, 0, 0, 0, None, 0),
    "io_uring_register": sys(427, -1, 0, None, 0),
}
for flag, value in NS_FLAGS.items():
    calls[f"clone(CLONE_{flag})"] = sys(56, value | CLONE_THREAD, 0, 0, 0, 0)
results: dict[str, str] = {}
for name, call in calls.items():
    ctypes.set_errno(0)
    rc = call()
    results[name] = "ok" if rc >= 0 else errno.errorcode.get(ctypes.get_errno(), "?")
print(json.dumps(results), flush=True)
