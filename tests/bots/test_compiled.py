"""The bots' second pass in `make test` must load their compiled search loops."""

import importlib
import os

import pytest

# The rollout policy and the two searching bots, where a searched decision's time goes.
HOT_MODULES = ("greedy", "greedy_main", "candidates", "evaluation", "search", "mcts")


@pytest.mark.skipif(
    not os.environ.get("HEIGHTS_EXPECT_COMPILED"), reason="the pure-Python pass of `make test`"
)
@pytest.mark.parametrize("name", HOT_MODULES)
def test_the_compiled_bots_are_loaded(name: str) -> None:
    module = importlib.import_module(f"heights_bots.{name}")
    assert str(module.__file__).endswith(".so"), module.__file__
