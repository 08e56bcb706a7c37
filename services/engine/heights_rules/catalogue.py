"""Component data: loading, validating and typing a catalogue file (docs/catalogue.md).

The engine knows no tile, board, Ad or Target by heart; everything comes from a
versioned JSON file checked against `data/catalogue.schema.json`. A catalogue is
identified by its id and the SHA-256 of its canonical JSON, both recorded in every
game's configuration.
"""

from __future__ import annotations

import functools
import json
import os
from typing import Any, Final

from heights_rules.components import BuildingType, Cube, Meeple
from heights_rules.digests import sha256_hex
from heights_rules.errors import CatalogueError
from heights_rules.records import Record

DEFAULT_CATALOGUE = "reconstructed-v4"
# What a configuration that names no catalogue was played with: every such record predates v2.
# (v2, v3 and v4 are always named: a configuration records the catalogue it was played with.)
LEGACY_CATALOGUE = "reconstructed-v1"
BOARD_ROWS: Final = 4
BOARD_COLS: Final = 5
GRID_ROWS: Final = 2
GRID_COLS: Final = 3
MARKET_SIZE: Final = 9

Params = dict[str, Any]
# Beside this module, as installed. Not importlib.resources or pathlib: importing them
# took ~20 ms of every bot's start, and the package is always installed as plain files.
DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")

# The schema's verdict on a catalogue is a function of its bytes. The shipped catalogues
# whose canonical SHA-256 is listed here passed the schema when they were shipped
# (tests/rules/test_catalogue_data.py checks that every shipped file is listed and still
# validates), so loading them skips the schema pass: it cost ~100 ms, plus ~65 ms to
# import jsonschema, in every process that plays, each bot's sandbox included. Any
# other bytes, an edited file included, are validated in full.
SCHEMA_CHECKED: dict[str, str] = {
    "reconstructed-v1": "219a5b4ee75a29b949813c1aa186fc87ceb447061d4a4cb00b98b58a7287f681",
    "reconstructed-v2": "e3e96d259bd5d8c397e3abe0b7faf3f8f82b035395d34112e000621b7594a030",
    "reconstructed-v3": "b6f7ea4b44caa28540f24134071af0e18df3598a609d9ea45862c9e4fb0b8099",
    "reconstructed-v4": "18ac835c92f66e6992af441b1ad1c47bd1faf3e7eb92d917ea83caecdcc0d873",
}
# The SHA-256 of each shipped file's bytes, as shipped: a file whose bytes hash to this
# has the canonical digest in SCHEMA_CHECKED without re-encoding it as canonical JSON
# (~7 million instructions, 2.5% of a greedy bot's start to `ready`, by callgrind).
# Other bytes (an edited file, other line endings) take the canonical path.
SHIPPED_FILES: dict[str, str] = {
    "reconstructed-v1": "06c75a9367ed46fabd7f31c68a0ba4cd917ed3c920476bf737551ff4cc3d85fe",
    "reconstructed-v2": "7b0260805eb34e504099dbe242be30272b8dedbb1b856cccd5775b3dbd616e9c",
    "reconstructed-v3": "69019e56523c64dd9a64c3a035b661cded892759e11fcea39cf6b9cc0052e790",
    "reconstructed-v4": "571e8fca0fb821f0f6f5de21a8c928ec6630059b01c3b60dae915da17291a014",
}


class EffectRef(Record):
    """A purple ability: an effect of the library with its parameters."""

    effect: str
    params: Params


class ScoringRef(Record):
    """A scoring function of the library with its parameters."""

    fn: str
    params: Params


class TileDef(Record):
    """One Building Plan tile."""

    index: int
    id: str
    name: str
    level: int
    type: BuildingType
    stacks: tuple[tuple[int, int], ...]  # (Cube value, height): plain ints for speed
    vp: int
    variable_vp: ScoringRef | None
    meeples: tuple[tuple[Meeple, ...], ...]
    purple: tuple[EffectRef, EffectRef] | None  # (steady, hard)
    end_bonus: ScoringRef | None

    @property
    def twins(self) -> tuple[tuple[int, ...], ...]:
        """For each stack, the earlier stacks of the same colour and height.

        Identical stacks at the same fill are one choice, not several (fewer legal
        actions, same game).
        """
        return tuple(
            tuple(j for j in range(i) if self.stacks[j] == self.stacks[i])
            for i in range(len(self.stacks))
        )

    @property
    def height(self) -> int:
        """The building's height: its highest stack (A-38)."""
        return max(h for _, h in self.stacks)

    @property
    def cubes(self) -> int:
        return sum(h for _, h in self.stacks)


class Cell(Record):
    """One space of a board side as printed (before rotation)."""

    land: bool
    prime: int
    zoning_types: tuple[BuildingType, ...]
    zoning_vp: int


class BoardSide(Record):
    index: int
    id: str
    board: int
    side: str
    cells: tuple[Cell, ...]  # row-major, BOARD_ROWS * BOARD_COLS


class ObjectiveDef(Record):
    """An Ad (public, everyone scores it) or a Target (private, one of two is scored)."""

    index: int
    id: str
    number: int
    name: str
    scoring: ScoringRef


class Catalogue(Record):
    id: str
    sha256: str
    title: str
    market_costs: tuple[tuple[int, ...], tuple[int, ...]]
    boards: tuple[BoardSide, ...]
    tiles: tuple[TileDef, ...]
    ads: tuple[ObjectiveDef, ...]
    targets: tuple[ObjectiveDef, ...]
    raw: dict[str, Any]

    def tiles_of_level(self, level: int) -> list[int]:
        return [t.index for t in self.tiles if t.level == level]

    def tile_by_id(self, tile_id: str) -> TileDef:
        for tile in self.tiles:
            if tile.id == tile_id:
                return tile
        raise KeyError(tile_id)


def canonical_json(data: Any) -> bytes:
    """The one byte form used for hashing: sorted keys, no whitespace, UTF-8."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


@functools.cache
def _schema() -> dict[str, Any]:
    with open(os.path.join(DATA_DIR, "catalogue.schema.json"), encoding="utf-8") as f:
        text = f.read()
    schema: dict[str, Any] = json.loads(text)
    return schema


def check_schema(raw: dict[str, Any]) -> None:
    """Raise CatalogueError, naming the first problem, unless `raw` fits the schema."""
    import jsonschema  # only here: most processes never need it (SCHEMA_CHECKED)

    errors = sorted(jsonschema.Draft202012Validator(_schema()).iter_errors(raw), key=str)
    if errors:
        first = errors[0]
        where = "/".join(str(p) for p in first.absolute_path) or "(top)"
        raise CatalogueError(f"catalogue invalid at {where}: {first.message}")


def library_names() -> tuple[frozenset[str], frozenset[str]]:
    """The effect and scoring-function names a catalogue may use: the schema's lists.

    One list for the data and the code: effects.py and scoring.py implement exactly these
    (tests/rules/test_catalogue_loading.py), and loading checks them even when it skips
    the rest of the schema, so a name the library lacks never loads to do nothing.
    """
    defs = _schema()["$defs"]
    return frozenset(defs["effectName"]["enum"]), frozenset(defs["scoringFnName"]["enum"])


def _check_library_names(tiles: tuple[TileDef, ...], objectives: list[ObjectiveDef]) -> None:
    effects, functions = library_names()
    refs = [ref for t in tiles for ref in (t.variable_vp, t.end_bonus) if ref is not None]
    refs += [o.scoring for o in objectives]
    for tile in tiles:
        for effect in tile.purple or ():
            if effect.effect not in effects:
                allowed = ", ".join(sorted(effects))
                raise CatalogueError(
                    f"tile {tile.id}: unknown effect {effect.effect!r}; effects: {allowed}"
                )
            if effect.effect == "score":
                refs.append(ScoringRef(str(effect.params.get("fn")), {}))
    for ref in refs:
        if ref.fn not in functions:
            allowed = ", ".join(sorted(functions))
            raise CatalogueError(f"unknown scoring function {ref.fn!r}; functions: {allowed}")


def parse_catalogue(raw: dict[str, Any]) -> Catalogue:
    """Validate raw catalogue JSON against the schema and the consistency rules, then type it."""
    sha256 = sha256_hex(canonical_json(raw))
    if SCHEMA_CHECKED.get(str(raw.get("id"))) != sha256:
        check_schema(raw)
    return _typed(raw, sha256)


def _typed(raw: dict[str, Any], sha256: str) -> Catalogue:
    """`raw`, whose canonical digest is `sha256` and which fits the schema, checked for
    consistency and typed."""
    dims = raw["map"]
    if (dims["board_rows"], dims["board_cols"], dims["grid_rows"], dims["grid_cols"]) != (
        BOARD_ROWS,
        BOARD_COLS,
        GRID_ROWS,
        GRID_COLS,
    ):
        raise CatalogueError("this engine's action space needs 4x5 boards in a 2x3 grid")
    tiles = tuple(_tile(i, t) for i, t in enumerate(raw["tiles"]))
    _check_unique("tile id", [t.id for t in tiles])
    _check_unique("tile name", [t.name for t in tiles])
    boards = tuple(_board(i, b) for i, b in enumerate(raw["boards"]))
    _check_unique("board side", [b.id for b in boards])
    for number in range(1, 7):
        sides = sorted(b.side for b in boards if b.board == number)
        if sides != ["A", "B"]:
            raise CatalogueError(f"board {number} needs exactly sides A and B, has {sides}")
    costs = raw["market_costs"]
    ads = tuple(_objective(i, a) for i, a in enumerate(raw["ads"]))
    targets = tuple(_objective(i, t) for i, t in enumerate(raw["targets"]))
    _check_library_names(tiles, [*ads, *targets])
    return Catalogue(
        id=raw["id"],
        sha256=sha256,
        title=raw.get("title", raw["id"]),
        market_costs=(tuple(costs["level1"]), tuple(costs["level2"])),
        boards=boards,
        tiles=tiles,
        ads=ads,
        targets=targets,
        raw=raw,
    )


def load_catalogue(catalogue_id: str = DEFAULT_CATALOGUE) -> Catalogue:
    """Load a catalogue shipped with the engine, by id (cached per process)."""
    return _load_catalogue(catalogue_id)


@functools.cache
def _load_catalogue(catalogue_id: str) -> Catalogue:
    if not catalogue_id.replace("-", "").isalnum():
        raise CatalogueError(f"bad catalogue id {catalogue_id!r}")
    path = os.path.join(DATA_DIR, f"{catalogue_id}.json")
    if not os.path.isfile(path):
        raise CatalogueError(f"unknown catalogue {catalogue_id!r}")
    with open(path, "rb") as f:
        data = f.read()
    raw = json.loads(data.decode("utf-8"))
    if SHIPPED_FILES.get(catalogue_id) == sha256_hex(data) and catalogue_id in SCHEMA_CHECKED:
        catalogue = _typed(raw, SCHEMA_CHECKED[catalogue_id])
    else:
        catalogue = parse_catalogue(raw)
    if catalogue.id != catalogue_id:
        raise CatalogueError(f"file {catalogue_id}.json declares id {catalogue.id!r}")
    return catalogue


def _check_unique(what: str, values: list[str]) -> None:
    seen: set[str] = set()
    for value in values:
        if value in seen:
            raise CatalogueError(f"duplicate {what} {value!r}")
        seen.add(value)


def _scoring(raw: dict[str, Any] | None) -> ScoringRef | None:
    return None if raw is None else ScoringRef(raw["fn"], dict(raw.get("params", {})))


def _effect(raw: dict[str, Any]) -> EffectRef:
    return EffectRef(raw["effect"], dict(raw.get("params", {})))


def _tile(index: int, raw: dict[str, Any]) -> TileDef:
    reward = raw["reward"]
    purple = raw.get("purple")
    return TileDef(
        index=index,
        id=raw["id"],
        name=raw["name"],
        level=raw["level"],
        type=BuildingType[raw["type"]],
        stacks=tuple((int(Cube[c]), int(h)) for c, h in raw["stacks"]),
        vp=reward["vp"],
        variable_vp=_scoring(reward.get("variable_vp")),
        meeples=tuple(tuple(Meeple[c] for c in choice) for choice in reward["meeples"]),
        purple=None if purple is None else (_effect(purple["steady"]), _effect(purple["hard"])),
        end_bonus=_scoring(raw.get("end_bonus")),
    )


def _board(index: int, raw: dict[str, Any]) -> BoardSide:
    legend = raw.get("legend", {})
    cells: list[Cell] = []
    for row in raw["rows"]:
        for ch in row:
            if ch == "~":
                cells.append(Cell(False, 0, (), 0))
            elif ch == ".":
                cells.append(Cell(True, 0, (), 0))
            elif ch.isdigit():
                cells.append(Cell(True, int(ch), (), 0))
            else:
                if ch not in legend:
                    raise CatalogueError(f"board {raw['id']}: {ch!r} is not in its legend")
                entry = legend[ch]
                zoning = entry.get("zoning") or {"types": [], "vp": 0}
                types = tuple(BuildingType[t] for t in zoning["types"])
                cells.append(Cell(True, entry.get("prime", 0), types, zoning["vp"]))
    return BoardSide(index, raw["id"], raw["board"], raw["side"], tuple(cells))


def _objective(index: int, raw: dict[str, Any]) -> ObjectiveDef:
    scoring = _scoring(raw["scoring"])
    assert scoring is not None  # the schema requires it
    return ObjectiveDef(index, raw["id"], raw["number"], raw["name"], scoring)
