"""An archive's `bot.json`: the language, the entry point and the build command.

```json
{"language": "cpp", "entry": "main.cpp", "build": "g++ -std=c++17 -O2 -o /build/bot main.cpp"}
```

`language` is required (one of `runtimes.LANGUAGES`); `entry` defaults to the
language's (`main.cpp`); `build`, for compiled languages only, defaults to the
language's own command. A build command is split like a shell's words (quotes, no
variables, pipes or redirections: nothing runs a shell) and runs in the bot's folder.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import PurePosixPath

from heights_rules import DocumentTooDeepError, bounded_json_loads
from heights_runner.bundle_error import BundleError
from heights_runner.runtimes import (
    BUILD_COMMAND_CHARS,
    LANGUAGES,
    MANIFEST,
    MANIFEST_BYTES,
    RUNTIMES_BY_LANGUAGE,
    Runtime,
)

_KEYS = ("language", "entry", "build")
_EXAMPLE = '{"language": "cpp", "entry": "main.cpp"}'


@dataclass(frozen=True, slots=True)
class Manifest:
    runtime: Runtime
    entry: PurePosixPath
    build: tuple[str, ...]  # the build's argv; empty for interpreted languages


def _refuse(message: str, value: str = f"a JSON object like {_EXAMPLE}") -> BundleError:
    return BundleError("bad_manifest", f"{MANIFEST}: {message}", limit="manifest", value=value)


def parse_manifest(data: bytes) -> Manifest:
    """The manifest's content, or BundleError (`bad_manifest`) naming what is wrong."""
    if len(data) > MANIFEST_BYTES:
        raise _refuse(f"{len(data)} bytes, over {MANIFEST_BYTES}")
    try:
        # The rules core's reader of untrusted JSON: 4096 bytes of "[" are deeper than
        # json parses (a RecursionError, a 500 of ours).
        document = bounded_json_loads(data.decode("utf-8"))
    except DocumentTooDeepError as exc:
        raise _refuse(f"JSON nested too deep (over {exc.limit} levels)") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _refuse(f"not UTF-8 JSON ({exc})") from None
    if not isinstance(document, dict):
        raise _refuse("not a JSON object")
    if unknown := sorted(set(document) - set(_KEYS)):
        raise _refuse(f"unknown key {unknown[0]!r}", value=f"keys {', '.join(_KEYS)}")
    language = document.get("language")
    if language not in RUNTIMES_BY_LANGUAGE:
        raise _refuse(f"language {language!r} is not one we run", value=", ".join(LANGUAGES))
    runtime = RUNTIMES_BY_LANGUAGE[language]
    entry = _entry(document.get("entry", runtime.entry), runtime)
    return Manifest(runtime, entry, _build(document.get("build"), runtime, entry))


def _entry(value: object, runtime: Runtime) -> PurePosixPath:
    allowed = f"a relative path ending in {runtime.extension}"
    if not isinstance(value, str) or not value.endswith(runtime.extension):
        raise _refuse(f"entry {value!r} is not a {runtime.title} file", value=allowed)
    path = PurePosixPath(value)
    if path.is_absolute() or any(part in ("", ".", "..") for part in value.split("/")):
        raise _refuse(f"entry {value!r} is not inside the bot's folder", value=allowed)
    return path


def default_build(runtime: Runtime, entry: PurePosixPath) -> tuple[str, ...]:
    return tuple(shlex.split(runtime.build.format(entry=shlex.quote(str(entry)))))


def _build(value: object, runtime: Runtime, entry: PurePosixPath) -> tuple[str, ...]:
    if value is None:
        return default_build(runtime, entry) if runtime.compiled else ()
    if not runtime.compiled:
        raise _refuse(f"{runtime.title} bots are not built", value="no build key")
    allowed = f"a command of at most {BUILD_COMMAND_CHARS} characters, e.g. {runtime.build!r}"
    if not isinstance(value, str) or not value.strip() or len(value) > BUILD_COMMAND_CHARS:
        raise _refuse("build must be a non-empty command", value=allowed)
    try:
        argv = tuple(shlex.split(value))
    except ValueError as exc:
        raise _refuse(f"build command {value[:80]!r}: {exc}", value=allowed) from None
    if any("\0" in arg for arg in argv):
        raise _refuse("build command holds a NUL", value=allowed)
    return argv
