"""deploy/README.md names every variable the components read, so none is a surprise.

The components' settings modules are the source: the engine's `Settings` fields, and the
`_env("NAME")` / `os.environ.get("NAME"` reads of the runner's and the platform's
settings. A variable added there without a line in deploy/README.md fails here.
"""

from __future__ import annotations

import dataclasses
import re

import pytest
from tests.deploy.deployfiles import REPO, documented_names

SETTINGS_MODULES = {
    "HEIGHTS_RUNNER_": REPO / "services/runner/heights_runner/settings.py",
    "HEIGHTS_PLATFORM_": REPO / "platform/heights_platform/settings.py",
}


def engine_variables() -> set[str]:
    from heights_engine.settings import PREFIX, Settings

    return {PREFIX + field.name.upper() for field in dataclasses.fields(Settings)}


def read_variables(prefix: str) -> set[str]:
    source = SETTINGS_MODULES[prefix].read_text()
    prefixed = {prefix + name for name in re.findall(r'_env\("([A-Z0-9_]+)"', source)}
    direct = set(re.findall(r'os\.environ\.get\("([A-Z0-9_]+)"', source))
    return prefixed | direct


@pytest.mark.parametrize("component", ["engine", *SETTINGS_MODULES])
def test_every_variable_a_component_reads_is_documented(component: str) -> None:
    names = engine_variables() if component == "engine" else read_variables(component)
    assert names, component
    missing = names - documented_names()
    assert not missing, f"add to deploy/README.md, Configuration: {sorted(missing)}"
