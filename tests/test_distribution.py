"""The installed distribution: each package importable and typed, `heights` wired to the CLI."""

import importlib
import importlib.metadata
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("name", ["heights_rules", "heights_bots", "heights_cli"])
def test_package_imports_and_ships_py_typed(name: str) -> None:
    module = importlib.import_module(name)
    assert module.__file__ is not None
    assert (Path(module.__file__).parent / "py.typed").is_file()


def test_heights_script_runs_cli_main() -> None:
    (script,) = importlib.metadata.entry_points(group="console_scripts", name="heights")
    assert script.value == "heights_cli.main:main"


def test_platform_folder_is_not_a_package() -> None:
    # A package named `platform` would shadow the standard library's module.
    assert not (REPO_ROOT / "platform" / "__init__.py").exists()
