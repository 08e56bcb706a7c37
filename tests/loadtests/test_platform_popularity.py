"""The platform load test's bot popularity (loadtests/platform/popularity.py): Zipf's law
over a fixed ranking, the same for every user and run; exponent 0 is uniform."""

from __future__ import annotations

import importlib.util
import math
import random
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest

PATH = Path(__file__).resolve().parents[2] / "loadtests" / "platform" / "popularity.py"


def _module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("popularity", PATH)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


popularity = _module()
BOTS = list(range(101, 1101))


def test_draws_follow_the_zipf_weights() -> None:
    zipf = popularity.Zipf(BOTS, exponent=1.0)
    rng = random.Random(7)
    draws = 200_000
    counts = Counter(zipf.draw(rng) for _ in range(draws))
    harmonic = sum(1 / k for k in range(1, len(BOTS) + 1))
    for rank in (1, 2, 10):
        expected = draws / (rank * harmonic)
        # Binomial standard deviation; 5 of them is far beyond chance.
        assert abs(counts[zipf.ranked[rank - 1]] - expected) < 5 * math.sqrt(expected)
    assert zipf.head_share(10) == pytest.approx(sum(1 / k for k in range(1, 11)) / harmonic)


def test_the_ranking_is_a_fixed_shuffle_of_every_bot() -> None:
    first = popularity.Zipf(BOTS)
    assert sorted(first.ranked) == BOTS
    assert first.ranked != tuple(BOTS)  # popularity is not the bots' id order
    assert popularity.Zipf(BOTS).ranked == first.ranked
    assert popularity.Zipf(BOTS, order_seed=20).ranked != first.ranked


def test_exponent_zero_is_uniform() -> None:
    zipf = popularity.Zipf(BOTS, exponent=0.0)
    assert zipf.head_share(100) == pytest.approx(0.1)


@pytest.mark.parametrize("exponent", [-0.5, 4.5])
def test_bad_exponents_are_refused(exponent: float) -> None:
    with pytest.raises(ValueError, match="exponent"):
        popularity.Zipf(BOTS, exponent=exponent)


def test_no_items_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one"):
        popularity.Zipf([])
