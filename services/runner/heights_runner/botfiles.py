"""Submitted bot files: checked again and unpacked before they run.

The checks are `heights_runner.bundle`'s, the same the platform runs on upload, so an
upload it accepted unpacks here; they run again because a worker trusts no message.
Nothing here runs the bot's code. Files are written one by one (never `extractall`),
and only under names the check accepted.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
from pathlib import Path, PurePosixPath

from heights_runner.bundle import BUNDLE_LIMITS, ENTRY_POINT, Bundle, BundleError, bundle_check
from heights_runner.contract import BotRef, FileKind

BotFileError = BundleError  # the name the runner's callers and tests know
MAX_ENTRIES = BUNDLE_LIMITS["entries"]
MAX_UNPACKED_BYTES = BUNDLE_LIMITS["unpacked_bytes"]
_SHA256 = re.compile(r"[0-9a-f]{64}")

__all__ = ["ENTRY_POINT", "BotFileError", "check_bot_file", "unpack_bot", "unpack_bundle"]


def check_bot_file(filename: str, content: bytes) -> FileKind:
    """Validate an upload and say what kind of bot it is; BotFileError otherwise."""
    return bundle_check(filename, content).kind


def unpack_bot(ref: BotRef, cache_dir: Path) -> Path:
    """The bot's folder, `cache_dir/<sha256>/` with `main.py`, unpacked once and read-only."""
    return unpack_bundle(ref, cache_dir)[0]


def unpack_bundle(ref: BotRef, cache_dir: Path) -> tuple[Path, Bundle]:
    """The bot's folder (`cache_dir/<sha256>/`, unpacked once and read-only) and what
    the check found in it: its language, entry point and build."""
    if ref.kind == "builtin":
        raise ValueError(f"built-in bot {ref.name!r} has no files to unpack")
    content = ref.content()  # checks the bytes against ref.sha256
    if not _SHA256.fullmatch(ref.sha256):
        raise ValueError(f"bot {ref.name!r}: malformed sha256")
    bundle = bundle_check(ref.name, content)
    if bundle.kind != ref.kind:
        raise BotFileError("wrong_type", f"{ref.name}: sent as {ref.kind}, but is a {bundle.kind}")
    target = cache_dir / ref.sha256
    if (target / bundle.entry).is_file():
        return target, bundle
    cache_dir.mkdir(parents=True, exist_ok=True)
    files = bundle.files
    staging = Path(tempfile.mkdtemp(prefix=f".{ref.sha256[:16]}-", dir=cache_dir))
    try:
        _write_tree(staging, files)
        os.rename(staging, target)
    except OSError:
        _remove_tree(staging)
        if not (target / bundle.entry).is_file():
            raise
        # Another worker unpacked the same bot first; its copy is identical.
    return target, bundle


def _write_tree(root: Path, files: dict[PurePosixPath, bytes]) -> None:
    for rel, data in files.items():
        dest = root.joinpath(*rel.parts)
        dest.parent.mkdir(parents=True, exist_ok=True)
        # O_EXCL | O_NOFOLLOW: never write through anything already there.
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
        fd = os.open(dest, flags, 0o444)
        with os.fdopen(fd, "wb") as out:
            out.write(data)
    # Folders read-only last, once everything is written; world-readable for the sandbox user.
    for folder in sorted((p for p in root.rglob("*") if p.is_dir()), reverse=True):
        folder.chmod(0o555)
    root.chmod(0o555)


def _remove_tree(root: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        for folder in [root, *(p for p in root.rglob("*") if p.is_dir())]:
            folder.chmod(0o755)  # read-only folders cannot be emptied by a non-root runner
        shutil.rmtree(root)
