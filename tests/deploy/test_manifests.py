"""deploy/k8s: schema-valid, complete, probed, bounded, locked down, and wired right."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass

import kubernetes_validate  # type: ignore[import-untyped]
import pytest
import yaml
from tests.deploy.deployfiles import (
    K8S,
    OUR_IMAGES,
    SECRET_TEMPLATE,
    Manifest,
    all_manifests,
    applied,
    containers,
    documented_names,
    documents,
    kustomization,
    manifest_files,
    named,
    of_kind,
    pod_labels,
    pod_spec,
    selector_matches,
    workloads,
)

# The oldest version whose schema has every field used (securityContext.appArmorProfile
# is 1.30's) and the newest kubernetes-validate ships.
KUBERNETES_VERSIONS = ("1.30.0", "1.37.0")
NAMESPACE = "rolling-heights"
RUNNER_NAMESPACE = "rolling-heights-runner"
PLATFORM_GROUP = ("platform", "platform-worker", "beat", "migrate")
LONG_RUNNING = ("Deployment", "StatefulSet")
DATA_STORE_IMAGES = ("postgres:16.", "redis:7.")


def _id(item: tuple[str, Manifest]) -> str:
    name, doc = item
    return f"{name}:{doc['kind']}/{doc['metadata']['name']}"


def _workload_id(doc: Manifest) -> str:
    return f"{doc['kind']}/{doc['metadata']['name']}"


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
@pytest.mark.parametrize("item", all_manifests(), ids=_id)
def test_object_validates_against_the_kubernetes_schema(
    item: tuple[str, Manifest], version: str
) -> None:
    _, doc = item
    try:
        kubernetes_validate.validate(doc, version, strict=True)
    except kubernetes_validate.ValidationError as err:
        path = ".".join(str(part) for part in err.path)
        pytest.fail(f"{_id(item)} against {version}: {path}: {err.message}")
    except kubernetes_validate.SchemaNotFoundError as err:
        pytest.fail(err.message)


def test_kustomization_lists_every_manifest_but_the_secret_template() -> None:
    listed = kustomization()["resources"]
    assert len(listed) == len(set(listed))
    on_disk = {path.name for path in manifest_files()} - {SECRET_TEMPLATE}
    assert set(listed) == on_disk
    # objects name their own namespace; a kustomize-wide one would move the runner's
    assert "namespace" not in kustomization()


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed")
def test_kustomize_builds_the_same_objects_in_the_namespace() -> None:
    out = subprocess.run(
        ["kubectl", "kustomize", str(K8S)], capture_output=True, text=True, check=True
    ).stdout
    built = [doc for doc in yaml.safe_load_all(out) if doc]

    def key(doc: Manifest) -> str:
        return f"{doc['metadata'].get('namespace', '')}/{_workload_id(doc)}"

    assert sorted(map(key, built)) == sorted(map(key, applied()))
    for doc in built:
        kubernetes_validate.validate(doc, KUBERNETES_VERSIONS[0], strict=True)


def test_secrets_are_only_a_template_with_placeholders() -> None:
    assert not of_kind("Secret")
    secrets = list(documents(SECRET_TEMPLATE))
    assert {doc["kind"] for doc in secrets} == {"Secret"}
    for secret in secrets:
        for key, value in secret["stringData"].items():
            assert "CHANGE_ME" in value, f"{secret['metadata']['name']}.{key} is not a placeholder"


def _is_runners(doc: Manifest) -> bool:
    return bool(doc["metadata"].get("labels", {}).get("app.kubernetes.io/name") == "runner")


def test_the_runner_has_a_namespace_of_its_own_and_the_rest_shares_one() -> None:
    runners: set[str] = set()
    for _, doc in all_manifests():
        if doc["kind"] == "Namespace":
            continue
        namespace = doc["metadata"]["namespace"]  # always explicit
        if _is_runners(doc):
            assert namespace == RUNNER_NAMESPACE, _workload_id(doc)
            runners.add(_workload_id(doc))
        elif namespace == RUNNER_NAMESPACE:
            # only the namespace's own default deny and DNS policies besides the runner's
            assert doc["kind"] == "NetworkPolicy", _workload_id(doc)
        else:
            assert namespace == NAMESPACE, _workload_id(doc)
    assert runners == {
        "ConfigMap/runner-config",
        "Secret/runner-secrets",
        "Deployment/runner",
        "HorizontalPodAutoscaler/runner",
        "NetworkPolicy/runner",
    }


def test_pod_security_restricted_everywhere_but_the_runners_namespace() -> None:
    main = named("Namespace", NAMESPACE)["metadata"]["labels"]
    assert main["pod-security.kubernetes.io/enforce"] == "restricted"
    runner = named("Namespace", RUNNER_NAMESPACE)["metadata"]["labels"]
    # bubblewrap needs what "baseline" forbids (Unconfined seccomp and AppArmor, an
    # unmasked /proc); the namespace still warns and audits against baseline.
    assert runner["pod-security.kubernetes.io/enforce"] == "privileged"
    assert runner["pod-security.kubernetes.io/warn"] == "baseline"
    for workload in workloads():
        in_runner_namespace = workload["metadata"]["namespace"] == RUNNER_NAMESPACE
        assert in_runner_namespace is (workload["metadata"]["name"] == "runner")


@pytest.mark.parametrize("workload", workloads(), ids=_workload_id)
def test_every_container_has_requests_and_limits(workload: Manifest) -> None:
    for container in containers(workload):
        resources = container["resources"]
        for bound in ("requests", "limits"):
            assert set(resources[bound]) >= {"cpu", "memory"}, (container["name"], bound)


@pytest.mark.parametrize(
    "workload", [w for w in workloads() if w["kind"] in LONG_RUNNING], ids=_workload_id
)
def test_every_long_running_container_has_readiness_and_liveness_probes(
    workload: Manifest,
) -> None:
    for container in containers(workload, init=False):
        assert "readinessProbe" in container, container["name"]
        assert "livenessProbe" in container, container["name"]


def test_engine_probes_are_grpc_on_the_serving_port() -> None:
    (engine,) = containers(named("Deployment", "engine"))
    ports = {port["name"]: port["containerPort"] for port in engine["ports"]}
    assert ports["grpc"] == 50051
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert engine[probe]["grpc"] == {"port": 50051}, probe


def test_platform_probes_are_readyz_and_healthz_with_an_allowed_host() -> None:
    platform = containers(named("Deployment", "platform"), init=False)[0]
    allowed = named("ConfigMap", "platform-config")["data"]["HEIGHTS_PLATFORM_ALLOWED_HOSTS"]
    for probe, path in (("readinessProbe", "/readyz"), ("livenessProbe", "/healthz")):
        http = platform[probe]["httpGet"]
        assert http["path"] == path
        assert http["port"] == "http"
        (host,) = [h["value"] for h in http["httpHeaders"] if h["name"] == "Host"]
        assert host in allowed.split(",")


@pytest.mark.parametrize("workload", workloads(), ids=_workload_id)
def test_pods_run_unprivileged_with_a_read_only_root(workload: Manifest) -> None:
    spec = pod_spec(workload)
    pod = spec["securityContext"]
    assert pod["runAsNonRoot"] is True
    assert pod["runAsUser"] > 0
    assert spec["automountServiceAccountToken"] is False
    expected_seccomp = (
        "Unconfined" if workload["metadata"]["name"] == "runner" else "RuntimeDefault"
    )
    assert pod["seccompProfile"] == {"type": expected_seccomp}
    for container in containers(workload):
        context = container["securityContext"]
        assert context["allowPrivilegeEscalation"] is False, container["name"]
        assert context["readOnlyRootFilesystem"] is True, container["name"]
        assert context["capabilities"] == {"drop": ["ALL"]}, container["name"]
        assert context.get("privileged", False) is False, container["name"]
        assert "seccompProfile" not in context, "set at the pod level only"


def test_runner_pod_has_what_bubblewrap_needs_and_nothing_more() -> None:
    runner = named("Deployment", "runner")
    spec = pod_spec(runner)
    assert spec["hostUsers"] is False  # procMount Unmasked is only allowed with it
    assert spec["securityContext"]["appArmorProfile"] == {"type": "Unconfined"}
    (container,) = containers(runner)
    assert container["securityContext"]["procMount"] == "Unmasked"
    for field in ("hostNetwork", "hostPID", "hostIPC"):
        assert not spec.get(field, False)


def test_workloads_use_only_images_built_here_or_pinned_data_stores() -> None:
    for workload in workloads():
        for container in containers(workload):
            image = container["image"]
            ours = image.partition(":")[0] in OUR_IMAGES
            store = image.startswith(DATA_STORE_IMAGES) and image.endswith("-bookworm")
            assert ours or store, image


def test_services_select_pods_and_name_their_ports() -> None:
    templates = [(pod_labels(w), containers(w, init=False)) for w in workloads()]
    for service in of_kind("Service"):
        selected = [
            c for labels, cs in templates if selector_matches(service["spec"], labels) for c in cs
        ]
        assert selected, service["metadata"]["name"]
        port_names = {p.get("name") for c in selected for p in c.get("ports", [])}
        for port in service["spec"]["ports"]:
            assert port["targetPort"] in port_names, (service["metadata"]["name"], port)


def test_engine_has_a_headless_and_a_normal_service() -> None:
    headless = named("Service", "engine-headless")["spec"]
    normal = named("Service", "engine")["spec"]
    assert headless["clusterIP"] == "None"
    assert normal.get("clusterIP") != "None"
    assert headless["selector"] == normal["selector"] == {"app.kubernetes.io/name": "engine"}
    assert [p["port"] for p in headless["ports"]] == [50051]
    runner_config = named("ConfigMap", "runner-config")["data"]
    assert runner_config["HEIGHTS_RUNNER_ENGINE_ADDRESS"] == (
        f"dns:///engine-headless.{NAMESPACE}.svc.cluster.local:50051"
    )
    platform_config = named("ConfigMap", "platform-config")["data"]
    assert platform_config["HEIGHTS_PLATFORM_ENGINE_ADDRESS"] == "dns:///engine-headless:50051"


def _hpa_of(name: str) -> Manifest:
    hpa = named("HorizontalPodAutoscaler", name)
    assert hpa["apiVersion"] == "autoscaling/v2"
    target = hpa["spec"]["scaleTargetRef"]
    assert (target["kind"], target["name"]) == ("Deployment", name)
    assert named("Deployment", name)
    assert hpa["spec"]["minReplicas"] >= 2
    return hpa


def test_the_engine_scales_on_cpu() -> None:
    (metric,) = _hpa_of("engine")["spec"]["metrics"]
    assert metric["resource"]["name"] == "cpu"


def test_runners_scale_on_match_demand_one_pod_per_concurrency() -> None:
    (metric,) = _hpa_of("runner")["spec"]["metrics"]
    assert metric["type"] == "External"
    assert metric["external"]["metric"]["name"] == "heights_runner_match_demand"
    concurrency = named("ConfigMap", "runner-config")["data"]["HEIGHTS_RUNNER_CONCURRENCY"]
    assert metric["external"]["target"] == {"type": "AverageValue", "averageValue": concurrency}
    # the adapter's rule defines that metric from the two series the code exports
    values = yaml.safe_load((K8S.parent / "prometheus-adapter-values.yaml").read_text())
    (rule,) = values["rules"]["external"]
    assert rule["name"]["as"] == "heights_runner_match_demand"
    query = rule["metricsQuery"]
    assert "heights_platform_queue_depth" in query
    assert "heights_runner_matches_in_progress" in query


def test_the_demand_metrics_are_the_ones_the_code_exports() -> None:
    from heights_runner import metrics

    assert metrics.MATCHES_IN_PROGRESS._name == "heights_runner_matches_in_progress"
    source = (K8S.parents[1] / "platform/heights_platform/common/metrics.py").read_text()
    assert '"heights_platform_queue_depth"' in source
    assert '"matches"' in source


@pytest.mark.parametrize("name", ["engine", "platform"])
def test_pdb_covers_the_deployment_and_leaves_room_to_drain(name: str) -> None:
    pdb = named("PodDisruptionBudget", name)
    deployment = named("Deployment", name)
    assert selector_matches(pdb["spec"]["selector"], pod_labels(deployment))
    assert pdb["spec"]["minAvailable"] < deployment["spec"]["replicas"]


def test_beat_is_a_single_replica_that_never_overlaps() -> None:
    beat = named("Deployment", "beat")
    assert beat["spec"]["replicas"] == 1
    assert beat["spec"]["strategy"] == {"type": "Recreate"}
    assert not [h for h in of_kind("HorizontalPodAutoscaler") if h["metadata"]["name"] == "beat"]


def _env_sources(workload: Manifest) -> tuple[set[str], set[str], set[str]]:
    """(ConfigMap names, Secret names, literal env names) the workload's containers use."""
    maps: set[str] = set()
    secrets: set[str] = set()
    names: set[str] = set()
    for container in containers(workload):
        for source in container.get("envFrom", []):
            if "configMapRef" in source:
                maps.add(source["configMapRef"]["name"])
            if "secretRef" in source:
                secrets.add(source["secretRef"]["name"])
        for var in container.get("env", []):
            names.add(var["name"])
            ref = var.get("valueFrom", {}).get("secretKeyRef")
            if ref:
                secrets.add(ref["name"])
    return maps, secrets, names


def _secret_template(name: str) -> Manifest:
    (secret,) = [d for d in documents(SECRET_TEMPLATE) if d["metadata"]["name"] == name]
    return secret


def test_referenced_config_maps_and_secrets_exist() -> None:
    for workload in workloads():
        maps, secrets, _ = _env_sources(workload)
        for name in maps:
            assert named("ConfigMap", name)
        for name in secrets:
            assert _secret_template(name)


def test_runner_holds_no_database_credentials() -> None:
    maps, secrets, names = _env_sources(named("Deployment", "runner"))
    values: dict[str, str] = {}
    for name in maps:
        values |= named("ConfigMap", name)["data"]
    for name in secrets:
        values |= _secret_template(name)["stringData"]
    keys = set(values) | names
    assert not {k for k in keys if "DATABASE" in k or "POSTGRES" in k}
    assert not [v for v in values.values() if "postgres" in v or ":5432" in v]


def test_every_variable_set_in_the_manifests_is_documented() -> None:
    names: set[str] = set()
    for doc in of_kind("ConfigMap"):
        names |= set(doc["data"])
    for doc in documents(SECRET_TEMPLATE):
        names |= set(doc["stringData"])
    for workload in workloads():
        names |= _env_sources(workload)[2]
    missing = names - documented_names()
    assert not missing, f"not in deploy/README.md or deploy/.env.example: {sorted(missing)}"


# --- network policies ---------------------------------------------------------------


@dataclass(frozen=True)
class Pod:
    labels: tuple[tuple[str, str], ...]
    namespace: str

    @property
    def label_map(self) -> dict[str, str]:
        return dict(self.labels)

    @property
    def namespace_labels(self) -> dict[str, str]:
        return {"kubernetes.io/metadata.name": self.namespace}


def _namespace_of(name: str) -> str:
    for workload in workloads():
        if pod_labels(workload)["app.kubernetes.io/name"] == name:
            namespace: str = workload["metadata"]["namespace"]
            return namespace
    return NAMESPACE


def _pod(name: str) -> Pod:
    """A pod of ours, in the namespace its workload is in."""
    labels = {"app.kubernetes.io/name": name, "app.kubernetes.io/part-of": "rolling-heights"}
    return Pod(tuple(sorted(labels.items())), _namespace_of(name))


def _foreign(namespace: str, **labels: str) -> Pod:
    return Pod(tuple(sorted(labels.items())), namespace)


def _peer_matches(peer: Manifest, policy_namespace: str, pod: Pod | None) -> bool:
    """Could this `from`/`to` peer be the pod (None: an address outside the cluster)?"""
    if "ipBlock" in peer:
        return True  # an address range may hold pod addresses: assume the worst
    if pod is None:
        return False
    if "namespaceSelector" in peer:
        if not selector_matches(peer["namespaceSelector"], pod.namespace_labels):
            return False
    elif pod.namespace != policy_namespace:
        return False
    return selector_matches(peer.get("podSelector", {}), pod.label_map)


def _port_matches(rule: Manifest, port: int) -> bool:
    ports = rule.get("ports")
    return not ports or any(p.get("port", port) == port for p in ports)


def _allows(direction: str, subject: Pod, peer: Pod | None, port: int) -> bool:
    kind = "Egress" if direction == "egress" else "Ingress"
    key = "to" if direction == "egress" else "from"
    selecting = [
        p
        for p in of_kind("NetworkPolicy")
        if p["metadata"]["namespace"] == subject.namespace
        and kind in p["spec"].get("policyTypes", ["Ingress"])
        and selector_matches(p["spec"]["podSelector"], subject.label_map)
    ]
    if not selecting:
        return True  # no policy isolates the pod in this direction
    for policy in selecting:
        for rule in policy["spec"].get(direction) or []:
            peers = rule.get(key)
            if _port_matches(rule, port) and (
                not peers
                or any(_peer_matches(p, policy["metadata"]["namespace"], peer) for p in peers)
            ):
                return True
    return False


def can_connect(source: Pod, target: Pod, port: int) -> bool:
    """Both the source's egress and the target's ingress let the connection through."""
    return _allows("egress", source, target, port) and _allows("ingress", target, source, port)


ALL_PODS = sorted({pod_labels(w)["app.kubernetes.io/name"] for w in workloads()})
PORTS = {"postgres": 5432, "redis": 6379, "engine": 50051, "platform": 8000}
KUBE_DNS = _foreign("kube-system", **{"k8s-app": "kube-dns"})


@pytest.mark.parametrize("namespace", [NAMESPACE, RUNNER_NAMESPACE])
def test_every_pod_is_isolated_by_default(namespace: str) -> None:
    (deny,) = [
        p
        for p in of_kind("NetworkPolicy")
        if p["metadata"]["name"] == "default-deny-all" and p["metadata"]["namespace"] == namespace
    ]
    assert deny["spec"] == {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]}
    anything = _foreign(namespace, app="anything")
    assert _allows("egress", anything, KUBE_DNS, 53)
    assert not _allows("egress", anything, _foreign("elsewhere", app="x"), 443)
    assert not _allows("ingress", anything, _foreign("elsewhere", app="x"), 8080)


def test_runner_egress_never_reaches_postgres() -> None:
    for port in (5432, 80, 443, 6379, 50051):
        assert not _allows("egress", _pod("runner"), _pod("postgres"), port)
    assert not can_connect(_pod("runner"), _pod("postgres"), 5432)


def test_runner_reaches_only_engine_redis_and_dns() -> None:
    runner = _pod("runner")
    assert can_connect(runner, _pod("engine"), 50051)
    assert can_connect(runner, _pod("redis"), 6379)
    assert _allows("egress", runner, KUBE_DNS, 53)
    for other in set(ALL_PODS) - {"engine", "redis"}:
        for port in PORTS.values():
            assert not _allows("egress", runner, _pod(other), port), other
    assert not _allows("egress", runner, None, 443)  # the internet
    # a pod labelled like the engine, but in another namespace, is not the engine
    impostor = _foreign("elsewhere", **{"app.kubernetes.io/name": "engine"})
    assert not _allows("egress", runner, impostor, 50051)


@pytest.mark.parametrize("source", ALL_PODS)
def test_postgres_is_reachable_only_from_the_platform(source: str) -> None:
    expected = source in PLATFORM_GROUP
    assert can_connect(_pod(source), _pod("postgres"), 5432) is expected
    outsider = _foreign("elsewhere", **_pod(source).label_map)
    assert not _allows("ingress", _pod("postgres"), outsider, 5432)


@pytest.mark.parametrize(
    ("source", "target"),
    [
        ("engine", "redis"),
        ("runner", "engine"),
        ("runner", "redis"),
        *[(name, "postgres") for name in PLATFORM_GROUP],
        *[(name, store) for name in PLATFORM_GROUP[:3] for store in ("redis", "engine")],
    ],
)
def test_the_connections_the_system_needs_are_allowed(source: str, target: str) -> None:
    assert can_connect(_pod(source), _pod(target), PORTS[target])


def test_the_api_is_open_to_ingress_and_nothing_else_is() -> None:
    outside = _foreign("ingress-nginx", app="ingress-nginx")
    assert _allows("ingress", _pod("platform"), outside, 8000)
    for name in set(ALL_PODS) - {"platform"}:
        for port in PORTS.values():
            assert not _allows("ingress", _pod(name), outside, port), name


def test_the_engines_operator_credential_comes_from_secrets() -> None:
    """The engine checks it and the runner sends it; neither gets it from a ConfigMap."""
    for workload, variable in (
        ("engine", "HEIGHTS_ENGINE_OPERATOR_TOKEN"),
        ("runner", "HEIGHTS_RUNNER_ENGINE_OPERATOR_TOKEN"),
    ):
        maps, secrets, names = _env_sources(named("Deployment", workload))
        assert variable not in names
        for name in maps:
            assert variable not in named("ConfigMap", name)["data"]
        assert any(variable in _secret_template(name)["stringData"] for name in secrets)
    # The platform calls no engine RPC: it is not given the credential.
    _, platform_secrets, _ = _env_sources(named("Deployment", "platform"))
    for name in platform_secrets:
        assert not any("OPERATOR" in key for key in _secret_template(name)["stringData"])
