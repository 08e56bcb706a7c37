"""deploy/Dockerfile: a pinned base, the three targets, non-root users, nothing secret."""

from __future__ import annotations

import fnmatch
import re

import pytest
from tests.deploy.deployfiles import (
    DEPLOY,
    REPO,
    dockerfile_instructions,
    dockerfile_stages,
)

TARGETS = ("engine", "runner", "platform")
SECRETISH = re.compile(r"SECRET|PASSWORD|TOKEN|_KEY\b|CREDENTIAL", re.IGNORECASE)


def instructions(stage: str, keyword: str) -> list[str]:
    return [line for line in dockerfile_stages()[stage] if line.split()[0].upper() == keyword]


def test_base_image_is_python_311_slim_bookworm_pinned_by_tag() -> None:
    (arg,) = instructions("", "ARG")
    match = re.fullmatch(r"ARG PYTHON_IMAGE=python:(\S+)", arg)
    assert match, arg
    assert re.fullmatch(r"3\.11\.\d+-slim-bookworm(@sha256:[0-9a-f]{64})?", match.group(1))


def test_every_stage_starts_from_the_pinned_base_or_an_earlier_stage() -> None:
    seen: list[str] = []
    for stage, line in dockerfile_instructions():
        if line.upper().startswith("FROM "):
            base = line.split()[1]
            assert base == "${PYTHON_IMAGE}" or base in seen, line
            seen.append(stage)
    assert seen == ["builder", "runtime", *TARGETS]


def test_builder_checks_hashes_and_compiles_and_runtime_installs_offline() -> None:
    builder = " ".join(dockerfile_stages()["builder"])
    assert builder.count("--require-hashes") >= 3
    assert "HEIGHTS_PURE_PYTHON" not in builder  # unset: the mypyc-compiled build
    assert "gcc" in builder
    runtime = " ".join(dockerfile_stages()["runtime"])
    assert "--no-index --find-links /wheels rolling-heights-arena" in runtime
    assert "gcc" not in runtime


def test_the_images_keep_the_bytecode_every_python_process_imports() -> None:
    # The base image deletes the standard library's *.pyc and PYTHONDONTWRITEBYTECODE
    # stops any process writing them: without these steps every sandboxed Python bot
    # compiles the standard modules it imports at each start (~3x its start-up CPU).
    runtime = " ".join(dockerfile_stages()["runtime"])
    assert "PYTHONDONTWRITEBYTECODE=1" in runtime
    assert re.search(r"python -m compileall .*stdlib.* /opt/heights/lib", runtime), runtime
    runner = " ".join(dockerfile_stages()["runner"])
    assert "python -m compileall -q -j 0 /opt/heights/bot-python" in runner


@pytest.mark.parametrize("target", TARGETS)
def test_targets_run_as_an_unprivileged_numeric_user(target: str) -> None:
    users = instructions(target, "USER")
    assert users, f"{target} has no USER"
    uid, _, gid = users[-1].split()[1].partition(":")
    assert uid.isdigit(), users[-1]
    assert gid.isdigit(), users[-1]
    assert int(uid) >= 1000
    assert int(gid) >= 1000


@pytest.mark.parametrize("target", TARGETS)
def test_targets_have_a_health_check_and_a_command(target: str) -> None:
    assert len(instructions(target, "HEALTHCHECK")) == 1
    assert len(instructions(target, "CMD")) == 1
    assert not instructions(target, "ENTRYPOINT")


def test_only_the_runner_gets_bubblewrap_and_it_is_not_setuid() -> None:
    for stage, lines in dockerfile_stages().items():
        text = " ".join(lines)
        assert ("bubblewrap" in text) is (stage == "runner"), stage
    assert "chmod u-s /usr/bin/bwrap" in " ".join(dockerfile_stages()["runner"])


def test_no_secret_is_baked_in() -> None:
    for stage, line in dockerfile_instructions():
        keyword = line.split()[0].upper()
        if keyword in {"ENV", "ARG", "LABEL"}:
            assert not SECRETISH.search(line), (stage, line)
        if keyword in {"COPY", "ADD"}:
            assert ".env" not in line, (stage, line)


def _copy_sources() -> list[str]:
    sources: list[str] = []
    for _, line in dockerfile_instructions():
        parts = line.split()
        if parts[0].upper() != "COPY" or any(p.startswith("--from") for p in parts):
            continue
        args = [p for p in parts[1:] if not p.startswith("--")]
        sources.extend(args[:-1])
    return sources


def _ignored(path: str, patterns: list[str]) -> bool:
    """Docker's rule: the last pattern matching the path or one of its parents decides."""
    parts = path.split("/")
    candidates = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    ignored = False
    for pattern in patterns:
        negated = pattern.startswith("!")
        glob = pattern.lstrip("!").rstrip("/")
        if any(fnmatch.fnmatch(c, glob) for c in candidates):
            ignored = not negated
    return ignored


def test_everything_copied_exists_and_is_in_the_build_context() -> None:
    ignore = DEPLOY / "Dockerfile.dockerignore"
    patterns = [
        line.strip()
        for line in ignore.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    sources = _copy_sources()
    assert "requirements/lock.txt" in sources
    for source in sources:
        assert (REPO / source).exists(), source
        assert not _ignored(source, patterns), source
    for unwanted in (".venv/bin/python", ".git/config", "deploy/.env", "build/compiled"):
        assert _ignored(unwanted, patterns), unwanted
    for cache in ("services/engine/heights_rules/__pycache__/x.pyc", "platform/x.egg-info"):
        assert _ignored(cache, patterns), cache
