"""The installed distribution: each package importable and typed, `heights` wired to the CLI."""

import importlib
import importlib.metadata
import os
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


# Files a package reads at run time that are not Python (templates, static files,
# component data). Type stubs of generated code are for mypy only.
SOURCE_ROOTS = [*sorted((REPO_ROOT / "services").glob("*")), REPO_ROOT / "platform"]
COMPILED = REPO_ROOT / "build" / "compiled"


def _data_files() -> list[Path]:
    found = []
    for root in SOURCE_ROOTS:
        for path in root.rglob("*"):
            if not path.is_file() or path.suffix in (".py", ".pyc", ".pyi"):
                continue
            relative = path.relative_to(root)
            if relative.parts[0].startswith("heights_") and "__pycache__" not in path.parts:
                found.append(relative)
    return sorted(found)


def _relative(path: Path) -> Path:
    root = next(r for r in SOURCE_ROOTS if path.is_relative_to(r))
    return path.relative_to(root)


@pytest.mark.skipif(
    not COMPILED.is_dir() and not os.environ.get("HEIGHTS_EXPECT_COMPILED"),
    reason="no build/compiled (make compiled)",
)
def test_the_installed_build_carries_every_data_file_of_the_packages() -> None:
    # The viewer's templates were left out of the build (package data named the wrong
    # package), so every viewer page was a 500 under `make demo`, `make up` and the image.
    files = _data_files()
    assert any(f.suffix == ".html" for f in files)
    missing = [str(f) for f in files if not (COMPILED / f).is_file()]
    assert missing == []
    # And as they are now: the build is remade when any file of a package changes.
    sources = {root / f for root in SOURCE_ROOTS for f in files if (root / f).is_file()}
    stale = [str(s) for s in sources if s.read_bytes() != (COMPILED / _relative(s)).read_bytes()]
    assert stale == [], "build/compiled is older than these files: make compiled"
