"""Bots in every language through the real API: the runtimes list, uploads by suffix or
manifest, refusals that name what is allowed, and the match spec the runner receives."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from heights_platform.bots.models import Bot, BotVersion
from heights_runner.contract import MatchSpec
from heights_runner.runtimes import RUNTIMES

if TYPE_CHECKING:
    from rest_framework.response import _MonkeyPatchedResponse

Upload = Callable[[APIClient, Bot, str, bytes], "_MonkeyPatchedResponse"]


def _zip(*members: tuple[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in members:
            archive.writestr(name, text)
    return buffer.getvalue()


@pytest.fixture
def owner(make_user: Callable[..., User]) -> User:
    return make_user("carol")


@pytest.fixture
def client(owner: User, client_for: Callable[[User], APIClient]) -> APIClient:
    return client_for(owner)


def test_the_runtimes_list_is_the_runners_table(api: APIClient) -> None:
    body = api.get("/api/v1/runtimes/").json()
    assert [r["language"] for r in body["runtimes"]] == [r.language for r in RUNTIMES]
    by_language = {r["language"]: r for r in body["runtimes"]}
    assert by_language["java"]["version"].startswith("OpenJDK 17")
    assert by_language["java"]["processes"] == 32
    assert by_language["cpp"]["compiled"] is True
    assert by_language["javascript"]["compiled"] is False
    assert body["manifest"] == "bot.json"
    assert body["limits"]["memory_mib"] == 512
    assert body["build_limits"]["seconds"] == 60
    assert "runtimes" in api.get("/api/v1/").json()  # the index links to it


@pytest.mark.parametrize(
    ("filename", "kind"),
    [("rocket.js", "js"), ("Rocket.java", "java"), ("rocket.cpp", "cpp"), ("rocket.rs", "rs")],
)
def test_a_source_file_in_any_language_becomes_a_version_to_qualify(
    *,
    client: APIClient,
    owner: User,
    make_bot: Callable[..., Bot],
    upload_bot_file: Upload,
    sent_tasks: list[dict[str, Any]],
    django_capture_on_commit_callbacks: Any,
    filename: str,
    kind: str,
) -> None:
    bot = make_bot(owner, "rocket")
    with django_capture_on_commit_callbacks(execute=True):
        response = upload_bot_file(client, bot, filename, b"// a bot\n")
    assert response.status_code == 201, response.json()
    version = BotVersion.objects.get(bot=bot)
    assert (version.kind, version.status) == (kind, BotVersion.Status.QUALIFYING)
    source = client.get(f"/api/v1/bots/{bot.pk}/versions/1/source/")
    assert source.content == b"// a bot\n"
    # The qualification match reaches the runner with the file's kind, to build and run.
    (task,) = [t for t in sent_tasks if t["name"] == "heights_runner.play_match"]
    spec = MatchSpec.from_dict(task["args"][0])
    assert [s.bot.kind for s in spec.seats if s.bot.kind != "builtin"] == [kind]


def test_an_archive_names_its_language_in_its_manifest(
    client: APIClient, owner: User, make_bot: Callable[..., Bot], upload_bot_file: Upload
) -> None:
    bot = make_bot(owner, "crab")
    archive = _zip(("bot.json", '{"language": "rust"}'), ("main.rs", "fn main() {}"))
    response = upload_bot_file(client, bot, "crab.zip", archive)
    assert response.status_code == 201, response.json()
    assert BotVersion.objects.get(bot=bot).kind == "zip"


@pytest.mark.parametrize(
    ("members", "message", "allowed"),
    [
        ([("bot.json", '{"language": "cobol"}')], "cobol", "python, javascript, java"),
        ([("bot.json", '{"language": "rust", "main": "x"}')], "unknown key", "keys language"),
        (
            [("bot.json", '{"language": "python", "build": "make"}'), ("main.py", "")],
            "not built",
            "no build key",
        ),
        ([("bot.json", '{"language": "cpp", "entry": "src/bot.cpp"}')], "not a file", None),
    ],
)
def test_a_bad_manifest_is_refused_saying_what_is_allowed(
    *,
    client: APIClient,
    owner: User,
    make_bot: Callable[..., Bot],
    upload_bot_file: Upload,
    members: list[tuple[str, str]],
    message: str,
    allowed: str | None,
) -> None:
    bot = make_bot(owner, "bad")
    response = upload_bot_file(client, bot, "bad.zip", _zip(*members))
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid_upload"
    assert message in body["message"]
    if allowed is not None:
        assert body["details"]["limit"] == "manifest"
        assert allowed in body["details"]["value"]
    assert not BotVersion.objects.exists()


def test_an_unknown_suffix_is_refused_listing_the_languages(
    client: APIClient, owner: User, make_bot: Callable[..., Bot], upload_bot_file: Upload
) -> None:
    response = upload_bot_file(client, make_bot(owner, "gopher"), "main.go", b"package main")
    assert response.status_code == 400
    assert response.json()["details"] == {
        "reason": "wrong_type",
        "limit": "type",
        "value": ".py, .js, .java, .cpp, .rs or .zip",
    }
