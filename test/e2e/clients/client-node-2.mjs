// Run by Node 22 (clients.test.ts): @kubernetes/client-node 2.x against our API server over TLS,
// with the kubeconfig given as argv[2]: list, create, and a watch that sees the create.
// Prints one JSON line with what it saw.
import * as k8s from "client-node-2";

const kc = new k8s.KubeConfig();
kc.loadFromFile(process.argv[2]);
const core = kc.makeApiClient(k8s.CoreV1Api);
const out = {};
const namespaces = await core.listNamespace();
out.namespaces = namespaces.items.map((n) => n.metadata.name).sort();
const seen = new Promise((resolve, reject) => {
  const watch = new k8s.Watch(kc);
  let request;
  const timer = setTimeout(() => reject(new Error("no ADDED event within 20 s")), 20_000);
  watch
    .watch(
      "/api/v1/namespaces/default/configmaps",
      {},
      (type, obj) => {
        if (type === "ADDED" && obj.metadata.name === "from-client-node-2") {
          clearTimeout(timer);
          request?.abort();
          resolve(obj.data);
        }
      },
      (err) => {
        if (err && err.name !== "AbortError") reject(err);
      },
    )
    .then((r) => {
      request = r;
    }, reject);
});
// The watch is open once its request is; give it a moment, then create.
await new Promise((r) => setTimeout(r, 500));
const created = await core.createNamespacedConfigMap({
  namespace: "default",
  body: { metadata: { name: "from-client-node-2" }, data: { node: process.version } },
});
out.created = created.metadata.name;
out.watched = await seen;
try {
  await core.readNamespacedSecret({ namespace: "default", name: "missing" });
} catch (err) {
  out.missing = err.code;
}
process.stdout.write(`${JSON.stringify(out)}\n`);
process.exit(0);
