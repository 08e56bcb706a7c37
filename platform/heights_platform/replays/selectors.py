"""Reads of the replays app: lists with filters, one replay, its steps and its verification.

Replays are of finished games, so every seat's view may be shown (`viewer`), and the
seed is public; but a replay (and its seed) is listed and served only once every match
on its deal (its match's duplicate group, one seed) has ended (`Match.revealed`): until
then it would show the deal of a game not yet played, and `_revealed` refuses it as an
unfinished match's replay is refused, with why and how many matches remain.
Verification re-simulates the record (heights_rules.replay.verify) and
checks that the ranks it gives (heights_rules.ranking.final_ranks, as the runner ranks
a match: forfeiting seats last, the Mayor ranked in solo) are the ranks recorded for
the match, and that the stored bytes still match their sha256.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, ClassVar

import django_filters  # type: ignore[import-untyped]  # no stubs published
from django.db import connection
from django.db.models import Prefetch, QuerySet

from heights_platform.common.errors import ApiError
from heights_platform.matches.models import Match
from heights_platform.matches.selectors import IdFilter, SeatFilters, seats_prefetch
from heights_platform.replays import documents, stepping
from heights_platform.replays.models import Replay, ReplayCheckpoint
from heights_rules import PUBLIC, ReplayError
from heights_rules import Replay as ReplayRecord

# What a list row shows (ReplayOutputSerializer without seats): a match row is wide.
LIST_FIELDS = (
    "id",
    "match_id",
    "steps",
    "size",
    "sha256",
    "created_at",
    "match__kind",
    "match__tournament_id",
    "match__ladder__slug",
)


def replay_list_page() -> QuerySet[Replay]:
    """Replays, newest first, of revealed matches only (`Match.revealed`); a list page adds
    the seats with `matches.selectors.seat_values`."""
    rows = Replay.objects.filter(Match.revealed("match__")).select_related("match__ladder")
    return rows.only(*LIST_FIELDS).order_by("-created_at")


def replays_version() -> int:
    """Changes whenever a replay list could: a replay, its match's results and the
    match's `finished_seq` are written in one transaction, and never change after it
    (the key of cached list pages, common/page_cache.py). One index lookup."""
    # Raw SQL: compiling the ORM's aggregate costs more than running it.
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT MAX(finished_seq) FROM {Match._meta.db_table}")
        row = cursor.fetchone()
    return int(row[0] or 0) if row else 0


def access_replay_by_id(*, replay_id: int, with_data: bool = False) -> Replay:
    queryset = Replay.objects.select_related("match__ladder").prefetch_related(
        Prefetch("match__seats", queryset=seats_prefetch().queryset)
    )
    if not with_data:
        queryset = queryset.defer("data")
    return _revealed(queryset, replay_id)


def _revealed(replays: QuerySet[Replay], replay_id: int) -> Replay:
    """The replay `replay_id` of `replays` if its match is revealed (`Match.revealed`),
    read in the same query; else a 404 that says why."""
    replay = Match.with_secrecy(replays, "match__").filter(pk=replay_id).first()
    if replay is None:
        raise ApiError("not_found", "no such replay")
    if not getattr(replay, "seed_revealed", False):
        match = Match.objects.only("pk", "status", "duplicate_group").get(pk=replay.match_id)
        raise ApiError("not_found", match.withheld_message())
    return replay


def access_replay_data_by_id(*, replay_id: int) -> Replay:
    """Only the record and its checksum: what step browsing needs, in one small query."""
    return _revealed(Replay.objects.only("pk", "data", "sha256", "match_id"), replay_id)


class ReplayFilter(SeatFilters):
    match_ref: ClassVar[str] = "match_id"

    kind = django_filters.ChoiceFilter(field_name="match__kind", choices=Match.Kind.choices)
    ladder = django_filters.CharFilter(field_name="match__ladder__slug", help_text="Slug.")
    tournament = IdFilter(field_name="match__tournament_id")

    class Meta:
        model = Replay
        fields: ClassVar[list[str]] = []


def _data(replay: Replay) -> bytes:
    return bytes(replay.data)


# Raw SQL: on a step request the ORM would spend longer compiling this than it runs.
_CHECKPOINT_SQL = (
    f"SELECT step, state FROM {ReplayCheckpoint._meta.db_table}"
    " WHERE replay_id = %s AND step <= %s ORDER BY step DESC LIMIT 1"
)


def _checkpoints(replay_id: int) -> stepping.CheckpointLoader:
    def load(step: int) -> tuple[int, bytes] | None:
        with connection.cursor() as cursor:
            cursor.execute(_CHECKPOINT_SQL, [replay_id, step])
            row = cursor.fetchone()
        return None if row is None else (int(row[0]), bytes(row[1]))

    return load


def access_replay_for_steps_by_id(*, replay_id: int) -> Replay:
    """The replay's id and sha256 only: step browsing reads the record itself only when
    this process has not parsed it yet (`replay_step`), a row of tens of kB saved."""
    return _revealed(Replay.objects.only("pk", "sha256", "match_id"), replay_id)


def _record(replay: Replay) -> tuple[str, ReplayRecord]:
    """(key, parsed record). The key is the sha256 of bytes this process parsed: the
    stored sha256 finds them again without reading the row (replays are immutable; a row
    whose bytes no longer match it is read and parsed on every request, under its own
    digest, and verification reports it)."""
    cached = stepping.record_cached(sha256=replay.sha256)
    if cached is not None:
        return replay.sha256, cached
    data = bytes(Replay.objects.filter(pk=replay.pk).values_list("data", flat=True).get())
    digest = hashlib.sha256(data).hexdigest()
    try:
        return digest, stepping.record_load(sha256=digest, data=data)
    except ReplayError as err:
        raise ApiError("conflict", f"the replay is unreadable: {err}") from None


def replay_step(*, replay: Replay, step: int, viewer: int = PUBLIC) -> dict[str, Any]:
    """The observation before action `step` (0..steps; at `steps`, the final state), the
    action taken and its events. `viewer` is a seat or PUBLIC."""
    digest, record = _record(replay)
    if not 0 <= step <= len(record.actions):
        steps = len(record.actions)
        raise ApiError("not_found", f"step {step} is outside 0..{steps}", {"steps": steps})
    if viewer != PUBLIC and not 0 <= viewer < record.config.players:
        last = record.config.players - 1
        raise ApiError(
            "invalid",
            f"viewer must be public or a seat 0..{last} of this game, e.g. ?viewer={last}",
            {"fields": {"viewer": [f'"public" or a seat number 0-{last}']}},
        )
    try:
        view = stepping.step_view(
            sha256=digest, record=record, step=step, checkpoints=_checkpoints(replay.pk)
        )
    except ReplayError as err:
        raise ApiError("conflict", f"the replay cannot be simulated: {err}") from None
    return documents.step_document(record=record, view=view, viewer=viewer)


@dataclass(slots=True)
class VerifyReport:
    ok: bool
    steps: int
    message: str
    first_difference: dict[str, Any] | None
    checks: dict[str, bool] = field(default_factory=dict)


def replay_verify(*, replay: Replay) -> VerifyReport:
    from heights_rules import final_ranks, outcome, simulate, verify

    data = _data(replay)
    checks = {"sha256": hashlib.sha256(data).hexdigest() == replay.sha256}
    try:
        record = ReplayRecord.from_bytes(data)
    except ReplayError as err:
        unreadable: dict[str, Any] = {"step": None, "message": str(err)}
        return VerifyReport(False, 0, str(err), unreadable, checks | {"simulation": False})
    match = replay.match
    checks["seed"] = record.seed == match.seed
    result = verify(record)
    checks["simulation"] = result.ok
    if not result.ok:
        bad: dict[str, Any] = {"step": result.first_bad_step, "message": result.message}
        return VerifyReport(False, result.steps, result.message, bad, checks)
    seats = sorted(match.seats.all(), key=lambda s: s.seat)
    forfeited = {s.seat for s in seats if s.forfeit_reason}
    engine_ranks = outcome(simulate(record)).ranks  # the Mayor's too, in solo
    expected = list(final_ranks(engine_ranks, forfeited, solo=record.config.solo))[: len(seats)]
    recorded = [s.rank for s in seats]
    checks["ranks"] = expected == recorded
    ok = all(checks.values())
    diff: dict[str, Any] | None = None
    message = result.message
    if not checks["ranks"]:
        message = f"ranks {recorded} recorded, {expected} replayed"
        diff = {"step": None, "message": message}
    elif not ok:
        failed = [name for name, good in checks.items() if not good]
        message = f"checks failed: {', '.join(failed)}"
        diff = {"step": None, "message": message}
    return VerifyReport(ok, result.steps, message, diff, checks)
