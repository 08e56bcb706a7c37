"""One replay file name (`*.replay.gz`) for what the CLI writes; `heights verify` still
reads a file an earlier version named `*.rhr`."""

from __future__ import annotations

from pathlib import Path

from tests.heights_command import heights

from heights_rules.replay import FILE_SUFFIX


def test_saved_replays_are_replay_gz_and_an_old_rhr_still_verifies(tmp_path: Path) -> None:
    saved = tmp_path / "replays"
    played = heights(
        "selfplay", "--games", "1", "--seed", "4", "--save-replays", str(saved), cwd=tmp_path
    )
    assert played.returncode == 0, played.stderr
    [written] = saved.iterdir()
    assert written.name == f"game-4{FILE_SUFFIX}"
    assert FILE_SUFFIX == ".replay.gz"
    old = tmp_path / "game-4.rhr"  # as `heights selfplay` named it before
    old.write_bytes(written.read_bytes())
    broken = tmp_path / "broken.rhr"
    broken.write_bytes(written.read_bytes()[:-8])

    done = heights("verify", str(written), str(old), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert [line.split(": ")[:2] for line in done.stdout.splitlines()] == [
        [str(written), "OK"],
        [str(old), "OK"],
    ]
    assert heights("verify", str(broken), cwd=tmp_path).returncode == 1
