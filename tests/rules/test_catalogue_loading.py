"""Loading catalogues: shipped files skip the schema pass only while their bytes are the
ones that passed it; anything else is validated in full."""

from __future__ import annotations

import copy
import hashlib
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from heights_rules import catalogue, effects, scoring
from heights_rules.catalogue import (
    SCHEMA_CHECKED,
    SHIPPED_FILES,
    canonical_json,
    check_schema,
    library_names,
    load_catalogue,
    parse_catalogue,
)
from heights_rules.errors import CatalogueError

DATA_DIR = Path(__file__).resolve().parents[2] / "services" / "engine" / "heights_rules" / "data"
SHIPPED = sorted(p for p in DATA_DIR.glob("*.json") if p.name != "catalogue.schema.json")


def _raw(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_every_shipped_catalogue_is_listed_with_its_digest_and_validates(path: Path) -> None:
    raw = _raw(path)
    check_schema(raw)  # the listing below is only as good as this verdict
    digest = hashlib.sha256(canonical_json(raw)).hexdigest()
    assert SCHEMA_CHECKED.get(path.stem) == digest, (
        f"{path.name} changed: once it validates, set SCHEMA_CHECKED[{path.stem!r}] "
        f"in heights_rules/catalogue.py to {digest}"
    )
    assert load_catalogue(path.stem).sha256 == digest


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_every_shipped_file_is_listed_with_the_digest_of_its_bytes(path: Path) -> None:
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert SHIPPED_FILES.get(path.stem) == digest, (
        f"{path.name} changed: set SHIPPED_FILES[{path.stem!r}] in "
        f"heights_rules/catalogue.py to {digest} (and SCHEMA_CHECKED as above)"
    )


@pytest.fixture
def fresh_loads(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """Catalogues loaded anew from a copy of the data folder (yielded), not the cache."""
    for path in DATA_DIR.iterdir():
        (tmp_path / path.name).write_bytes(path.read_bytes())
    monkeypatch.setattr(catalogue, "DATA_DIR", str(tmp_path))
    catalogue._load_catalogue.cache_clear()
    yield tmp_path
    catalogue._load_catalogue.cache_clear()


def test_a_shipped_file_as_shipped_loads_without_canonical_json(
    fresh_loads: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(data: Any) -> bytes:
        raise AssertionError("the digest of the file's bytes was not used")

    monkeypatch.setattr(catalogue, "canonical_json", refuse)
    for path in SHIPPED:
        assert load_catalogue(path.stem).sha256 == SCHEMA_CHECKED[path.stem]


def test_a_shipped_id_with_other_bytes_takes_the_canonical_path(fresh_loads: Path) -> None:
    path = fresh_loads / SHIPPED[-1].name
    raw = _raw(path)
    # The same catalogue in other bytes (indented): the same canonical digest.
    path.write_text(json.dumps(raw, indent=1))
    assert load_catalogue(path.stem).sha256 == SCHEMA_CHECKED[path.stem]
    # Other content under the shipped id: its own digest, never the listed one.
    raw["title"] = "edited"
    path.write_text(json.dumps(raw))
    catalogue._load_catalogue.cache_clear()
    loaded = load_catalogue(path.stem)
    assert loaded.title == "edited"
    assert loaded.sha256 == hashlib.sha256(canonical_json(raw)).hexdigest()
    assert loaded.sha256 != SCHEMA_CHECKED[path.stem]


def test_a_changed_catalogue_is_validated_against_the_schema() -> None:
    raw = copy.deepcopy(_raw(SHIPPED[0]))
    raw["tiles"][0]["cost"] = "seven"  # same id, other bytes: not in SCHEMA_CHECKED
    with pytest.raises(CatalogueError, match="catalogue invalid at tiles/0"):
        parse_catalogue(raw)


def test_loading_a_shipped_catalogue_does_not_import_jsonschema() -> None:
    code = (
        "import sys; from heights_rules.catalogue import load_catalogue; load_catalogue(); "
        "sys.exit('jsonschema' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr or "jsonschema was imported"


def _as_if_shipped(raw: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """List `raw`'s bytes as schema-checked, as a shipped catalogue is: no schema pass."""
    digest = hashlib.sha256(canonical_json(raw)).hexdigest()
    monkeypatch.setitem(SCHEMA_CHECKED, str(raw["id"]), digest)


def _first_purple(raw: dict[str, Any]) -> dict[str, Any]:
    tile: dict[str, Any] = next(t for t in raw["tiles"] if t.get("purple"))
    return tile


def test_an_unknown_effect_fails_loading_by_name_even_past_the_schema(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    raw = copy.deepcopy(_raw(SHIPPED[0]))
    tile = _first_purple(raw)
    tile["purple"]["hard"]["effect"] = "gain_moon"
    _as_if_shipped(raw, monkeypatch)
    with pytest.raises(CatalogueError, match=f"tile {tile['id']}: unknown effect 'gain_moon'"):
        parse_catalogue(raw)


def test_an_unknown_scoring_function_fails_loading_by_name_even_past_the_schema(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    raw = copy.deepcopy(_raw(SHIPPED[0]))
    raw["ads"][0]["scoring"]["fn"] = "per_moon"
    _as_if_shipped(raw, monkeypatch)
    with pytest.raises(CatalogueError, match="unknown scoring function 'per_moon'; functions: "):
        parse_catalogue(raw)


def test_a_score_effect_naming_an_unknown_function_fails_loading(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    raw = copy.deepcopy(_raw(SHIPPED[0]))
    _first_purple(raw)["purple"]["steady"] = {"effect": "score", "params": {"fn": "per_moon"}}
    _as_if_shipped(raw, monkeypatch)
    with pytest.raises(CatalogueError, match="unknown scoring function 'per_moon'"):
        parse_catalogue(raw)


def test_the_library_implements_exactly_the_names_a_catalogue_may_use() -> None:
    effect_names, function_names = library_names()
    assert set(effects._RUNNERS) == effect_names
    assert set(scoring._FUNCTIONS) == function_names
