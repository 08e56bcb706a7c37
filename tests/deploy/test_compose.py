"""deploy/docker-compose.yml: images built here, the topology asked for, secrets from .env."""

from __future__ import annotations

import re
from typing import Any

import pytest
from tests.deploy.deployfiles import (
    DEPLOY,
    OUR_IMAGES,
    Manifest,
    compose,
    containers,
    dockerfile_stages,
    documented_names,
    env_example,
    workloads,
)

SERVICES = {
    "postgres",
    "redis",
    "engine",
    "runner",
    "migrate",
    "platform",
    "platform-worker",
    "beat",
}
PLATFORM_PROCESSES = ("platform", "platform-worker", "beat")
INTERPOLATION = re.compile(r"\$\{([A-Z][A-Z0-9_]*)(?::?[-?][^}]*)?\}")


def services() -> dict[str, Manifest]:
    found: dict[str, Manifest] = compose()["services"]
    return found


def service(name: str) -> Manifest:
    return services()[name]


def environment(name: str) -> dict[str, str]:
    env: dict[str, Any] = service(name).get("environment", {})
    return {key: str(value) for key, value in env.items()}


def networks(name: str) -> set[str]:
    declared: list[str] | dict[str, Any] = service(name).get("networks", [])
    return set(declared)  # a list of names, or a mapping of names to their options


def test_the_services_are_the_ones_the_system_needs() -> None:
    assert set(services()) == SERVICES


@pytest.mark.parametrize("name", sorted(SERVICES))
def test_images_are_built_here_or_the_pinned_data_stores(name: str) -> None:
    image = service(name)["image"]
    repository, _, tag = image.partition(":")
    if repository in OUR_IMAGES:
        build = service(name)["build"]
        assert (DEPLOY / build["context"] / build["dockerfile"]).resolve() == (
            DEPLOY / "Dockerfile"
        ).resolve()
        assert build["target"] == repository.rpartition("/")[2]
        assert build["target"] in dockerfile_stages()
    else:
        assert "build" not in service(name)
        assert repository in {"postgres", "redis"}
        assert re.fullmatch(r"\d+\.\d+(\.\d+)?-bookworm", tag), image


def test_data_store_images_match_the_kubernetes_ones() -> None:
    k8s = {c["image"] for w in workloads() for c in containers(w)}
    assert service("postgres")["image"] in k8s
    assert service("redis")["image"] in k8s
    assert service("postgres")["image"].startswith("postgres:16.")
    assert service("redis")["image"].startswith("redis:7.")


@pytest.mark.parametrize("name", ["engine", "runner"])
def test_two_replicas(name: str) -> None:
    assert service(name)["deploy"]["replicas"] == 2


def test_beat_is_a_single_replica() -> None:
    assert service("beat").get("deploy", {}).get("replicas", 1) == 1


def test_postgres_has_a_volume_and_a_health_check() -> None:
    postgres = service("postgres")
    assert "postgres-data:/var/lib/postgresql/data" in postgres["volumes"]
    assert "pg_isready" in postgres["healthcheck"]["test"]
    assert "postgres-data" in compose()["volumes"]


def test_redis_persists_with_aof_on_a_volume() -> None:
    redis = service("redis")
    command = redis["command"]
    assert command[command.index("--appendonly") + 1] == "yes"
    assert "--requirepass" in command
    assert "redis-data:/data" in redis["volumes"]
    assert "redis-data" in compose()["volumes"]
    assert redis["healthcheck"]["test"] == ["CMD", "redis-cli", "ping"]


def test_migrations_run_once_before_the_platform_starts() -> None:
    migrate = service("migrate")
    assert migrate["restart"] == "no"
    assert migrate["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert migrate["healthcheck"] == {"disable": True}
    for name in PLATFORM_PROCESSES:
        condition = service(name)["depends_on"]["migrate"]["condition"]
        assert condition == "service_completed_successfully", name


def test_platform_processes_without_http_replace_the_image_health_check() -> None:
    # The platform image's HEALTHCHECK asks gunicorn; worker and beat serve no HTTP.
    for name in ("platform-worker", "beat"):
        test = service(name)["healthcheck"]["test"]
        assert test[-2:] == ["broker", "HEIGHTS_PLATFORM_BROKER_URL"], name


def test_allowed_hosts_keep_localhost_for_the_health_check() -> None:
    # The platform image's HEALTHCHECK sends Host: localhost; Django refuses other hosts.
    assert "localhost" in env_example()["HEIGHTS_PLATFORM_ALLOWED_HOSTS"].split(",")
    default = environment("platform")["HEIGHTS_PLATFORM_ALLOWED_HOSTS"]
    assert re.fullmatch(r"\$\{HEIGHTS_PLATFORM_ALLOWED_HOSTS:-[^}]*\blocalhost\b[^}]*\}", default)


def test_engine_answers_as_engine_headless_like_in_kubernetes() -> None:
    aliases = service("engine")["networks"]["backend"]["aliases"]
    assert "engine-headless" in aliases
    for name, variable in (
        ("runner", "HEIGHTS_RUNNER_ENGINE_ADDRESS"),
        ("platform", "HEIGHTS_PLATFORM_ENGINE_ADDRESS"),
    ):
        assert environment(name)[variable] == "dns:///engine-headless:50051"


def test_only_the_platform_processes_share_a_network_with_postgres() -> None:
    postgres_networks = networks("postgres")
    for name in SERVICES - {"postgres"}:
        shares = bool(networks(name) & postgres_networks)
        assert shares is (name in (*PLATFORM_PROCESSES, "migrate")), name
    for network in postgres_networks:
        assert compose()["networks"][network]["internal"] is True


def test_runner_holds_no_database_credentials() -> None:
    env = environment("runner")
    assert not [k for k in env if "DATABASE" in k or "POSTGRES" in k]
    assert not [v for v in env.values() if "postgres" in v or "POSTGRES" in v]


def test_runner_is_unprivileged_but_may_build_its_sandbox() -> None:
    runner = service("runner")
    assert not runner.get("privileged", False)
    assert runner["cap_drop"] == ["ALL"]
    assert "cap_add" not in runner
    assert set(runner["security_opt"]) == {
        "no-new-privileges:true",
        "seccomp=unconfined",
        "apparmor=unconfined",
        "systempaths=unconfined",
    }
    assert environment("runner")["HEIGHTS_RUNNER_ALLOW_UNSANDBOXED"] == "0"


@pytest.mark.parametrize("name", sorted(SERVICES - {"postgres", "redis"}))
def test_our_containers_are_read_only_without_capabilities(name: str) -> None:
    spec = service(name)
    assert spec["read_only"] is True
    assert spec["cap_drop"] == ["ALL"]
    assert "no-new-privileges:true" in spec["security_opt"]


def _interpolated() -> set[str]:
    text = (DEPLOY / "docker-compose.yml").read_text()
    return set(INTERPOLATION.findall(text))


def test_every_interpolated_variable_is_in_env_example() -> None:
    missing = _interpolated() - set(env_example())
    assert not missing, f"not in deploy/.env.example: {sorted(missing)}"


def test_secrets_are_required_and_only_placeholders_in_env_example() -> None:
    text = (DEPLOY / "docker-compose.yml").read_text()
    required = set(re.findall(r"\$\{([A-Z][A-Z0-9_]*):\?", text))
    assert required == {
        "POSTGRES_PASSWORD",
        "REDIS_PASSWORD",
        "HEIGHTS_PLATFORM_SECRET_KEY",
        "HEIGHTS_ENGINE_TOKEN_SECRET",
        "HEIGHTS_ENGINE_OPERATOR_TOKEN",
    }
    values = env_example()
    for name in required:
        assert values[name] == "change-me", name


def test_every_variable_a_container_gets_is_documented() -> None:
    names = {key for name in SERVICES for key in environment(name)} | _interpolated()
    missing = names - documented_names()
    assert not missing, f"not in deploy/README.md or deploy/.env.example: {sorted(missing)}"
