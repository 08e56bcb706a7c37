"""Fixtures shared by the runner tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest


@pytest.fixture
def make_bot(tmp_path: Path) -> Callable[[str, str], Path]:
    """Makes a bot folder (`tmp_path/<name>/main.py` holding `source`) for the sandbox tests."""

    def make(name: str, source: str) -> Path:
        folder = tmp_path / name
        folder.mkdir()
        (folder / "main.py").write_text(source)
        return folder

    return make
