"""Loading catalogues: shipped files skip the schema pass only while their bytes are the
ones that passed it; anything else is validated in full."""

from __future__ import annotations

import copy
import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from heights_rules.catalogue import (
    SCHEMA_CHECKED,
    canonical_json,
    check_schema,
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
