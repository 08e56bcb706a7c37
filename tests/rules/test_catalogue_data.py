"""Checks of the shipped component catalogue against docs/catalogue.md and
RULES.md project decision 3.

The catalogue is data (services/engine/heights_rules/data/); these tests load
it with the stdlib json module, validate it against catalogue.schema.json and
then assert the cross-item requirements a JSON Schema cannot express.
Run with -s to see the colour-demand report.
"""

from __future__ import annotations

import copy
import json
import re
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

Json = dict[str, Any]
Mutation = Callable[[Json], None]

REPO_ROOT = Path(__file__).resolve().parents[2]
DATA_DIR = REPO_ROOT / "services" / "engine" / "heights_rules" / "data"
SCHEMA_PATH = DATA_DIR / "catalogue.schema.json"
# Every shipped catalogue meets decision 3; the checks run once per file.
CATALOGUE_PATHS = [DATA_DIR / f"reconstructed-v{n}.json" for n in (1, 2, 3, 4)]

BUILDING_TYPES = ["RESIDENTIAL", "PARK", "COMMERCIAL", "CIVIC", "INDUSTRY"]
CUBE_COLOURS = ["WOOD", "CONCRETE", "GLASS", "STEEL"]
MEEPLE_COLOURS = [
    "BROWN",
    "NAVY",
    "CLEAR",
    "BLUE",
    "YELLOW",
    "MAGENTA",
    "PURPLE",
    "BLACK",
    "GREEN",
]
EFFECTS = [
    "gain_vp",
    "gain_sp",
    "gain_wild",
    "gain_cubes",
    "convert_meeple",
    "sacrifice_meeple",
    "score",
    "double_politicians",
]
ANCHORED_FNS = {"per_adjacent", "per_adjacent_empty", "per_within", "per_own_building"}
CITATION = re.compile(r"\bS[0-4]\b|\bW-\d\b")
KNOWN_TILES = [
    "Viceroy House",
    "City Hall",
    "Toy Center Co.",
    "Mayor's House",
    "Haunted House",
    "Fairgrounds",
    "Pritzker Zoo",
    "Biggie's Ballpark",
    "Tumble Park",
    "Botanical Gardens",
    "Gambrel Museum",
    "City Tribune",
]

# Balance guidance from the catalogue brief. The lead tunes the catalogue after
# measuring with bots: change these numbers, not the assertions, when retuning.
LEVEL_CUBES = {1: (3, 7), 2: (8, 16)}
LEVEL_VP = {1: (0, 3), 2: (4, 10)}
LEVEL_MAX_MEEPLES = {1: 1, 2: 2}
COLOUR_DEMAND = {
    "WOOD": (120, 140),
    "CONCRETE": (120, 140),
    "GLASS": (140, 170),
    "STEEL": (110, 130),
}
# reconstructed-v4 puts glass in level-1 plans and turns most level-2 wood and concrete,
# and some steel, to glass, so that glass ends most games: its share of the cubes in play
# per player differs by player count as the round bands do (docs/balance.md).
COLOUR_DEMAND_BY_CATALOGUE = {
    "reconstructed-v4": {
        "WOOD": (70, 90),
        "CONCRETE": (85, 105),
        "GLASS": (260, 290),
        "STEEL": (90, 110),
    },
}
MAX_BROWN_REWARD_TILES = 3


# --------------------------------------------------------------------------- helpers
def load(path: Path) -> Json:
    with path.open(encoding="utf-8") as fh:
        data: Json = json.load(fh)
    return data


def cubes(tile: Json) -> int:
    return sum(h for _, h in tile["stacks"])


def tallest(tile: Json) -> int:
    return max(int(h) for _, h in tile["stacks"])


def colour_demand(tiles: list[Json]) -> Counter[str]:
    demand: Counter[str] = Counter(dict.fromkeys(CUBE_COLOURS, 0))
    for t in tiles:
        for colour, height in t["stacks"]:
            demand[colour] += height
    return demand


def purple_effects(tile: Json) -> list[Json]:
    return [tile["purple"]["steady"], tile["purple"]["hard"]] if tile["purple"] else []


def classify(board: Json) -> tuple[int, int, int, int]:
    """(land, prime, zoning, plain) space counts of a board side."""
    land = prime = zoning = plain = 0
    for ch in "".join(board["rows"]):
        if ch == "~":
            continue
        land += 1
        entry = board["legend"].get(ch, {})
        is_prime = ch in "123" or "prime" in entry
        is_zoning = "zoning" in entry
        prime += is_prime
        zoning += is_zoning
        plain += not is_prime and not is_zoning
    return land, prime, zoning, plain


def land_components(rows: list[str]) -> int:
    cells = {(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch != "~"}
    components = 0
    while cells:
        components += 1
        stack = [cells.pop()]
        while stack:
            r, c = stack.pop()
            for nb in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                if nb in cells:
                    cells.remove(nb)
                    stack.append(nb)
    return components


def scoring(items: list[Json], number: int) -> tuple[str, Json]:
    item = next(i for i in items if i["number"] == number)
    return item["scoring"]["fn"], item["scoring"]["params"]


# --------------------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def schema() -> Json:
    return load(SCHEMA_PATH)


@pytest.fixture(scope="module", params=CATALOGUE_PATHS, ids=lambda p: p.stem)
def cat(request: pytest.FixtureRequest) -> Json:
    path: Path = request.param
    return load(path)


@pytest.fixture(scope="module")
def validator(schema: Json) -> Draft202012Validator:
    return Draft202012Validator(schema)


@pytest.fixture(scope="module")
def tiles(cat: Json) -> list[Json]:
    result: list[Json] = cat["tiles"]
    return result


@pytest.fixture(scope="module")
def by_name(tiles: list[Json]) -> dict[str, Json]:
    return {t["name"]: t for t in tiles}


# --------------------------------------------------------------------------- schema
def test_schema_is_valid_draft_2020_12(schema: Json) -> None:
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_schema_enums_match_the_spec(schema: Json) -> None:
    defs = schema["$defs"]
    assert defs["buildingType"]["enum"] == BUILDING_TYPES
    assert defs["cubeColour"]["enum"] == CUBE_COLOURS
    assert defs["meepleColour"]["enum"] == MEEPLE_COLOURS
    assert defs["effectName"]["enum"] == EFFECTS
    assert len(defs["scoringFnName"]["enum"]) == 17


def test_catalogue_validates_against_schema(cat: Json, validator: Draft202012Validator) -> None:
    errors = sorted(validator.iter_errors(cat), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{e.json_path}: {e.message}" for e in errors[:20])


def _set(path: list[str | int], value: Any) -> Mutation:
    def mutate(c: Json) -> None:
        obj: Any = c
        for key in path[:-1]:
            obj = obj[key]
        obj[path[-1]] = value

    return mutate


def _delete(path: list[str | int]) -> Mutation:
    def mutate(c: Json) -> None:
        obj: Any = c
        for key in path[:-1]:
            obj = obj[key]
        del obj[path[-1]]

    return mutate


def _drop_last_ad(c: Json) -> None:
    c["ads"].pop()


TILE0: list[str | int] = ["tiles", 0]
BOARD0: list[str | int] = ["boards", 0]
MUTATIONS: dict[str, Mutation] = {
    "unknown effect name": _set([*TILE0, "purple", "steady", "effect"], "gain_everything"),
    "unknown scoring fn": _set(["ads", 0, "scoring", "fn"], "per_vibes"),
    "misspelt scoring param": _set(
        ["targets", 0, "scoring", "params"], {"colour": "ANY", "per": 1}
    ),
    "score effect without scoring ref": _set(
        [*TILE0, "purple", "hard"], {"effect": "score", "params": {"n": 3}}
    ),
    "gain effect without n": _set([*TILE0, "purple", "hard"], {"effect": "gain_vp", "params": {}}),
    "bad cube colour": _set([*TILE0, "stacks", 0], ["MARBLE", 1]),
    "stack height 7": _set([*TILE0, "stacks", 0], ["WOOD", 7]),
    "stack height 0": _set([*TILE0, "stacks", 0], ["WOOD", 0]),
    "seven stacks": _set([*TILE0, "stacks"], [["WOOD", 1]] * 7),
    "no stacks": _set([*TILE0, "stacks"], []),
    "level 3": _set([*TILE0, "level"], 3),
    "bad building type": _set([*TILE0, "type"], "MILITARY"),
    "bad meeple colour": _set([*TILE0, "reward", "meeples"], [["PINK"]]),
    "three-colour meeple": _set([*TILE0, "reward", "meeples"], [["CLEAR", "BLUE", "GREEN"]]),
    "missing end_bonus": _delete([*TILE0, "end_bonus"]),
    "extra tile field": _set([*TILE0, "cost"], 3),
    "bad provenance": _set([*TILE0, "provenance"], "guessed"),
    "non-string citation": _set([*TILE0, "sources"], {"name": 1}),
    "row with bad char": _set([*BOARD0, "rows", 0], "~~#a."),
    "row too long": _set([*BOARD0, "rows", 0], "~~.a.."),
    "three rows": _set([*BOARD0, "rows"], ["~~.a.", "~..2.", "..~~~"]),
    "prime 4": _set([*BOARD0, "legend", "b", "prime"], 4),
    "zoning of three types": _set(
        [*BOARD0, "legend", "a", "zoning", "types"], ["PARK", "CIVIC", "INDUSTRY"]
    ),
    "zoning 4 VP": _set([*BOARD0, "legend", "a", "zoning", "vp"], 4),
    "ad id out of range": _set(["ads", 0, "id"], "AD-13"),
    "target id malformed": _set(["targets", 0, "id"], "T-1"),
    "market row of 8": _set(["market_costs", "level1"], [1, 1, 2, 2, 3, 3, 4, 4]),
    "eleven ads": _drop_last_ad,
}


@pytest.mark.parametrize("desc", list(MUTATIONS))
def test_schema_rejects_broken_catalogues(
    cat: Json, validator: Draft202012Validator, desc: str
) -> None:
    broken = copy.deepcopy(cat)
    MUTATIONS[desc](broken)
    assert not validator.is_valid(broken), f"schema accepted a catalogue with {desc}"


# --------------------------------------------------------------------------- top level
def test_top_level(cat: Json) -> None:
    assert cat["id"] in tuple(f"reconstructed-v{n}" for n in (1, 2, 3, 4))
    assert cat["map"] == {"board_rows": 4, "board_cols": 5, "grid_rows": 2, "grid_cols": 3}
    mc = cat["market_costs"]
    assert mc["level1"] == [1, 1, 2, 2, 3, 3, 4, 4, 5]  # A-07 proposal
    assert mc["level2"] == [2, 2, 3, 3, 4, 4, 5, 5, 6]
    # W-2: Level 1 starts at 1, Level 2 at 2; position 1 is the cheap end.
    assert mc["level1"][0] == 1
    assert mc["level2"][0] == 2
    for row in (mc["level1"], mc["level2"]):
        assert row == sorted(row)


# --------------------------------------------------------------------------- tiles
def test_tile_counts_per_level(tiles: list[Json]) -> None:
    assert len(tiles) == 78
    assert Counter(t["level"] for t in tiles) == {1: 42, 2: 36}


def test_unique_ids_and_names(cat: Json) -> None:
    for group in ("tiles", "boards", "ads", "targets"):
        ids = [x["id"] for x in cat[group]]
        assert len(ids) == len(set(ids)), f"duplicate id in {group}"
    for group in ("tiles", "ads", "targets"):
        names = [x["name"] for x in cat[group]]
        assert len(names) == len(set(names)), f"duplicate name in {group}"


def test_all_types_well_represented_in_both_levels(tiles: list[Json]) -> None:
    for level in (1, 2):
        types = Counter(t["type"] for t in tiles if t["level"] == level)
        assert set(types) == set(BUILDING_TYPES)
        assert min(types.values()) >= 5, f"level {level}: {dict(types)}"


def test_cubes_per_tile_within_level_guidance(tiles: list[Json]) -> None:
    for t in tiles:
        lo, hi = LEVEL_CUBES[t["level"]]
        assert lo <= cubes(t) <= hi, f"{t['name']}: {cubes(t)} cubes at level {t['level']}"


def test_level_one_leans_on_wood_and_concrete_level_two_on_glass_and_steel(
    tiles: list[Json],
) -> None:
    l1 = colour_demand([t for t in tiles if t["level"] == 1])
    l2 = colour_demand([t for t in tiles if t["level"] == 2])
    assert l1["WOOD"] + l1["CONCRETE"] > 2 * (l1["GLASS"] + l1["STEEL"])
    assert l2["GLASS"] + l2["STEEL"] > 2 * (l2["WOOD"] + l2["CONCRETE"])


def test_colour_demand_within_balance_guidance(cat: Json, tiles: list[Json]) -> None:
    demand = colour_demand(tiles)
    for colour, (lo, hi) in COLOUR_DEMAND_BY_CATALOGUE.get(cat["id"], COLOUR_DEMAND).items():
        assert lo <= demand[colour] <= hi, f"{colour}: {demand[colour]} not in {lo}-{hi}"


def test_reward_guidance(tiles: list[Json]) -> None:
    for t in tiles:
        lo, hi = LEVEL_VP[t["level"]]
        assert lo <= t["reward"]["vp"] <= hi, t["name"]
        assert len(t["reward"]["meeples"]) <= LEVEL_MAX_MEEPLES[t["level"]], t["name"]
    l1_with_meeple = sum(1 for t in tiles if t["level"] == 1 and t["reward"]["meeples"])
    assert l1_with_meeple >= 0.8 * 42, "level 1 tiles usually give one meeple"


def test_every_meeple_colour_is_a_reward(tiles: list[Json]) -> None:
    entries = [m for t in tiles for m in t["reward"]["meeples"]]
    for m in entries:
        assert len(m) in (1, 2, 9)
        assert len(set(m)) == len(m)
    assert {c for m in entries for c in m} == set(MEEPLE_COLOURS)
    # every colour is obtainable without relying on ANY MEEPLE too
    assert {c for m in entries if len(m) < 9 for c in m} == set(MEEPLE_COLOURS)
    assert sum(1 for m in entries if len(m) == 2) >= 5, "two-colour choices"
    any_meeple = [m for m in entries if sorted(m) == sorted(MEEPLE_COLOURS)]
    assert len(any_meeple) >= 2, "ANY MEEPLE rewards"


def test_brown_rewards_are_rare_and_a_choice(tiles: list[Json]) -> None:
    brown = [m for t in tiles for m in t["reward"]["meeples"] if "BROWN" in m and len(m) < 9]
    assert 1 <= len(brown) <= MAX_BROWN_REWARD_TILES
    assert all(len(m) == 2 for m in brown)


def test_purple_abilities(tiles: list[Json]) -> None:
    purple = [t for t in tiles if t["purple"]]
    assert len(purple) >= 30
    used = Counter(e["effect"] for t in purple for e in purple_effects(t))
    assert set(used) == set(EFFECTS), "every effect of the library is used"
    gain_cubes = [t for t in purple if any(e["effect"] == "gain_cubes" for e in purple_effects(t))]
    assert len(gain_cubes) >= 3
    assert {t["level"] for t in purple} == {1, 2}


def test_steady_is_weaker_than_hard(tiles: list[Json]) -> None:
    for t in tiles:
        if not t["purple"]:
            continue
        steady, hard = t["purple"]["steady"], t["purple"]["hard"]
        assert steady != hard, f"{t['name']}: steady and hard identical"
        if steady["effect"] != hard["effect"]:
            continue
        sp, hp = steady["params"], hard["params"]
        if "n" in sp:
            assert sp["n"] < hp["n"], t["name"]
        elif steady["effect"] == "sacrifice_meeple":
            assert sp["vp"] < hp["vp"], t["name"]
        elif steady["effect"] == "score":
            assert sp["fn"] == hp["fn"], t["name"]
            assert sp["params"]["per"] < hp["params"]["per"], t["name"]


def test_variable_vp_tiles(tiles: list[Json]) -> None:
    var = [t for t in tiles if t["reward"]["variable_vp"]]
    assert len(var) >= 6
    for t in var:
        assert t["reward"]["variable_vp"]["fn"] in ANCHORED_FNS, t["name"]
    assert {t["level"] for t in var} == {1, 2}


def test_end_bonus_tiles(tiles: list[Json]) -> None:
    assert sum(1 for t in tiles if t["end_bonus"]) >= 4


def test_level_two_holds_the_skyscrapers(tiles: list[Json]) -> None:
    assert all(tallest(t) <= 4 for t in tiles if t["level"] == 1)
    skyscrapers = [t for t in tiles if t["level"] == 2 and tallest(t) >= 5]
    assert len(skyscrapers) >= 5
    assert any(tallest(t) == 6 for t in skyscrapers)


# --------------------------------------------------------------------------- known tiles (§9.1)
def test_viceroy_house(by_name: dict[str, Json]) -> None:
    t = by_name["Viceroy House"]
    assert t["stacks"] == [["WOOD", 1], ["WOOD", 1], ["WOOD", 4]]
    assert {"name", "stacks"} <= set(t["sources"])


def test_city_hall(by_name: dict[str, Json]) -> None:
    t = by_name["City Hall"]
    assert t["level"] == 2
    assert t["type"] == "CIVIC"
    assert sorted(map(tuple, t["stacks"])) == [
        ("GLASS", 1),
        ("GLASS", 2),
        ("GLASS", 2),
        ("STEEL", 3),
        ("STEEL", 6),
    ]
    assert {"name", "stacks"} <= set(t["sources"])


def test_three_wood_housing_project(tiles: list[Json]) -> None:
    matches = [
        t
        for t in tiles
        if t["level"] == 1
        and t["type"] == "RESIDENTIAL"
        and t["stacks"] == [["WOOD", 1], ["WOOD", 1], ["WOOD", 1]]
    ]
    assert len(matches) == 1
    t = matches[0]
    assert t["reward"] == {"vp": 1, "meeples": [["CLEAR", "BLUE"]], "variable_vp": None}
    for field in ("level", "type", "stacks", "reward"):
        assert "S3" in t["sources"][field], field


def test_toy_center_co(by_name: dict[str, Json]) -> None:
    assert "name" in by_name["Toy Center Co."]["sources"]


def test_mayors_house(by_name: dict[str, Json]) -> None:
    t = by_name["Mayor's House"]
    assert t["purple"] == {
        "steady": {"effect": "gain_wild", "params": {"n": 1}},
        "hard": {"effect": "gain_wild", "params": {"n": 2}},
    }
    assert "purple" in t["sources"]


def test_haunted_house(by_name: dict[str, Json]) -> None:
    t = by_name["Haunted House"]
    assert [e["effect"] for e in purple_effects(t)] == ["sacrifice_meeple"] * 2
    assert "purple" in t["sources"]


def test_fairgrounds(by_name: dict[str, Json]) -> None:
    for e in purple_effects(by_name["Fairgrounds"]):
        assert e["effect"] == "score"
        assert e["params"]["fn"] == "per_within"
        assert e["params"]["params"]["distance"] == 3
        assert e["params"]["params"]["whose"] == "own"


@pytest.mark.parametrize(
    ("name", "frm"), [("Pritzker Zoo", "NAVY"), ("Biggie's Ballpark", "BROWN")]
)
def test_conversion_tiles(by_name: dict[str, Json], name: str, frm: str) -> None:
    t = by_name[name]
    conversions = [e for e in purple_effects(t) if e["effect"] == "convert_meeple"]
    assert conversions == [{"effect": "convert_meeple", "params": {"from": frm, "to": "MAGENTA"}}]
    assert "purple" in t["sources"]


# The type Tumble Park counts is reconstructed: PARK up to v3. v4 counts INDUSTRY,
# because its longer 2-player games let a Park that also counted itself earn its owner
# 16 VP a game, above decision 3's 15 (docs/balance.md).
TUMBLE_PARK_COUNTS = {"reconstructed-v4": "INDUSTRY"}


def test_tumble_park(cat: Json, by_name: dict[str, Json]) -> None:
    counted = TUMBLE_PARK_COUNTS.get(cat["id"], "PARK")
    for e in purple_effects(by_name["Tumble Park"]):
        assert e["effect"] == "score"
        assert e["params"]["fn"] == "per_own_building"
        assert e["params"]["params"]["types"] == [counted]
        assert e["params"]["params"]["completed"] is True


def test_botanical_gardens(by_name: dict[str, Json]) -> None:
    pers = []
    for e in purple_effects(by_name["Botanical Gardens"]):
        assert e["effect"] == "score"
        assert e["params"]["fn"] == "per_meeple"
        assert e["params"]["params"]["colours"] == ["CLEAR"]
        assert e["params"]["params"]["positions"] == ["HARD"]
        pers.append(e["params"]["params"]["per"])
    assert 0 < pers[0] < pers[1]


def test_gambrel_museum(by_name: dict[str, Json]) -> None:
    t = by_name["Gambrel Museum"]
    assert t["purple"] == {
        "steady": {"effect": "gain_sp", "params": {"n": 1}},
        "hard": {
            "effect": "score",
            "params": {"fn": "per_adjacent_empty", "params": {"per": 1, "max": 4}},
        },
    }
    assert "S3" in t["sources"]["purple"]


def test_city_tribune(by_name: dict[str, Json]) -> None:
    t = by_name["City Tribune"]
    assert t["purple"] == {
        "steady": {"effect": "gain_vp", "params": {"n": 1}},
        "hard": {"effect": "double_politicians", "params": {}},
    }
    assert "S3" in t["sources"]["purple"]


def test_known_tiles_cite_their_sources(by_name: dict[str, Json]) -> None:
    for name in KNOWN_TILES:
        assert by_name[name]["provenance"] == "partial", name
        assert "name" in by_name[name]["sources"], name


# --------------------------------------------------------------------------- boards
def test_board_sides(cat: Json) -> None:
    boards = cat["boards"]
    rows_n, cols_n = cat["map"]["board_rows"], cat["map"]["board_cols"]
    assert sorted(b["id"] for b in boards) == [f"{n}{s}" for n in range(1, 7) for s in "AB"]
    for b in boards:
        assert b["id"] == f"{b['board']}{b['side']}"
        assert len(b["rows"]) == rows_n
        assert all(len(r) == cols_n for r in b["rows"])
        letters = {ch for r in b["rows"] for ch in r if ch.isalpha()}
        assert letters == set(b["legend"]), f"{b['id']}: legend letters vs rows"


def test_board_land_counts_and_features(cat: Json) -> None:
    for b in cat["boards"]:
        land, prime, zoning, plain = classify(b)
        lo, hi = (11, 13) if b["side"] == "A" else (14, 16)
        assert lo <= land <= hi, f"{b['id']}: {land} land"
        assert prime >= 1, f"{b['id']}: no prime space"
        assert zoning >= 1, f"{b['id']}: no zoning space"
        assert plain >= 4, f"{b['id']}: only {plain} plain land spaces"


def test_b_sides_hold_more_land_than_a_sides(cat: Json) -> None:
    land = {b["id"]: classify(b)[0] for b in cat["boards"]}
    for n in range(1, 7):
        assert land[f"{n}B"] > land[f"{n}A"]


def test_board_land_is_reasonably_connected(cat: Json) -> None:
    for b in cat["boards"]:
        assert land_components(b["rows"]) <= 2, f"{b['id']}: land in too many pieces"


def test_board_layouts_vary(cat: Json) -> None:
    assert len({tuple(b["rows"]) for b in cat["boards"]}) == 12


# --------------------------------------------------------------------------- ads and targets
def test_ad_and_target_ids(cat: Json) -> None:
    assert [a["id"] for a in cat["ads"]] == [f"AD-{n:02d}" for n in range(1, 13)]
    assert [t["id"] for t in cat["targets"]] == [f"TG-{n:02d}" for n in range(1, 14)]
    for item in cat["ads"] + cat["targets"]:
        assert int(item["id"][3:]) == item["number"]


def test_ads_follow_clarifications(cat: Json) -> None:
    ads = cat["ads"]
    fn, p = scoring(ads, 1)
    assert fn == "each_own_adjacent"
    assert p["per"] < 0
    assert p["cap_once"] is False
    assert len(p["adjacent_types"]) == 3
    assert len(p["own_types"]) == 1
    fn, p = scoring(ads, 2)
    assert fn == "each_own_adjacent"
    assert len(p["adjacent_types"]) == 3
    assert p["per"] > 0
    assert p["water"] is False
    fn, p = scoring(ads, 3)
    assert fn == "each_own_adjacent"
    assert len(p["adjacent_types"]) == 2
    assert p["water"] is True
    assert scoring(ads, 4)[0] == "largest_group"
    assert scoring(ads, 7)[0] == "rescore_half"
    assert scoring(ads, 9) == ("neighborhood_majority_penalty", {"types": ["INDUSTRY"], "per": -1})
    assert scoring(ads, 10) == ("neighborhood_majority_rescore", {"types": ["PARK"]})
    assert scoring(ads, 11)[0] == "neighborhood_most_completed"
    assert scoring(ads, 12) == ("neighborhood_tallest", {"vp": 4})
    video_set = (
        "type_sets",
        {"types": ["PARK", "RESIDENTIAL", "INDUSTRY", "COMMERCIAL"], "per": 5},
    )
    assert [n for n in (5, 6, 8) if scoring(ads, n) == video_set], "video set Ad on 5, 6 or 8"


def test_targets_follow_clarifications(cat: Json) -> None:
    tgs = cat["targets"]
    fn, p = scoring(tgs, 3)
    assert fn == "each_own_adjacent"
    assert len(p["adjacent_types"]) == 3
    fn, p = scoring(tgs, 7)
    assert fn == "each_own_adjacent"
    assert p["whose"] == "opponent"
    assert p["cap_once"] is True
    assert p["per"] == 2
    assert scoring(tgs, 8)[0] == "each_adjacent_to_own"
    fn, p = scoring(tgs, 10)
    assert fn == "each_own_adjacent"
    assert p["adjacent_types"] == []
    assert p["water"] is True
    assert p["cap_once"] is True
    assert p["per"] == 1
    assert scoring(tgs, 13)[0] == "per_wild_token"
    civic_park = (
        "each_adjacent_to_own",
        {"types": ["CIVIC"], "whose": "any", "own_types": ["PARK"], "per": 3},
    )
    slots = [n for n in range(1, 14) if scoring(tgs, n) == civic_park]
    assert len(slots) == 1
    assert slots[0] not in (3, 7, 8, 10, 13)
    assert any(scoring(tgs, n)[0] == "per_meeple" for n in range(1, 14))


# --------------------------------------------------------------------------- provenance
def _items(cat: Json) -> Iterator[tuple[str, Json]]:
    yield "market_costs", cat["market_costs"]
    for group in ("boards", "tiles", "ads", "targets"):
        for item in cat[group]:
            yield f"{group}/{item['id']}", item


def test_provenance_is_consistent(cat: Json) -> None:
    for label, item in _items(cat):
        sources, prov = item["sources"], item["provenance"]
        fields = set(item) - {"sources", "provenance"}
        cited = set(sources)
        assert cited <= fields, f"{label}: sources name non-fields {cited - fields}"
        content = fields - {"id"}
        if prov == "reconstructed":
            assert sources == {}, label
            continue
        assert sources, f"{label}: provenance {prov} but no sources"
        if prov == "source":
            assert cited >= content, f"{label}: 'source' but {content - cited} unsourced"
        else:
            assert not cited >= content, f"{label}: every field sourced, should be 'source'"
        for field, citation in sources.items():
            assert CITATION.search(citation), f"{label}.{field}: citation names no source id"


# --------------------------------------------------------------------------- report
def test_print_colour_demand(tiles: list[Json]) -> None:
    """Run with -s: colour demand per level and in total."""
    header = f"{'':8}" + "".join(f"{c:>10}" for c in CUBE_COLOURS) + f"{'total':>10}"
    lines = ["", "colour demand (cubes over all building plans)", header]
    totals: Counter[str] = Counter()
    for level in (1, 2):
        demand = colour_demand([t for t in tiles if t["level"] == level])
        totals.update(demand)
        cells = "".join(f"{demand[c]:>10}" for c in CUBE_COLOURS)
        lines.append(f"level {level} {cells}{sum(demand.values()):>10}")
    cells = "".join(f"{totals[c]:>10}" for c in CUBE_COLOURS)
    lines.append(f"{'all':8}{cells}{sum(totals.values()):>10}")
    print("\n".join(lines))
    assert sum(totals.values()) == sum(cubes(t) for t in tiles)
