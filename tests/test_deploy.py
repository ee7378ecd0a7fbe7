"""The fleet kit in deploy/: Kubernetes manifests validated against the Kubernetes schemas (kubernetes-validate,
offline), the compose file against the Compose specification's schema (vendored by check-jsonschema), and
what each must say for the service to run as a fleet. What cannot run here (a cluster, Docker) is validated;
what can (nginx, Redis, several instances, publish-and-pull) runs in test_hostile, test_budget, test_publish."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
K8S = ROOT / "deploy" / "k8s"
COMPOSE = ROOT / "deploy" / "compose.yaml"
KUBERNETES = "1.33.0"


def documents() -> list[tuple[str, dict]]:
    out = []
    for path in sorted(K8S.glob("*.yaml")):
        if path.name == "kustomization.yaml":
            continue
        out += [(path.name, doc) for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")) if doc]
    return out


def find(kind: str, name: str) -> dict:
    (doc,) = [d for _f, d in documents() if d["kind"] == kind and d["metadata"]["name"] == name]
    return doc


@pytest.mark.parametrize(
    ("file", "doc"), documents(), ids=[f"{f}:{d['kind']}/{d['metadata']['name']}" for f, d in documents()]
)
def test_each_manifest_is_valid_kubernetes(file, doc):
    import kubernetes_validate

    kubernetes_validate.validate(doc, KUBERNETES, strict=True)  # raises ValidationError with the path


def test_a_broken_manifest_is_caught():
    import kubernetes_validate

    broken = json.loads(json.dumps(find("Deployment", "deckcheck")))
    broken["spec"]["template"]["spec"]["containers"][0]["livenessProbe"]["httpGet"]["port"] = [8000]
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, KUBERNETES, strict=True)


def test_the_kustomization_lists_every_manifest():
    listed = yaml.safe_load((K8S / "kustomization.yaml").read_text(encoding="utf-8"))["resources"]
    assert sorted(listed) == sorted(p.name for p in K8S.glob("*.yaml") if p.name != "kustomization.yaml")


def _app() -> dict:
    return find("Deployment", "deckcheck")["spec"]["template"]["spec"]


def test_the_deployment_probes_drains_and_is_bounded():
    pod = _app()
    (app,) = [c for c in pod["containers"] if c["name"] == "deckcheck"]
    assert app["startupProbe"]["httpGet"]["path"] == "/readyz"
    assert app["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert app["livenessProbe"]["httpGet"]["path"] == "/healthz"
    env = {e["name"]: e["value"] for e in app["env"]}
    drain = float(env["DECKCHECK_DRAIN_SECONDS"])
    assert pod["terminationGracePeriodSeconds"] >= drain + 20 + 2  # drain, gunicorn's graceful stop, preStop
    assert app["lifecycle"]["preStop"]["exec"]["command"][0] == "sleep"
    assert app["resources"]["requests"] and app["resources"]["limits"]
    assert env["DECKCHECK_RATELIMIT_STORAGE_URI"].startswith("redis://deckcheck-redis:")
    assert env["DECKCHECK_DB"].startswith("/db/") and env["PROMETHEUS_MULTIPROC_DIR"].startswith("/tmp/")


@pytest.mark.slow
def test_no_replica_syncs_it_pulls_what_the_cronjob_published():
    pod = _app()
    commands = [" ".join(c.get("command", []) + c.get("args", [])) for c in pod["containers"] + pod["initContainers"]]
    assert not any("db sync" in c for c in commands)
    pulls = [c for c in commands if c.startswith("deckcheck db pull http://deckcheck-db/cards.json.gz --to /db/")]
    assert len(pulls) == 2 and any("--every" in c for c in pulls)  # at start, then as a sidecar
    job = find("CronJob", "deckcheck-db-sync")["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    script = " ".join(job["containers"][0]["command"])
    assert script.index("deckcheck db sync") < script.index("deckcheck db publish")
    assert find("CronJob", "deckcheck-db-sync")["spec"]["concurrencyPolicy"] == "Forbid"
    assert (
        find("Service", "deckcheck-db")["spec"]["selector"]
        == find("Deployment", "deckcheck-db")["spec"]["template"]["metadata"]["labels"]
    )


@pytest.mark.server
def test_service_hpa_and_pdb_point_at_the_deployment():
    labels = find("Deployment", "deckcheck")["spec"]["template"]["metadata"]["labels"]
    assert find("Service", "deckcheck")["spec"]["selector"] == labels
    assert find("PodDisruptionBudget", "deckcheck")["spec"]["selector"]["matchLabels"] == labels
    target = find("HorizontalPodAutoscaler", "deckcheck")["spec"]["scaleTargetRef"]
    assert (target["kind"], target["name"]) == ("Deployment", "deckcheck")
    assert (
        find("Service", "deckcheck-redis")["spec"]["selector"]
        == find("Deployment", "deckcheck-redis")["spec"]["template"]["metadata"]["labels"]
    )


def compose_schema() -> dict:
    vendored = resources.files("check_jsonschema.builtin_schemas.vendor") / "compose-spec.json"
    return json.loads(vendored.read_text(encoding="utf-8"))


@pytest.mark.slow
def test_the_compose_file_follows_the_compose_specification():
    doc = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    jsonschema.validate(doc, compose_schema())
    with pytest.raises(jsonschema.ValidationError):  # the schema does catch mistakes
        jsonschema.validate({**doc, "services": {"app": {"ports": {"8000": 8000}}}}, compose_schema())


def test_the_compose_file_has_the_proxy_the_app_redis_and_a_sync_job():
    services = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))["services"]
    assert {"proxy", "app", "redis", "sync"} <= set(services)
    assert "./nginx/deckcheck.conf:/etc/nginx/conf.d/default.conf:ro" in services["proxy"]["volumes"]
    app_env = services["app"]["environment"]
    assert app_env["DECKCHECK_RATELIMIT_STORAGE_URI"] == "redis://redis:6379"
    assert app_env["DECKCHECK_TRUSTED_PROXIES"] == "1"
    assert "deckcheck db sync" in " ".join(services["sync"]["command"])
    assert "8000" not in json.dumps(services["app"].get("ports", []))  # only the proxy is published
