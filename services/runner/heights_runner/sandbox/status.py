"""bubblewrap's own account of a start: did it set the sandbox up and run the program?

`bwrap --json-status-fd FD` writes JSON documents, one a line, to FD. Its first,
`{"child-pid": N, ...}`, comes as soon as the sandbox's first process is cloned, before
any mount is made, so it proves nothing about set-up. The last, `{"exit-code": N}`, is
written when that process ends, and only if it had finished setting the sandbox up and
gone on to exec the program (bubblewrap's `report_child_exit_status`). A bwrap that
ended without writing it failed on its own: a bind it could not make, a namespace the
kernel refused, a seccomp filter it could not load, a program it could not exec. None
of that is the bot's doing.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import time

# The two documents take ~250 bytes; anything past this is not bubblewrap's.
_MAX_BYTES = 4096


def exec_failed(last_line: str, program: str) -> bool:
    """Whether a bwrap that failed to set up wrote, as its last line, that it could not
    exec `program` (not found, not executable): the sandbox was set up then, and only
    bwrap writes before the exec, so the line is its own."""
    return last_line.startswith(f"bwrap: execvp {program}: ")


class BwrapStatus:
    """The runner's end of one bwrap's status pipe; `write_fd` is passed to bwrap."""

    def __init__(self) -> None:
        # Both ends are non-inheritable: only the bwrap it is passed to gets `write_fd`,
        # and bwrap does not hand it on into the sandbox.
        self._read_fd, self.write_fd = os.pipe()
        os.set_blocking(self._read_fd, False)
        self._data = bytearray()
        self._closed = False

    def handed_over(self) -> None:
        """Close the runner's copy of the write end (bwrap has its own, or never started)."""
        if self.write_fd >= 0:
            os.close(self.write_fd)
            self.write_fd = -1

    def program_started(self) -> bool:
        """After bwrap has ended: whether it reported the program's exit (see the module)."""
        self._read_available()
        return any("exit-code" in doc for doc in self._documents())

    def child_pid(self, deadline: float) -> int | None:
        """The sandbox's first process (its first document), waited for until `deadline`
        (time.monotonic()); None if bwrap ended or the deadline passed without it."""
        while b"\n" not in self._data and not self._closed:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._read_fd], [], [], left)[0]:
                return None
            before = len(self._data)
            self._read_available()
            if len(self._data) == before:  # end of file: bwrap is gone
                return None
        docs = self._documents()
        pid = docs[0].get("child-pid") if docs else None
        return pid if isinstance(pid, int) else None

    def _read_available(self) -> None:
        while not self._closed and len(self._data) < _MAX_BYTES:
            try:
                chunk = os.read(self._read_fd, _MAX_BYTES - len(self._data))
            except (BlockingIOError, OSError):
                return
            if not chunk:
                return
            self._data += chunk

    def _documents(self) -> list[dict[str, object]]:
        docs: list[dict[str, object]] = []
        for line in bytes(self._data).splitlines():
            with contextlib.suppress(ValueError):
                doc = json.loads(line)
                if isinstance(doc, dict):
                    docs.append(doc)
        return docs

    def close(self) -> None:
        self.handed_over()
        if not self._closed:
            self._closed = True
            os.close(self._read_fd)
