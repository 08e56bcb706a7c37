"""docs/rules-coverage.md stays true: every test it names exists, and every binding
decision of RULES.md and every A-item of its §13 has a row."""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TABLE = REPO / "docs" / "rules-coverage.md"
DECISIONS = 9
A_ITEMS = 52
ROW = re.compile(r"^\| (?P<item>[^|]+?) \| (?P<what>[^|]+?) \| (?P<tests>[^|]+?) \|$")
NODE = re.compile(r"`(?P<path>tests/[\w/]+\.py)::(?P<name>test_\w+)`")


def _rows() -> dict[str, str]:
    rows = {}
    for line in TABLE.read_text(encoding="utf-8").splitlines():
        m = ROW.match(line)
        if m and m["item"] not in ("item", "---"):
            rows[m["item"]] = m["tests"]
    return rows


def _defined(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }


def test_every_decision_and_proposal_is_listed() -> None:
    rows = _rows()
    wanted = [f"Decision {n}" for n in range(1, DECISIONS + 1)]
    wanted += [f"A-{n:02d}" for n in range(1, A_ITEMS + 1)]
    assert [w for w in wanted if w not in rows] == []


def test_every_listed_test_exists() -> None:
    gone = []
    cited = 0
    for item, cell in _rows().items():
        for m in NODE.finditer(cell):
            cited += 1
            path = REPO / m["path"]
            if not path.is_file() or m["name"] not in _defined(path):
                gone.append(f"{item}: {m['path']}::{m['name']}")
    assert cited > 50
    assert gone == [], "tests named in docs/rules-coverage.md no longer exist"
