"""Tournament scheduling through the API and the result hook.

Results are faked at the edge: a test writes a match's seat ranks and status, as the
matches app does when the runner reports, then calls `tournament_match_finished`.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Iterable
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from rest_framework.test import APIClient

from heights_platform.bots.models import Bot
from heights_platform.matches.models import Match
from heights_platform.tournaments import scheduling
from heights_platform.tournaments.models import Tournament, TournamentBye, TournamentEntry
from heights_platform.tournaments.services import tournament_match_finished, tournament_tick

URL = "/api/v1/tournaments/"

Strength = Callable[[Match], dict[int, int]]


class Arena:
    """A tournament with `n` entries: bot `b0` is the weakest, `b{n-1}` the strongest."""

    def __init__(
        self,
        owner_client: APIClient,
        client_for: Callable[[User], APIClient],
        make_user: Callable[..., User],
        make_active_bot: Callable[..., Bot],
        entries: int,
        **options: Any,
    ) -> None:
        now = timezone.now()
        body = {
            "name": "cup",
            "format": "round_robin",
            "players": 2,
            "registration_opens_at": (now - timedelta(hours=1)).isoformat(),
            "registration_closes_at": (now + timedelta(hours=1)).isoformat(),
            **options,
        }
        response = owner_client.post(URL, body, format="json")
        assert response.status_code == 201, response.json()
        self.id: int = response.json()["id"]
        self.client = owner_client
        self.bots: list[Bot] = []
        for i in range(entries):
            bot = make_active_bot(make_user(), f"b{i}")
            entered = client_for(bot.owner).post(f"{URL}{self.id}/entries/", {"bot": bot.pk})
            assert entered.status_code == 201, entered.json()
            self.bots.append(bot)
        self.strength = {bot.active_version_id: i for i, bot in enumerate(self.bots)}

    @property
    def tournament(self) -> Tournament:
        return Tournament.objects.get(pk=self.id)

    def start(self) -> dict[str, Any]:
        response = self.client.post(f"{URL}{self.id}/start/")
        assert response.status_code == 200, response.json()
        data: dict[str, Any] = response.json()
        return data

    def matches(self, round_number: int | None = None) -> list[Match]:
        qs = Match.objects.filter(tournament_id=self.id).order_by("tournament_round", "created_at")
        if round_number is not None:
            qs = qs.filter(tournament_round=round_number)
        return list(qs.prefetch_related("seats"))

    def tables(self, round_number: int | None = None) -> list[tuple[int, ...]]:
        """Each match's seats as bot indexes (b0 = 0), in seat order."""
        return [
            tuple(
                self.strength[s.bot_version_id] for s in sorted(m.seats.all(), key=lambda s: s.seat)
            )
            for m in self.matches(round_number)
        ]

    def finish(
        self, match: Match, *, failed: bool = False, ranks: dict[int, int] | None = None
    ) -> None:
        """Rank the seats (by strength unless `ranks` maps bot index to rank) and report."""
        seats = list(match.seats.all())
        order = sorted(seats, key=lambda s: -self.strength[s.bot_version_id])
        for position, seat in enumerate(order, start=1):
            index = self.strength[seat.bot_version_id]
            seat.rank = None if failed else (ranks or {}).get(index, position)
            seat.score = None if failed else 10 * index
            seat.save(update_fields=["rank", "score"])
        match.status = Match.Status.FAILED if failed else Match.Status.FINISHED
        match.finished_at = timezone.now()
        match.save(update_fields=["status", "finished_at"])
        tournament_match_finished(match=match)

    def play(self, matches: Iterable[Match] | None = None) -> None:
        for match in list(matches if matches is not None else self.open_matches()):
            self.finish(match)

    def open_matches(self) -> list[Match]:
        return [m for m in self.matches() if m.status == Match.Status.QUEUED]

    def play_out(self, limit: int = 20) -> None:
        for _ in range(limit):
            if self.tournament.status == Tournament.Status.FINISHED:
                return
            self.play()
        raise AssertionError("the tournament did not finish")

    def standings(self) -> dict[str, Any]:
        data: dict[str, Any] = self.client.get(f"{URL}{self.id}/standings/").json()
        return data

    def names_by_place(self) -> list[str]:
        return [row["bot_name"] for row in self.standings()["standings"]]


@pytest.fixture
def arena(
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    client_for: Callable[[User], APIClient],
) -> Callable[..., Arena]:
    owner_client = client_for(make_user("organiser"))

    def make(entries: int, **options: Any) -> Arena:
        return Arena(owner_client, client_for, make_user, make_active_bot, entries, **options)

    return make


def test_round_robin_every_pair_meets_once_and_seats_rotate(arena: Callable[..., Arena]) -> None:
    a = arena(5)
    data = a.start()
    assert data["current_round"] == data["rounds_total"] == data["progress"]["rounds_total"]
    tables = a.tables()
    pairs = Counter(frozenset(t) for t in tables)
    assert set(pairs) == {frozenset(p) for p in itertools.combinations(range(5), 2)}
    assert set(pairs.values()) == {1}
    for r in range(1, data["rounds_total"] + 1):
        seated = [b for t in a.tables(r) for b in t]
        assert len(seated) == len(set(seated))  # nobody plays twice in a round
    first = Counter(t[0] for t in tables)
    assert all(first[b] == 2 for b in range(5))  # each bot has seat 0 in half its games
    a.play()
    assert a.tournament.status == Tournament.Status.FINISHED
    assert a.names_by_place() == ["b4", "b3", "b2", "b1", "b0"]
    assert [row["points"] for row in a.standings()["standings"]] == [4, 3, 2, 1, 0]


def test_round_robin_three_players_every_pair_meets(arena: Callable[..., Arena]) -> None:
    a = arena(4, players=3)
    a.start()
    tables = a.tables()
    assert all(len(t) == 3 for t in tables)
    met = {frozenset(p) for t in tables for p in itertools.combinations(t, 2)}
    assert met == {frozenset(p) for p in itertools.combinations(range(4), 2)}


def test_duplicate_matches_share_seed_and_rotate_seats(arena: Callable[..., Arena]) -> None:
    a = arena(3, players=3, duplicate=True)
    a.start()
    matches = a.matches()
    assert len(matches) == 3  # one pairing, one match per rotation
    assert len({m.duplicate_group for m in matches}) == 1
    assert matches[0].duplicate_group is not None
    assert len({m.seed for m in matches}) == 1
    tables = a.tables()
    for seat in range(3):
        assert sorted(t[seat] for t in tables) == [0, 1, 2]  # each bot in each seat once
    assert {tables[0][i:] + tables[0][:i] for i in range(3)} == set(tables)


def test_duplicate_two_players_round_robin(arena: Callable[..., Arena]) -> None:
    a = arena(4, duplicate=True)
    a.start()
    matches = a.matches()
    assert len(matches) == 6 * 2
    groups: dict[Any, list[Match]] = {}
    for m in matches:
        groups.setdefault(m.duplicate_group, []).append(m)
    assert len(groups) == 6
    seeds = set()
    for group in groups.values():
        assert len(group) == 2
        assert group[0].seed == group[1].seed
        assert group[0].tournament_round == group[1].tournament_round
        seats = [sorted(group[i].seats.all(), key=lambda s: s.seat) for i in range(2)]
        assert [s.bot_version_id for s in seats[0]] == [s.bot_version_id for s in seats[1]][::-1]
        seeds.add(group[0].seed)
    assert len(seeds) == 6  # different pairings, different seeds
    a.play()
    rows = a.standings()["standings"]
    assert [r["points"] for r in rows] == [6, 4, 2, 0]
    assert rows[0]["tiebreaks"]["games"] == 6


def test_a_chosen_seed_fixes_every_match_seed_of_an_unrated_tournament(
    arena: Callable[..., Arena],
) -> None:
    first, second = arena(4, rated=False, seed=1234), arena(4, rated=False, seed=1234)
    first.start()
    second.start()
    assert [m.seed for m in first.matches()] == [m.seed for m in second.matches()]
    assert len({m.seed for m in first.matches()}) == 6
    assert all(m.seed_chosen for m in first.matches())
    other = arena(4, rated=False, seed=99)
    other.start()
    assert {m.seed for m in other.matches()}.isdisjoint({m.seed for m in first.matches()})


def test_rated_table_seeds_are_secret_draws_stored_on_the_matches(
    arena: Callable[..., Arena],
) -> None:
    a = arena(4, duplicate=True)
    a.start()
    matches = a.matches()
    tournament = a.tournament
    assert (tournament.rated, tournament.seed_chosen) == (True, False)
    derived = {
        scheduling.match_seed(tournament_seed=tournament.seed, round_number=r, table=t)
        for r in range(1, 4)
        for t in range(2)
    }
    assert not {m.seed for m in matches} & derived  # not a function of the tournament seed
    assert len({m.seed for m in matches}) == 6  # one draw per table, shared by its duplicates
    assert not any(m.seed_chosen for m in matches)
    listed = a.client.get(f"{URL}{a.id}/matches/").json()
    rows = [m for r in listed for m in r["matches"]]
    assert {r["seed_commitment"] for r in rows} == {m.seed_commitment for m in matches}
    assert {r["seed"] for r in rows} == {None}


def test_swiss_over_several_rounds(arena: Callable[..., Arena]) -> None:
    a = arena(8, format="swiss", swiss_rounds=3)
    data = a.start()
    assert (data["current_round"], data["rounds_total"]) == (1, 3)
    assert len(a.matches()) == 4
    seen: set[frozenset[int]] = set()
    for round_number in (1, 2, 3):
        assert a.tournament.current_round == round_number
        tables = a.tables(round_number)
        assert len(tables) == 4
        pairs = {frozenset(t) for t in tables}
        assert not pairs & seen  # no rematches
        seen |= pairs
        progress = a.client.get(f"{URL}{a.id}/").json()["progress"]
        assert progress["rounds_done"] == round_number - 1
        a.play(a.matches(round_number))
    assert a.tournament.status == Tournament.Status.FINISHED
    standings = a.standings()
    assert standings["final"] is True
    rows = standings["standings"]
    assert rows[0]["bot_name"] == "b7"
    assert rows[0]["points"] == 3
    points = [r["points"] for r in rows]
    assert points == sorted(points, reverse=True)
    assert sorted(Counter(points).items()) == [(0, 1), (1, 3), (2, 3), (3, 1)]
    assert [r["place"] for r in rows] == list(range(1, 9))
    detail = a.client.get(f"{URL}{a.id}/").json()
    assert detail["seed"] is not None
    assert detail["progress"] == {
        "rounds_done": 3,
        "rounds_total": 3,
        "current_round": 3,
        "matches_finished": 12,
        "matches_failed": 0,
        "matches_total": 12,
    }


def test_swiss_byes_score_as_wins_and_rotate(arena: Callable[..., Arena]) -> None:
    a = arena(5, format="swiss")  # default rounds: ceil(log2(5)) = 3
    assert a.start()["rounds_total"] == 3
    a.play_out()
    byes = list(TournamentBye.objects.filter(tournament_id=a.id).values_list("entry_id", flat=True))
    assert len(byes) == 3
    assert len(set(byes)) == 3  # nobody sits out twice
    entries = TournamentEntry.objects.filter(tournament_id=a.id)
    assert sum(e.points for e in entries) == 3 * 2 + 3  # two games a round, plus the byes
    assert all(e.tiebreaks["games"] + e.tiebreaks["byes"] == 3 for e in entries)


def test_elimination_with_byes_to_a_single_champion(arena: Callable[..., Arena]) -> None:
    a = arena(6, format="elimination")
    data = a.start()
    assert data["rounds_total"] == 3
    assert len(a.matches(1)) == 2  # 6 entries: the two top seeds sit out to make 4
    byes = TournamentBye.objects.filter(tournament_id=a.id, round=1)
    top = set(
        TournamentEntry.objects.filter(tournament_id=a.id, seed_number__in=(1, 2)).values_list(
            "pk", flat=True
        )
    )
    assert set(byes.values_list("entry_id", flat=True)) == top
    a.play()
    assert len(a.matches(2)) == 2
    a.play()
    assert len(a.matches(3)) == 1
    a.play()
    assert a.tournament.status == Tournament.Status.FINISHED
    rows = a.standings()["standings"]
    assert rows[0]["bot_name"] == "b5"
    assert rows[0]["eliminated_round"] is None
    assert [r["place"] for r in rows] == list(range(1, 7))
    out = [r["eliminated_round"] for r in rows[1:]]
    assert out == sorted(out, reverse=True)
    assert out[0] == 3
    assert TournamentEntry.objects.filter(tournament_id=a.id, eliminated=False).count() == 1


def test_elimination_with_four_player_tables(arena: Callable[..., Arena]) -> None:
    a = arena(7, format="elimination", players=4)
    data = a.start()
    assert data["rounds_total"] == 2
    # A bracket of 16: one bye, three tables of two, then a final table of four.
    assert sorted(len(t) for t in a.tables(1)) == [2, 2, 2]
    assert TournamentBye.objects.filter(tournament_id=a.id, round=1).count() == 1
    a.play_out()
    rows = a.standings()["standings"]
    assert rows[0]["bot_name"] == "b6"
    assert [len(t) for t in a.tables(2)] == [4]
    assert [r["eliminated_round"] for r in rows] == [None, 2, 2, 2, 1, 1, 1]


def test_elimination_duplicate_winner_by_points_over_the_group(
    arena: Callable[..., Arena],
) -> None:
    a = arena(2, format="elimination", duplicate=True)
    a.start()
    first, second = a.matches(1)
    a.finish(first, ranks={0: 1, 1: 2})  # the weak bot wins one seat
    assert a.tournament.status == Tournament.Status.RUNNING  # the duplicate is still due
    a.finish(second, ranks={0: 1, 1: 2})  # ... and the other
    assert a.names_by_place() == ["b0", "b1"]


def test_final_standings_tie_breaks(arena: Callable[..., Arena]) -> None:
    a = arena(4)  # round robin of b0..b3
    a.start()
    # b3 beats everyone; among the rest a cycle: b0 > b1 > b2 > b0 (one point each).
    winners = {
        frozenset((0, 1)): 0,
        frozenset((1, 2)): 1,
        frozenset((0, 2)): 2,
    }
    for match, table in zip(a.matches(), a.tables(), strict=True):
        pair = frozenset(table)
        winner = 3 if 3 in pair else winners[pair]
        a.finish(match, ranks={b: 1 if b == winner else 2 for b in table})
    rows = a.standings()["standings"]
    assert [r["points"] for r in rows] == [3, 1, 1, 1]
    assert rows[0]["bot_name"] == "b3"
    # Equal points, average rank and head to head: the total score decides (10 per index).
    assert [r["tiebreaks"]["head_to_head"] for r in rows[1:]] == [
        0.0,
        0.0,
        0.0,
    ]  # net pairwise: a cycle
    assert [r["bot_name"] for r in rows[1:]] == ["b2", "b1", "b0"]
    assert [r["place"] for r in rows] == [1, 2, 3, 4]
    assert {e.place for e in TournamentEntry.objects.filter(tournament_id=a.id)} == {1, 2, 3, 4}


def test_failed_match_is_a_draw(arena: Callable[..., Arena]) -> None:
    a = arena(2)
    a.start()
    (match,) = a.matches()
    a.finish(match, failed=True)
    assert a.tournament.status == Tournament.Status.FINISHED
    rows = a.standings()["standings"]
    assert [r["points"] for r in rows] == [0.5, 0.5]
    assert [r["place"] for r in rows] == [1, 1]  # equal on every tie-break: shared
    assert a.client.get(f"{URL}{a.id}/").json()["progress"]["matches_failed"] == 1


def test_match_finished_is_idempotent(arena: Callable[..., Arena]) -> None:
    a = arena(4, format="swiss", swiss_rounds=2)
    a.start()
    first, second = a.matches(1)
    a.finish(first)
    tournament_match_finished(match=first)  # round 1 not done yet: nothing happens
    assert a.tournament.current_round == 1
    a.finish(second)
    for _ in range(3):  # redeliveries of the last result of the round
        tournament_match_finished(match=second)
        tournament_tick(tournament_id=a.id)
    assert a.tournament.current_round == 2
    assert len(a.matches()) == 4
    a.play()
    points = sorted(
        TournamentEntry.objects.filter(tournament_id=a.id).values_list("points", flat=True)
    )
    for match in a.matches():
        tournament_match_finished(match=match)
    assert a.tournament.status == Tournament.Status.FINISHED
    assert len(a.matches()) == 4
    assert (
        sorted(TournamentEntry.objects.filter(tournament_id=a.id).values_list("points", flat=True))
        == points
    )


def test_tick_starts_after_registration_closes(arena: Callable[..., Arena]) -> None:
    a = arena(3, format="swiss")
    tournament_tick(tournament_id=a.id)
    assert a.tournament.status == Tournament.Status.REGISTRATION  # still open
    Tournament.objects.filter(pk=a.id).update(registration_closes_at=timezone.now())
    tournament_tick(tournament_id=a.id)
    tournament_tick(tournament_id=a.id)
    assert a.tournament.status == Tournament.Status.RUNNING
    assert len(a.matches()) == 1


def test_tick_cancels_when_too_few_entries(arena: Callable[..., Arena]) -> None:
    a = arena(1)
    Tournament.objects.filter(pk=a.id).update(registration_closes_at=timezone.now())
    tournament_tick(tournament_id=a.id)
    assert a.tournament.status == Tournament.Status.CANCELLED
    tournament_tick(tournament_id=999999)  # unknown: nothing to do


def test_live_standings_while_running(arena: Callable[..., Arena]) -> None:
    a = arena(4, format="swiss", swiss_rounds=2)
    a.start()
    a.finish(a.matches(1)[0])
    standings = a.standings()
    assert standings["final"] is False
    assert standings["progress"]["rounds_done"] == 0
    assert standings["progress"]["matches_finished"] == 1
    assert sum(r["points"] for r in standings["standings"]) == 1


def test_beat_task_ticks_due_tournaments(arena: Callable[..., Arena]) -> None:
    from heights_platform.tournaments.tasks import tournaments_tick_due

    due, later = arena(2), arena(2)
    Tournament.objects.filter(pk=due.id).update(registration_closes_at=timezone.now())
    assert tournaments_tick_due.run() == 1
    assert due.tournament.status == Tournament.Status.RUNNING
    assert later.tournament.status == Tournament.Status.REGISTRATION
    assert tournaments_tick_due.run() == 1  # the running one: nothing to advance yet
    assert len(due.matches()) == 1


@pytest.mark.django_db(transaction=True)
def test_concurrent_results_advance_the_round_exactly_once(
    arena: Callable[..., Arena], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two last results of a round recorded at once: one of them creates the next round."""
    import threading

    from django.db import connection, transaction

    from heights_platform.matches import services as match_services

    # Commits really happen here: keep the new matches off the (file) broker.
    monkeypatch.setattr(match_services, "match_enqueue", lambda *, match: None)
    a = arena(4, format="swiss", swiss_rounds=2)
    a.start()
    barrier = threading.Barrier(2)
    errors: list[BaseException] = []

    def record(match: Match) -> None:
        try:
            with transaction.atomic():
                for position, seat in enumerate(match.seats.all(), start=1):
                    seat.rank = position
                    seat.save(update_fields=["rank"])
                Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED)
                barrier.wait(timeout=10)  # both results written, neither committed
                tournament_match_finished(match=match)
        except BaseException as err:  # reported below, in the test's thread
            errors.append(err)
        finally:
            connection.close()

    threads = [threading.Thread(target=record, args=(m,)) for m in a.matches(1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert errors == []
    assert a.tournament.current_round == 2
    assert len(a.matches(2)) == 2


def test_failed_result_through_the_matches_app_finishes_the_tournament(
    arena: Callable[..., Arena],
) -> None:
    """The real result path: the matches app records a failed match and calls the hook."""
    from heights_platform.matches.services import match_result_record
    from heights_runner.contract import MatchResult

    a = arena(2, format="elimination")
    a.start()
    (match,) = a.matches()
    result = MatchResult(
        match_id=str(match.pk),
        status="failed",
        seed=match.seed,
        seed_commitment="",
        error="engine unavailable",
    )
    for _ in range(2):  # a redelivered result changes nothing
        match_result_record(result=result)
    assert a.tournament.status == Tournament.Status.FINISHED
    rows = a.standings()["standings"]
    assert [r["points"] for r in rows] == [0.5, 0.5]
    assert [r["seed_number"] for r in rows] == [1, 2]  # a drawn table goes to the top seed
    assert [r["place"] for r in rows] == [1, 2]
