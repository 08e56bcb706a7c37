"""The files under deploy/, loaded for the tests that check them, and small readers."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"
K8S = DEPLOY / "k8s"
DOCKERFILE = DEPLOY / "Dockerfile"
COMPOSE = DEPLOY / "docker-compose.yml"
ENV_EXAMPLE = DEPLOY / ".env.example"
README = DEPLOY / "README.md"

# kustomization.yaml is kustomize's, not an API object; the Secret template is applied
# by hand (deploy/README.md, "Secrets").
KUSTOMIZATION = "kustomization.yaml"
SECRET_TEMPLATE = "secret.example.yaml"
WORKLOAD_KINDS = ("Deployment", "StatefulSet", "Job")
OUR_IMAGES = ("rolling-heights/engine", "rolling-heights/runner", "rolling-heights/platform")

Manifest = dict[str, Any]


def manifest_files() -> list[Path]:
    return sorted(p for p in K8S.glob("*.yaml") if p.name != KUSTOMIZATION)


@cache
def documents(name: str) -> tuple[Manifest, ...]:
    text = (K8S / name).read_text()
    return tuple(doc for doc in yaml.safe_load_all(text) if doc)


def all_manifests() -> list[tuple[str, Manifest]]:
    """(file name, object) for every object in every file, the Secret template included."""
    return [(path.name, doc) for path in manifest_files() for doc in documents(path.name)]


def kustomization() -> Manifest:
    loaded: Manifest = yaml.safe_load((K8S / KUSTOMIZATION).read_text())
    return loaded


def applied() -> list[Manifest]:
    """The objects `kubectl apply -k deploy/k8s` creates."""
    return [doc for name in kustomization()["resources"] for doc in documents(name)]


def of_kind(kind: str, objects: list[Manifest] | None = None) -> list[Manifest]:
    return [doc for doc in (applied() if objects is None else objects) if doc["kind"] == kind]


def named(kind: str, name: str) -> Manifest:
    (found,) = [doc for doc in of_kind(kind) if doc["metadata"]["name"] == name]
    return found


def workloads() -> list[Manifest]:
    return [doc for doc in applied() if doc["kind"] in WORKLOAD_KINDS]


def pod_spec(workload: Manifest) -> Manifest:
    spec: Manifest = workload["spec"]["template"]["spec"]
    return spec


def pod_labels(workload: Manifest) -> dict[str, str]:
    labels: dict[str, str] = workload["spec"]["template"]["metadata"]["labels"]
    return labels


def containers(workload: Manifest, *, init: bool = True) -> list[Manifest]:
    spec = pod_spec(workload)
    found: list[Manifest] = list(spec["containers"])
    return found + list(spec.get("initContainers", [])) if init else found


def selector_matches(selector: Manifest, labels: dict[str, str]) -> bool:
    """A label selector (matchLabels and matchExpressions) against a set of labels."""
    for key, value in selector.get("matchLabels", {}).items():
        if labels.get(key) != value:
            return False
    for expression in selector.get("matchExpressions", []):
        key, operator = expression["key"], expression["operator"]
        values = expression.get("values", [])
        present = key in labels
        held = {
            "In": present and labels[key] in values,
            "NotIn": not present or labels[key] not in values,
            "Exists": present,
            "DoesNotExist": not present,
        }[operator]
        if not held:
            return False
    return True


@cache
def compose() -> Manifest:
    loaded: Manifest = yaml.safe_load(COMPOSE.read_text())
    return loaded


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(stage, instruction line) with continuations joined and comments dropped."""
    joined: list[str] = []
    pending = ""
    for raw in DOCKERFILE.read_text().splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        joined.append(pending + line)
        pending = ""
    stage = ""
    out: list[tuple[str, str]] = []
    for line in joined:
        match = re.fullmatch(r"FROM\s+\S+(?:\s+AS\s+(\S+))?", line, flags=re.IGNORECASE)
        if match:
            stage = match.group(1) or ""
        out.append((stage, line))
    return out


def dockerfile_stages() -> dict[str, list[str]]:
    stages: dict[str, list[str]] = {}
    for stage, line in dockerfile_instructions():
        stages.setdefault(stage, []).append(line)
    return stages


def exec_form(instruction: str, keyword: str) -> list[str]:
    """The JSON array of `CMD [...]` or `HEALTHCHECK ... CMD [...]`."""
    _, _, rest = instruction.partition(f"{keyword} ")
    if keyword == "HEALTHCHECK":
        rest = rest[rest.index("CMD ") + len("CMD ") :]
    parsed: list[str] = json.loads(rest)
    return parsed


def documented_names() -> set[str]:
    """Every UPPER_CASE word in deploy/README.md and deploy/.env.example."""
    text = README.read_text() + ENV_EXAMPLE.read_text()
    return set(re.findall(r"\b[A-Z][A-Z0-9_]*[A-Z0-9]\b", text))


def env_example() -> dict[str, str]:
    values: dict[str, str] = {}
    for line in ENV_EXAMPLE.read_text().splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.partition("=")
            values[key.strip()] = value.strip()
    return values
