"""Which engine build is under test: the Makefile's second pass must load the compiled one."""

import importlib
import os

import pytest

HOT_MODULES = ("state", "legal", "dispatch", "main_phase", "turn", "market", "economy")


@pytest.mark.skipif(
    not os.environ.get("HEIGHTS_EXPECT_COMPILED"), reason="the pure-Python pass of `make test`"
)
@pytest.mark.parametrize("name", HOT_MODULES)
def test_the_compiled_engine_is_loaded(name: str) -> None:
    module = importlib.import_module(f"heights_rules.{name}")
    assert str(module.__file__).endswith(".so"), module.__file__
