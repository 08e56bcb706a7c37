"""Which host files each runtime needs: a bot's sandbox shows its runtime and no other.

A bot's sandbox binds, read-only, the shared libraries every program loads (the
multiarch library folders) and only its own runtime's files: its interpreter (Python:
the runner's base interpreter and its standard library; Node.js: `node`; Java: the
JDK's folder and the configuration it links to in /etc), or nothing more for a compiled
program. A build's sandbox binds the compiler's files (g++ and binutils, rustc and the
C linker it calls, javac). Programs are found on Debian's PATH only (/usr/bin:/bin),
never in a user's home (a rustup toolchain in ~/.cargo is not the runner's).
"""

from __future__ import annotations

import functools
import glob
import os
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from heights_runner.runtimes import Runtime
from heights_runner.sandbox.bwrap import python_binds
from heights_runner.sandbox.limits import SandboxUnavailable

SYSTEM_PATH = "/usr/bin:/bin"
# Shared libraries (libc, libstdc++, libicu …): what any dynamically linked program needs.
_LIBRARY_GLOBS = ("/usr/lib/*-linux-gnu*", "/usr/lib64", "/usr/lib32", "/usr/libx32")
_CC_TOOLS = ("cc", "gcc", "c++", "g++", "cpp", "as", "ld", "ld.bfd", "collect2")
_CC_DIRS = ("/usr/lib/gcc", "/usr/libexec/gcc", "/usr/include", "/usr/lib/bfd-plugins")


class ToolchainMissingError(SandboxUnavailable):
    """This runner lacks a runtime's programs (an infrastructure fault, not the bot's)."""


@dataclass(frozen=True, slots=True)
class Toolchain:
    """A runtime on this host: the paths to bind and the programs by name (host paths)."""

    usr: tuple[str, ...]
    ro_binds: tuple[tuple[str, str], ...]
    programs: dict[str, str]


def which(name: str) -> str | None:
    return shutil.which(name, path=SYSTEM_PATH)


@functools.cache
def library_dirs() -> tuple[str, ...]:
    found = (path for pattern in _LIBRARY_GLOBS for path in sorted(glob.glob(pattern)))
    return tuple(path for path in found if os.path.isdir(path) and not os.path.islink(path))


def _existing(paths: Iterable[str]) -> list[str]:
    return [path for path in paths if os.path.exists(path)]


def _programs(names: Iterable[str], language: str, required: Iterable[str]) -> dict[str, str]:
    found = {name: path for name in names if (path := which(name)) is not None}
    if missing := [name for name in required if name not in found]:
        raise ToolchainMissingError(
            f"{language}: {', '.join(missing)} not found on {SYSTEM_PATH} (make system)"
        )
    return found


def _java_home() -> str:
    java = _programs(("java",), "java", ("java",))["java"]
    return str(Path(os.path.realpath(java)).parent.parent)


def _links_out_of(home: str) -> list[str]:
    """Folders outside the JDK its configuration links into (Debian: /etc/java-17-openjdk)."""
    found: set[str] = set()
    for link in (*Path(home, "conf").rglob("*"), *Path(home, "lib").glob("*")):
        if link.is_symlink():
            target = os.path.realpath(link)
            if not target.startswith(home + "/") and not target.startswith("/usr/lib/"):
                found.add(str(Path(target).parent))
    roots = sorted(found)
    return [p for p in roots if not any(p.startswith(r + "/") for r in roots if r != p)]


def _python() -> Toolchain:
    exe, binds = python_binds()
    base = {"base": sys.base_prefix, "platbase": sys.base_exec_prefix}
    paths = sysconfig.get_paths(vars=base)
    stdlib = [os.path.realpath(paths["stdlib"]), os.path.realpath(paths["platstdlib"])]
    usr = [exe, *_existing(stdlib)]
    if sysconfig.get_config_var("Py_ENABLE_SHARED"):  # e.g. /usr/local/lib/libpython3.11.so
        library = Path(
            str(sysconfig.get_config_var("LIBDIR")), str(sysconfig.get_config_var("INSTSONAME"))
        )
        usr += _existing([str(library)])
    return Toolchain(tuple(usr), tuple(binds), {"python3": exe})


@functools.cache
def run_toolchain(runtime: Runtime) -> Toolchain:
    """What a bot of `runtime` needs to run: ToolchainMissingError if this host lacks it."""
    libs = library_dirs()
    if runtime.language == "python":
        python = _python()
        return Toolchain((*libs, *python.usr), python.ro_binds, python.programs)
    if runtime.language == "javascript":
        node = _programs(("node",), "javascript", ("node",))
        return Toolchain((*libs, node["node"]), (), node)
    if runtime.language == "java":
        home = _java_home()
        java = {"java": f"{home}/bin/java", "javac": f"{home}/bin/javac"}
        return Toolchain((*libs, home, *_links_out_of(home)), (), java)
    return Toolchain(libs, (), {})  # a compiled program needs the libraries only


@functools.cache
def build_toolchain(runtime: Runtime) -> Toolchain:
    """What building a bot of `runtime` needs (the compiler and what it calls)."""
    if runtime.language == "java":
        return run_toolchain(runtime)
    if runtime.language not in ("cpp", "rust"):
        raise ToolchainMissingError(f"{runtime.language}: bots are not built")
    required = ("g++", "as", "ld") if runtime.language == "cpp" else ("cc", "as", "ld")
    tools = _programs(_CC_TOOLS, runtime.language, required)
    usr = [*library_dirs(), *tools.values(), *_existing(_CC_DIRS)]
    if runtime.language == "rust":
        tools |= _programs(("rustc",), "rust", ("rustc",))
        usr += [tools["rustc"], *_existing(["/usr/lib/rustlib"])]
    return Toolchain(tuple(usr), (), tools)


# The command that prints a runtime's version, by the program's name in `Toolchain.programs`.
_VERSION_OF = {
    "python": "python3",
    "javascript": "node",
    "java": "java",
    "cpp": "g++",
    "rust": "rustc",
}


def _version(program: str) -> str:
    flag = "-version" if program.endswith("/java") else "--version"
    try:
        done = subprocess.run(
            [program, flag], capture_output=True, text=True, timeout=20, check=False, env={}
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"does not run: {exc}"
    lines = (done.stdout or done.stderr).strip().splitlines()
    return lines[0] if lines else f"exit status {done.returncode}"


def describe(runtimes: Iterable[Runtime]) -> list[str]:
    """One line per runtime: the version this host's toolchain reports, or what is missing
    (for `heights runner probe` and the worker's start-up log)."""
    lines = []
    for runtime in runtimes:
        try:
            tools = build_toolchain(runtime) if runtime.compiled else run_toolchain(runtime)
        except ToolchainMissingError as missing:
            lines.append(f"{runtime.language}: NOT available: {missing}")
            continue
        program = tools.programs[_VERSION_OF[runtime.language]]
        lines.append(f"{runtime.language}: {_version(program)} ({program})")
    return lines
