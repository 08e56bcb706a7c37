"""A build's sandbox (sandbox.run_once): killed at its deadline, its output bounded and
kept, only /build writable, nothing left behind; a build is cached by content hash."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest

from heights_runner import builds
from heights_runner.builds import BuildFailedError, build_limits, built
from heights_runner.bundle import bundle_check
from heights_runner.runtimes import BUILD_DIR, BUILD_LIMITS
from heights_runner.sandbox import SandboxUnavailable, probe, python_binds
from heights_runner.sandbox.start import Mounts, OneShot, run_once
from heights_runner.sandbox.toolchains import Toolchain, ToolchainMissingError, build_toolchain

pytestmark = pytest.mark.skipif(not probe().contains_untrusted, reason="no bubblewrap+seccomp")


def _python_once(tmp_path: Path, code: str, timeout_s: float, output_bytes: int = 4096) -> OneShot:
    exe, binds = python_binds()
    out = tmp_path / "out"
    out.mkdir(mode=0o777, exist_ok=True)
    out.chmod(0o777)
    return run_once(
        tmp_path,
        [exe, "-S", "-c", code],
        limits=build_limits(),
        mounts=Mounts(binds, [(str(out), BUILD_DIR)], None),
        env={},
        timeout_s=timeout_s,
        output_bytes=output_bytes,
    )


def test_a_one_shot_run_that_overruns_is_killed_and_leaves_nothing(tmp_path: Path) -> None:
    marker = "heights-build-overrun-4711"
    done = _python_once(
        tmp_path,
        f"import sys, time; print('started', flush=True); time.sleep(600)  # {marker}",
        timeout_s=1.0,
    )
    assert done.returncode is None
    assert done.output == "started\n"
    survivors = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if marker.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                survivors.append(pid)
        except OSError:
            continue
    assert survivors == []


def test_a_one_shot_run_keeps_the_end_of_its_output_and_writes_only_to_build(
    tmp_path: Path,
) -> None:
    code = (
        "import sys\n"
        "for i in range(2000): print(f'line {i}')\n"
        "sys.stdout.flush()\n"
        "print('to stderr', file=sys.stderr, flush=True)\n"
        f"open('{BUILD_DIR}/artefact', 'w').write('built')\n"
        "try:\n    open('/bot/sneaky', 'w')\nexcept OSError as e:\n    sys.exit(3)\n"
    )
    done = _python_once(tmp_path, code, timeout_s=60, output_bytes=100)
    assert done.returncode == 3
    assert done.output.endswith("line 1999\nto stderr\n")
    assert len(done.output.encode()) <= 100
    assert (tmp_path / "out" / "artefact").read_text() == "built"
    assert not (tmp_path / "sneaky").exists()


def test_a_build_is_made_once_per_content_hash(tmp_path: Path) -> None:
    try:
        build_toolchain(bundle_check("a.cpp", b"").runtime)
    except ToolchainMissingError as missing:
        pytest.skip(str(missing))
    bundle = bundle_check("a.cpp", b"int main() { return 0; }\n")
    workdir = tmp_path / ("0" * 64)
    workdir.mkdir()
    (workdir / "main.cpp").write_bytes(bundle.files[bundle.entry])
    artefact = built(bundle, workdir, "0" * 64)
    assert (artefact / "bot").is_file()
    assert os.access(artefact / "bot", os.X_OK)
    assert oct(artefact.stat().st_mode & 0o777) == oct(0o555)  # sealed read-only
    # The second call finds it: a build that would now fail is not run at all.
    broken = bundle_check("a.cpp", b"this does not compile\n")
    assert built(broken, workdir, "0" * 64) == artefact
    other = tmp_path / ("1" * 64)
    other.mkdir()
    (other / "main.cpp").write_bytes(broken.files[broken.entry])
    with pytest.raises(BuildFailedError) as failed:
        built(broken, other, "1" * 64)
    assert failed.value.reason == "build"
    assert "error" in failed.value.headline()
    assert "main.cpp:1:1: error" in failed.value.output
    assert not list(tmp_path.glob(".*-build-*"))  # the failed build's staging is gone
    assert BUILD_LIMITS.seconds == build_limits().cpu_seconds


MISSING = "/nonexistent-heights-build-bind"  # bwrap: "Can't find source path"


def test_a_build_sandbox_that_cannot_be_set_up_is_the_runners_fault(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # bwrap exits with status 1 before the compiler runs: that was "build failed ...
    # exited with status 1", the bot's `build` forfeit, for a bind of the runner's own.
    try:
        tools = build_toolchain(bundle_check("a.cpp", b"").runtime)
    except ToolchainMissingError as missing:
        pytest.skip(str(missing))
    broken = Toolchain(tools.usr, ((MISSING, "/extra"),), tools.programs)
    monkeypatch.setattr(builds, "build_toolchain", lambda runtime: broken)
    bundle = bundle_check("a.cpp", b"int main() { return 0; }\n")
    workdir = tmp_path / ("2" * 64)
    workdir.mkdir()
    (workdir / "main.cpp").write_bytes(bundle.files[bundle.entry])
    with pytest.raises(SandboxUnavailable) as fault:
        built(bundle, workdir, "2" * 64)
    assert not isinstance(fault.value, BuildFailedError)
    assert f"Can't find source path {MISSING}" in str(fault.value), fault.value
    assert not list(tmp_path.glob(".*-build-*"))


def test_a_build_command_that_fails_at_once_is_still_the_bots(tmp_path: Path) -> None:
    # The program ran (bubblewrap reported its exit), wrote nothing, and failed.
    done = _python_once(tmp_path, "import sys; sys.exit(1)", timeout_s=60)
    assert done.returncode == 1
    assert done.output == ""


DEEP_JAVA = b"""
import java.nio.file.*;
public class Fill {
    public static void main(String[] args) throws Exception {
        StringBuilder path = new StringBuilder("/build");
        for (int i = 0; i < 1500; i++) path.append("/a");
        Files.createDirectories(Paths.get(path.toString()));
    }
}
"""


def test_a_build_that_nests_folders_past_any_use_is_the_bots_build_failure(
    tmp_path: Path,
) -> None:
    # 1,500 nested folders in /build: sealing them (os.walk) and removing them
    # (shutil.rmtree) both raised RecursionError, a runner fault: the match was played
    # again, rebuilding each time, then voided as an infrastructure failure.
    message = _failed_java_build(tmp_path, DEEP_JAVA, "3")  # the deep staging removed too
    assert "nested" in message, message


def _failed_build(tmp_path: Path, files: dict[str, bytes], name: str) -> BuildFailedError:
    """Build the zipped `files` in a folder named `name` * 64: the BuildFailedError it
    must end in, with nothing of it left behind."""
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as z:
        for member, content in files.items():
            z.writestr(member, content)
    bundle = bundle_check(f"{name}.zip", archive.getvalue())
    try:
        build_toolchain(bundle.runtime)
    except ToolchainMissingError as missing:
        pytest.skip(str(missing))
    workdir = tmp_path / (name * 64)
    workdir.mkdir()
    for path, data in bundle.files.items():
        (workdir / path).write_bytes(data)
    with pytest.raises(BuildFailedError) as failed:
        built(bundle, workdir, name * 64)
    assert not list(tmp_path.glob(".*-build-*"))  # nothing of it left on the disk
    assert not (tmp_path / (name * 64 + ".build")).exists()
    return failed.value


def _failed_java_build(tmp_path: Path, source: bytes, name: str) -> str:
    """Build a Java bot whose build command runs `source` (class Fill, launched as a
    single file): the BuildFailedError's message it must end in, nothing left behind."""
    files = {
        "bot.json": b'{"language": "java", "entry": "Main.java", "build": "java /bot/Fill.java"}',
        "Main.java": b"public class Main { public static void main(String[] a) {} }\n",
        "Fill.java": source,
    }
    return str(_failed_build(tmp_path, files, name))


# Writes 1 MiB blocks to /build/fill until a write fails, at most 32 MiB: the test's own
# bound, so that without a bound on /build it fills the staging folder only so far.
FILL_JAVA = b"""
import java.io.*;
public class Fill {
    public static void main(String[] args) throws Exception {
        try (FileOutputStream out = new FileOutputStream("/build/fill")) {
            byte[] block = new byte[1 << 20];
            for (int i = 0; i < 32; i++) out.write(block);
        }
    }
}
"""


def test_a_build_that_writes_past_its_output_bound_is_the_bots_build_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # /build was the staging folder on the runner's own disk, bounded only per file: a
    # build could fill the disk (or its inodes) in its 60 s, and every match the runner
    # played after failed as an infrastructure fault, never the hostile bot's.
    monkeypatch.setattr(builds, "BUILD_LIMITS", replace(BUILD_LIMITS, output_mib=8))
    message = _failed_java_build(tmp_path, FILL_JAVA, "4")
    expected = "wrote more than 8 MiB to /build; a build's output is at most 8 MiB"
    assert expected in message, message


SPARSE_JAVA = b"""
import java.io.*;
public class Fill {
    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 4; i++) {
            try (RandomAccessFile f = new RandomAccessFile("/build/hole" + i, "rw")) {
                f.setLength(16L << 20);
            }
        }
    }
}
"""


def test_sparse_files_count_at_their_length_not_their_blocks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Four 16 MiB files of holes take no block of the tmpfs, but copied out they are
    # 64 MiB on the disk: a build's output is bounded by what its copy would write.
    monkeypatch.setattr(builds, "BUILD_LIMITS", replace(BUILD_LIMITS, output_mib=8))
    message = _failed_java_build(tmp_path, SPARSE_JAVA, "5")
    assert "wrote more than 8 MiB to /build" in message, message


MANY_JAVA = b"""
import java.io.*;
public class Fill {
    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 300; i++) new File("/build/f" + i).createNewFile();
    }
}
"""


def test_a_build_that_writes_too_many_files_is_the_bots_build_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Empty files take no bytes but an inode each: a build could run the disk out of them.
    monkeypatch.setattr(builds, "BUILD_LIMITS", replace(BUILD_LIMITS, output_files=100))
    message = _failed_java_build(tmp_path, MANY_JAVA, "6")
    expected = "wrote more than 100 files and folders to /build; a build's output is at most 100"
    assert expected in message, message


def test_a_link_cut_short_by_the_output_bound_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # ld removes the program it could not finish, so /build is not full afterwards: the
    # detail said only "exited with status 1", not which bound the build ran into.
    monkeypatch.setattr(builds, "BUILD_LIMITS", replace(BUILD_LIMITS, output_mib=1))
    try:
        build_toolchain(bundle_check("a.cpp", b"").runtime)
    except ToolchainMissingError as missing:
        pytest.skip(str(missing))
    bundle = bundle_check("a.cpp", b"char a[4 << 20] = {1};\nint main() { return a[0]; }\n")
    workdir = tmp_path / ("7" * 64)
    workdir.mkdir()
    (workdir / "main.cpp").write_bytes(bundle.files[bundle.entry])
    with pytest.raises(BuildFailedError) as failed:
        built(bundle, workdir, "7" * 64)
    expected = "ran out of space; a build's output is at most 1 MiB, its /tmp 64 MiB"
    assert expected in str(failed.value), failed.value
    assert not (tmp_path / ("7" * 64 + ".build")).exists()


def test_a_build_output_made_unreadable_is_copied_by_a_runner_without_privileges(
    tmp_path: Path,
) -> None:
    # The deployed runner is uid 10001 without capabilities: it owns what a build wrote
    # (bwrap maps the sandbox's user to it) but is bound by its modes. A build's
    # `chmod 0` on a file or folder of /build made the copy raise PermissionError, a
    # runner fault (the match played again, then voided), where a root runner read on.
    # Run here as root without the two capabilities that pass over modes.
    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0 or setpriv is None:
        pytest.skip("needs root and setpriv to drop the capabilities that pass over modes")
    out = tmp_path / "out"
    (out / "lib").mkdir(parents=True)
    (out / "bot").write_bytes(b"program")
    (out / "lib" / "data").write_bytes(b"data")
    for path in (out / "bot", out / "lib" / "data", out / "lib", out):
        path.chmod(0)
    copy = tmp_path / "copy"
    copy.mkdir()
    code = (
        "import sys\nfrom pathlib import Path\nfrom heights_runner import builds\n"
        "from heights_runner.runtimes import BUILD_LIMITS\n"
        "print(builds._copy_out(Path(sys.argv[1]), Path(sys.argv[2]), BUILD_LIMITS))\n"
    )
    drop = ["--bounding-set=-dac_override,-dac_read_search", "--inh-caps=-all"]
    ran = subprocess.run(
        [setpriv, *drop, sys.executable, "-c", code, str(out), str(copy)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (ran.returncode, ran.stdout) == (0, "None\n"), ran.stderr
    assert (copy / "bot").read_bytes() == b"program"
    assert (copy / "lib" / "data").read_bytes() == b"data"


@pytest.mark.parametrize(
    ("build", "files"),
    [
        ("gcc-typo -o /build/bot main.cpp", {}),  # a program the sandbox has not
        ("./build.sh", {"build.sh": b"#!/bin/sh\ng++ -o /build/bot main.cpp\n"}),  # not +x
    ],
)
def test_a_build_command_that_cannot_be_run_is_the_bots_build_failure(
    build: str, files: dict[str, bytes], tmp_path: Path
) -> None:
    # The build command is the bot's own (bot.json), so bwrap failing to exec it is the
    # bot's build failure, not a sandbox that could not be set up (the runner's fault,
    # which played the match again, then voided it).
    manifest = f'{{"language": "cpp", "entry": "main.cpp", "build": "{build}"}}'.encode()
    files = {"bot.json": manifest, "main.cpp": b"int main() { return 0; }\n", **files}
    failed = _failed_build(tmp_path, files, "8")
    assert "could not be run" in str(failed), failed
    assert build.split(maxsplit=1)[0] in failed.output, failed.output


# A file at ~4,080 bytes of path inside the sandbox, under PATH_MAX; on the runner its
# copy's folder is longer than /build.
LONG_JAVA = b"""
import java.nio.file.*;
public class Fill {
    public static void main(String[] args) throws Exception {
        StringBuilder path = new StringBuilder("/build");
        for (int i = 0; i < 20; i++) path.append("/").append("d".repeat(190));
        Files.createDirectories(Paths.get(path.toString()));
        Files.write(Paths.get(path + "/" + "f".repeat(250)), new byte[] {1});
    }
}
"""


def test_a_build_whose_paths_reach_past_path_max_on_the_runner_is_the_bots(
    tmp_path: Path,
) -> None:
    # Sealing such a file (os.chmod) raised ENAMETOOLONG, an OSError, the runner's fault
    # (the match played again, then voided).
    message = _failed_java_build(tmp_path, LONG_JAVA, "9")
    assert "PATH_MAX" in message, message
