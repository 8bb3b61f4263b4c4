/**
 * Kind-specific behaviour the generic verbs get from the registry: resources served in two
 * groups from one storage, deletecollection, bookmarks, and CRD scale subresources.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../../test/support/api.ts";

describe("kinds and their storage", () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ watch: { bookmarkIntervalMs: 200 } });
  });
  afterAll(async () => {
    await api.close();
  });

  it("serves one Event as core/v1 and events.k8s.io/v1, with each version's field selectors", async () => {
    const created = await api.call("POST", "/apis/events.k8s.io/v1/namespaces/default/events", {
      apiVersion: "events.k8s.io/v1",
      kind: "Event",
      metadata: { name: "e1" },
      eventTime: "2026-01-02T03:04:05.000000Z",
      reportingController: "karmada-ts/test",
      reportingInstance: "test-1",
      action: "Scheduled",
      reason: "Scheduled",
      regarding: { kind: "Pod", namespace: "default", name: "web-1", uid: "u1" },
      note: "placed on member1",
      type: "Normal",
    });
    expect(created.status).toBe(201);
    const core = await api.call("GET", "/api/v1/namespaces/default/events/e1");
    expect(core.body).toMatchObject({
      apiVersion: "v1",
      kind: "Event",
      involvedObject: { kind: "Pod", name: "web-1" },
      message: "placed on member1",
      reportingComponent: "karmada-ts/test",
    });
    const byInvolved = await api.call(
      "GET",
      "/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dweb-1",
    );
    expect((byInvolved.body.items as unknown[]).length).toBe(1);
    const byRegarding = await api.call(
      "GET",
      "/apis/events.k8s.io/v1/namespaces/default/events?fieldSelector=regarding.name%3Dweb-1",
    );
    expect((byRegarding.body.items as Array<{ note: string }>)[0]!.note).toBe("placed on member1");
  });

  it("serves HorizontalPodAutoscalers as autoscaling/v2 and v1", async () => {
    await api.call("POST", "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers", {
      apiVersion: "autoscaling/v1",
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "web" },
      spec: {
        scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
        maxReplicas: 5,
        targetCPUUtilizationPercentage: 70,
      },
    });
    const v2 = await api.call("GET", "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/web");
    expect(v2.body.spec).toMatchObject({
      maxReplicas: 5,
      metrics: [
        {
          type: "Resource",
          resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 70 } },
        },
      ],
    });
    const v1 = await api.call("GET", "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers/web");
    expect(v1.body.spec).toMatchObject({ targetCPUUtilizationPercentage: 70 });
  });

  it("deletes a collection by selector", async () => {
    for (const [name, tier] of [
      ["a", "web"],
      ["b", "web"],
      ["c", "db"],
    ] as const) {
      await api.call("POST", "/api/v1/namespaces/default/configmaps", {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: `dc-${name}`, labels: { tier, set: "dc" } },
      });
    }
    const r = await api.call(
      "DELETE",
      "/api/v1/namespaces/default/configmaps?labelSelector=tier%3Dweb,set%3Ddc",
    );
    expect(r.status).toBe(200);
    expect((r.body.items as Array<{ metadata: { name: string } }>).map((i) => i.metadata.name)).toEqual([
      "dc-a",
      "dc-b",
    ]);
    const left = await api.call("GET", "/api/v1/namespaces/default/configmaps?labelSelector=set%3Ddc");
    expect((left.body.items as Array<{ metadata: { name: string } }>).map((i) => i.metadata.name)).toEqual([
      "dc-c",
    ]);
  });

  it("sends quiet watches bookmarks that carry the store's progress", async () => {
    const list = await api.call("GET", "/api/v1/namespaces/default/secrets");
    const rv = Number(list.body.metadata.resourceVersion);
    const w = await api.watch(
      `/api/v1/namespaces/default/secrets?watch=true&allowWatchBookmarks=true&resourceVersion=${rv}`,
    );
    // Writes elsewhere move the store's revision; the secrets watch stays quiet.
    await api.call("POST", "/api/v1/namespaces/default/configmaps", {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "elsewhere" },
    });
    const after = Number(
      (await api.call("GET", "/api/v1/namespaces/default/configmaps/elsewhere")).body.metadata
        .resourceVersion,
    );
    for (let i = 0; i < 100; i++) {
      const marks = w.events.filter((e) => (e as { type: string }).type === "BOOKMARK") as Array<{
        object: { metadata: { resourceVersion: string } };
      }>;
      if (marks.some((m) => Number(m.object.metadata.resourceVersion) >= after)) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    w.stop();
    const marks = w.events.filter((e) => (e as { type: string }).type === "BOOKMARK") as Array<{
      object: { kind: string; metadata: { resourceVersion: string } };
    }>;
    expect(marks.length).toBeGreaterThan(0);
    expect(marks[0]!.object.kind).toBe("Secret");
    expect(Math.max(...marks.map((m) => Number(m.object.metadata.resourceVersion)))).toBeGreaterThanOrEqual(
      after,
    );
  });

  it("serves /scale for a CRD that declares it", async () => {
    const crd = await api.call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "scalers.example.com" },
      spec: {
        group: "example.com",
        names: { kind: "Scaler", plural: "scalers", singular: "scaler", listKind: "ScalerList" },
        scope: "Namespaced",
        versions: [
          {
            name: "v1",
            served: true,
            storage: true,
            subresources: {
              status: {},
              scale: {
                specReplicasPath: ".spec.replicas",
                statusReplicasPath: ".status.replicas",
                labelSelectorPath: ".status.selector",
              },
            },
            schema: {
              openAPIV3Schema: {
                type: "object",
                properties: {
                  spec: { type: "object", properties: { replicas: { type: "integer" } } },
                  status: {
                    type: "object",
                    properties: { replicas: { type: "integer" }, selector: { type: "string" } },
                  },
                },
              },
            },
          },
        ],
      },
    });
    expect(crd.status).toBe(201);
    const base = "/apis/example.com/v1/namespaces/default/scalers";
    const created = await api.call("POST", base, {
      apiVersion: "example.com/v1",
      kind: "Scaler",
      metadata: { name: "s" },
      spec: { replicas: 1 },
    });
    await api.call("PUT", `${base}/s/status`, {
      ...created.body,
      status: { replicas: 1, selector: "app=s" },
    });
    const scale = await api.call("GET", `${base}/s/scale`);
    expect(scale.body).toMatchObject({
      kind: "Scale",
      spec: { replicas: 1 },
      status: { replicas: 1, selector: "app=s" },
    });
    await api.call(
      "PATCH",
      `${base}/s/scale`,
      { spec: { replicas: 3 } },
      { "content-type": "application/merge-patch+json" },
    );
    expect(((await api.call("GET", `${base}/s`)).body.spec as { replicas: number }).replicas).toBe(3);
    const disc = await api.call("GET", "/apis/example.com/v1");
    expect((disc.body.resources as Array<{ name: string }>).map((r) => r.name)).toEqual([
      "scalers",
      "scalers/status",
      "scalers/scale",
    ]);
  });
});

describe("service account tokens", () => {
  it("fills a service-account-token secret once its account exists", async () => {
    const api = await startTestApi();
    try {
      await api.call("POST", "/api/v1/namespaces/default/secrets", {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "sa-token", annotations: { "kubernetes.io/service-account.name": "robot" } },
        type: "kubernetes.io/service-account-token",
      });
      const sa = await api.call("POST", "/api/v1/namespaces/default/serviceaccounts", {
        apiVersion: "v1",
        kind: "ServiceAccount",
        metadata: { name: "robot" },
      });
      let secret = (await api.call("GET", "/api/v1/namespaces/default/secrets/sa-token")).body;
      for (let i = 0; i < 100 && !(secret.data as { token?: string } | undefined)?.token; i++) {
        await new Promise((r) => setTimeout(r, 20));
        secret = (await api.call("GET", "/api/v1/namespaces/default/secrets/sa-token")).body;
      }
      const data = secret.data as Record<string, string>;
      expect(Buffer.from(data.token!, "base64").toString()).toMatch(/^[A-Za-z0-9_-]{40,}$/);
      expect(Buffer.from(data.namespace!, "base64").toString()).toBe("default");
      expect(secret.metadata.annotations?.["kubernetes.io/service-account.uid"]).toBe(sa.body.metadata.uid);
    } finally {
      await api.close();
    }
  });
});
