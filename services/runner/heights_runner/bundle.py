"""A submitted bot's files: the one check the platform's upload and the runner both run.

A bot is one source file (its language by its suffix: `runtimes.EXTENSIONS`) or a zip
archive with `main.py` or a manifest (`bot.json`, `heights_runner.manifest`) at its
root. `bundle_check`
either refuses the upload with a `BundleError` naming the rule or limit it broke (and
the limit's value), or returns exactly the files the runner will write: whatever it
accepts, `heights_runner.botfiles.unpack_bot` can unpack. Nothing here runs the bot's
code (Python files are only compiled; other languages are built later, in the sandbox,
by `heights_runner.builds`) or touches the file system. Archives are read
entry by entry, never extracted, and only names that are canonical, portable and short
enough for any file system are accepted.

Public through `heights_runner.contract` (the platform imports it from there).
"""

from __future__ import annotations

import io
import stat
import unicodedata
import warnings
import zipfile
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Literal, cast

from heights_runner.bundle_error import BundleError as BundleError  # noqa: PLC0414 - re-exported
from heights_runner.manifest import default_build, parse_manifest
from heights_runner.runtimes import (
    EXTENSIONS,
    MANIFEST,
    RUNTIMES_BY_EXTENSION,
    RUNTIMES_BY_LANGUAGE,
    Runtime,
    main_class,
)

ENTRY_POINT = "main.py"
MAX_BOT_BYTES = 1_000_000  # the uploaded file or zip archive, compressed

# Every limit by its stable name; a refusal names one of these and its value. The name
# limits keep the runner's unpacking far inside Linux's NAME_MAX (255 bytes a component)
# and PATH_MAX (4096 bytes) under any sane cache folder.
BUNDLE_LIMITS: dict[str, int] = {
    "upload_bytes": MAX_BOT_BYTES,
    "filename_chars": 100,  # the uploaded file's own name (BotVersion.filename)
    "name_bytes": 100,  # one component of an entry's path, UTF-8
    "path_bytes": 255,  # an entry's whole path, UTF-8
    "depth": 8,  # components in an entry's path (main.py is 1)
    "entries": 200,  # files and folders in an archive
    "entry_bytes": 8 * 2**20,  # one entry, unpacked
    "unpacked_bytes": 16 * 2**20,  # all entries, unpacked
    # Source code compresses about 4:1; 100:1 for a large entry is a bomb, not a bot.
    "ratio": 100,
}
# Below this an entry's ratio is harmless (e.g. a file of blank lines).
_RATIO_FLOOR = 2**20
_UNIX = 3  # ZipInfo.create_system for Unix, where external_attr holds st_mode
_UTF8_FLAG = 0x800  # general purpose bit 11: the entry's name is UTF-8
# Names Windows reserves for devices (with any extension): an owner downloading their
# bot's source must be able to unpack it anywhere, not only on the runner's Linux.
_DEVICE_NAMES = frozenset(
    {"CON", "PRN", "AUX", "NUL"}
    | {f"COM{i}" for i in range(1, 10)}
    | {f"LPT{i}" for i in range(1, 10)}
)
# Control, format, surrogate and private-use characters, and line/paragraph separators:
# invisible or ambiguous in listings and terminals. Unassigned code points (Cn) are not
# refused, so that validation does not change with the Python's Unicode version.
_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Zl", "Zp"})

_FILES_ONLY: dict[str, str] = {"limit": "entry_type", "value": "regular files and folders"}

# A single file's kind is its suffix; an archive is "zip" whatever its language.
BundleKind = Literal["py", "js", "java", "cpp", "rs", "zip"]
_TYPES = f"{', '.join(EXTENSIONS)} or .zip"


@dataclass(frozen=True)
class Bundle:
    """An accepted bot: its kind, the files to write (by path relative to its folder),
    its language, its entry point and, for a compiled language, its build's argv."""

    kind: BundleKind
    files: dict[PurePosixPath, bytes] = field(repr=False)
    language: str = "python"
    entry: PurePosixPath = field(default_factory=lambda: PurePosixPath(ENTRY_POINT))
    build: tuple[str, ...] = ()

    @property
    def runtime(self) -> Runtime:
        return RUNTIMES_BY_LANGUAGE[self.language]


def _over(code: str, limit: str, what: str, entry: str | None = None) -> BundleError:
    value = BUNDLE_LIMITS[limit]
    return BundleError(
        code, f"{what}: over the limit {limit} = {value}", limit=limit, value=value, entry=entry
    )


def _unsafe(message: str, raw: str) -> BundleError:
    return BundleError(
        "unsafe_path", message, limit="relative_path", value="inside the bot's folder", entry=raw
    )


def bundle_check(filename: str, content: bytes) -> Bundle:
    """Validate an upload (its name and bytes); the files to unpack, or BundleError."""
    _check_upload_name(filename)
    if len(content) > MAX_BOT_BYTES:
        raise _over("too_large", "upload_bytes", f"{filename}: {len(content)} bytes")
    suffix = PurePosixPath(filename).suffix.lower()
    if suffix in RUNTIMES_BY_EXTENSION:
        return _single_file(filename, content, RUNTIMES_BY_EXTENSION[suffix])
    if suffix == ".zip":
        return _check_archive(content)
    raise BundleError(
        "wrong_type",
        f"{filename}: expected a source file ({', '.join(EXTENSIONS)}) or a .zip archive",
        limit="type",
        value=_TYPES,
    )


def _single_file(filename: str, content: bytes, runtime: Runtime) -> Bundle:
    """One source file, stored as the language's entry point; a Java file keeps its
    name, which its public class must match."""
    entry = PurePosixPath(runtime.entry)
    if runtime.language == "java":
        entry = PurePosixPath(PurePosixPath(filename).stem + ".java")
        if not main_class(str(entry)).isidentifier():
            raise BundleError(
                "bad_name",
                f"{filename}: a Java file is named after its public class",
                limit="java_class",
                value="a Java identifier followed by .java, e.g. Main.java",
            )
    _check_source(content, filename, runtime)
    kind = cast(BundleKind, runtime.extension[1:])
    bundle = Bundle(kind, {entry: content}, runtime.language, entry)
    return _with_build(bundle)


def _with_build(bundle: Bundle) -> Bundle:
    if not bundle.runtime.compiled or bundle.build:
        return bundle
    build = default_build(bundle.runtime, bundle.entry)
    return Bundle(bundle.kind, bundle.files, bundle.language, bundle.entry, build)


def _check_source(source: bytes, name: str, runtime: Runtime) -> None:
    """Python compiles here; other languages only need to be UTF-8 text until built."""
    if runtime.language == "python":
        _compile(source, name)
        return
    try:
        source.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BundleError("not_utf8", f"{name}: not UTF-8 text ({exc.reason})") from None


def _check_upload_name(filename: str) -> None:
    shown = repr(filename[:120])
    if len(filename) > BUNDLE_LIMITS["filename_chars"]:
        raise _over("bad_name", "filename_chars", f"file name {shown}: {len(filename)} characters")
    if not filename or "/" in filename or "\\" in filename or "\0" in filename:
        raise BundleError(
            "bad_name", f"file name {shown}: empty, or a path", limit="filename", value="a name"
        )
    _check_characters(filename, f"file name {shown}")


def _check_characters(name: str, shown: str) -> None:
    for char in name:
        if unicodedata.category(char) in _REFUSED_CATEGORIES:
            raise BundleError(
                "bad_name",
                f"{shown}: control or invisible character U+{ord(char):04X} in its name",
                limit="name_characters",
                value="printable characters",
            )


def _compile(source: bytes, name: str) -> None:
    try:
        text = source.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BundleError("not_utf8", f"{name}: not UTF-8 text ({exc.reason})") from None
    try:
        # Compile only. Warnings (e.g. invalid escapes) are the author's business, not errors.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(text, name, "exec", dont_inherit=True)
    except SyntaxError as exc:
        raise BundleError("syntax_error", f"{name}, line {exc.lineno}: {exc.msg}") from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise BundleError("syntax_error", f"{name}: does not compile ({exc})") from None


def _open_zip(content: bytes) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(io.BytesIO(content))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError) as exc:
        raise BundleError("bad_zip", f"not a readable zip archive: {exc}") from None


def _entry_path(info: zipfile.ZipInfo) -> PurePosixPath:
    """The entry's path relative to the bot folder, or BundleError if its name is not a
    canonical, portable relative path within the name limits."""
    raw = info.orig_filename  # before zipfile cuts it at a NUL
    shown = repr(raw[:120])
    if not info.flag_bits & _UTF8_FLAG and not raw.isascii():
        raise BundleError(
            "bad_name",
            f"entry {shown}: a non-ASCII name not marked as UTF-8",
            limit="name_encoding",
            value="utf-8",
            entry=raw,
        )
    if "\\" in raw or "\0" in raw or ":" in raw or raw.startswith("/"):
        raise _unsafe(f"entry {shown}: absolute path, backslash, NUL or drive", raw)
    body = raw[:-1] if raw.endswith("/") else raw
    parts = body.split("/")
    if len(parts) > BUNDLE_LIMITS["depth"]:
        raise _over("too_deep", "depth", f"entry {shown}: {len(parts)} levels", raw)
    for part in parts:
        _check_component(part, shown, raw)
    if len(body.encode()) > BUNDLE_LIMITS["path_bytes"]:
        raise _over("name_too_long", "path_bytes", f"entry {shown}", raw)
    return PurePosixPath(body)


def _check_component(part: str, shown: str, raw: str) -> None:
    if part in ("", ".", ".."):
        raise _unsafe(f"entry {shown}: empty, '.' or '..' component", raw)
    if len(part.encode()) > BUNDLE_LIMITS["name_bytes"]:
        raise _over("name_too_long", "name_bytes", f"entry {shown}: component {part[:40]!r}", raw)
    if part.split(".", 1)[0].upper() in _DEVICE_NAMES:
        raise BundleError(
            "bad_name",
            f"entry {shown}: {part!r} is a reserved device name",
            limit="device_names",
            value="not CON, PRN, AUX, NUL, COM1-9 or LPT1-9",
            entry=raw,
        )
    _check_characters(part, f"entry {shown}")


def _check_entry(info: zipfile.ZipInfo) -> PurePosixPath:
    """Name, type and encryption of one entry; its sizes are checked by `_entries`."""
    path = _entry_path(info)
    raw = info.orig_filename
    shown = repr(raw[:120])
    mode = info.external_attr >> 16 if info.create_system == _UNIX else 0
    if stat.S_ISLNK(mode):
        raise BundleError(
            "link", f"entry {shown}: symbolic links are not allowed", **_FILES_ONLY, entry=raw
        )
    if mode and stat.S_IFMT(mode) and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise BundleError(
            "unsafe_path", f"entry {shown}: not a regular file or folder", **_FILES_ONLY, entry=raw
        )
    if info.flag_bits & 0x1:
        raise BundleError(
            "bad_zip",
            f"entry {shown}: encrypted entries are not allowed",
            limit="encryption",
            value="none",
            entry=raw,
        )
    return path


def _check_sizes(info: zipfile.ZipInfo, total: int) -> None:
    shown = f"entry {info.orig_filename[:120]!r}"
    ratio = info.file_size / max(info.compress_size, 1)
    if info.file_size > _RATIO_FLOOR and ratio > BUNDLE_LIMITS["ratio"]:
        raise _over("zip_bomb", "ratio", f"{shown} inflates {ratio:.0f}x")
    if info.file_size > BUNDLE_LIMITS["entry_bytes"]:
        raise _over("entry_too_large", "entry_bytes", f"{shown}: {info.file_size} bytes")
    if total > BUNDLE_LIMITS["unpacked_bytes"]:
        raise _over("zip_bomb", "unpacked_bytes", f"the archive unpacks to {total} bytes")


def _entries(archive: zipfile.ZipFile) -> dict[PurePosixPath, zipfile.ZipInfo]:
    """Every file entry by its path, after the checks that need the whole listing."""
    infos = archive.infolist()
    if len(infos) > BUNDLE_LIMITS["entries"]:
        raise _over("too_many_files", "entries", f"{len(infos)} entries")
    total = 0
    files: dict[PurePosixPath, zipfile.ZipInfo] = {}
    folders: set[PurePosixPath] = set()
    for info in infos:
        path = _check_entry(info)
        total += info.file_size
        _check_sizes(info, total)
        if info.is_dir():
            folders.add(path)
            continue
        if path in files:
            raise BundleError("unsafe_path", f"entry {info.filename!r} appears twice")
        files[path] = info
        folders.update(path.parents)
    for path in files:
        if path in folders:
            raise BundleError("unsafe_path", f"entry {str(path)!r} is both a file and a folder")
    return files


def _read(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """The entry's bytes; never more than it declares (zipfile checks the CRC at its end)."""
    try:
        with archive.open(info) as stream:
            data = stream.read(info.file_size + 1)
    except (zipfile.BadZipFile, OSError, ValueError, NotImplementedError, EOFError) as exc:
        raise BundleError("bad_zip", f"entry {info.filename!r}: {exc}") from None
    if len(data) > info.file_size:
        raise BundleError("zip_bomb", f"entry {info.filename!r}: larger than it declares")
    return data


def _check_archive(content: bytes) -> Bundle:
    with _open_zip(content) as archive:
        files = {path: _read(archive, info) for path, info in _entries(archive).items()}
    manifest = files.get(PurePosixPath(MANIFEST))
    if manifest is not None:
        parsed = parse_manifest(manifest)
        source = files.get(parsed.entry)
        if source is None:
            raise BundleError(
                "no_entry_point", f"{MANIFEST} names the entry {str(parsed.entry)!r}: not a file"
            )
        _check_source(source, str(parsed.entry), parsed.runtime)
        bundle = Bundle("zip", files, parsed.runtime.language, parsed.entry, parsed.build)
        return _with_build(bundle)
    main = files.get(PurePosixPath(ENTRY_POINT))
    if main is None:
        nested = sorted(str(p) for p in files if p.name in (ENTRY_POINT, MANIFEST))
        hint = f" (found {nested[0]}: zip the folder's contents, not the folder)" if nested else ""
        raise BundleError(
            "no_entry_point", f"no {ENTRY_POINT} or {MANIFEST} at the archive's root{hint}"
        )
    _compile(main, ENTRY_POINT)
    return Bundle("zip", files)
