"""Bot uploads through the real API: good files become versions, attacks create nothing."""

from __future__ import annotations

import hashlib
import io
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
    assert body["details"] == {"reason": reason}
    assert body["message"]
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
