"""Bot uploads through the real API: good files become versions, attacks create nothing."""

from __future__ import annotations

import hashlib
import io
import random
import re
import stat
import zipfile
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from heights_platform.bots.models import Bot, BotVersion
from heights_platform.matches.models import Match
from heights_runner.contract import MAX_BOT_BYTES

if TYPE_CHECKING:
    from rest_framework.response import _MonkeyPatchedResponse

Upload = Callable[[APIClient, Bot, str, bytes], "_MonkeyPatchedResponse"]

MAIN_PY = b"import sys\n\nfor line in sys.stdin:\n    print(line, flush=True)\n"


def _zip(*members: tuple[str, bytes], symlink: str | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members:
            archive.writestr(name, data)
        if symlink is not None:
            info = zipfile.ZipInfo(symlink)
            info.create_system = 3  # Unix: external_attr holds st_mode
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, "/etc/passwd")
    return buffer.getvalue()


@pytest.fixture
def owner(make_user: Callable[..., User]) -> User:
    return make_user("alice")


@pytest.fixture
def bot(owner: User, make_bot: Callable[..., Bot]) -> Bot:
    return make_bot(owner, "rocket")


@pytest.fixture
def client(owner: User, client_for: Callable[[User], APIClient]) -> APIClient:
    return client_for(owner)


def _assert_nothing_created() -> None:
    assert not BotVersion.objects.exists()
    assert not Match.objects.exists()


def test_good_uploads_create_version_1_then_2(
    bot: Bot, client: APIClient, upload_bot_file: Upload
) -> None:
    first = upload_bot_file(client, bot, "main.py", MAIN_PY)
    assert first.status_code == 201, first.json()
    body = first.json()
    assert body["number"] == 1
    assert body["kind"] == "py"
    assert body["filename"] == "main.py"
    assert body["size"] == len(MAIN_PY)
    assert body["sha256"] == hashlib.sha256(MAIN_PY).hexdigest()
    assert body["status"] == "qualifying"
    assert body["error"] == ""

    archive = _zip(
        ("main.py", b"from helper import go\ngo()\n"), ("helper.py", b"def go(): pass\n")
    )
    second = upload_bot_file(client, bot, "rocket.zip", archive)
    assert second.status_code == 201, second.json()
    assert second.json()["number"] == 2
    assert second.json()["kind"] == "zip"

    versions = list(BotVersion.objects.filter(bot=bot).order_by("number"))
    assert [v.number for v in versions] == [1, 2]
    assert bytes(versions[1].content) == archive
    for version in versions:
        match = version.qualification_match
        assert match is not None
        assert match.kind == Match.Kind.QUALIFICATION
        assert str(match.pk) in {
            first.json()["qualification_match"],
            second.json()["qualification_match"],
        }
    bot.refresh_from_db()
    assert bot.active_version_id is None  # until a version qualifies

    source = client.get(f"/api/v1/bots/{bot.pk}/versions/2/source/")
    assert source.status_code == 200
    assert source.content == archive
    assert source["Content-Type"] == "application/zip"
    assert "attachment" in source["Content-Disposition"]


def test_the_same_file_may_be_uploaded_again_as_a_new_version(
    bot: Bot, client: APIClient, upload_bot_file: Upload
) -> None:
    assert upload_bot_file(client, bot, "main.py", MAIN_PY).status_code == 201
    assert upload_bot_file(client, bot, "main.py", MAIN_PY).json()["number"] == 2


@pytest.mark.parametrize(
    "case",
    [
        ("main.zip", _zip(("main.py", MAIN_PY), ("../evil.py", b"x = 1\n")), "unsafe_path"),
        ("main.zip", _zip(("main.py", MAIN_PY), ("/etc/cron.d/x", b"x\n")), "unsafe_path"),
        ("main.zip", _zip(("main.py", MAIN_PY), symlink="data"), "link"),
        ("main.zip", _zip(("main.py", MAIN_PY), ("pad.bin", bytes(17 * 2**20))), "zip_bomb"),
        ("main.zip", _zip(("main.py", MAIN_PY), ("pad.bin", bytes(2 * 2**20))), "zip_bomb"),
        (
            "main.zip",
            _zip(("main.py", MAIN_PY), *((f"m{i}.py", b"") for i in range(200))),
            "too_many_files",
        ),
        ("main.zip", _zip(("bot.py", MAIN_PY)), "no_entry_point"),
        ("main.zip", _zip(("sub/main.py", MAIN_PY)), "no_entry_point"),
        ("main.zip", b"PK\x03\x04 this is not really a zip", "bad_zip"),
        ("main.exe", b"MZ\x90\x00", "wrong_type"),
        ("main.txt", MAIN_PY, "wrong_type"),
        ("main.py", b"\xff\xfe\x00print('hi')\n", "not_utf8"),
        ("main.py", b"def broken(:\n", "syntax_error"),
        # Deeper than json's recursion limit: RecursionError, a 500, before it was caught.
        ("bot.zip", _zip(("main.py", MAIN_PY), ("bot.json", b"[" * 4000)), "bad_manifest"),
    ],
    ids=[
        "zip-slip",
        "absolute-path",
        "symlink",
        "zip-bomb-size",
        "zip-bomb-ratio",
        "too-many-files",
        "no-main",
        "main-not-at-root",
        "bad-zip",
        "executable",
        "text-file",
        "not-utf8",
        "syntax-error",
        "manifest-nested-too-deep",
    ],
)
def test_a_refused_upload_is_400_with_its_reason_and_creates_nothing(
    bot: Bot, client: APIClient, upload_bot_file: Upload, case: tuple[str, bytes, str]
) -> None:
    filename, content, reason = case
    response = upload_bot_file(client, bot, filename, content)
    assert response.status_code == 400, response.json()
    body = response.json()
    assert body["code"] == "invalid_upload"
    assert body["details"]["reason"] == reason
    assert body["message"]
    _assert_nothing_created()


def _compressible(size: int) -> bytes:
    """Bytes that deflate about 35:1: big entries within the 1 MB upload and the ratio."""
    return bytes(random.Random(size).choices(b"ab", weights=[60, 1], k=size))


def _legacy_name_zip(raw: bytes) -> bytes:
    """An archive whose second entry's name is `raw` in cp437, not marked UTF-8."""
    content = bytearray(_zip(("main.py", MAIN_PY), ("x" * len(raw), b"x = 1\n")))
    placeholder = b"x" * len(raw)
    at = content.find(placeholder)
    while at != -1:
        content[at : at + len(raw)] = raw
        at = content.find(placeholder, at + len(raw))
    return bytes(content)


@pytest.mark.parametrize(
    "case",
    [
        ("m.zip", _zip(("main.py", MAIN_PY), ("a" * 300, b"")), "name_too_long", "name_bytes", 100),
        (
            "m.zip",
            _zip(("main.py", MAIN_PY), ("/".join(["d" * 60] * 5), b"")),
            "name_too_long",
            "path_bytes",
            255,
        ),
        ("m.zip", _zip(("main.py", MAIN_PY), ("a/" * 8 + "x.py", b"")), "too_deep", "depth", 8),
        (
            "m.zip",
            _zip(("main.py", MAIN_PY), *((f"f{i}", b"") for i in range(200))),
            "too_many_files",
            "entries",
            200,
        ),
        (
            "m.zip",
            _zip(("main.py", MAIN_PY), ("w.bin", _compressible(9 * 2**20))),
            "entry_too_large",
            "entry_bytes",
            8 * 2**20,
        ),
        (
            "m.zip",
            _zip(
                ("main.py", MAIN_PY),
                *((f"w{i}.bin", _compressible(7 * 2**20)) for i in range(3)),
            ),
            "zip_bomb",
            "unpacked_bytes",
            16 * 2**20,
        ),
        (
            "m.zip",
            _zip(("main.py", MAIN_PY), ("z.bin", bytes(4 * 2**20))),
            "zip_bomb",
            "ratio",
            100,
        ),
        (
            "m.zip",
            _zip(("main.py", MAIN_PY), ("a\x07b.py", b"")),
            "bad_name",
            "name_characters",
            "printable characters",
        ),
        (
            "m.zip",
            _zip(("main.py", MAIN_PY), ("a\u202eb.py", b"")),
            "bad_name",
            "name_characters",
            "printable characters",
        ),
        (
            "m.zip",
            _zip(("main.py", MAIN_PY), ("lib/CON.py", b"")),
            "bad_name",
            "device_names",
            "not CON, PRN, AUX, NUL, COM1-9 or LPT1-9",
        ),
        ("m.zip", _legacy_name_zip(b"caf\x82.py"), "bad_name", "name_encoding", "utf-8"),
        (
            "m.zip",
            _zip(("main.py", MAIN_PY), ("a/../b.py", b"")),
            "unsafe_path",
            "relative_path",
            "inside the bot's folder",
        ),
        (
            "m.zip",
            _zip(("main.py", MAIN_PY), ("./b.py", b"")),
            "unsafe_path",
            "relative_path",
            "inside the bot's folder",
        ),
        (
            "m.zip",
            _zip(("main.py", MAIN_PY), ("a//b.py", b"")),
            "unsafe_path",
            "relative_path",
            "inside the bot's folder",
        ),
        (
            "m.zip",
            _zip(("main.py", MAIN_PY), symlink="data"),
            "link",
            "entry_type",
            "regular files and folders",
        ),
        ("m.pyc", MAIN_PY, "wrong_type", "type", ".py, .js, .java, .cpp, .rs or .zip"),
    ],
    ids=[
        "300-char-name",
        "long-path",
        "deep",
        "entries",
        "entry-size",
        "total-size",
        "ratio",
        "control-char",
        "bidi-override",
        "device-name",
        "not-utf8-name",
        "dotdot-inside",
        "dot-component",
        "empty-component",
        "symlink",
        "upload-type",
    ],
)
def test_each_limit_is_a_400_naming_it_and_its_value(
    bot: Bot,
    client: APIClient,
    upload_bot_file: Upload,
    case: tuple[str, bytes, str, str, int | str],
) -> None:
    filename, content, reason, limit, value = case
    response = upload_bot_file(client, bot, filename, content)
    assert response.status_code == 400, response.json()
    body = response.json()
    assert body["code"] == "invalid_upload"
    assert body["details"]["reason"] == reason
    assert (body["details"]["limit"], body["details"]["value"]) == (limit, value)
    assert limit in body["message"] or reason in ("link", "unsafe_path", "bad_name", "wrong_type")
    _assert_nothing_created()


def test_an_upload_name_over_100_characters_is_refused(
    bot: Bot, client: APIClient, upload_bot_file: Upload
) -> None:
    response = upload_bot_file(client, bot, "b" * 101 + ".py", MAIN_PY)
    assert response.status_code == 400, response.json()
    assert response.json()["code"] == "invalid"
    assert "file" in response.json()["details"]["fields"]
    _assert_nothing_created()


@pytest.mark.parametrize(
    "size", [MAX_BOT_BYTES + 1, 3 * MAX_BOT_BYTES], ids=["just-over", "far-over"]
)
def test_an_oversized_upload_is_413_and_creates_nothing(
    bot: Bot, client: APIClient, upload_bot_file: Upload, size: int
) -> None:
    content = b"# " + b"x" * (size - 3) + b"\n"
    response = upload_bot_file(client, bot, "main.py", content)
    assert response.status_code == 413
    assert response.json()["code"] == "too_large"
    assert response.json()["details"] == {"limit": MAX_BOT_BYTES}
    # What was wrong (how big it was) and what is allowed: a file just over names its
    # size; one far over is refused by the request's declared length, unread.
    message = response.json()["message"]
    said = re.fullmatch(
        rf"(main\.py|the request): (\d+) bytes; a bot is at most {MAX_BOT_BYTES} bytes", message
    )
    assert said is not None, message
    assert int(said.group(2)) == size if said.group(1) == "main.py" else int(said.group(2)) > size
    _assert_nothing_created()


def test_a_declared_length_of_thousands_of_digits_is_a_413(bot: Bot, client: APIClient) -> None:
    # int() refuses a number of 4,300 digits or more: the check of the declared length
    # (before the body is read) raised ValueError, a 500, for anyone who could upload.
    from django.core.files.uploadedfile import SimpleUploadedFile

    url = f"/api/v1/bots/{bot.pk}/versions/"
    body = {"file": SimpleUploadedFile("main.py", MAIN_PY)}
    response = client.post(url, body, format="multipart", CONTENT_LENGTH="9" * 5000)
    assert response.status_code == 413, response.content
    assert response.json()["message"] == (
        f"the request: a length of 5000 digits; a bot is at most {MAX_BOT_BYTES} bytes"
    )
    _assert_nothing_created()


def test_an_upload_needs_a_multipart_file(bot: Bot, client: APIClient) -> None:
    url = f"/api/v1/bots/{bot.pk}/versions/"
    missing = client.post(url, {}, format="multipart")
    assert missing.status_code == 400
    assert missing.json()["code"] == "invalid"
    as_json = client.post(url, {"file": "print(1)"}, format="json")
    assert as_json.status_code == 415
    assert as_json.json()["code"] == "unsupported_media_type"
    _assert_nothing_created()


def test_uploads_are_throttled(
    bot: Bot, client: APIClient, upload_bot_file: Upload, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, "upload", "2/hour")
    assert upload_bot_file(client, bot, "main.py", MAIN_PY).status_code == 201
    assert upload_bot_file(client, bot, "main.txt", MAIN_PY).status_code == 400  # counts too
    response = upload_bot_file(client, bot, "main.py", MAIN_PY)
    assert response.status_code == 429
    assert response.json()["code"] == "throttled"
    assert BotVersion.objects.filter(bot=bot).count() == 1
    # Reads are not upload-throttled.
    assert client.get(f"/api/v1/bots/{bot.pk}/versions/").status_code == 200
