"""Nobody can compute a match's seed before it ends, from anything a seat sees.

Matches are created by the platform as it creates them in rated play (a ladder's
matchmaking, a rated duplicate tournament), played by the runner's match driver with
real sandboxed bot processes: a submitted "spy" that writes everything it is given to
its log, and the built-in greedy bot. An attacker then holds the spy's log (its hello
and its first observation: the markets and Ads the seed laid out), the seeds the runner
handed to the built-in bots, and every id and counter the platform shows, and searches:

- every seed below 2**24, by the first card of the level-2 market (one keyed BLAKE2b per
  seed, exactly as the rules draw it), confirmed by setting up the whole game;
- every seed derivable from small public numbers: the ladder's id and match count
  (`pk * 1_000_003 + count`, the matchmaking tie-break), a tournament seed below 2**12
  through the per-table derivation, the match's UUID, ids, sequence numbers, creation
  times, every integer in the spy's hello and observation, and the built-ins' own seeds
  and the simple ways back from them (`s >> 3`, `(s - seat) // 8`, ...).

A challenge whose owner chose a seed below 2**24 is played alongside: the same search
must find that one, so the search itself is shown to work.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Callable, Iterable, Iterator
from datetime import timedelta
from hashlib import blake2b
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.utils import timezone

from heights_platform.bots.models import Bot, BotVersion
from heights_platform.ladders.services import ladder_create, ladder_join, ladder_matchmake
from heights_platform.matches.models import Match, SeatLog
from heights_platform.matches.services import challenge_create, match_result_record, match_spec
from heights_platform.tournaments import scheduling
from heights_platform.tournaments.models import Tournament
from heights_platform.tournaments.services import tournament_entry_register, tournament_start
from heights_rules import GameConfig, RuleOptions, new_game
from heights_rules.catalogue import load_catalogue
from heights_rules.rng import KeyedRng
from heights_runner import launch
from heights_runner.engines import LocalEngine
from heights_runner.launch import LaunchPolicy
from heights_runner.match import play_match
from heights_runner.sandbox import probe

pytestmark = [
    pytest.mark.skipif(not probe().bwrap, reason="bubblewrap is not available"),
    pytest.mark.slow,
]

SEARCH_BITS = 24
CHOSEN = 2**SEARCH_BITS - 12_345  # the control: a chosen seed inside the searched space
OPTIONS = {"round_cap": 1}  # the seed shows in the first observation; one round is enough

SPY = """
import json, sys
from heights_sdk import Bot, run

class Spy(Bot):
    seen = False

    def on_start(self, hello):
        sys.stderr.write("HELLO " + json.dumps(hello) + "\\n")

    def choose(self, decision):
        if not Spy.seen:
            Spy.seen = True
            sys.stderr.write("OBS " + json.dumps(decision.observation) + "\\n")
        return decision.legal[0].id

run(Spy(name="spy"))
"""


class _Played:
    """The matches played, and the seeds the runner handed to built-in bots."""

    def __init__(self, tmp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.policy = LaunchPolicy(tmp / "bots")
        self.bot_seeds: list[tuple[int, int]] = []  # (seat, the bot's own seed)

        def start_seat(spec: Any, seed: int, policy: LaunchPolicy) -> Any:
            if spec.bot.kind == "builtin":
                seat = next(i for i, s in enumerate(self.spec.seats) if s is spec)
                self.bot_seeds.append((seat, seed))
            return launch.start_seat(spec, seed, policy)

        monkeypatch.setattr("heights_runner.seats.start_seat", start_seat)

    def play(self, match: Match) -> Match:
        self.spec = match_spec(match=match)
        result = play_match(self.spec, LocalEngine, self.policy)
        assert result.status == "finished", result.error
        recorded = match_result_record(result=result)
        assert recorded is not None
        assert recorded.status == Match.Status.FINISHED
        return recorded


def _observation(match: Match) -> tuple[dict[str, Any], dict[str, Any]]:
    """The spy's hello and first observation, from its seat log (what its owner reads)."""
    (log,) = SeatLog.objects.filter(seat__match=match, seat__bot_version__bot__name="spy")
    lines = {line[:5]: line[5:] for line in log.text.splitlines() if line[:5] in {"HELLO", "OBS {"}}
    hello = json.loads(lines["HELLO"].strip())
    observation = json.loads("{" + lines["OBS {"])
    return hello, observation


def _setup_key(config: GameConfig, seed: int) -> tuple[Any, ...]:
    state = new_game(config, seed)
    return tuple(map(tuple, state.market)), state.ads


def _observed_key(observation: dict[str, Any]) -> tuple[Any, ...]:
    """Markets (None where a starting placement took a card) and Ads, as setup has them."""
    catalogue = load_catalogue("reconstructed-v1")
    tile = {t.id: i for i, t in enumerate(catalogue.tiles)}
    ad = {a.id: i for i, a in enumerate(catalogue.ads)}
    markets = tuple(tuple(tile.get(c["tile"]) for c in market) for market in observation["markets"])
    return markets, tuple(sorted(ad[a] for a in observation["ads"]))


def _same_setup(observed: tuple[Any, ...], setup: tuple[Any, ...]) -> bool:
    (seen_markets, seen_ads), (markets, ads) = observed, setup
    cards = zip(sum(seen_markets, ()), sum(markets, ()), strict=True)
    return seen_ads == ads and all(seen in (None, card) for seen, card in cards)


class _Attack:
    """Recovers a seed whose game laid out the observed markets and Ads, if it can."""

    def __init__(self, config: GameConfig, observed: dict[Any, dict[str, Any]]) -> None:
        assert all(o["round"] == 0 for o in observed.values()), "not a setup observation"
        self.config = config
        # Starting placements take level-1 cards; the level-2 market is as setup laid it,
        # and its first card is the first draw of the level-2 pile's Fisher-Yates shuffle.
        self.pile = load_catalogue("reconstructed-v1").tiles_of_level(2)
        n = len(self.pile)
        self.data = b"pile2" + struct.pack("<Q", n - 1)
        self.n = n
        self.keys = {name: _observed_key(o) for name, o in observed.items()}
        self.tops: dict[int, list[Any]] = {}
        for name, key in self.keys.items():
            self.tops.setdefault(self.pile.index(key[0][1][0]), []).append(name)

    def filtered(self, candidates: Iterable[int]) -> Iterator[tuple[int, list[Any]]]:
        n, data, tops, unpack = self.n, self.data, self.tops, struct.Struct("<Q").unpack_from
        for seed in candidates:
            if not 0 <= seed < 2**64:
                continue
            top = unpack(blake2b(data, key=seed.to_bytes(8, "little")).digest())[0] % n
            if top in tops:
                yield seed, tops[top]

    def _level2_top(self, seed: int, cards: int) -> tuple[int, ...]:
        """The first `cards` cards of the level-2 market: the first draws of the shuffle."""
        rng, items = KeyedRng(seed), list(self.pile)
        for i in range(self.n - 1, self.n - 1 - cards, -1):
            j = rng.below(i + 1, b"pile2", i)
            items[i], items[j] = items[j], items[i]
        return tuple(items[: self.n - 1 - cards : -1])

    def recover(self, candidates: Iterable[int]) -> dict[Any, int]:
        found: dict[Any, int] = {}
        for seed, first_card_fits in self.filtered(candidates):
            top = self._level2_top(seed, 4)
            names = [name for name in first_card_fits if self.keys[name][0][1][:4] == top]
            if names:  # 1 in about 1.4 million seeds gets here: set up the whole game
                key = _setup_key(self.config, seed)
                found.update({name: seed for name in names if _same_setup(self.keys[name], key)})
        return found


def _small_number_seeds(matches: list[Match], numbers: Iterable[int]) -> Iterator[int]:
    """Seeds a platform could have derived from small public numbers."""
    for match in matches:
        yield from (match.pk.int >> 65, match.pk.int % 2**63, match.pk.int % 2**64)
        moment = match.created_at.timestamp()
        for delta in range(-5_000, 5_001):
            yield int(moment * 1000) + delta
        yield from range(int(moment) - 60, int(moment) + 61)
        if match.ladder_id is not None:
            base = match.ladder_id * 1_000_003
            yield from range(base, base + 10_000)
    for tournament_seed in range(2**12):
        for round_number in (1, 2):
            for table in range(2):
                yield scheduling.match_seed(
                    tournament_seed=tournament_seed, round_number=round_number, table=table
                )
    for number in numbers:
        yield from (number + d for d in range(-8, 9))


def _from_bot_seeds(bot_seeds: list[tuple[int, int]]) -> Iterator[int]:
    """The simple ways back from a bot's own seed to a match seed (the old `seed*8+seat`)."""
    for seat, own in bot_seeds:
        yield from (own, own >> 3, (own - seat) // 8, own - seat, own ^ seat, own % 2**63)
        yield from (own >> k for k in range(1, 64))


def _integers(data: Any) -> Iterator[int]:
    if isinstance(data, bool):
        return
    if isinstance(data, int):
        yield data
    elif isinstance(data, dict):
        for value in data.values():
            yield from _integers(value)
    elif isinstance(data, list):
        for value in data:
            yield from _integers(value)


def test_no_seat_can_recover_its_match_seed(
    make_active_bot: Callable[..., Bot],
    builtin_versions: dict[str, BotVersion],
    sent_tasks: list[dict[str, Any]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A plain ladder match here; the duplicate tournament below covers a duplicate group.
    monkeypatch.setattr(settings, "HEIGHTS_LADDER_DUPLICATE", False)
    owner = User.objects.create_user("spymaster", "spy@example.org", "pw-spy-9x!kq")
    spy = make_active_bot(owner, "spy", source=SPY, filename="main.py")
    greedy = builtin_versions["greedy"].bot
    played = _Played(tmp_path, monkeypatch)

    ladder = ladder_create(slug="duel", name="Duel", players=2, options=OPTIONS)
    for bot in (spy, greedy):
        ladder_join(ladder=ladder, bot=bot)
    (ladder_match,) = ladder_matchmake(ladder=ladder, limit=1)

    staff = User.objects.create_user("organiser", "org@example.org", "pw-org-9x!kq")
    staff.is_staff = True
    staff.save()
    now = timezone.now()
    tournament = Tournament.objects.create(
        owner=staff,
        name="cup",
        format=Tournament.Format.ROUND_ROBIN,
        players=2,
        options=OPTIONS,
        duplicate=True,
        seed=1,  # a tournament seed anyone could guess: the table seeds must not use it
        registration_opens_at=now,
        registration_closes_at=now + timedelta(hours=1),
    )
    for bot in (spy, greedy):
        tournament_entry_register(tournament=tournament, bot=bot, user=staff)
    tournament_start(tournament=tournament, user=staff)
    duplicates = list(Match.objects.filter(tournament=tournament))
    assert len(duplicates) == 2
    assert len({m.seed for m in duplicates}) == 1  # one secret seed for both rotations

    assert spy.active_version is not None
    control = challenge_create(
        user=owner,
        bot_version=spy.active_version,
        opponents=[builtin_versions["greedy"]],
        options=OPTIONS,
        seed=CHOSEN,
    )
    matches = [played.play(m) for m in (ladder_match, *duplicates, control)]

    observed: dict[Any, dict[str, Any]] = {}
    numbers: set[int] = {ladder.pk, tournament.pk, spy.pk, greedy.pk, owner.pk, staff.pk}
    for match in matches:
        hello, observation = _observation(match)
        observed[match.pk] = observation
        numbers |= set(_integers(hello)) | set(_integers(observation))
        numbers |= {match.finished_seq or 0, len(matches)}
    attack = _Attack(GameConfig(players=2, options=RuleOptions(round_cap=1)), observed)

    found = attack.recover(range(2**SEARCH_BITS))
    found |= attack.recover(_small_number_seeds(matches, numbers))
    found |= attack.recover(_from_bot_seeds(played.bot_seeds))

    assert found == {control.pk: CHOSEN}, "a rated match's seed was recovered"
    assert {m.pk for m in matches if m.seed_chosen} == {control.pk}
    assert len(played.bot_seeds) == len(matches)
    assert not {s for _, s in played.bot_seeds} & {m.seed for m in matches}
