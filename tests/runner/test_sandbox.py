"""The sandbox with well-behaved bots: I/O, environment, probe, fallbacks, clean-up."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from heights_runner import sandbox
from heights_runner.sandbox import (
    BotGone,
    Capabilities,
    Limits,
    SandboxUnavailable,
    bwrap,
    cgroups,
    probe,
    python_binds,
    start_bot,
)
from heights_runner.sandbox import start as start_module

requires_bwrap = pytest.mark.skipif(not probe().bwrap, reason="bubblewrap is not usable here")
MakeBot = Callable[[str, str], Path]

ECHO = """
import sys
print("ready", flush=True)
for line in sys.stdin:
    print("echo " + line.rstrip("\\n"), flush=True)
"""
SHOW_ENV = """
import json, os
print(json.dumps(dict(os.environ)), flush=True)
"""
TRY_INET = """
import socket
try:
    socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    print("inet open", flush=True)
except OSError as exc:
    print(f"inet refused {exc.errno}", flush=True)
"""
# What an ordinary bot may do under the filter: threads, a child process, local sockets.
ORDINARY = """
import concurrent.futures, json, socket, subprocess, sys
with concurrent.futures.ThreadPoolExecutor(4) as pool:
    squares = sum(pool.map(lambda n: n * n, range(100)))
child = subprocess.run([sys.executable, "-c", "print(6 * 7)"], capture_output=True, text=True)
left, right = socket.socketpair()
left.sendall(b"ping")
status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines())
print(json.dumps({
    "squares": squares,
    "child": child.stdout.strip(),
    "unix": right.recv(4).decode(),
    "seccomp": status["Seccomp"].strip(),
}), flush=True)
"""
# Python sets LC_CTYPE (locale coercion) and bwrap PWD (from --chdir) by themselves.
AMBIENT = {"LC_CTYPE", "PWD"}


def _argv() -> tuple[list[str], list[tuple[str, str]]]:
    exe, binds = python_binds()
    return [exe, "-u", "/bot/main.py"], binds


def _without_bwrap(monkeypatch: pytest.MonkeyPatch) -> None:
    real = probe()
    caps = Capabilities(
        bwrap=False,
        user_namespace=False,
        seccomp=real.seccomp,
        cgroup_memory=real.cgroup_memory,
        cgroup_pids=real.cgroup_pids,
        cgroup_cpu=real.cgroup_cpu,
        bwrap_path=None,
        reasons=("bubblewrap not installed (pretend)",),
    )
    monkeypatch.setattr(start_module, "probe", lambda: caps)


def test_public_surface() -> None:
    assert sorted(sandbox.__all__) == [
        "BotFault",
        "BotFlood",
        "BotGone",
        "BotProcess",
        "BotTimeout",
        "Capabilities",
        "Limits",
        "SandboxUnavailable",
        "probe",
        "python_binds",
        "start_bot",
    ]


def test_python_binds_use_the_base_interpreter_not_the_venv() -> None:
    exe, binds = python_binds()
    assert os.path.isfile(exe)
    assert exe == os.path.realpath(exe)
    assert all(".venv" not in host for host, _ in binds)
    assert not exe.startswith(os.path.realpath(sys.prefix) + "/") or sys.prefix == sys.base_prefix


def test_site_packages_are_covered_unless_a_bind_asks_for_them(tmp_path: Path) -> None:
    site = "/opt/py/lib/python3.11/site-packages"
    inside = f"{site}/heights_rules"

    def covered(ro_binds: list[tuple[str, str]]) -> bool:
        args = bwrap.command(
            "bwrap",
            tmp_path,
            ["python"],
            limits=Limits(),
            ro_binds=ro_binds,
            env={},
            seccomp_fd=None,
            hidden=[site],
        )
        return any(args[i : i + 2] == ["--tmpfs", site] for i in range(len(args)))

    assert covered([("/opt/py", "/opt/py")])
    assert covered([("/opt/py", "/opt/py"), (f"{site}-x", "/elsewhere")])
    # Nothing bound shows it (a Node.js bot's sandbox): no folders are made for it.
    assert not covered([(f"{site}-x", "/elsewhere")])
    # A built-in bot in an install without a venv is given the project's site-packages.
    assert not covered([("/opt/py", "/opt/py"), (site, site)])
    assert not covered([(inside, inside)])


@requires_bwrap
def test_probe_reports_what_is_in_use() -> None:
    caps = probe()
    lines = caps.describe()
    assert lines[0] == "bot sandbox: sandboxed with bubblewrap"
    assert caps.user_namespace
    assert caps.seccomp
    assert any("memory" in line for line in lines)
    assert any("pids" in line for line in lines)


@pytest.mark.skipif(
    os.geteuid() != 0 or not os.access("/sys/fs/cgroup/pids", os.W_OK),
    reason="needs writable cgroups (root on this kind of machine)",
)
def test_probe_finds_writable_cgroups() -> None:
    caps = probe()
    assert caps.cgroup_memory
    assert caps.cgroup_pids


@requires_bwrap
def test_echo_bot_round_trip(make_bot: MakeBot) -> None:
    argv, binds = _argv()
    with start_bot(make_bot("echo", ECHO), argv, ro_binds=binds) as bot:
        assert bot.sandboxed
        assert bot.receive(10) == "ready"
        for text in ("hello", "ünïcödé", "x" * 10_000):
            bot.send(text)
            assert bot.receive(5) == f"echo {text}"
        assert bot.exit_info() is None
    assert bot.exit_info() is not None
    bot.close()  # idempotent


@requires_bwrap
def test_ordinary_interpreter_work_runs_under_the_filter(make_bot: MakeBot) -> None:
    argv, binds = _argv()
    with start_bot(make_bot("ordinary", ORDINARY), argv, ro_binds=binds) as bot:
        seen = json.loads(bot.receive(20))
    assert seen == {"squares": 328350, "child": "42", "unix": "ping", "seccomp": "2"}


def test_untrusted_bot_refused_without_seccomp(
    make_bot: MakeBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    caps = dataclasses.replace(probe(), seccomp=False, reasons=("seccomp: NOT used (pretend)",))
    monkeypatch.setattr(start_module, "probe", lambda: caps)
    argv, binds = _argv()
    with pytest.raises(SandboxUnavailable, match="needs bubblewrap and seccomp: seccomp: NOT"):
        start_bot(make_bot("echo", ECHO), argv, ro_binds=binds)


@requires_bwrap
def test_environment_is_only_what_is_given(
    make_bot: MakeBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HEIGHTS_FAKE_SECRET", "hunter2")
    argv, binds = _argv()
    given = {"PYTHONPATH": "/sdk", "HEIGHTS_SEAT": "1"}
    with start_bot(make_bot("env", SHOW_ENV), argv, ro_binds=binds, env=given) as bot:
        line = bot.receive(10)
    seen = json.loads(line)
    assert "hunter2" not in line
    assert {k: seen[k] for k in given} == given
    assert set(seen) <= set(given) | AMBIENT


@requires_bwrap
def test_close_removes_the_cgroups(make_bot: MakeBot) -> None:
    argv, binds = _argv()
    bot = start_bot(make_bot("echo", ECHO), argv, ro_binds=binds)
    dirs = list(bot._cgroup.dirs) if bot._cgroup else []
    assert all(d.is_dir() for d in dirs)
    assert bot.receive(10) == "ready"
    bot.close()
    assert not any(d.exists() for d in dirs)


def test_untrusted_bot_refused_without_bwrap(
    make_bot: MakeBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    _without_bwrap(monkeypatch)
    argv, binds = _argv()
    with pytest.raises(SandboxUnavailable, match="bubblewrap"):
        start_bot(make_bot("echo", ECHO), argv, ro_binds=binds)


def test_trusted_bot_runs_without_bwrap_with_limits_and_seccomp(
    make_bot: MakeBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    _without_bwrap(monkeypatch)
    argv, binds = _argv()
    with start_bot(make_bot("inet", TRY_INET), argv, ro_binds=binds, trusted=True) as bot:
        assert not bot.sandboxed
        line = bot.receive(10)
        with pytest.raises(BotGone):
            bot.receive(10)
    assert line == ("inet refused 1" if probe().seccomp else "inet open")
    assert bot.exit_info() == "exited with status 0"


def test_unsandboxed_escape_hatch_maps_bot_paths(
    make_bot: MakeBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    _without_bwrap(monkeypatch)
    argv, binds = _argv()
    limits = Limits(cpu_seconds=5)
    folder = make_bot("echo", ECHO)
    with start_bot(folder, argv, ro_binds=binds, limits=limits, allow_unsandboxed=True) as bot:
        assert bot.receive(10) == "ready"
        bot.send("hi")
        assert bot.receive(5) == "echo hi"


@pytest.mark.skipif(not probe().cgroup_pids, reason="no writable pids cgroup")
def test_sweep_removes_only_old_empty_bot_cgroups() -> None:
    parent = cgroups.parent_dir("pids")
    assert parent is not None
    old, new = parent / "bot-sweeptest-old", parent / "bot-sweeptest-new"
    old.mkdir()
    new.mkdir()
    try:
        os.utime(old, (0, 0))
        cgroups.sweep(min_age=60)
        assert not old.exists()
        assert new.exists()
    finally:
        for path in (old, new):
            if path.exists():
                path.rmdir()
