"""The languages a bot may be written in: one table, the one place for each fact.

Each runtime names its Debian packages (the Makefile's `system` target and the runner's
image install them), the version a bot can count on, the single-file suffix, the
default entry point, how a compiled bot is built and how a bot is started, and the
limits that differ from the sandbox's defaults. `GET /api/v1/runtimes/` serves
`runtimes_document()`, and docs/bot-protocol.md's table is checked against it.

Pure data: the platform imports it (a public contract module, like `contract`); which
host files each runtime needs is the sandbox's business (`sandbox/toolchains.py`).
"""

from __future__ import annotations

from dataclasses import dataclass

# A manifest names the language, the entry point and (compiled languages) the build.
MANIFEST = "bot.json"
MANIFEST_BYTES = 4096
BUILD_COMMAND_CHARS = 500
# Where a build writes its artefact, and where the bot finds it at run time (read-only).
BUILD_DIR = "/build"


@dataclass(frozen=True, slots=True)
class BuildLimits:
    """A compiled bot's build: wall and CPU seconds, memory, processes, output kept."""

    seconds: int = 60
    memory_mib: int = 1024
    processes: int = 64  # compilers fork (g++: cc1plus, as, ld) and the JVM's threads count
    tmp_mib: int = 64
    artefact_mib: int = 64  # RLIMIT_FSIZE: the largest file the build may write
    # /build is a tmpfs of this size (it counts against the build's memory too), copied
    # out to the runner's disk only when it holds at most `output_files` entries.
    output_mib: int = 256
    output_files: int = 10_000
    log_kib: int = 64  # the end of the build's output kept for the owner


BUILD_LIMITS = BuildLimits()


@dataclass(frozen=True, slots=True)
class Runtime:
    language: str  # the manifest's `language` and the API's key
    title: str
    extension: str  # a single uploaded file with this suffix is a bot in this language
    version: str  # what a bot can count on (Debian 12's package, or the runner's Python)
    packages: tuple[str, ...]  # Debian packages that provide it
    entry: str  # a single file is stored under this name; an archive's default entry
    build: str  # default build command ({entry}); "" when nothing is compiled
    run: tuple[str, ...]  # how the bot starts ({entry}, {main_class}); paths in the sandbox
    processes: int = 16  # threads count: the sandbox's pids limit for this runtime
    notes: str = ""
    # What the runtime writes after a crashing program's own error (stack frames, a
    # version footer, a hint), as regular expressions matched at a line's start: a crash
    # forfeit's public detail quotes the last stderr line that is none of these, the
    # error itself, not `Node.js v20.20.2` or `\tat Main.main(Main.java:27)`.
    trace: tuple[str, ...] = ()

    @property
    def compiled(self) -> bool:
        return bool(self.build)


RUNTIMES: tuple[Runtime, ...] = (
    Runtime(
        language="python",
        title="Python",
        extension=".py",
        version="CPython 3.11 (the runner's interpreter)",
        packages=(),
        entry="main.py",
        build="",
        run=("python3", "-u", "/bot/{entry}"),
        notes="standard library, heights_sdk and the packages of requirements/bot-python.txt",
    ),
    Runtime(
        language="javascript",
        title="JavaScript (Node.js)",
        extension=".js",
        version="Node.js 18 or later (Debian 12: nodejs 18.20)",
        packages=("nodejs",),
        entry="main.js",
        build="",
        run=("node", "--max-old-space-size=256", "--v8-pool-size=1", "/bot/{entry}"),
        processes=32,
        notes="Node's built-in modules only (CommonJS or ES modules)",
        # Indented: the stack's frames and the error's own properties, which `}` closes.
        trace=(r"\s+\S", r"\}$", r"Node\.js v\d"),
    ),
    Runtime(
        language="java",
        title="Java",
        extension=".java",
        version="OpenJDK 17 (Debian 12: openjdk-17-jdk-headless)",
        packages=("openjdk-17-jdk-headless",),
        entry="Main.java",
        build=f"javac -encoding UTF-8 -d {BUILD_DIR} -sourcepath /bot {{entry}}",
        run=(
            "java",
            "-Xmx256m",
            "-Xss1m",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-XX:ActiveProcessorCount=1",
            "-XX:-UsePerfData",
            "-XX:ReservedCodeCacheSize=32m",
            "-XX:CompressedClassSpaceSize=64m",
            "-cp",
            BUILD_DIR,
            "{main_class}",
        ),
        processes=32,  # the JVM's own threads (VM, GC, compiler, finalizer, signals)
        notes="the Java SE library; a single file's public class must match its file name",
        trace=(r"\s+at ", r"\s+\.\.\. \d+ more"),
    ),
    Runtime(
        language="cpp",
        title="C++",
        extension=".cpp",
        version="GCC 12 (Debian 12: g++ 12.2), C++17",
        packages=("g++",),
        entry="main.cpp",
        build=f"g++ -std=c++17 -O2 -pipe -o {BUILD_DIR}/bot {{entry}}",
        run=(f"{BUILD_DIR}/bot",),
        notes="the C++ standard library; a build must write the program to /build/bot",
    ),
    Runtime(
        language="rust",
        title="Rust",
        extension=".rs",
        version="rustc 1.63 (Debian 12: rustc 1.63), edition 2021",
        packages=("rustc",),
        entry="main.rs",
        build=f"rustc --edition 2021 -C opt-level=2 -o {BUILD_DIR}/bot {{entry}}",
        run=(f"{BUILD_DIR}/bot",),
        notes="the standard library only (no crates); a build must write /build/bot",
        trace=(r"note: run with `RUST_BACKTRACE=1`",),
    ),
)
RUNTIMES_BY_LANGUAGE: dict[str, Runtime] = {r.language: r for r in RUNTIMES}
RUNTIMES_BY_EXTENSION: dict[str, Runtime] = {r.extension: r for r in RUNTIMES}
LANGUAGES: tuple[str, ...] = tuple(RUNTIMES_BY_LANGUAGE)
EXTENSIONS: tuple[str, ...] = tuple(RUNTIMES_BY_EXTENSION)


def main_class(entry: str) -> str:
    """A Java entry file's class: `bots/Main.java` is `bots.Main`."""
    return entry.removesuffix(".java").replace("/", ".")
