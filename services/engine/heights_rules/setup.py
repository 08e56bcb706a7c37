"""Setting up a game (RULES.md §2, §3 and §8.1): everything random is drawn here by key."""

from __future__ import annotations

from heights_rules.catalogue import GRID_COLS, GRID_ROWS, MARKET_SIZE, Catalogue
from heights_rules.components import CUBE_COUNTS, MEEPLE_COUNTS, Bucket, Meeple
from heights_rules.frames import F, frame
from heights_rules.geometry import MapGeometry, Slot
from heights_rules.options import GameConfig
from heights_rules.ranking import players_ranked
from heights_rules.rng import KeyedRng
from heights_rules.state import Phase, State, catalogue_for, empty_lists

# Cubes removed per colour, and B sides used, by player count (solo is set up as 2).
CUBES_REMOVED = {2: 25, 3: 13, 4: 0}
B_SIDES = {2: 0, 3: 2, 4: 3}
STARTING_MEEPLES = (Meeple.BROWN, Meeple.BROWN, Meeple.NAVY, Meeple.NAVY)
FIRST_GAME_ADS = ("AD-09", "AD-10", "AD-12")
N_SLOTS = GRID_ROWS * GRID_COLS


def set_up(s: State, config: GameConfig, seed: int) -> None:
    """Lay out a new game in `s`, up to its first decision (the first starting placement)."""
    rng = KeyedRng(seed)
    catalogue = catalogue_for(config)
    s.config = config
    s.catalogue = catalogue
    s.rng = rng
    s.seed = seed
    s.solo = config.solo
    s.n_seats = config.players
    s.n_players = players_ranked(config.players, solo=config.solo)
    s.geo = MapGeometry(catalogue, _layout(rng, config.board_players, catalogue))
    s.total = cubes_in_play(config)
    s.supply = list(s.total)
    s.on_buildings = [0, 0, 0, 0]
    s.misc_in_play = False
    s.token_slot = tuple(rng.shuffled(list(range(N_SLOTS)), b"tokens")) if s.solo else ()
    _deal_components(s, rng)
    n_tiles = len(catalogue.tiles)
    s.owner = [-1] * n_tiles
    s.space_of = [-1] * n_tiles
    s.complete = [False] * n_tiles
    s.fill = [(0,) * len(t.stacks) for t in catalogue.tiles]
    s.on_cell = [-1] * len(s.geo.land)
    s.tile_wild = [0] * n_tiles
    for name, value in empty_lists(s.n_players, len(s.geo.land)).items():
        setattr(s, name, value)
    s.meeple_supply = list(MEEPLE_COUNTS)
    for p in range(s.n_seats):
        for colour in STARTING_MEEPLES:
            s.meeple_supply[colour] -= 1
            s.meeples[p][colour * len(Bucket) + Bucket.IDLE] += 1
    s.turn_no = [0] * s.n_players
    s.round = 0
    s.start_seat = 0 if s.solo else rng.below(s.n_seats, b"start")
    s.seat = s.start_seat
    s.roll_idx = 0
    s.sp = 0
    s.bought = False
    s.pol_vp = 0
    s.pol_mult = 1
    s.used_buildings = []
    s.sweeten = []
    s.end_round = 0
    s.termination = None
    s.steps = 0
    s.target_choice = [-1] * s.n_players
    # Starting placement runs from the last player counter-clockwise (RULES.md §3).
    s.order = [(s.start_seat - 1 - i) % s.n_seats for i in range(s.n_seats)]
    s.phase = Phase.START
    s.stack = [frame(F.START, s.order[0])]


def cubes_in_play(config: GameConfig) -> tuple[int, ...]:
    """Cubes of each colour after the setup removal; the game-end totals of §6."""
    removed = CUBES_REMOVED[config.board_players]
    return tuple(n - removed for n in CUBE_COUNTS)


def _layout(rng: KeyedRng, players: int, catalogue: Catalogue) -> tuple[Slot, ...]:
    """Boards permuted over the grid, B sides chosen at random, each board maybe turned."""
    index = {(b.board, b.side): b.index for b in catalogue.boards}
    boards = rng.shuffled(list(range(1, N_SLOTS + 1)), b"boards")  # slot -> board number
    b_boards = set(rng.shuffled(list(range(1, N_SLOTS + 1)), b"sides")[: B_SIDES[players]])
    slots = []
    for slot, board in enumerate(boards):
        side = index[(board, "B" if board in b_boards else "A")]
        slots.append(Slot(slot, side, rng.below(2, b"rotate", slot) == 1))
    return tuple(slots)


def _deal_components(s: State, rng: KeyedRng) -> None:
    catalogue = s.catalogue
    piles = []
    for level in (1, 2):
        piles.append(rng.shuffled(catalogue.tiles_of_level(level), b"pile%d" % level))
    # The top of a draw pile is the end of its list.
    s.market = [[pile.pop() for _ in range(MARKET_SIZE)] for pile in piles]
    s.piles = piles
    if s.config.options.first_game_ads:
        s.ads = tuple(i for i, ad in enumerate(catalogue.ads) if ad.id in FIRST_GAME_ADS)
    else:
        s.ads = tuple(sorted(rng.shuffled(list(range(len(catalogue.ads))), b"ads")[:3]))
    deck = rng.shuffled(list(range(len(catalogue.targets))), b"targets")
    s.targets = [sorted(deck[2 * p : 2 * p + 2]) for p in range(s.config.players)]
    if s.solo:
        s.targets.append([])  # the Mayor draws no Targets
