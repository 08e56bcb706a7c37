"""Replays API: lists and filters, metadata, download, step browsing, verification."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from rest_framework.test import APIClient

from heights_platform.bots.models import Bot, BotVersion
from heights_platform.ladders.services import ladder_create
from heights_platform.matches.models import Match, MatchSeat
from heights_platform.matches.services import match_create, match_result_record
from heights_platform.replays import stepping
from heights_platform.replays.documents import step_documents
from heights_platform.replays.models import Replay
from heights_rules.actions import NUM_ACTIONS
from heights_rules.observation import PUBLIC
from heights_rules.replay import Replay as ReplayRecord
from heights_rules.replay import simulate
from heights_runner.contract import MatchResult


@pytest.fixture(autouse=True)
def _fresh_step_cache() -> None:
    stepping.cache_clear()


def _record(match: Match, play_result: Callable[..., MatchResult], **kwargs: Any) -> Replay:
    match_result_record(result=play_result(match, **kwargs))
    return Replay.objects.get(match=match)


@pytest.fixture
def finished(
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    play_result: Callable[..., MatchResult],
) -> dict[str, Any]:
    alice, bob = make_user("alice"), make_user("bob")
    a, b = make_active_bot(alice), make_active_bot(bob)
    va, vb = a.active_version, b.active_version
    assert isinstance(va, BotVersion)
    assert isinstance(vb, BotVersion)
    ladder = ladder_create(slug="duel", name="Duel", players=2)
    ladder_match = match_create(kind="ladder", seats=[va, vb], players=2, options={}, ladder=ladder)
    challenge = match_create(kind="challenge", seats=[vb, va], players=2, options={})
    queued = match_create(kind="challenge", seats=[va, vb], players=2, options={})
    return {
        "a": a,
        "b": b,
        "ladder_replay": _record(ladder_match, play_result, ranks=[1, 2]),  # a wins
        "challenge_replay": _record(challenge, play_result, ranks=[1, 2]),  # b wins
        "queued": queued,
    }


def _ids(api: APIClient, query: str = "") -> list[int]:
    response = api.get(f"/api/v1/replays/?{query}")
    assert response.status_code == 200, response.json()
    return [r["id"] for r in response.json()["results"]]


def test_list_and_filters(api: APIClient, finished: dict[str, Any]) -> None:
    lad, cha = finished["ladder_replay"].pk, finished["challenge_replay"].pk
    a, b = finished["a"], finished["b"]
    assert _ids(api) == [cha, lad]
    assert _ids(api, "kind=ladder") == [lad]
    assert _ids(api, "ladder=duel") == [lad]
    assert _ids(api, f"bot={a.pk}") == [cha, lad]
    assert _ids(api, "owner=BOB") == [cha, lad]
    assert _ids(api, f"winner={a.pk}") == [lad]
    assert _ids(api, f"winner={b.pk}") == [cha]
    assert _ids(api, "tournament=12345") == []
    later = (timezone.now() + timedelta(hours=1)).isoformat()
    earlier = (timezone.now() - timedelta(hours=1)).isoformat()
    assert _ids(api, f"created_after={later.replace('+', '%2B')}") == []
    assert _ids(api, f"created_after={earlier.replace('+', '%2B')}") == [cha, lad]
    assert _ids(api, "page_size=1") == [cha]
    row = api.get("/api/v1/replays/").json()["results"][0]
    assert row["seats"][0]["name"].startswith("bob/")
    assert row["kind"] == "challenge"


def test_list_rows_are_what_the_serializers_render(
    api: APIClient,
    finished: dict[str, Any],
    play_result: Callable[..., MatchResult],
) -> None:
    """The lists read seats as plain values (fast); their rows equal the serializers'."""
    from django.db.models import Prefetch

    from heights_platform.matches.apis import MatchOutputSerializer
    from heights_platform.matches.selectors import match_list, seats_prefetch
    from heights_platform.replays.apis import ReplayOutputSerializer

    a, b = finished["a"].active_version, finished["b"].active_version
    forfeited = match_create(kind="challenge", seats=[a, b], players=2, options={})
    _record(forfeited, play_result, forfeit_seat=1)  # a seat with a forfeit, too
    # The seats as the detail reads them (`seats_prefetch`: the forfeit detail as shown).
    seats = Prefetch("match__seats", queryset=seats_prefetch().queryset)
    replays = Replay.objects.select_related("match__ladder").prefetch_related(seats)
    expected = ReplayOutputSerializer(replays.order_by("-created_at"), many=True).data
    assert api.get("/api/v1/replays/").json()["results"] == json.loads(json.dumps(expected))
    assert any(seat["forfeit"] for row in expected for seat in row["seats"])

    expected = MatchOutputSerializer(match_list(), many=True).data
    got = api.get("/api/v1/matches/").json()["results"]
    assert got == json.loads(json.dumps(expected, default=str))
    assert [len(m["seats"]) for m in got] == [2, 2, 2, 2]


def test_detail(api: APIClient, finished: dict[str, Any]) -> None:
    replay: Replay = finished["ladder_replay"]
    body = api.get(f"/api/v1/replays/{replay.pk}/").json()
    match = replay.match
    assert body["sha256"] == replay.sha256 == hashlib.sha256(bytes(replay.data)).hexdigest()
    assert body["size"] == len(bytes(replay.data))
    assert body["steps"] == len(ReplayRecord.from_bytes(bytes(replay.data)).actions)
    assert body["match_detail"]["seed"] == body["seed"] == match.seed
    assert body["seed_text"] == str(match.seed)  # exact where JSON numbers are doubles
    assert body["seed_commitment"] == match.seed_commitment
    assert body["match_detail"]["seed_commitment"] == match.seed_commitment
    assert [s["rank"] for s in body["seats"]] == [1, 2]
    assert body["ladder"] == "duel"
    assert api.get("/api/v1/replays/999999/").json()["code"] == "not_found"


def test_download(api: APIClient, finished: dict[str, Any]) -> None:
    replay: Replay = finished["ladder_replay"]
    response = api.get(f"/api/v1/replays/{replay.pk}/download/")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/gzip"
    assert response.content == bytes(replay.data)
    assert hashlib.sha256(response.content).hexdigest() == replay.sha256
    assert response["ETag"] == f'"{replay.sha256}"'
    assert f"{replay.match_id}.replay.gz" in response["Content-Disposition"]
    assert json.loads(gzip.decompress(response.content))["format"] == "rolling-heights-replay"
    cached = api.get(
        f"/api/v1/replays/{replay.pk}/download/", HTTP_IF_NONE_MATCH=f'"{replay.sha256}"'
    )
    assert cached.status_code == 304
    assert cached.content == b""


def _public(state_view: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in state_view.items() if k != "infoset"}


def test_steps_match_the_simulation(api: APIClient, finished: dict[str, Any]) -> None:
    replay: Replay = finished["ladder_replay"]
    record = ReplayRecord.from_bytes(bytes(replay.data))
    last = len(record.actions)
    # Out of order on purpose: the cache must give the same answers as a fresh simulation.
    for step in (40, 5, 0, 41, 300 % last, last - 1, 40, last):
        response = api.get(f"/api/v1/replays/{replay.pk}/steps/{step}/")
        assert response.status_code == 200, response.json()
        body = response.json()
        state = simulate(record, upto=step)
        assert body["observation"] == json.loads(json.dumps(_public(state.observation(PUBLIC))))
        assert "infoset" not in body["observation"]
        assert body["step"] == step
        assert body["steps"] == last
        if step == last:
            assert body["action"] is None
            assert body["events"] == []
            continue
        action = record.actions[step]
        assert body["action"]["id"] == action
        actor = state.current_player()
        assert body["action"]["actor"] == ("chance" if actor < 0 else actor)
        assert body["action"]["debug"] == record.debug.get(step, "")
        events = state.clone().apply(action)
        assert [e["kind"] for e in body["events"]] == [e.kind for e in events]
        assert body["action"]["text"]


def test_a_step_shows_the_bots_debug_note(api: APIClient, finished: dict[str, Any]) -> None:
    replay: Replay = finished["ladder_replay"]
    record = ReplayRecord.from_bytes(bytes(replay.data))
    noted = sorted(record.debug)
    assert noted, "the fixture's bots left no notes"
    body = api.get(f"/api/v1/replays/{replay.pk}/steps/{noted[0]}/").json()
    assert body["action"]["debug"] == record.debug[noted[0]] != ""


def test_public_view_hides_the_seats_targets(api: APIClient, finished: dict[str, Any]) -> None:
    replay: Replay = finished["ladder_replay"]
    public = api.get(f"/api/v1/replays/{replay.pk}/steps/20/").json()
    assert public["viewer"] == "public"
    assert all("targets" not in p for p in public["observation"]["players"])
    seat = api.get(f"/api/v1/replays/{replay.pk}/steps/20/?viewer=1").json()
    assert seat["viewer"] == 1
    players = seat["observation"]["players"]
    assert "targets" in players[1]
    assert "targets" not in players[0]
    state = simulate(ReplayRecord.from_bytes(bytes(replay.data)), upto=20)
    assert seat["observation"] == json.loads(json.dumps(_public(state.observation(1))))


def test_steps_are_the_local_viewers_documents(api: APIClient, finished: dict[str, Any]) -> None:
    """`heights view --html` inlines documents simulated in one pass; the API's, from
    anchors and checkpoints, must be the same ones."""
    replay: Replay = finished["ladder_replay"]
    documents = list(step_documents(ReplayRecord.from_bytes(bytes(replay.data))))
    assert len(documents) == replay.steps + 1
    for step in (0, 1, 65, replay.steps - 1, replay.steps):
        body = api.get(f"/api/v1/replays/{replay.pk}/steps/{step}/").json()
        assert body == json.loads(json.dumps(documents[step]))


def test_step_errors(api: APIClient, finished: dict[str, Any]) -> None:
    replay: Replay = finished["ladder_replay"]
    too_far = api.get(f"/api/v1/replays/{replay.pk}/steps/{replay.steps + 1}/")
    assert too_far.status_code == 404
    assert too_far.json()["code"] == "not_found"
    bad_viewer = api.get(f"/api/v1/replays/{replay.pk}/steps/1/?viewer=9")
    assert bad_viewer.status_code == 400
    assert bad_viewer.json()["code"] == "invalid"
    # Refused at the door (the schema's enum): what is allowed, named.
    assert bad_viewer.json()["details"] == {
        "in": "query",
        "field": "viewer",
        "allowed": "one of 0, 1, 2, 3, public",
    }
    assert "viewer" in bad_viewer.json()["message"]
    no_such_seat = api.get(f"/api/v1/replays/{replay.pk}/steps/1/?viewer=3").json()
    assert no_such_seat["code"] == "invalid"
    expected = "viewer must be public or a seat 0..1 of this game, e.g. ?viewer=1"
    assert no_such_seat["message"] == expected
    assert no_such_seat["details"] == {"fields": {"viewer": ['"public" or a seat number 0-1']}}
    missing = api.get("/api/v1/replays/999999/steps/1/")
    assert missing.json()["code"] == "not_found"


def test_verify_real_result_and_tampering(
    api: APIClient,
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    play_result: Callable[..., MatchResult],
) -> None:
    bots = [make_active_bot(make_user()) for _ in range(3)]
    versions = [b.active_version for b in bots if b.active_version is not None]
    match = match_create(kind="challenge", seats=versions, players=3, options={})
    replay = _record(match, play_result, forfeit_seat=2)
    ok = api.get(f"/api/v1/replays/{replay.pk}/verify/").json()
    assert ok["ok"] is True, ok
    assert ok["first_difference"] is None
    assert ok["checks"] == {"sha256": True, "seed": True, "simulation": True, "ranks": True}

    # Recorded ranks that the game does not give: detected.
    seats = list(MatchSeat.objects.filter(match=match).order_by("seat"))
    MatchSeat.objects.filter(pk=seats[2].pk).update(rank=1)
    ranks = api.get(f"/api/v1/replays/{replay.pk}/verify/").json()
    assert ranks["ok"] is False
    assert ranks["checks"]["ranks"] is False
    MatchSeat.objects.filter(pk=seats[2].pk).update(rank=seats[2].rank)

    # One recorded decision changed to an action that is not legal there: the
    # re-simulation stops at that very step.
    record = ReplayRecord.from_bytes(bytes(replay.data))
    step = len(record.actions) // 2
    state = simulate(record, upto=step)
    record.actions[step] = next(a for a in range(NUM_ACTIONS) if a not in state.legal_actions())
    Replay.objects.filter(pk=replay.pk).update(data=record.to_bytes())
    tampered = api.get(f"/api/v1/replays/{replay.pk}/verify/").json()
    assert tampered["ok"] is False
    assert tampered["checks"]["sha256"] is False
    assert tampered["checks"]["simulation"] is False
    assert tampered["first_difference"]["step"] == step


def test_steps_start_from_the_stored_checkpoints(api: APIClient, finished: dict[str, Any]) -> None:
    replay: Replay = finished["ladder_replay"]
    record = ReplayRecord.from_bytes(bytes(replay.data))
    last = len(record.actions)
    every = stepping.CHECKPOINT_EVERY
    assert last > 2 * every  # a random 2-player game is long enough for a few
    stored = list(replay.checkpoints.order_by("step").values_list("step", flat=True))
    assert stored == list(range(every, last + 1, every))

    def observed(step: int) -> Any:
        stepping.cache_clear()  # as a process that has never seen this replay
        body = api.get(f"/api/v1/replays/{replay.pk}/steps/{step}/?viewer=1").json()
        return body["observation"]

    for step in (every, every + 1, 2 * every - 1, last):
        state = simulate(record, upto=step)
        assert observed(step) == json.loads(json.dumps(_public(state.observation(1))))
        nearest = step // every * every
        assert stepping.anchors(replay.sha256)[0] == nearest  # never simulated from 0

    # A checkpoint this rules core cannot read is skipped: the step is simulated instead.
    replay.checkpoints.filter(step=every).update(state=b"not a state")
    state = simulate(record, upto=every + 3)
    assert observed(every + 3) == json.loads(json.dumps(_public(state.observation(1))))


def test_checkpoints_fill_for_older_replays(finished: dict[str, Any]) -> None:
    from django.core.management import call_command

    from heights_platform.replays.models import ReplayCheckpoint

    replays = [finished["ladder_replay"], finished["challenge_replay"]]
    expected = sorted(ReplayCheckpoint.objects.values_list("replay_id", "step", "state"))
    ReplayCheckpoint.objects.all().delete()
    call_command("replay_checkpoints_fill", stdout=io.StringIO())
    stored = sorted(ReplayCheckpoint.objects.values_list("replay_id", "step", "state"))
    assert [(r, s, bytes(b)) for r, s, b in stored] == [(r, s, bytes(b)) for r, s, b in expected]
    assert {r for r, _, _ in stored} == {r.pk for r in replays}
    out = io.StringIO()
    call_command("replay_checkpoints_fill", stdout=out)  # nothing left to do
    assert "0 replay(s)" in out.getvalue()
