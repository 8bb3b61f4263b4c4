"""Run by clients.test.ts with Debian's python3-kubernetes: list, create and watch (the client
sends watch=True) against our API server over TLS, with the kubeconfig given as argv[1].
Prints one JSON line with what it saw."""
import json
import sys

from kubernetes import client, config, watch

config.load_kube_config(config_file=sys.argv[1])
v1 = client.CoreV1Api()
out = {"namespaces": sorted(n.metadata.name for n in v1.list_namespace().items)}
v1.create_namespaced_config_map(
    "default", client.V1ConfigMap(metadata=client.V1ObjectMeta(name="from-python"), data={"lang": "python"})
)
w = watch.Watch()
for event in w.stream(v1.list_namespaced_config_map, "default", timeout_seconds=20):
    if event["type"] == "ADDED" and event["object"].metadata.name == "from-python":
        out["watched"] = event["object"].data
        w.stop()
try:
    v1.read_namespaced_secret("missing", "default")
except client.exceptions.ApiException as e:
    out["missing"] = e.status
print(json.dumps(out))
