"""The starter kits (kits/<language>/): each plays a whole match through the real sandbox.

Compiled kits are built in the sandbox on first use and the build is cached by content
hash in the session's bot cache, so each compiler runs once per test session. A kit
needs its toolchain: a test is skipped, saying which program is missing, only where the
machine lacks it (`make system` installs them all; CI has them).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from heights_rules.replay import Replay, verify
from heights_runner.contract import BotRef, MatchResult, MatchSpec, SeatSpec, TimeLimits
from heights_runner.engines import LocalEngine
from heights_runner.launch import LaunchPolicy
from heights_runner.local import seat_for
from heights_runner.match import play_match
from heights_runner.runtimes import RUNTIMES, RUNTIMES_BY_LANGUAGE
from heights_runner.sandbox import probe
from heights_runner.sandbox.toolchains import ToolchainMissingError, build_toolchain, run_toolchain

pytestmark = pytest.mark.skipif(not probe().contains_untrusted, reason="no bubblewrap+seccomp")

KITS = Path(__file__).resolve().parents[2] / "kits"


def _require_toolchain(language: str) -> None:
    runtime = RUNTIMES_BY_LANGUAGE[language]
    try:
        run_toolchain(runtime)
        if runtime.compiled:
            build_toolchain(runtime)
    except ToolchainMissingError as missing:
        pytest.skip(str(missing))


@pytest.fixture(scope="session")
def bot_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One bot cache for the session: a kit is built once, as on a runner."""
    cache = tmp_path_factory.mktemp("bots")
    yield cache
    for folder, dirs, _ in os.walk(cache):
        for name in dirs:
            os.chmod(os.path.join(folder, name), 0o755)  # read-only builds, for pytest's cleanup


# Time limits are not under test here: a JVM's start in the sandbox on a busy CI machine
# must not forfeit the kit.
ROOMY = TimeLimits(move_ms=10_000, bank_ms=120_000, start_ms=60_000)


def _play(bot: SeatSpec, cache: Path, seed: int = 11) -> MatchResult:
    seats = (bot, SeatSpec("random", BotRef.builtin("random")))
    spec = MatchSpec(f"kit-{bot.name}", seed, seats, limits=ROOMY)
    return play_match(spec, LocalEngine, LaunchPolicy(cache))


def test_there_is_a_kit_for_every_runtime() -> None:
    assert sorted(p.name for p in KITS.iterdir() if p.is_dir()) == sorted(
        r.language for r in RUNTIMES
    )


@pytest.mark.parametrize("language", [r.language for r in RUNTIMES])
def test_each_kit_plays_a_whole_match_in_the_sandbox(language: str, bot_cache: Path) -> None:
    _require_toolchain(language)
    seat = seat_for(str(KITS / language))  # the folder, zipped as its upload would be
    result = _play(seat, bot_cache)
    kit = result.seats[0]
    assert result.status == "finished"
    assert kit.forfeit is None, kit.forfeit
    assert kit.moves > 50  # a whole game's decisions, every one answered by the kit
    assert kit.log.strip().endswith("game over"), kit.log  # it was told the game ended
    replay = Replay.from_bytes(result.replay_bytes())
    assert verify(replay).ok
    own_notes = [note for note in replay.debug.values() if note.startswith("random: ")]
    assert len(own_notes) == kit.moves  # its debug notes reached the replay


# Each kit's `choose` made to fail as that language fails: (file, the kit's line, the throw).
BROKEN_CHOOSE: dict[str, tuple[str, str, str]] = {
    "python": (
        "main.py",
        "action = self.random.choice(decision.legal)",
        'raise RuntimeError("my strategy broke")',
    ),
    "javascript": (
        "main.js",
        "return legal[Math.floor(random() * legal.length)];",
        # Node prints an error's own properties after its stack, then `}`.
        'throw Object.assign(new Error("my strategy broke"), { code: "E_STRATEGY" });',
    ),
    "java": (
        "Main.java",
        "return random.nextInt(legal.size());",
        'throw new IllegalStateException("my strategy broke");',
    ),
    "cpp": (
        "main.cpp",
        "return pick(rng);",
        'throw std::runtime_error("my strategy broke");',
    ),
    "rust": (
        "main.rs",
        "(rng.next() % legal.len() as u64) as usize",
        'panic!("my strategy broke")',
    ),
}


@pytest.mark.parametrize("language", [r.language for r in RUNTIMES])
def test_a_kit_whose_choose_fails_forfeits_quoting_the_error(
    language: str, tmp_path: Path, bot_cache: Path
) -> None:
    """The public detail quotes the error, not what the runtime writes after it (Node's
    version footer, Java's stack frames, Rust's backtrace hint)."""
    _require_toolchain(language)
    folder = tmp_path / language
    shutil.copytree(KITS / language, folder)
    name, line, throw = BROKEN_CHOOSE[language]
    source = (folder / name).read_text()
    assert line in source, f"kits/{language}/{name} no longer has {line!r}"
    (folder / name).write_text(source.replace(line, throw))
    forfeit = _play(seat_for(str(folder)), bot_cache).seats[0].forfeit
    assert forfeit is not None
    assert (forfeit.reason, forfeit.step) == ("crash", 0), forfeit
    assert "my strategy broke" in forfeit.detail.split("; stderr: ", 1)[1], forfeit.detail


def test_a_kit_plays_the_same_game_from_the_same_seed(bot_cache: Path) -> None:
    _require_toolchain("cpp")
    first = _play(seat_for(str(KITS / "cpp")), bot_cache, seed=5)
    again = _play(seat_for(str(KITS / "cpp")), bot_cache, seed=5)
    assert first.replay_sha256 == again.replay_sha256


def test_a_single_source_file_is_a_bot(tmp_path: Path, bot_cache: Path) -> None:
    _require_toolchain("cpp")
    source = (KITS / "cpp" / "main.cpp").read_text()
    header = (KITS / "cpp" / "protocol.hpp").read_text()
    single = tmp_path / "solo.cpp"
    single.write_text(source.replace('#include "protocol.hpp"', header.replace("#pragma once", "")))
    result = _play(seat_for(str(single)), bot_cache)
    assert result.seats[0].forfeit is None, result.seats[0].forfeit


def test_a_failed_build_is_the_bots_forfeit_and_its_output_the_owners_log(
    tmp_path: Path, bot_cache: Path
) -> None:
    _require_toolchain("cpp")
    broken = tmp_path / "broken.cpp"
    broken.write_text("int main() { return undeclared_name; }\n")
    result = _play(seat_for(str(broken)), bot_cache)
    forfeit = result.seats[0].forfeit
    assert forfeit is not None
    assert (forfeit.reason, forfeit.step) == ("build", 0)
    assert forfeit.detail.startswith("build failed: `g++ -std=c++17")
    assert "exited with status 1" in forfeit.detail
    assert "undeclared_name" in forfeit.detail  # the compiler's last words, as for a crash
    assert "error: 'undeclared_name' was not declared" in result.seats[0].log
    assert result.seats[1].forfeit is None  # the other seat's game went on


# A single file that does not compile, per compiled language: (file, source, its place).
BROKEN_BUILDS: dict[str, tuple[str, str, str]] = {
    "cpp": ("broken.cpp", "int main() { return undeclared_name; }\n", "main.cpp:1:21"),
    "java": (
        "Main.java",
        'public class Main { public static void main(String[] a) { int x = "s"; } }\n',
        "Main.java:1",
    ),
    "rust": ("broken.rs", 'fn main() { let _x: i32 = "s"; }\n', "main.rs:1:"),
}


@pytest.mark.parametrize("language", sorted(BROKEN_BUILDS))
def test_a_failed_builds_public_detail_says_where_its_first_error_is(
    language: str, tmp_path: Path, bot_cache: Path
) -> None:
    """g++ and javac put the place on the error's line; rustc on the line below it."""
    _require_toolchain(language)
    filename, source, where = BROKEN_BUILDS[language]
    broken = tmp_path / filename
    broken.write_text(source)
    forfeit = _play(seat_for(str(broken)), bot_cache).seats[0].forfeit
    assert forfeit is not None
    assert forfeit.reason == "build"
    headline = forfeit.detail.split("; output: ", 1)[1]
    assert "error" in headline
    assert where in headline, forfeit.detail


def test_a_build_that_writes_no_program_is_refused(tmp_path: Path, bot_cache: Path) -> None:
    _require_toolchain("cpp")
    folder = tmp_path / "nothing"
    folder.mkdir()
    (folder / "main.cpp").write_text("int main() {}\n")
    (folder / "bot.json").write_text('{"language": "cpp", "build": "g++ -fsyntax-only main.cpp"}')
    forfeit = _play(seat_for(str(folder)), bot_cache).seats[0].forfeit
    assert forfeit is not None
    assert forfeit.reason == "build"
    assert "wrote nothing to /build" in forfeit.detail


def test_a_built_program_that_cannot_be_run_is_the_bots_crash(
    tmp_path: Path, bot_cache: Path
) -> None:
    # The program a compiled bot runs is its build's /build/bot: one that is no program
    # (an object file, not executable) fails bwrap's exec, which is the bot's doing, not
    # a sandbox bubblewrap could not set up (the runner's fault: the match played again,
    # then voided).
    _require_toolchain("cpp")
    folder = tmp_path / "not-a-program"
    folder.mkdir()
    (folder / "main.cpp").write_text("int main() {}\n")
    manifest = '{"language": "cpp", "build": "g++ -c -o /build/bot main.cpp"}'
    (folder / "bot.json").write_text(manifest)
    forfeit = _play(seat_for(str(folder)), bot_cache).seats[0].forfeit
    assert forfeit is not None
    assert forfeit.reason == "crash"
    assert "/build/bot" in forfeit.detail, forfeit.detail
