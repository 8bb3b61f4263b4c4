import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningControlPlane, startLocalControlPlane } from "../bin/control-plane.ts";
import { RESOURCES } from "../client/client.ts";
import { HttpClient } from "../client/http.ts";
import { LocalClient } from "../client/local.ts";
import { createMetricsRegistry } from "../metrics/registry.ts";
import { issueClientCertificate } from "../pki/cluster-pki.ts";
import { requestLabels } from "./metrics.ts";
import { requestInfo } from "./request-info.ts";

describe("request labels as kube-apiserver gives them", () => {
  const labels = (method: string, path: string, contentType?: string) => {
    const url = new URL(path, "https://x");
    return requestLabels(method, url, requestInfo(method, url.pathname, url.searchParams), contentType);
  };

  it.each([
    [
      "GET",
      "/api/v1/namespaces/default/pods",
      undefined,
      { verb: "LIST", resource: "pods", scope: "namespace" },
    ],
    ["GET", "/api/v1/namespaces/default/pods/p", undefined, { verb: "GET", scope: "resource" }],
    ["GET", "/api/v1/pods?watch=true", undefined, { verb: "WATCH", scope: "cluster" }],
    ["GET", "/api/v1/watch/namespaces/default/pods", undefined, { verb: "WATCH", scope: "namespace" }],
    [
      "POST",
      "/apis/apps/v1/namespaces/default/deployments",
      undefined,
      { verb: "POST", group: "apps", scope: "resource" },
    ],
    [
      "PUT",
      "/apis/apps/v1/namespaces/d/deployments/x/status",
      undefined,
      { verb: "PUT", subresource: "status" },
    ],
    ["PATCH", "/apis/apps/v1/namespaces/d/deployments/x", "application/merge-patch+json", { verb: "PATCH" }],
    ["PATCH", "/apis/apps/v1/namespaces/d/deployments/x", "application/apply-patch+yaml", { verb: "APPLY" }],
    ["DELETE", "/api/v1/namespaces/d/configmaps", undefined, { verb: "DELETE", scope: "namespace" }],
    [
      "GET",
      "/apis/cluster.karmada.io/v1alpha1/clusters/m1/proxy/api/v1/pods",
      undefined,
      { verb: "CONNECT", subresource: "proxy" },
    ],
    ["POST", "/api/v1/namespaces/d/pods?dryRun=All", undefined, { dry_run: "All" }],
    [
      "GET",
      "/healthz",
      undefined,
      { verb: "GET", group: "", resource: "", scope: "", component: "apiserver" },
    ],
  ])("%s %s", (method, path, contentType, want) => {
    expect(labels(method, path, contentType)).toMatchObject(want);
  });
});

describe("the API server's /metrics", () => {
  let cp: RunningControlPlane & { pki: Awaited<ReturnType<typeof startLocalControlPlane>>["pki"] };
  let admin: HttpClient;
  beforeAll(async () => {
    cp = await startLocalControlPlane({ metrics: createMetricsRegistry() });
    admin = new HttpClient(cp.connection);
  });
  afterAll(async () => {
    admin?.close();
    await cp?.stop();
  });

  it("counts requests by verb, resource, scope and code, and is served to those RBAC allows", async () => {
    await admin.create(RESOURCES.configmaps, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "m", namespace: "default" },
    });
    await admin.get(RESOURCES.configmaps, "default", "missing").catch(() => undefined);
    await admin.list(RESOURCES.configmaps, "default");
    const res = await admin.getRaw("/metrics");
    expect(res.status).toBe(200);
    const text = res.body;
    expect(text).toMatch(
      /^apiserver_request_total\{verb="POST",dry_run="",group="",version="v1",resource="configmaps",subresource="",scope="resource",component="apiserver",code="201"\} 1$/m,
    );
    expect(text).toMatch(/^apiserver_request_total\{verb="GET",.*resource="configmaps",.*code="404"\} 1$/m);
    expect(text).toMatch(/^apiserver_request_total\{verb="LIST",.*scope="namespace",.*code="200"\} 1$/m);
    expect(text).toMatch(/^apiserver_request_duration_seconds_bucket\{le="0.005",verb="LIST",/m);
    expect(text).toMatch(/^apiserver_current_inflight_requests\{request_kind="readOnly"\} 1$/m);
    expect(text).toMatch(/^apiserver_storage_objects\{resource="configmaps"\} [1-9]/m);
    expect(text).toMatch(/^apiserver_storage_objects\{resource="clusters.cluster.karmada.io"\} 0$/m);

    // A user without `get` on /metrics is refused; the system:monitoring group is allowed.
    const nobody = await issueClientCertificate(cp.pki, { commonName: "nobody" });
    const asNobody = new HttpClient({ ...cp.connection, certData: nobody.certPem, keyData: nobody.keyPem });
    const monitor = await issueClientCertificate(cp.pki, {
      commonName: "prom",
      organizations: ["system:monitoring"],
    });
    const asMonitor = new HttpClient({
      ...cp.connection,
      certData: monitor.certPem,
      keyData: monitor.keyPem,
    });
    try {
      expect((await asNobody.getRaw("/metrics")).status).toBe(403);
      expect((await asMonitor.getRaw("/metrics")).status).toBe(200);
    } finally {
      asNobody.close();
      asMonitor.close();
    }
  });

  it("counts every write to the store by operation and resource, in-process writers' too", async () => {
    const local = new LocalClient(cp.api.context, { fieldManager: "test-controller" });
    const count = async (op: string) => {
      const m = new RegExp(`^etcd_requests_total\\{operation="${op}",type="secrets"\\} (\\d+)$`, "m").exec(
        (await admin.getRaw("/metrics")).body,
      );
      return Number(m?.[1] ?? 0);
    };
    const before = {
      create: await count("create"),
      update: await count("update"),
      delete: await count("delete"),
    };
    const secret = { apiVersion: "v1", kind: "Secret", metadata: { name: "w", namespace: "default" } };
    await admin.create(RESOURCES.secrets, secret);
    await local.patch(RESOURCES.secrets, "default", "w", "merge", { metadata: { labels: { a: "b" } } });
    // A write that changes nothing stores nothing.
    await local.patch(RESOURCES.secrets, "default", "w", "merge", { metadata: { labels: { a: "b" } } });
    await admin.delete(RESOURCES.secrets, "default", "w");
    expect(await count("create")).toBe(before.create + 1);
    expect(await count("update")).toBe(before.update + 1);
    expect(await count("delete")).toBe(before.delete + 1);
  });

  it("answers its health checks verbosely, as kube-apiserver", async () => {
    const ready = await admin.getRaw("/readyz?verbose");
    expect(ready).toEqual({
      status: 200,
      body: "[+]ping ok\n[+]log ok\n[+]memory ok\n[+]poststarthook/karmada-bootstrap ok\n[+]shutdown ok\nreadyz check passed\n",
    });
    expect(await admin.getRaw("/livez/memory")).toEqual({ status: 200, body: "ok" });
    expect((await admin.getRaw("/healthz/nope")).status).toBe(404);
  });
});
