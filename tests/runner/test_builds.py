"""A build's sandbox (sandbox.run_once): killed at its deadline, its output bounded and
kept, only /build writable, nothing left behind; a build is cached by content hash."""

from __future__ import annotations

import io
import os
import subprocess
import tempfile
import zipfile
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
public class Deep {
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
    manifest = b'{"language": "java", "entry": "Main.java", "build": "java /bot/Deep.java"}'
    main = b"public class Main { public static void main(String[] a) {} }\n"
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("bot.json", manifest)
        z.writestr("Main.java", main)
        z.writestr("Deep.java", DEEP_JAVA)
    bundle = bundle_check("deep.zip", archive.getvalue())
    try:
        build_toolchain(bundle.runtime)
    except ToolchainMissingError as missing:
        pytest.skip(str(missing))
    workdir = tmp_path / ("3" * 64)
    workdir.mkdir()
    for path, data in bundle.files.items():
        (workdir / path).write_bytes(data)
    with pytest.raises(BuildFailedError) as failed:
        built(bundle, workdir, "3" * 64)
    assert "nested" in str(failed.value), failed.value
    assert not list(tmp_path.glob(".*-build-*"))  # the deep staging is removed too
    assert not (tmp_path / ("3" * 64 + ".build")).exists()


NOBODY = 65534


def _deeper_as_nobody(root: Path, depth: int) -> str:
    """builds._deeper_than's answer (or its error) as a non-root runner gets it."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: nothing but the call and its answer, then out
        os.close(read)
        try:
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            answer = str(builds._deeper_than(root, depth))
        except BaseException as err:
            answer = repr(err)
        os.write(write, answer.encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        answer = pipe.read().decode()
    os.waitpid(pid, 0)
    return answer


@pytest.mark.skipif(os.geteuid() != 0, reason="plays a non-root runner by switching to nobody")
def test_a_folder_the_build_made_unreadable_is_not_a_runner_fault() -> None:
    # A build's files are the runner's own (its uid in the sandbox), and the build may
    # chmod a folder 000: a non-root runner then cannot list it. The depth check raised
    # that PermissionError, an OSError the runner takes as its own cache's fault (the
    # match played again, then voided); os.walk, which seals the artefact, skips it.
    root = Path(tempfile.mkdtemp(prefix="heights-unreadable-build-"))
    try:
        root.chmod(0o755)
        staging = root / "staging"
        (staging / "locked" / "inside").mkdir(parents=True)
        (staging / "open" / "a" / "b").mkdir(parents=True)
        for folder, dirs, _ in os.walk(staging):
            for path in [folder, *(os.path.join(folder, d) for d in dirs)]:
                os.chown(path, NOBODY, NOBODY)
        (staging / "locked").chmod(0)
        assert _deeper_as_nobody(staging, 64) == "False"
        assert _deeper_as_nobody(staging, 1) == "True"  # the open branch is 3 deep
    finally:
        subprocess.run(["rm", "-rf", "--", str(root)], check=True)


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
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("bot.json", f'{{"language": "cpp", "entry": "main.cpp", "build": "{build}"}}')
        z.writestr("main.cpp", b"int main() { return 0; }\n")
        for name, data in files.items():
            z.writestr(name, data)
    bundle = bundle_check("typo.zip", archive.getvalue())
    try:
        build_toolchain(bundle.runtime)
    except ToolchainMissingError as missing:
        pytest.skip(str(missing))
    workdir = tmp_path / ("4" * 64)
    workdir.mkdir()
    for path, data in bundle.files.items():
        (workdir / path).write_bytes(data)
    with pytest.raises(BuildFailedError) as failed:
        built(bundle, workdir, "4" * 64)
    assert build.split(maxsplit=1)[0] in failed.value.output, failed.value.output


LONG_JAVA = b"""
import java.nio.file.*;
public class Long {
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
    # Inside the sandbox the file's path is ~4,080 bytes, under PATH_MAX; on the runner
    # its folder is the longer staging path, past PATH_MAX: sealing the file (os.chmod)
    # raised ENAMETOOLONG, an OSError, the runner's fault (the match played again, then
    # voided). Its folders stay under PATH_MAX, so the depth check listed them all.
    manifest = b'{"language": "java", "entry": "Main.java", "build": "java /bot/Long.java"}'
    main = b"public class Main { public static void main(String[] a) {} }\n"
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("bot.json", manifest)
        z.writestr("Main.java", main)
        z.writestr("Long.java", LONG_JAVA)
    bundle = bundle_check("long.zip", archive.getvalue())
    try:
        build_toolchain(bundle.runtime)
    except ToolchainMissingError as missing:
        pytest.skip(str(missing))
    workdir = tmp_path / ("5" * 64)
    workdir.mkdir()
    for path, data in bundle.files.items():
        (workdir / path).write_bytes(data)
    with pytest.raises(BuildFailedError) as failed:
        built(bundle, workdir, "5" * 64)
    assert "PATH_MAX" in str(failed.value), failed.value
    assert not list(tmp_path.glob(".*-build-*"))
