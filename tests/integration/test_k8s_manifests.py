"""The Kubernetes manifests and the monitoring files, checked offline and against a live replica.

Every overlay is rendered with the real `kubectl kustomize` and every object validated with
kubernetes-validate --strict against a pinned Kubernetes version. The three custom resources
(ServiceMonitor, PrometheusRule, InferenceService) have no schema there: their Kubernetes-typed parts
(containers, label selectors) are validated against the same strict schemas, the rest against the
fields those CRDs define. The probes, the port and every metric name are checked against a real
`bentoml serve`; the PromQL is checked (and the alerts unit-tested) by the real promtool.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import subprocess
import tempfile
from functools import cache
from pathlib import Path

import httpx
import jsonschema
import kubernetes_validate
import pytest
import redis as redis_client
import referencing
import yaml
from kubernetes_validate.utils import SchemaNotFoundError

from harness.metrics import scrape
from harness.net import free_port
from harness.process import Member, Probe, start
from service.config import Settings
from service.pipeline.label_sets import load_dir
from tests.support.server import ROOT

K8S_VERSION = "1.32.0"  # oldest Kubernetes the manifests target (native preStop sleep: 1.30+)
K8S = ROOT / "deploy" / "k8s"
MONITORING = ROOT / "deploy" / "monitoring"
OVERLAYS = ["cpu", "gpu", "kserve", "multi-model", "queue-scaling"]
DEPLOYMENTS = ["cpu", "gpu", "multi-model", "queue-scaling"]  # the overlays whose classifier is a Deployment
KEDA_OVERLAYS = ["queue-scaling", "kserve"]  # jobs replicas scaled by KEDA on the queue
# KEDA's CRDs (kedacore/keda, Apache-2.0), copied into the repository so the check never depends on a network
KEDA_SCHEMAS = K8S / "schemas" / "keda"
APP = "zero-shot-classifier"
NAMESPACE = "zero-shot"
# Secrets the operator creates (docs/deploy.md); the manifests never carry secret values.
EXTERNAL_SECRETS = {"zsc-redis", "zsc-jobs-redis", "zero-shot-classifier-env", "zsc-admin"}  # made by the operator
CRDS = {
    ("monitoring.coreos.com/v1", "ServiceMonitor"),
    ("monitoring.coreos.com/v1", "PrometheusRule"),
    ("serving.kserve.io/v1beta1", "InferenceService"),
    ("keda.sh/v1alpha1", "ScaledObject"),
    ("keda.sh/v1alpha1", "TriggerAuthentication"),
}
KEDA_CRDS = {
    "ScaledObject": "keda.sh_scaledobjects.yaml",
    "TriggerAuthentication": "keda.sh_triggerauthentications.yaml",
}
# Metrics other exporters provide (kube-state-metrics), and ones the service is about to gain
# (the Redis cache tier's counters): their names are not looked for on the service's /metrics.
EXTERNAL_METRIC_PREFIXES = ("kube_",)
PENDING_METRICS = {"zsc_cache_requests_total"}
# Labels Prometheus adds to every scraped series (target labels), and the histogram bucket label.
TARGET_LABELS = {"namespace", "pod", "instance", "job", "service", "container", "le"}

KUBECTL = shutil.which("kubectl")
PROMTOOL = shutil.which("promtool")

pytestmark = pytest.mark.timeout(300)


# -- rendering and schemas ------------------------------------------------------------------------------


@cache
def render(overlay: str) -> tuple[dict, ...]:
    assert KUBECTL, "kubectl is needed to render the kustomize overlays (it ships kustomize)"
    result = subprocess.run(
        [KUBECTL, "kustomize", str(K8S / "overlays" / overlay)], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    return tuple(doc for doc in yaml.safe_load_all(result.stdout) if doc)


def find(docs, kind: str, name: str | None = None) -> list[dict]:
    return [d for d in docs if d["kind"] == kind and (name is None or d["metadata"]["name"] == name)]


def one(docs, kind: str, name: str = APP) -> dict:
    [doc] = find(docs, kind, name)
    return doc


@cache
def _definitions() -> referencing.Registry:
    version = kubernetes_validate.utils.major_minor(K8S_VERSION)
    path = f"kubernetes-json-schema/v{version}.0-local-strict/_definitions.json"
    contents = kubernetes_validate.utils.schema_contents(path, K8S_VERSION)
    return referencing.Resource.from_contents(contents) @ referencing.Registry()


def validate_as(instance: dict, definition: str) -> None:
    """Validate a part of an object against one strict Kubernetes definition (e.g. core.v1.Container)."""
    schema = {"$ref": f"https://kubernetes.io/api/_definitions.json#/$defs/io.k8s.api.{definition}"}
    jsonschema.Draft202012Validator(schema, registry=_definitions()).validate(instance)


def validate_label_selector(selector: dict) -> None:
    schema = {
        "$ref": "https://kubernetes.io/api/_definitions.json#/$defs/io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"
    }
    jsonschema.Draft202012Validator(schema, registry=_definitions()).validate(selector)


def _closed(schema: dict) -> dict:
    """A CRD's structural schema with every object that lists its properties closed to others: the API
    server would prune an unknown field silently (a typo in a trigger's name), here it is an error."""
    if isinstance(schema, dict):
        schema = {k: _closed(v) for k, v in schema.items()}
        if "properties" in schema and "additionalProperties" not in schema:
            if not schema.get("x-kubernetes-preserve-unknown-fields"):
                schema["additionalProperties"] = False
    elif isinstance(schema, list):
        schema = [_closed(v) for v in schema]
    return schema


@cache
def keda_schema(kind: str) -> dict:
    crd = yaml.safe_load((KEDA_SCHEMAS / KEDA_CRDS[kind]).read_text())
    [version] = [v for v in crd["spec"]["versions"] if v["name"] == "v1alpha1"]
    return _closed(version["schema"]["openAPIV3Schema"])


def check_crd(doc: dict) -> None:
    spec = doc["spec"]
    if doc["kind"] in KEDA_CRDS:  # KEDA's own schema, as the API server would check it
        errors = list(jsonschema.Draft7Validator(keda_schema(doc["kind"])).iter_errors(doc))
        assert not errors, [f"{'.'.join(map(str, e.path))}: {e.message}" for e in errors]
    elif doc["kind"] == "ServiceMonitor":
        assert set(spec) <= {
            "selector",
            "endpoints",
            "namespaceSelector",
            "jobLabel",
            "targetLabels",
            "podTargetLabels",
        }
        validate_label_selector(spec["selector"])
        endpoint_fields = {"port", "path", "interval", "scrapeTimeout", "honorLabels", "scheme", "relabelings"}
        for endpoint in spec["endpoints"]:
            assert set(endpoint) <= endpoint_fields | {"metricRelabelings", "targetPort"}, endpoint
    elif doc["kind"] == "PrometheusRule":
        assert set(spec) == {"groups"}
        assert spec == alerts_file(), "prometheusrule.yaml and alerts.yml must hold the same rules"
    elif doc["kind"] == "InferenceService":
        assert set(spec) == {"predictor"}
        # ComponentExtensionSpec fields; everything else in a predictor is a core/v1 PodSpec
        extension = {
            "minReplicas",
            "maxReplicas",
            "scaleMetric",
            "scaleTarget",
            "containerConcurrency",
            "timeout",
            "canaryTrafficPercent",
            "labels",
            "annotations",
            "batcher",
            "logger",
            "deploymentStrategy",
        }
        predictor = spec["predictor"]
        validate_as({k: v for k, v in predictor.items() if k not in extension}, "core.v1.PodSpec")
        assert predictor["scaleMetric"] in {"concurrency", "rps", "cpu", "memory"}
    else:  # pragma: no cover
        raise AssertionError(doc["kind"])


@cache
def alerts_file() -> dict:
    return yaml.safe_load((MONITORING / "alerts.yml").read_text())


@cache
def config_env(overlay: str) -> dict[str, str]:
    [config] = [d for d in find(render(overlay), "ConfigMap") if d["metadata"]["name"].startswith("zsc-config")]
    return config["data"]


def classifier_container(overlay: str) -> dict:
    docs = render(overlay)
    if overlay == "kserve":
        return one(docs, "InferenceService")["spec"]["predictor"]["containers"][0]
    [container] = one(docs, "Deployment")["spec"]["template"]["spec"]["containers"]
    return container


# -- every overlay renders and validates ----------------------------------------------------------------


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_overlay_renders_and_every_object_validates(overlay):
    docs = render(overlay)
    kinds = {d["kind"] for d in docs}
    assert {"Namespace", "ConfigMap", "ServiceAccount", "Deployment", "Service", "NetworkPolicy"} <= kinds
    for doc in docs:
        where = f"{overlay}: {doc['kind']}/{doc['metadata']['name']}"
        if (doc["apiVersion"], doc["kind"]) in CRDS:
            check_crd(doc)
        else:
            try:
                kubernetes_validate.validate(doc, K8S_VERSION, strict=True)
            except SchemaNotFoundError as e:
                pytest.fail(f"{where}: no Kubernetes {K8S_VERSION} schema ({e.message}): a typo in apiVersion?")
            except kubernetes_validate.ValidationError as e:
                pytest.fail(f"{where}: {'.'.join(map(str, e.path))}: {e.message}")
        if doc["kind"] != "Namespace":
            assert doc["metadata"].get("namespace") == NAMESPACE, where
        assert doc["metadata"].get("labels", {}).get("app.kubernetes.io/part-of") == "zero-shot-service", where


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_reference_resolves(overlay):
    docs = render(overlay)
    names = {(d["kind"], d["metadata"]["name"]) for d in docs}
    text = json.dumps(docs)
    for ref in re.findall(r'"configMapRef": \{"name": "([^"]+)"', text):
        assert ("ConfigMap", ref) in names, ref
    secrets = set(re.findall(r'"(?:secretRef|secretKeyRef)": \{(?:"key": "[^"]+", )?"name": "([^"]+)"', text))
    assert secrets, "the Redis password comes from a Secret"
    assert secrets <= EXTERNAL_SECRETS | {n for k, n in names if k == "Secret"}, secrets
    for account in re.findall(r'"serviceAccountName": "([^"]+)"', text):
        assert ("ServiceAccount", account) in names

    # Redis: reachable from the classifier's pods only, under the name ZSC_REDIS_URL uses
    redis = one(docs, "Deployment", "zsc-redis")
    redis_pod_labels = redis["spec"]["template"]["metadata"]["labels"]
    policy = one(docs, "NetworkPolicy", "zsc-redis")
    assert policy["spec"]["podSelector"]["matchLabels"].items() <= redis_pod_labels.items()
    [rule] = policy["spec"]["ingress"]
    [source] = rule["from"]
    assert classifier_pods(source)
    env = {e["name"]: e for e in classifier_container(overlay)["env"]}
    names_in_order = list(env)
    assert names_in_order.index("REDIS_PASSWORD") < names_in_order.index("ZSC_REDIS_URL"), "declare $(VAR) first"
    assert env["ZSC_REDIS_URL"]["value"] == "redis://:$(REDIS_PASSWORD)@zsc-redis:6379/0"
    assert ("Service", "zsc-redis") in names
    if overlay == "kserve":
        predictor = one(docs, "InferenceService")["spec"]["predictor"]
        assert predictor["labels"]["app.kubernetes.io/name"] == APP
        return

    # Service -> pods -> port; ServiceMonitor -> Service -> port; PDB -> pods
    deployment = one(docs, "Deployment")
    pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
    service = one(docs, "Service")
    assert service["spec"]["selector"].items() <= pod_labels.items()
    assert deployment["spec"]["selector"]["matchLabels"].items() <= pod_labels.items()
    [svc_port] = service["spec"]["ports"]
    assert svc_port["targetPort"] in {p["name"] for p in classifier_container(overlay)["ports"]}
    monitor = one(docs, "ServiceMonitor")
    assert monitor["spec"]["selector"]["matchLabels"].items() <= service["metadata"]["labels"].items()
    assert not monitor["spec"]["selector"]["matchLabels"].items() <= redis["metadata"]["labels"].items()
    [endpoint] = monitor["spec"]["endpoints"]
    assert endpoint["port"] == svc_port["name"] and endpoint["path"] == "/metrics"
    assert endpoint["honorLabels"] is True, "BentoML's `endpoint` label must survive the scrape"
    pdb = one(docs, "PodDisruptionBudget")
    assert pdb["spec"]["selector"]["matchLabels"].items() <= pod_labels.items()
    for constraint in deployment["spec"]["template"]["spec"]["topologySpreadConstraints"]:
        assert constraint["labelSelector"]["matchLabels"].items() <= pod_labels.items()
    dashboard = one(docs, "ConfigMap", "zero-shot-classifier-dashboard")
    assert dashboard["metadata"]["labels"]["grafana_dashboard"] == "1"
    assert json.loads(dashboard["data"]["grafana-dashboard.json"]) == dashboard_json()


# -- the jobs' Redis: persistent, apart from the cache's ---------------------------------------------------


def classifier_pods(peer: dict) -> bool:
    """Whether a NetworkPolicy peer admits the classifier's pods and the jobs replicas' (and no other)."""
    [expression] = peer["podSelector"]["matchExpressions"]
    return expression == {"key": "app.kubernetes.io/name", "operator": "In", "values": [APP, f"{APP}-jobs"]}


def redis_args(container: dict) -> dict[str, str]:
    """{option: value} of a redis-server container's ``--option value`` arguments."""
    args = container["args"]
    assert len(args) % 2 == 0 and all(a.startswith("--") for a in args[::2]), args
    return {k.removeprefix("--"): v for k, v in zip(args[::2], args[1::2])}


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_jobs_redis_is_a_statefulset_on_a_claim_with_an_append_only_file(overlay):
    docs = render(overlay)
    names = {(d["kind"], d["metadata"]["name"]) for d in docs}
    jobs = one(docs, "StatefulSet", "zsc-jobs-redis")
    assert jobs["spec"]["replicas"] == 1
    pod = jobs["spec"]["template"]["spec"]
    pod_labels = jobs["spec"]["template"]["metadata"]["labels"]
    assert jobs["spec"]["selector"]["matchLabels"].items() <= pod_labels.items()
    [container] = pod["containers"]
    args = redis_args(container)
    assert (args["appendonly"], args["appendfsync"], args["maxmemory-policy"]) == ("yes", "everysec", "noeviction")
    assert args["save"] == "" and args["requirepass"] == "$(REDIS_PASSWORD)"

    # the append-only directory is the claim the StatefulSet makes per pod, not a volume of the pod
    [mount] = [m for m in container["volumeMounts"] if m["mountPath"] == args["dir"]]
    [claim] = jobs["spec"]["volumeClaimTemplates"]
    assert claim["metadata"]["name"] == mount["name"] and mount["name"] not in {
        v["name"] for v in pod.get("volumes", [])
    }
    assert claim["spec"]["accessModes"] == ["ReadWriteOnce"] and claim["spec"]["resources"]["requests"]["storage"]
    assert jobs["spec"]["persistentVolumeClaimRetentionPolicy"] == {"whenDeleted": "Retain", "whenScaled": "Retain"}
    assert pod["securityContext"]["fsGroup"] == pod["securityContext"]["runAsUser"], "the claim is writable by Redis"
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert container["startupProbe"]["periodSeconds"] * container["startupProbe"]["failureThreshold"] >= 300

    # its governing Service is headless; the classifier connects through a ClusterIP Service to its port
    governing = one(docs, "Service", jobs["spec"]["serviceName"])
    assert governing["spec"]["clusterIP"] == "None" and governing["spec"]["selector"].items() <= pod_labels.items()
    service = one(docs, "Service", "zsc-jobs-redis")
    assert "clusterIP" not in service["spec"] and service["spec"]["selector"].items() <= pod_labels.items()
    [port] = service["spec"]["ports"]
    assert port["targetPort"] in {p["name"] for p in container["ports"]}

    # only the classifier reaches it
    policy = one(docs, "NetworkPolicy", "zsc-jobs-redis")
    assert policy["spec"]["podSelector"]["matchLabels"].items() <= pod_labels.items()
    [rule] = policy["spec"]["ingress"]
    classifier, keda = rule["from"]
    assert classifier_pods(classifier)
    # KEDA's operator, in its own namespace, reads the consumer group's lag
    assert keda["namespaceSelector"] == {"matchLabels": {"kubernetes.io/metadata.name": "keda"}}
    assert keda["podSelector"] == {"matchLabels": {"app.kubernetes.io/name": "keda-operator"}}

    # the classifier's ZSC_JOBS_REDIS_URL names that Service, with the password of the Secret Redis uses
    env = {e["name"]: e for e in classifier_container(overlay)["env"]}
    order = list(env)
    assert order.index("JOBS_REDIS_PASSWORD") < order.index("ZSC_JOBS_REDIS_URL"), "declare $(VAR) first"
    url = env["ZSC_JOBS_REDIS_URL"]["value"]
    assert url == f"redis://:$(JOBS_REDIS_PASSWORD)@{service['metadata']['name']}:{port['port']}/0"
    redis_secret = {e["name"]: e for e in container["env"]}["REDIS_PASSWORD"]["valueFrom"]["secretKeyRef"]
    assert (
        env["JOBS_REDIS_PASSWORD"]["valueFrom"]["secretKeyRef"]
        == redis_secret
        == {
            "name": "zsc-jobs-redis",
            "key": "password",
        }
    )
    settings = Settings.from_env(
        {name: e["value"].replace("$(JOBS_REDIS_PASSWORD)", "ab12").replace("$(REDIS_PASSWORD)", "cd34")
         for name, e in env.items() if name.startswith("ZSC_") and "value" in e}
    )  # fmt: skip
    assert settings.jobs_redis.endswith("@zsc-jobs-redis:6379/0") and settings.redis_url.endswith("@zsc-redis:6379/0")
    assert ("Secret", "zsc-jobs-redis") not in names, "the password comes from a Secret the operator creates"

    # the cache's Redis stays volatile: rebuilt from the model, it would pay for persistence in every write
    cache = one(docs, "Deployment", "zsc-redis")
    [cache_container] = cache["spec"]["template"]["spec"]["containers"]
    assert redis_args(cache_container)["appendonly"] == "no"
    assert all("emptyDir" in v for v in cache["spec"]["template"]["spec"]["volumes"])


def test_a_real_redis_server_runs_the_jobs_redis_arguments(tmp_path):
    """The StatefulSet's arguments as redis-server itself reads them (an option it does not know, or a
    value it refuses, stops it), and what it then runs with."""
    [container] = one(render("cpu"), "StatefulSet", "zsc-jobs-redis")["spec"]["template"]["spec"]["containers"]
    port, password = free_port(), secrets.token_hex(12)
    args = [a.replace("$(REDIS_PASSWORD)", password) for a in container["args"]]
    args[args.index("--dir") + 1] = str(tmp_path)
    redis_server = shutil.which("redis-server") or "/usr/bin/redis-server"
    client = redis_client.Redis(port=port, password=password, decode_responses=True)

    def answers() -> bool:
        try:
            return bool(client.ping())
        except redis_client.RedisError:
            return False

    member = Member(
        "jobs-redis",
        [redis_server, *args, "--bind", "127.0.0.1", "--port", str(port)],
        tmp_path / "redis.log",
        probe=Probe("PONG", answers),
        port=port,
    )
    with start(member).wait_ready(20):
        config = {k: client.config_get(k)[k] for k in ("appendonly", "appendfsync", "maxmemory-policy", "dir")}
        assert config == {"appendonly": "yes", "appendfsync": "everysec", "maxmemory-policy": "noeviction",
                          "dir": str(tmp_path)}  # fmt: skip
        assert client.config_get("maxmemory")["maxmemory"] == str(2**30)
        client.set("zsc:job:x", "1")
    assert (tmp_path / "appendonlydir").is_dir()


# -- autoscaling, probes, ports, drain ------------------------------------------------------------------


@cache
def adapter_rules() -> list[dict]:
    return yaml.safe_load((MONITORING / "prometheus-adapter-values.yaml").read_text())["rules"]["custom"]


@pytest.mark.parametrize("overlay", DEPLOYMENTS)
def test_hpa_targets_the_deployment_on_in_flight_requests(overlay):
    docs = render(overlay)
    hpa = one(docs, "HorizontalPodAutoscaler")
    deployment = one(docs, "Deployment")
    assert hpa["apiVersion"] == "autoscaling/v2"
    assert hpa["spec"]["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": APP}
    assert deployment["metadata"]["name"] == APP and "replicas" not in deployment["spec"], "the HPA owns replicas"
    assert 2 <= hpa["spec"]["minReplicas"] < hpa["spec"]["maxReplicas"]
    assert one(docs, "PodDisruptionBudget")["spec"]["maxUnavailable"] < hpa["spec"]["minReplicas"]

    pods_metric, cpu_metric = hpa["spec"]["metrics"]
    assert pods_metric["type"] == "Pods" and cpu_metric["type"] == "Resource"
    assert (
        cpu_metric["resource"]["name"] == "cpu" and 50 <= cpu_metric["resource"]["target"]["averageUtilization"] <= 90
    )
    name = pods_metric["pods"]["metric"]["name"]
    assert name in {rule["name"]["as"] for rule in adapter_rules()}, "the adapter must serve the HPA's metric"
    target = float(pods_metric["pods"]["target"]["averageValue"])
    # the HPA must add pods long before a pod answers 429
    assert 0 < target <= int(config_env(overlay)["ZSC_MAX_CONCURRENCY"]) / 4
    behavior = hpa["spec"]["behavior"]
    assert behavior["scaleUp"]["stabilizationWindowSeconds"] < behavior["scaleDown"]["stabilizationWindowSeconds"]


@pytest.mark.parametrize("overlay", DEPLOYMENTS)
def test_probes_port_security_and_drain(overlay):
    docs = render(overlay)
    pod = one(docs, "Deployment")["spec"]["template"]["spec"]
    container = classifier_container(overlay)
    assert container["ports"] == [{"name": "http", "containerPort": bentoml_default_port(), "protocol": "TCP"}]
    for probe, path in (("startupProbe", "/readyz"), ("readinessProbe", "/readyz"), ("livenessProbe", "/livez")):
        assert container[probe]["httpGet"] == {"path": path, "port": "http"}, probe
    # the startup probe covers a slow model load before liveness may restart the pod
    startup = container["startupProbe"]
    assert startup["periodSeconds"] * startup["failureThreshold"] >= 300

    env = config_env(overlay)
    pre_stop = container["lifecycle"]["preStop"]["sleep"]["seconds"]
    assert pod["terminationGracePeriodSeconds"] >= pre_stop + int(env["ZSC_TIMEOUT_S"]) + 5
    assert pod["securityContext"]["runAsNonRoot"] is True and pod["securityContext"]["runAsUser"] == 1000
    assert container["securityContext"]["allowPrivilegeEscalation"] is False
    assert container["securityContext"]["capabilities"] == {"drop": ["ALL"]}
    # a read-only root (build/smoke.py --read-only serves the image so in test_bento_image.py); /tmp writable
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    tmp = next(m for m in container["volumeMounts"] if m["mountPath"] == "/tmp")  # noqa: S108 (in the pod)
    assert "emptyDir" in next(v for v in pod["volumes"] if v["name"] == tmp["name"])
    assert int(env["ZSC_CPU_THREADS"]) <= int(container["resources"]["requests"]["cpu"])
    assert pod["topologySpreadConstraints"], "replicas spread over nodes and zones"
    # every ZSC_* the ConfigMap sets is a real setting
    known = {name for name, _, _ in Settings.table()} | {"ZSC_REDIS_URL"}
    assert {k for k in env if k.startswith("ZSC_")} <= known


def bentoml_default_port() -> int:
    from bentoml._internal.configuration.containers import BentoMLContainer

    return BentoMLContainer.http.port.get()


@pytest.mark.parametrize("overlay", DEPLOYMENTS)
def test_label_sets_are_mounted_and_each_file_loads(overlay, tmp_path):
    docs = render(overlay)
    container = classifier_container(overlay)
    env = {e["name"]: e.get("value") for e in container["env"]}
    [mount] = [m for m in container["volumeMounts"] if m["mountPath"] == env["ZSC_LABEL_SETS"]]
    volumes = one(docs, "Deployment")["spec"]["template"]["spec"]["volumes"]
    [volume] = [v for v in volumes if v["name"] == mount["name"]]
    config_map = one(docs, "ConfigMap", volume["configMap"]["name"])
    # what the pod will see in the directory, loaded by the service's own loader
    for name, text in config_map["data"].items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    sets = load_dir(tmp_path)
    assert len(sets) == len(config_map["data"]) >= 1
    for label_set in sets.values():  # tuned on the model the image serves by default
        assert label_set.model == Settings().model, label_set.name


def test_api_keys_component_mounts_a_secret_the_repository_does_not_hold(tmp_path):
    overlay = tmp_path / "with-keys"
    overlay.mkdir()
    rel = lambda p: os.path.relpath(p, overlay)  # noqa: E731
    (overlay / "kustomization.yaml").write_text(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
        f"resources:\n  - {rel(K8S / 'base')}\ncomponents:\n  - {rel(K8S / 'components' / 'api-keys')}\n"
    )
    result = subprocess.run([KUBECTL, "kustomize", str(overlay)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    docs = [d for d in yaml.safe_load_all(result.stdout) if d]
    assert not find(docs, "Secret"), "the keys come from a Secret the operator creates, never from the repo"
    pod = one(docs, "Deployment")["spec"]["template"]["spec"]
    [container] = pod["containers"]
    env = {e["name"]: e.get("value") for e in container["env"]}
    [mount] = [m for m in container["volumeMounts"] if env["ZSC_API_KEYS_FILE"].startswith(m["mountPath"] + "/")]
    assert mount["readOnly"] and "subPath" not in mount, "a subPath mount would never see a rotated key"
    [volume] = [v for v in pod["volumes"] if v["name"] == mount["name"]]
    assert volume["secret"]["secretName"] == "zsc-api-keys" and not volume["secret"].get("optional")
    assert env["ZSC_API_KEYS_FILE"] == f"{mount['mountPath']}/{volume['secret']['items'][0]['path']}"
    Settings.from_env({"ZSC_API_KEYS_FILE": env["ZSC_API_KEYS_FILE"]})  # a setting the service knows
    kubernetes_validate.validate(one(docs, "Deployment"), K8S_VERSION, strict=True)


def test_gpu_overlay_asks_for_a_gpu():
    container = classifier_container("gpu")
    pod = one(render("gpu"), "Deployment")["spec"]["template"]["spec"]
    assert container["image"] == "zero-shot-classifier:gpu"
    assert classifier_container("cpu")["image"] == "zero-shot-classifier:latest"
    assert container["resources"]["limits"]["nvidia.com/gpu"] == 1
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in pod["tolerations"]
    assert config_env("gpu")["ZSC_DEVICE"] == "cuda" and config_env("cpu")["ZSC_DEVICE"] == "cpu"


def test_kserve_overlay_is_an_inference_service_with_2_to_10_replicas():
    docs = render("kserve")
    assert not find(docs, "HorizontalPodAutoscaler") and not find(docs, "Deployment", APP)
    isvc = one(docs, "InferenceService")
    predictor = isvc["spec"]["predictor"]
    assert (predictor["minReplicas"], predictor["maxReplicas"]) == (2, 10)
    assert predictor["timeout"] > int(config_env("kserve")["ZSC_TIMEOUT_S"])
    container = classifier_container("kserve")
    assert [p["containerPort"] for p in container["ports"]] == [bentoml_default_port()]
    assert container["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": bentoml_default_port()}
    assert container["livenessProbe"]["httpGet"] == {"path": "/livez", "port": bentoml_default_port()}
    assert container["securityContext"]["runAsUser"] == 1000 and container["securityContext"]["runAsNonRoot"]


# -- jobs on their own replicas, scaled by KEDA on the queue ----------------------------------------------


def container_env(container: dict) -> dict[str, dict]:
    return {e["name"]: e for e in container["env"]}


@pytest.mark.parametrize("overlay", KEDA_OVERLAYS)
def test_jobs_replicas_scale_on_the_jobs_streams_lag_with_keda(overlay):
    from service.jobs.redis_store import group_name, stream_key

    docs = render(overlay)
    [scaled] = find(docs, "ScaledObject")
    spec = scaled["spec"]
    # it targets a Deployment whose pods run the jobs role, with the api pods' settings and Redis URLs
    target = one(docs, "Deployment", spec["scaleTargetRef"]["name"])
    assert spec["scaleTargetRef"]["kind"] == "Deployment" and "replicas" not in target["spec"], "KEDA owns replicas"
    pod = target["spec"]["template"]["spec"]
    [jobs] = pod["containers"]
    env = container_env(jobs)
    assert env["ZSC_ROLE"]["value"] == "jobs"
    api = classifier_container(overlay)
    api_env = container_env(api)
    assert api_env["ZSC_ROLE"]["value"] == "api"
    for name in ("ZSC_REDIS_URL", "ZSC_JOBS_REDIS_URL", "REDIS_PASSWORD", "JOBS_REDIS_PASSWORD"):
        assert env[name] == api_env[name], name
    assert jobs["envFrom"][0]["configMapRef"]["name"] == api["envFrom"][0]["configMapRef"]["name"]
    if overlay != "kserve":
        assert env["ZSC_LABEL_SETS"] == api_env["ZSC_LABEL_SETS"]
        hpa = one(docs, "HorizontalPodAutoscaler")  # the api Deployment keeps its HPA on requests in flight
        assert hpa["spec"]["scaleTargetRef"]["name"] == APP != target["metadata"]["name"]
    settings = Settings.from_env(
        {k: e["value"].replace("$(JOBS_REDIS_PASSWORD)", "ab").replace("$(REDIS_PASSWORD)", "cd")
         for k, e in env.items() if k.startswith("ZSC_") and "value" in e}
    )  # fmt: skip
    assert settings.role == "jobs" and settings.runs_jobs
    # no Service sends requests to the jobs pods: their label is not the api pods'
    labels = target["spec"]["template"]["metadata"]["labels"]
    for service in find(docs, "Service"):
        assert not service["spec"]["selector"].items() <= labels.items(), service["metadata"]["name"]
    assert target["spec"]["selector"]["matchLabels"].items() <= labels.items()
    assert labels["app.kubernetes.io/name"] != APP, "the api Deployment's selector must not match jobs pods"

    # scale to zero, a maximum, a cooldown
    assert spec["minReplicaCount"] == 0 and spec["maxReplicaCount"] >= 2 and spec["cooldownPeriod"] >= 60
    # the triggers: the lag of the service's own stream and group, and its pending entries
    prefix = config_env(overlay).get("ZSC_CACHE_PREFIX", Settings().cache_prefix)
    lag, pending = spec["triggers"]
    for trigger in (lag, pending):
        assert trigger["type"] == "redis-streams"
        meta = trigger["metadata"]
        assert (meta["stream"], meta["consumerGroup"]) == (stream_key(prefix), group_name(prefix))
        assert meta["address"] == f"zsc-jobs-redis.{NAMESPACE}.svc.cluster.local:6379"
        assert one(docs, "Service", "zsc-jobs-redis")["spec"]["ports"][0]["port"] == 6379
        auth = one(docs, "TriggerAuthentication", trigger["authenticationRef"]["name"])
        [secret] = auth["spec"]["secretTargetRef"]
        assert secret["parameter"] == "password"
        # the password KEDA uses is the Secret the jobs Redis and the classifier use
        assert {"name": secret["name"], "key": secret["key"]} == env["JOBS_REDIS_PASSWORD"]["valueFrom"]["secretKeyRef"]
    assert int(lag["metadata"]["lagCount"]) > 0 and int(lag["metadata"]["activationLagCount"]) >= 0
    assert "pendingEntriesCount" not in lag["metadata"]
    # chunks at work (lag no longer counts them) keep a replica each until they are acknowledged
    assert int(pending["metadata"]["pendingEntriesCount"]) == 1 and "lagCount" not in pending["metadata"]

    # a drain covers a chunk: SIGTERM finishes it within ZSC_JOB_DRAIN_S, then SIGKILL only after the grace
    assert pod["terminationGracePeriodSeconds"] >= int(env["ZSC_JOB_DRAIN_S"]["value"]) + 5
    for probe, path in (("startupProbe", "/readyz"), ("readinessProbe", "/readyz"), ("livenessProbe", "/livez")):
        assert jobs[probe]["httpGet"]["path"] == path, probe
    assert jobs["securityContext"]["readOnlyRootFilesystem"] is True


def test_keda_schemas_are_the_crds_with_their_license():
    notice = (KEDA_SCHEMAS / "README.md").read_text()
    assert "Apache License 2.0" in notice and "kedacore/keda" in notice
    for kind, name in KEDA_CRDS.items():
        crd = yaml.safe_load((KEDA_SCHEMAS / name).read_text())
        assert crd["kind"] == "CustomResourceDefinition" and crd["spec"]["names"]["kind"] == kind
    # the closed schema refuses a misspelt field the API server would silently prune
    bad = {"apiVersion": "keda.sh/v1alpha1", "kind": "ScaledObject", "metadata": {"name": "x"},
           "spec": {"scaleTargetRef": {"name": "x"}, "minReplicas": 0, "triggers": []}}  # fmt: skip
    assert list(jsonschema.Draft7Validator(keda_schema("ScaledObject")).iter_errors(bad))


# -- metric names and PromQL against the real service and the real promtool ----------------------------


@cache
def dashboard_json() -> dict:
    return json.loads((MONITORING / "grafana-dashboard.json").read_text())


def dashboard_exprs() -> list[str]:
    return [t["expr"] for p in dashboard_json()["panels"] for t in p.get("targets", [])]  # rows have none


def alert_exprs() -> list[str]:
    return [r["expr"] for g in alerts_file()["groups"] for r in g["rules"]]


def adapter_exprs() -> list[str]:
    """The adapter rules' queries with its template variables filled in as the adapter would."""
    out = []
    for rule in adapter_rules():
        series = re.match(r"\s*([a-zA-Z_:][\w:]*)", rule["seriesQuery"])[1]
        query = rule["metricsQuery"].replace("<<.Series>>", series)
        out.append(
            query.replace("<<.LabelMatchers>>", f'namespace="{NAMESPACE}",pod=~"a|b"').replace("<<.GroupBy>>", "pod")
        )
        out.append(rule["seriesQuery"])
    return out


def grafana_to_promql(expr: str) -> str:
    return expr.replace("$__rate_interval", "1m").replace('"$namespace"', '".*"')


_SELECTOR = re.compile(r"\b((?:bentoml|zsc|kube)_[a-zA-Z0-9_]+)\s*(\{[^}]*\})?")
_GROUPING = re.compile(r"\bby\s*\(([^)]*)\)")


def metric_uses(exprs: list[str]) -> dict[str, set[str]]:
    """{metric name: label names its selectors use} over PromQL expressions."""
    uses: dict[str, set[str]] = {}
    for expr in exprs:
        for name, selector in _SELECTOR.findall(expr):
            uses.setdefault(name, set()).update(re.findall(r"(\w+)\s*(?:=~|!~|!=|=)", selector or ""))
    return uses


@pytest.fixture(scope="module")
def live_metrics(default_server) -> dict[str, set[str]]:
    """{sample name: label names} on a live replica's /metrics after one request of each kind."""
    body = {"text": "The team won the cup", "labels": ["sports", "business"]}
    assert httpx.post(f"{default_server}/classify", json=body, timeout=60).status_code == 200
    assert httpx.post(f"{default_server}/classify_batch", json={"items": [body]}, timeout=60).status_code == 200
    out: dict[str, set[str]] = {}
    for sample in scrape(default_server):
        out.setdefault(sample.name, set()).update(sample.labels)
    return out


def test_probe_paths_answer_on_a_live_replica(default_server):
    container = classifier_container("cpu")
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        path = container[probe]["httpGet"]["path"]
        assert httpx.get(f"{default_server}{path}", timeout=10).status_code == 200, path
    monitor = one(render("cpu"), "ServiceMonitor")
    assert httpx.get(f"{default_server}{monitor['spec']['endpoints'][0]['path']}", timeout=10).status_code == 200


def test_autoscaling_metric_exists_on_a_live_replica(live_metrics, default_server):
    for rule in adapter_rules():
        series = re.match(r"\s*([a-zA-Z_:][\w:]*)", rule["seriesQuery"])[1]
        assert series in live_metrics, f"{series} is not on /metrics: the HPA would never get a value"
        assert set(rule["resources"]["overrides"]) <= TARGET_LABELS
        used = metric_uses([rule["metricsQuery"].replace("<<.Series>>", series)])[series]
        assert used <= live_metrics[series] | TARGET_LABELS, used
    # the routes the rule counts are the routes the service labels its requests with
    routes = {s.labels.get("endpoint") for s in scrape(default_server) if s.name == series}
    assert {"/classify", "/classify_batch"} <= routes


@pytest.mark.parametrize("source", ["dashboard", "alerts"])
def test_dashboard_and_alert_metrics_exist_on_a_live_replica(source, live_metrics):
    exprs = dashboard_exprs() if source == "dashboard" else alert_exprs()
    uses = metric_uses(exprs)
    assert uses
    all_labels = set().union(*live_metrics.values())
    for name, labels in uses.items():
        if name.startswith(EXTERNAL_METRIC_PREFIXES):
            continue
        if name in PENDING_METRICS and name not in live_metrics:
            continue  # the cache tier's counter: checked here as soon as the service exposes it
        assert name in live_metrics, f"{source} uses {name}, which the service does not expose"
        assert labels <= live_metrics[name] | TARGET_LABELS, f"{name}: {labels - live_metrics[name]}"
    for expr in exprs:
        for group in _GROUPING.findall(expr):
            for label in (g.strip() for g in group.split(",")):
                assert label in all_labels | TARGET_LABELS | {"tier"}, f"grouping by unknown label {label}"


def _promtool(*args: str, cwd: Path = MONITORING) -> subprocess.CompletedProcess:
    assert PROMTOOL, "promtool (Debian package prometheus) checks the PromQL and the alert unit tests"
    return subprocess.run([PROMTOOL, *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def test_alert_rules_pass_promtool_and_their_unit_tests():
    result = _promtool("check", "rules", "alerts.yml")
    assert result.returncode == 0, result.stdout + result.stderr
    result = _promtool("test", "rules", "alerts.test.yml")
    assert result.returncode == 0, result.stdout + result.stderr
    # the operator's copy holds the same rules
    prometheus_rule = yaml.safe_load((MONITORING / "prometheusrule.yaml").read_text())
    assert prometheus_rule["spec"] == alerts_file()
    saturated = next(r for g in alerts_file()["groups"] for r in g["rules"] if r["alert"] == "ZeroShotSaturated")
    threshold = float(re.search(r">\s*([\d.]+)\s*$", saturated["expr"].strip())[1])
    assert threshold < int(config_env("cpu")["ZSC_MAX_CONCURRENCY"])


def test_dashboard_and_adapter_promql_parse(tmp_path):
    exprs = [grafana_to_promql(e) for e in dashboard_exprs()] + adapter_exprs()
    rules = {
        "groups": [{"name": "parse", "rules": [{"record": f"check:expr{i}", "expr": e} for i, e in enumerate(exprs)]}]
    }
    (tmp_path / "exprs.yml").write_text(yaml.safe_dump(rules))
    result = _promtool("check", "rules", "exprs.yml", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    panels = dashboard_json()["panels"]
    titles = " ".join(p["title"].lower() for p in panels)
    for topic in ("requests per second", "p99", "error", "batch size", "cache hit", "in flight", "replicas", "job"):
        assert topic in titles, topic
    assert len({p["id"] for p in panels}) == len(panels)


def test_the_multi_model_overlay_serves_the_models_of_its_file():
    env = config_env("multi-model")
    assert env["ZSC_MODELS"] == "all-minilm-l6-v2,multilingual-e5-small"
    container = classifier_container("multi-model")
    [mount] = [m for m in container["volumeMounts"] if m["name"] == "models"]
    assert env["ZSC_MODELS_FILE"] == f"{mount['mountPath']}/models.txt" and mount["readOnly"]
    models = one(render("multi-model"), "ConfigMap", "zsc-models")
    from service.runtime.models import read_models_file

    path = Path(tempfile.mkdtemp()) / "models.txt"
    path.write_text(models["data"]["models.txt"])
    assert read_models_file(path) == env["ZSC_MODELS"].split(",")  # the same models, the same default
    admin = {e["name"]: e for e in container["env"]}["ZSC_ADMIN_KEYS"]["valueFrom"]["secretKeyRef"]
    assert admin["name"] == "zsc-admin" and admin["optional"] is True
    assert container["resources"]["limits"]["memory"] == "5Gi"
