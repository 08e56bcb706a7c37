"""The runtimes table is the one place: the protocol doc, the Makefile and the runner's
image follow it; single files and manifests are read by it."""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path, PurePosixPath

import pytest

from heights_runner.bundle import BundleError, bundle_check
from heights_runner.manifest import parse_manifest
from heights_runner.runtimes import BUILD_LIMITS, RUNTIMES, main_class

ROOT = Path(__file__).resolve().parents[2]


def _zip(*members: tuple[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in members:
            archive.writestr(name, text)
    return buffer.getvalue()


def test_the_protocol_doc_lists_every_runtime_as_the_table_says() -> None:
    doc = (ROOT / "docs" / "bot-protocol.md").read_text()
    languages = "|".join(r.language for r in RUNTIMES)
    rows = [
        line for line in doc.splitlines() if re.match(rf"\| `({languages}|[a-z]+)` \| `\.", line)
    ]
    rows = [row for row in rows if not row.startswith("| `type` |")]
    expected = [
        f"| `{r.language}` | `{r.extension}` | {r.version} | `{r.entry}` | "
        f"{f'`{r.build}`' if r.build else '—'} | {r.processes} |"
        for r in RUNTIMES
    ]
    assert rows == expected
    assert f"| wall and CPU time | {BUILD_LIMITS.seconds} s |" in doc
    assert f"| memory | {BUILD_LIMITS.memory_mib} MiB |" in doc
    assert f"| processes and threads | {BUILD_LIMITS.processes} |" in doc


def test_make_system_and_the_runner_image_install_every_runtimes_packages() -> None:
    packages = {p for r in RUNTIMES for p in r.packages}
    makefile = (ROOT / "Makefile").read_text()
    (system,) = re.findall(r"^SYSTEM_PACKAGES := (.*)$", makefile, re.MULTILINE)
    assert packages <= set(system.split())
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    runner_stage = dockerfile.split("FROM runtime AS runner", 1)[1].split("\nFROM ", 1)[0]
    assert packages <= set(re.split(r"[\s\\]+", runner_stage))


@pytest.mark.parametrize(
    ("filename", "language", "entry"),
    [
        ("bot.py", "python", "main.py"),
        ("bot.js", "javascript", "main.js"),
        ("Rocket.java", "java", "Rocket.java"),
        ("bot.cpp", "cpp", "main.cpp"),
        ("bot.rs", "rust", "main.rs"),
    ],
)
def test_a_single_file_is_its_suffixs_language(filename: str, language: str, entry: str) -> None:
    bundle = bundle_check(filename, b"// x\n" if language != "python" else b"x = 1\n")
    assert (bundle.language, str(bundle.entry)) == (language, entry)
    assert list(bundle.files) == [PurePosixPath(entry)]
    assert bool(bundle.build) == bundle.runtime.compiled
    if bundle.build:
        assert bundle.build[-1] == entry  # the default build, with the entry filled in


def test_a_java_file_is_named_after_its_class() -> None:
    with pytest.raises(BundleError) as refused:
        bundle_check("my-bot.java", b"class X {}")
    assert (refused.value.code, refused.value.limit) == ("bad_name", "java_class")
    assert main_class("bots/Main.java") == "bots.Main"


def test_source_must_be_utf8_in_every_language() -> None:
    with pytest.raises(BundleError) as refused:
        bundle_check("bot.rs", b"fn main() { \xff }")
    assert refused.value.code == "not_utf8"


def test_a_manifest_with_a_build_command_is_split_like_shell_words() -> None:
    manifest = parse_manifest(
        b'{"language": "cpp", "entry": "src/a b.cpp", "build": "g++ -o /build/bot \'src/a b.cpp\'"}'
    )
    assert manifest.build == ("g++", "-o", "/build/bot", "src/a b.cpp")
    assert manifest.entry == PurePosixPath("src/a b.cpp")


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        (b"[1]", "not a JSON object"),
        (b"{", "not UTF-8 JSON"),
        (b'{"language": "go"}', "language 'go'"),
        (b'{"language": "rust", "entry": "main.py"}', "not a Rust file"),
        (b'{"language": "rust", "entry": "../main.rs"}', "not inside"),
        (b'{"language": "rust", "build": ""}', "non-empty"),
        (b'{"language": "rust", "build": "rustc \'unclosed"}', "No closing quotation"),
        (b'{"language": "javascript", "build": "npm ci"}', "are not built"),
        (b'{"language": "rust", "extra": 1}', "unknown key 'extra'"),
        (b" " * 5000, "over 4096"),
        (b"[" * 4000, "nested too deep"),  # RecursionError escaped, not a BundleError
    ],
)
def test_a_bad_manifest_says_what_is_wrong(text: bytes, fragment: str) -> None:
    with pytest.raises(BundleError) as refused:
        parse_manifest(text)
    assert refused.value.code == "bad_manifest"
    assert refused.value.limit == "manifest"
    assert fragment in str(refused.value)


def test_an_archive_without_main_py_or_a_manifest_says_which_it_needs() -> None:
    with pytest.raises(BundleError) as refused:
        bundle_check("bot.zip", _zip(("main.cpp", "int main() {}")))
    assert refused.value.code == "no_entry_point"
    assert "no main.py or bot.json" in str(refused.value)
    with pytest.raises(BundleError) as nested:
        bundle_check("bot.zip", _zip(("kit/bot.json", "{}")))
    assert "found kit/bot.json: zip the folder's contents" in str(nested.value)


def test_a_bots_folder_is_zipped_as_its_upload_would_be(tmp_path: Path) -> None:
    from heights_runner.local import seat_for, zip_folder

    folder = tmp_path / "crab"
    (folder / "src").mkdir(parents=True)
    (folder / "bot.json").write_text('{"language": "rust", "entry": "src/main.rs"}')
    (folder / "src" / "main.rs").write_text("fn main() {}")
    for leftover in ("target/debug/crab", ".git/HEAD", "src/.main.rs.swp"):
        (folder / leftover).parent.mkdir(parents=True, exist_ok=True)
        (folder / leftover).write_text("not the bot")
    content = zip_folder(folder)
    assert zip_folder(folder) == content  # the same folder, the same bytes (and hash)
    with zipfile.ZipFile(io.BytesIO(content)) as archive:
        assert archive.namelist() == ["bot.json", "src/main.rs"]
    seat = seat_for(str(folder))
    assert (seat.name, seat.bot.kind, seat.bot.name) == ("crab", "zip", "crab.zip")
