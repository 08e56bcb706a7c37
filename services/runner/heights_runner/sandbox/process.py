"""A running bot: line I/O with deadlines and output bounds, and a thorough close()."""

from __future__ import annotations

import contextlib
import os
import re
import selectors
import signal
import subprocess
import threading
import time
from collections.abc import Sequence
from types import TracebackType

from heights_runner.sandbox.cgroups import BotCgroup
from heights_runner.sandbox.limits import (
    BotFlood,
    BotGone,
    BotTimeout,
    Limits,
    SandboxUnavailable,
)
from heights_runner.sandbox.status import BwrapStatus, exec_failed

_CHUNK = 65536
_SLICE = 0.05
_SIGNAL_NOTES: dict[int, str] = {
    signal.SIGXCPU: " (CPU limit)",
    signal.SIGXFSZ: " (file size limit)",
}


class BotProcess:
    """One bot process (under bubblewrap when `sandboxed`); see `start_bot`."""

    def __init__(
        self,
        popen: subprocess.Popen[bytes],
        *,
        limits: Limits,
        cgroup: BotCgroup | None,
        sandboxed: bool,
        status: BwrapStatus | None = None,
        trace: Sequence[str] = (),
        own_program: str | None = None,
    ) -> None:
        assert popen.stdin is not None
        assert popen.stdout is not None
        assert popen.stderr is not None
        self.pid = popen.pid
        self.sandboxed = sandboxed
        self._popen = popen
        self._limits = limits
        self._cgroup = cgroup
        self._status = status
        self._own_program = own_program  # argv[0] when it is the bot's (a built artefact)
        self._trace = re.compile("|".join(f"(?:{t})" for t in trace)) if trace else None
        self._stdin = popen.stdin.fileno()
        self._stdout = popen.stdout.fileno()
        os.set_blocking(self._stdin, False)
        os.set_blocking(self._stdout, False)
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._stdout, selectors.EVENT_READ)
        self._buffer = bytearray()
        self._scanned = 0  # bytes of _buffer known to hold no newline
        self._eof = False
        self._closed = False  # close() has begun: no more I/O
        self._ended = False  # close() has run to its end
        self._stdout_total = 0
        self._stderr_total = 0
        self._stderr_kept = bytearray()
        self._drainer = threading.Thread(target=self._drain_stderr, daemon=True)
        self._drainer.start()

    # -- stdin -------------------------------------------------------------------------
    def send(self, line: str, timeout: float = 10.0) -> None:
        """Write `line` and a newline; BotTimeout if the bot does not take it within `timeout`."""
        if self._closed:
            raise BotGone("send after close()")
        data = self._write_some(memoryview((line + "\n").encode()))
        if not data:  # nearly always: the pipe takes the line at once, no selector needed
            return
        deadline = time.monotonic() + timeout
        with selectors.DefaultSelector() as sel:
            sel.register(self._stdin, selectors.EVENT_WRITE)
            while data:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise BotTimeout(f"bot did not read its input within {timeout:.3f}s")
                sel.select(remaining)
                data = self._write_some(data)

    def _write_some(self, data: memoryview) -> memoryview:
        """What is left of `data` after one non-blocking write."""
        try:
            return data[os.write(self._stdin, data) :]
        except BlockingIOError:
            return data
        except (BrokenPipeError, ValueError, OSError) as exc:
            raise self._gone(f"stdin closed ({exc.__class__.__name__})") from exc

    # -- stdout ------------------------------------------------------------------------
    def receive(self, timeout: float) -> str:
        """The next stdout line, without its newline (undecodable bytes become U+FFFD)."""
        if self._closed:
            raise BotGone("receive after close()")
        deadline = time.monotonic() + timeout
        while True:
            line = self._take_line()
            if line is not None:
                return line
            self._check_flood()
            if self._eof:
                raise self._gone("stdout closed")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                # One last look without waiting: with a deadline shared by several bots
                # (start-up), a line may have been sitting in the pipe all along.
                if self._selector.select(0):
                    self._read_stdout()
                    line = self._take_line()
                    if line is not None:
                        return line
                raise BotTimeout(f"no line within {timeout:.3f}s")
            # Short slices: stderr, drained by another thread, may push us over the output limit.
            if self._selector.select(min(remaining, _SLICE)):
                self._read_stdout()

    def _read_stdout(self) -> None:
        try:
            chunk = os.read(self._stdout, _CHUNK)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            self._eof = True
            return
        self._stdout_total += len(chunk)
        self._buffer += chunk

    def _take_line(self) -> str | None:
        end = self._buffer.find(b"\n", self._scanned)
        if end < 0:
            self._scanned = len(self._buffer)
            if len(self._buffer) > self._limits.line_bytes:
                raise BotFlood(f"stdout line longer than {self._limits.line_bytes} bytes")
            return None
        if end > self._limits.line_bytes:
            raise BotFlood(f"stdout line longer than {self._limits.line_bytes} bytes")
        line = bytes(self._buffer[:end])
        del self._buffer[: end + 1]
        self._scanned = 0
        return line.decode("utf-8", errors="replace")

    def _check_flood(self) -> None:
        total = self._stdout_total + self._stderr_total
        if total > self._limits.output_bytes:
            raise BotFlood(f"{total} bytes of output, over the {self._limits.output_bytes} limit")

    # -- stderr ------------------------------------------------------------------------
    def _drain_stderr(self) -> None:
        """Read stderr to its end so a chatty bot never blocks; keep only the tail."""
        stream = self._popen.stderr
        assert stream is not None
        keep = self._limits.stderr_bytes
        try:
            with contextlib.suppress(OSError, ValueError):
                while chunk := os.read(stream.fileno(), _CHUNK):
                    self._stderr_total += len(chunk)
                    self._stderr_kept += chunk
                    if len(self._stderr_kept) > keep:
                        del self._stderr_kept[: len(self._stderr_kept) - keep]
        finally:
            # Only this thread closes stderr, once it has read it to its end (see close()).
            stream.close()

    def stderr_text(self) -> str:
        """The last `stderr_bytes` of stderr, with a note of how much was dropped."""
        kept = bytes(self._stderr_kept)
        dropped = self._stderr_total - len(kept)
        text = kept.decode("utf-8", errors="replace")
        return f"[{dropped} earlier bytes dropped]\n{text}" if dropped > 0 else text

    def stderr_last_line(self, chars: int = 160) -> str:
        """The last non-empty stderr line of a bot that has ended ("" while it runs),
        skipping what its runtime writes after the error (`trace`: stack frames, a footer).

        A crashing interpreter's last words ("RuntimeError: ...", "Fatal Python error:
        ...") say why it ended; the drainer is given a moment to read them to the end.
        """
        if self._popen.poll() is None:
            return ""
        self._drainer.join(timeout=0.5)
        lines = bytes(self._stderr_kept).decode("utf-8", errors="replace").splitlines()
        words = [line for line in lines if line.strip()]
        said = [line for line in words if not (self._trace and self._trace.match(line))]
        # A log of nothing but trace lines still has a last line worth quoting.
        last = (said or words or [""])[-1].strip()
        return last if len(last) <= chars else last[: chars - 1] + "\u2026"

    # -- end ---------------------------------------------------------------------------
    def _gone(self, what: str) -> BotGone | SandboxUnavailable:
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._popen.wait(timeout=1.0)
        oom = self._cgroup is not None and self._cgroup.oom_killed()
        info = self.exit_info() or "still running"
        if not oom and self._setup_failed():
            why = self.stderr_last_line() or "no message"
            if self._own_program and exec_failed(why, self._own_program):
                # Set up, but the bot's own program (its build's) could not be run: the
                # bot's crash.
                return BotGone(f"{what}: {why}", reason="crash")
            return SandboxUnavailable(f"bubblewrap failed to set up the sandbox ({info}): {why}")
        return BotGone(f"{what}: {info}", reason="memory" if oom else "crash")

    def _setup_failed(self) -> bool:
        """Whether bwrap ended on its own before the bot's program ran (sandbox/status.py).

        Not when bwrap was killed by a signal (that is our close() or the kernel, and
        bwrap writes nothing then), nor once the program has written a byte: only what
        bubblewrap itself reports, which the bot cannot reach, decides it.
        """
        code = self._popen.returncode
        return (
            self._status is not None
            and code is not None
            and code >= 0
            and self._stdout_total == 0
            and not self._status.program_started()
        )

    def exit_info(self) -> str | None:
        """How the bot ended, or None while it runs."""
        code = self._popen.poll()
        if code is None:
            return None
        # bubblewrap reports a child killed by signal N as status 128 + N.
        signum = -code if code < 0 else code - 128 if self.sandboxed and code > 128 else 0
        if not signum:
            return f"exited with status {code}"
        try:
            name = signal.Signals(signum).name
        except ValueError:
            name = f"signal {signum}"
        note = _SIGNAL_NOTES.get(signum, "")
        if self._cgroup is not None and self._cgroup.oom_killed():
            note = " (memory limit)"
        return f"killed by {name}{note}"

    def close(self, grace: float = 0.2) -> None:
        """End the bot and everything it started, reap it, remove its cgroups. Idempotent.

        What ends the bot runs in `finally`, and counts as done only once it has all run:
        an exception raised into the runner while it waits (a Celery soft time limit, an
        interrupt) still kills the whole tree, and a later close() (the match's own
        `finally`) finishes whatever the exception cut short.
        """
        if self._ended:
            return
        self._closed = True  # no more I/O, from here on
        try:
            with contextlib.suppress(OSError):
                self._popen.stdin.close()  # type: ignore[union-attr]
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._popen.wait(timeout=grace)
        finally:
            self._end()

    def _end(self) -> None:
        kill_tree(self._popen, self._cgroup)
        # The drainer reads stderr until every copy of its write end is closed, and closes
        # it itself (`_drain_stderr`): closing it here, under a thread blocked reading it,
        # would let the fd number be reused by the next bot's pipe and read from there.
        self._drainer.join(timeout=2.0)
        self._selector.close()
        for stream in (self._popen.stdin, self._popen.stdout):
            with contextlib.suppress(OSError):
                if stream is not None:
                    stream.close()
        if self._cgroup is not None:
            self._cgroup.remove()
        if self._status is not None:
            self._status.close()
        self._ended = True

    def __enter__(self) -> BotProcess:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def kill_tree(popen: subprocess.Popen[bytes], cgroup: BotCgroup | None) -> None:
    """Kill a started process and everything it started, and reap it: a bot's end
    (`BotProcess.close`), a start that failed half-way, a one-shot build's end.

    Its own session (start_new_session): the group is bwrap, or the bot and its children,
    killed even when the top process has exited, since what it left in its group has not;
    the pid cannot have been reused while a process of that group lives. The cgroups then
    kill the whole tree, wherever it went (setsid, double forks): what holds a pipe too.
    """
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(popen.pid, signal.SIGKILL)
    if cgroup is not None:
        cgroup.kill_all()
    popen.wait()
