"""The folder a worker's processes write their metrics to (prometheus_client's multiprocess
mode). Kept apart from `metrics`: prometheus_client reads PROMETHEUS_MULTIPROC_DIR when it
is first imported, so the folder is set up before anything imports it."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"


def prepare_multiprocess_dir(base: Path) -> Path:
    """A fresh, empty folder under `base` for this worker's metric files, set as
    PROMETHEUS_MULTIPROC_DIR. Never reused: an earlier worker's files would be summed in."""
    base.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="metrics-", dir=base))
    os.environ[MULTIPROC_ENV] = str(folder)
    return folder


def remove_multiprocess_dir(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)
