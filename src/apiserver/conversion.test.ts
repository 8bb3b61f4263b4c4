import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ResourceRef } from "../client/client.ts";
import { LocalClient } from "../client/local.ts";
import { silentLogger } from "../log.ts";
import { MemoryStore } from "../storage/memory/store.ts";
import { ApiServer } from "./server.ts";

const rb = (version: string): ResourceRef => ({
  group: "work.karmada.io",
  version,
  resource: "resourcebindings",
  namespaced: true,
  kind: "ResourceBinding",
});

let api: ApiServer;
let client: LocalClient;
beforeEach(async () => {
  api = await ApiServer.start({
    store: new MemoryStore(),
    authorization: "AlwaysAllow",
    log: silentLogger,
    compactionIntervalMs: 0,
  });
  client = new LocalClient(api.context);
});
afterEach(async () => {
  await api.close();
});

describe("ResourceBinding v1alpha1 and v1alpha2, as upstream converts them", () => {
  it("shows a v1alpha2 binding in v1alpha1: replicas and per-replica resources inside spec.resource", async () => {
    await client.create(rb("v1alpha2"), {
      apiVersion: "work.karmada.io/v1alpha2",
      kind: "ResourceBinding",
      metadata: { namespace: "default", name: "web-deployment" },
      spec: {
        resource: {
          apiVersion: "apps/v1",
          kind: "Deployment",
          namespace: "default",
          name: "web",
          resourceVersion: "7",
        },
        replicas: 3,
        replicaRequirements: { resourceRequest: { cpu: "100m" } },
        clusters: [{ name: "member1", replicas: 3 }],
        placement: { clusterAffinity: { clusterNames: ["member1"] } },
      },
    });
    const old = await client.get(rb("v1alpha1"), "default", "web-deployment");
    expect(old.apiVersion).toBe("work.karmada.io/v1alpha1");
    expect(old.spec).toEqual({
      resource: {
        apiVersion: "apps/v1",
        kind: "Deployment",
        namespace: "default",
        name: "web",
        resourceVersion: "7",
        resourcePerReplicas: { cpu: "100m" },
        replicas: 3,
      },
      clusters: [{ name: "member1", replicas: 3 }],
    });
  });

  it("stores a v1alpha1 binding as v1alpha2", async () => {
    await client.create(rb("v1alpha1"), {
      apiVersion: "work.karmada.io/v1alpha1",
      kind: "ResourceBinding",
      metadata: { namespace: "default", name: "old-deployment" },
      spec: {
        resource: {
          apiVersion: "apps/v1",
          kind: "Deployment",
          name: "old",
          replicas: 2,
          resourcePerReplicas: { memory: "64Mi" },
        },
        clusters: [{ name: "member2", replicas: 2 }],
      },
    });
    const hub = await client.get(rb("v1alpha2"), "default", "old-deployment");
    expect(hub.spec).toEqual({
      resource: { apiVersion: "apps/v1", kind: "Deployment", name: "old" },
      replicaRequirements: { resourceRequest: { memory: "64Mi" } },
      replicas: 2,
      clusters: [{ name: "member2", replicas: 2 }],
      // v1alpha2's default, applied once stored.
      conflictResolution: "Abort",
    });
  });
});
