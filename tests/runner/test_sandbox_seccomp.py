"""The seccomp filter as libseccomp builds it (the bots that meet it: test_sandbox_hostile)."""

from __future__ import annotations

import errno
import struct
from collections.abc import Iterator

import pytest

from heights_runner.sandbox import libseccomp, seccomp

_RET = 0x06
_JEQ_K = 0x15


@pytest.fixture
def fresh_build() -> Iterator[None]:
    """Nothing cached before or after: the test builds (or fails to build) for itself."""
    libseccomp._lib.cache_clear()
    seccomp.filter_bytes.cache_clear()
    yield
    libseccomp._lib.cache_clear()
    seccomp.filter_bytes.cache_clear()


def _instructions(program: bytes) -> list[tuple[int, int, int, int]]:
    return [struct.unpack_from("=HBBI", program, at) for at in range(0, len(program), 8)]


def test_program_checks_the_architecture_then_names_every_denied_call() -> None:
    program = seccomp.filter_bytes()
    assert len(program) % 8 == 0
    insns = _instructions(program)
    assert 10 < len(insns) < 4096  # the kernel's BPF_MAXINSNS
    # First the architecture (seccomp_data.arch at offset 4), last the bad-arch action.
    assert insns[0] == (0x20, 0, 0, 4)
    assert insns[-1] == (_RET, 0, 0, libseccomp.ACT_KILL_PROCESS)
    compared = {k for code, _, _, k in insns if code == _JEQ_K}
    for name in (*seccomp.DENIED_SYSCALLS, "socket", "socketpair", "clone", "clone3"):
        assert libseccomp.syscall_number(name) in compared, name
    returns = {k for code, _, _, k in insns if code == _RET}
    assert libseccomp.act_errno(errno.EPERM) in returns
    assert libseccomp.act_errno(errno.ENOSYS) in returns


def test_program_is_the_same_every_time(fresh_build: None) -> None:
    first = seccomp.filter_bytes()
    seccomp.filter_bytes.cache_clear()
    assert seccomp.filter_bytes() == first


def test_an_unknown_syscall_name_is_refused_by_name() -> None:
    unknown = pytest.raises(libseccomp.LibseccompError, match="does not know the syscall fly")
    with libseccomp.Filter(libseccomp.ACT_ALLOW) as flt, unknown:
        flt.add_rule(libseccomp.act_errno(errno.EPERM), "fly")


def test_a_missing_libseccomp_is_reported_not_raised(
    fresh_build: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(libseccomp, "SONAME", "libseccomp-missing.so.9")
    usable, line = seccomp.availability()
    assert not usable
    assert line.startswith("seccomp: NOT used: libseccomp-missing.so.9 not found")
    assert "apt-get install libseccomp2" in line


def test_an_old_libseccomp_is_refused_with_the_version_needed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(libseccomp, "version", lambda: (2, 4, 4))
    usable, line = seccomp.availability()
    assert not usable
    assert line == "seccomp: NOT used: libseccomp 2.4.4 is too old: 2.5.0 or later is needed"


def test_the_filter_used_after_release_says_so() -> None:
    flt = libseccomp.Filter(libseccomp.ACT_ALLOW)
    flt.release()
    flt.release()  # idempotent
    with pytest.raises(libseccomp.LibseccompError, match="after release"):
        flt.add_rule(libseccomp.act_errno(errno.EPERM), "ptrace")
