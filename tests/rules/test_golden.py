"""Golden playthroughs (OpenSpiel style): four whole games recorded step by step.

Each file in `golden/` records one game played by a fixed keyed random policy: at every
step the player, the decision, the legal actions (the full list every
`FULL_LEGAL_EVERY` steps, else their count), the action chosen and the events it caused,
the state hash every `HASH_EVERY` steps, and the outcome. The test renders the game
again and compares; any change in behaviour shows as the first differing line.

When a change of behaviour is intended, rewrite the files and review the diff:

    .venv/bin/python tests/rules/golden/regenerate.py
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from heights_rules import (
    ACTION_SPACE_VERSION,
    CHANCE,
    ENGINE_VERSION,
    TERMINAL,
    Action,
    Event,
    GameConfig,
    new_game,
    outcome,
)
from heights_rules.rng import KeyedRng

GOLDEN_DIR = Path(__file__).parent / "golden"
REGENERATE = ".venv/bin/python tests/rules/golden/regenerate.py"
FULL_LEGAL_EVERY = 10
HASH_EVERY = 50
MAX_STEPS = 20_000

# reconstructed-v1 as recorded before rules revisions: these files never change.
V1: dict[str, Any] = {"catalogue_id": "reconstructed-v1", "rules_revision": 1}
# reconstructed-v2, the default until v3: named, so that these files never change either.
V2: dict[str, Any] = {"catalogue_id": "reconstructed-v2"}
# reconstructed-v3, the default until v4: the same.
V3: dict[str, Any] = {"catalogue_id": "reconstructed-v3"}

# name -> (configuration, seed)
CASES: dict[str, tuple[GameConfig, int]] = {
    "2p-seed1": (GameConfig(players=2, **V1), 1),
    "3p-seed2": (GameConfig(players=3, **V1), 2),
    "4p-seed3": (GameConfig(players=4, **V1), 3),
    "solo-seed4": (GameConfig.solo_game(**V1), 4),
    "v2-2p-seed1": (GameConfig(players=2, **V2), 1),
    "v2-3p-seed2": (GameConfig(players=3, **V2), 2),
    "v2-4p-seed3": (GameConfig(players=4, **V2), 3),
    "v2-solo-seed4": (GameConfig.solo_game(**V2), 4),
    "v3-2p-seed1": (GameConfig(players=2, **V3), 1),
    "v3-3p-seed2": (GameConfig(players=3, **V3), 2),
    "v3-4p-seed3": (GameConfig(players=4, **V3), 3),
    "v3-solo-seed4": (GameConfig.solo_game(**V3), 4),
    "v4-2p-seed1": (GameConfig(players=2), 1),
    "v4-3p-seed2": (GameConfig(players=3), 2),
    "v4-4p-seed3": (GameConfig(players=4), 3),
    "v4-solo-seed4": (GameConfig.solo_game(), 4),
}


def compact(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def event_line(event: Event) -> str:
    who = "-" if event.player < 0 else f"p{event.player}"
    return f"  . {event.kind} {who} {compact(event.data)}"


def player_name(player: int) -> str:
    return {CHANCE: "chance", TERMINAL: "terminal"}.get(player, f"p{player}")


def render(config: GameConfig, seed: int) -> str:
    """The playthrough text of one game: the same on every machine and every run."""
    state = new_game(config, seed)
    policy = KeyedRng(seed)
    lines = [
        "# Rolling Heights golden playthrough",
        f"# regenerate deliberately with: {REGENERATE}",
        f"# engine {ENGINE_VERSION}, action space v{ACTION_SPACE_VERSION}",
        f"# config {compact(config.to_dict())}",
        f'# seed {seed}; policy: legal[KeyedRng({seed}).below(len(legal), b"golden", step)]',
        f"hash @0 {state.state_hash()}",
    ]
    step = 0
    while state.current_player() != TERMINAL:
        assert step < MAX_STEPS, "the game does not end"
        legal = state.legal_actions()
        action = legal[policy.below(len(legal), b"golden", step)]
        lines.append(f"{step} [{player_name(state.current_player())}] {state.decision_text()}")
        if step % FULL_LEGAL_EVERY == 0:
            texts = " | ".join(Action.from_id(a).text() for a in legal)
            lines.append(f"  legal {len(legal)}: {texts}")
        else:
            lines.append(f"  legal {len(legal)}")
        lines.append(f"  > {Action.from_id(action).text()}")
        lines.extend(event_line(e) for e in state.apply(action))
        step += 1
        if step % HASH_EVERY == 0:
            lines.append(f"hash @{step} {state.state_hash()}")
    lines.append(f"end after {step} steps")
    lines.append(f"hash @{step} {state.state_hash()}")
    lines.append(f"outcome {compact(outcome(state).to_dict())}")
    return "\n".join(lines) + "\n"


def golden_path(name: str) -> Path:
    return GOLDEN_DIR / f"{name}.txt"


def write_all(names: list[str] | None = None) -> list[Path]:
    """Rewrite the golden files (all, or the named ones); returns the paths written."""
    written = []
    for name in names or list(CASES):
        config, seed = CASES[name]
        path = golden_path(name)
        path.write_text(render(config, seed), encoding="utf-8")
        written.append(path)
    return written


def first_difference(expected: str, actual: str) -> str:
    old, new = expected.splitlines(), actual.splitlines()
    for number, (a, b) in enumerate(zip(old, new, strict=False), start=1):
        if a != b:
            return f"line {number}:\n  golden: {a}\n  now:    {b}"
    shorter = "the game now" if len(new) < len(old) else "the golden file"
    line = min(len(old), len(new)) + 1
    return f"line {line}: {shorter} ends there ({len(old)} golden lines, {len(new)} now)"


@pytest.mark.parametrize("name", list(CASES))
def test_golden_playthrough(name: str) -> None:
    path = golden_path(name)
    if not path.exists():
        pytest.fail(f"{path} is missing; write it with {REGENERATE}")
    expected = path.read_text(encoding="utf-8")
    config, seed = CASES[name]
    actual = render(config, seed)
    if actual != expected:
        pytest.fail(
            f"{name} differs from {path.name} at {first_difference(expected, actual)}\n"
            f"If the change is intended, rewrite the files with {REGENERATE} and review the diff."
        )


def test_golden_files_are_small() -> None:
    for name in CASES:
        path = golden_path(name)
        if path.exists():
            assert path.stat().st_size < 300_000, f"{path.name} is too large to review"


def test_every_golden_file_has_a_case() -> None:
    assert sorted(p.stem for p in GOLDEN_DIR.glob("*.txt")) == sorted(CASES)
