"""Every command deploy/ starts exists: `heights` subcommands in the CLI's argparse tree,
gunicorn's app and options, Django management commands, the health-check script.

Commands are gathered from docker-compose.yml, the Kubernetes manifests and the
Dockerfile. A `heights` subcommand whose CLI is still being written is skipped with the
reason, not failed; once it exists it is parsed like the others.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util

import pytest
from tests.deploy.deployfiles import (
    DEPLOY,
    OUR_IMAGES,
    compose,
    containers,
    dockerfile_stages,
    exec_form,
    workloads,
)

HEALTHCHECK_IN_IMAGE = "/opt/heights/healthcheck.py"
HEALTHCHECK_MODES = {"grpc": (0, 1), "http": (1, 2), "broker": (1, 1)}
# Programs of the official postgres and redis images.
DATA_STORE_PROGRAMS = {"pg_isready", "redis-cli", "redis-server"}


def _probe_commands(container: dict[str, object], source: str) -> list[tuple[str, list[str]]]:
    found = []
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        spec = container.get(probe)
        if isinstance(spec, dict) and "exec" in spec:
            found.append((f"{source} {probe}", list(spec["exec"]["command"])))
    return found


def gathered() -> list[tuple[str, list[str]]]:
    """(where, argv) for every command deploy/ runs."""
    out: list[tuple[str, list[str]]] = []
    for name, service in compose()["services"].items():
        if "command" in service:
            out.append((f"compose {name}", list(service["command"])))
        test = service.get("healthcheck", {}).get("test")
        if test and test[0] == "CMD":
            out.append((f"compose {name} healthcheck", list(test[1:])))
    for workload in workloads():
        for container in containers(workload):
            where = f"k8s {workload['metadata']['name']}/{container['name']}"
            if "command" in container:
                out.append((where, [*container["command"], *container.get("args", [])]))
            out.extend(_probe_commands(container, where))
    for stage, lines in dockerfile_stages().items():
        for line in lines:
            keyword = line.split()[0]
            if keyword in {"CMD", "HEALTHCHECK"}:
                out.append((f"Dockerfile {stage} {keyword}", exec_form(line, keyword)))
    return out


def check_heights(args: list[str]) -> None:
    from heights_cli.main import build_parser

    parser = build_parser()
    try:
        parser.parse_args(args)
    except SystemExit:
        pytest.fail(f"`heights {' '.join(args)}` is not a command the CLI accepts")


def check_gunicorn(args: list[str]) -> None:
    from gunicorn.config import Config  # type: ignore[import-untyped]

    options = Config().parser().parse_args(args)
    (app,) = options.args
    module, _, attribute = app.partition(":")
    spec = importlib.util.find_spec(module)
    assert spec is not None, module
    assert spec.origin is not None, module
    with open(spec.origin) as source:
        tree = ast.parse(source.read())
    assigned = {
        target.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    assert attribute in assigned, f"{module} defines no {attribute}"


def check_python(args: list[str]) -> None:
    if args[:2] == ["-m", "django"]:
        command, *options = args[2:]
        module = importlib.import_module(f"django.core.management.commands.{command}")
        module.Command().create_parser("django", command).parse_args(options)
        return
    script, mode, *rest = args
    assert script == HEALTHCHECK_IN_IMAGE, script
    assert (DEPLOY / "healthcheck.py").is_file()
    low, high = HEALTHCHECK_MODES[mode]
    assert low <= len(rest) <= high, args


def check(argv: list[str]) -> None:
    program, *args = argv
    if program == "heights":
        check_heights(args)
    elif program == "gunicorn":
        check_gunicorn(args)
    elif program == "python":
        check_python(args)
    else:
        assert program in DATA_STORE_PROGRAMS, f"unknown program {program!r}"


@pytest.mark.parametrize(
    "argv", [argv for _, argv in gathered()], ids=[f"{w}: {' '.join(a)}" for w, a in gathered()]
)
def test_command_exists(argv: list[str]) -> None:
    check(argv)


def test_the_components_start_with_the_agreed_commands() -> None:
    commands = {" ".join(argv) for _, argv in gathered()}
    for expected in (
        "heights engine serve",
        "heights runner worker",
        "heights platform worker",
        "heights platform beat",
        "python -m django migrate --noinput",
    ):
        assert expected in commands, expected
    assert any(c.startswith("gunicorn heights_platform.wsgi:application") for c in commands)


def test_heights_commands_run_only_in_images_built_here() -> None:
    for name, service in compose()["services"].items():
        if service.get("command", [""])[0] in {"heights", "gunicorn"}:
            assert service["image"].partition(":")[0] in OUR_IMAGES, name


def test_a_command_the_cli_lacks_fails() -> None:
    check_heights(["engine", "serve"])
    with pytest.raises(pytest.fail.Exception):
        check_heights(["no-such-command"])
    with pytest.raises(pytest.fail.Exception):
        check_heights(["engine", "no-such-subcommand"])
