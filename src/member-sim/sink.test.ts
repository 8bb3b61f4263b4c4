import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { conditionOf, deploymentObject, TestClock, until } from "../../test/support/member-sim.ts";
import type { StoredObject } from "../api/meta.ts";
import { RESOURCES, type ResourceRef } from "../client/client.ts";
import { type MemberCluster, startMemberCluster } from "./cluster.ts";

type Status = Record<string, unknown>;
const statusOf = (o: StoredObject | undefined): Status => (o?.status ?? {}) as Status;

describe("a sink member", () => {
  let m: MemberCluster;
  const clock = new TestClock("2026-03-01T10:00:00Z");

  beforeAll(async () => {
    m = await startMemberCluster({ name: "sink1", sink: true, nodes: 2, clock });
    await m.client.create(RESOURCES.namespaces, {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "s" },
    });
  });
  afterAll(async () => {
    await m.stop();
  });

  /** The object once its status has caught up with `generation`. */
  const observed = (res: ResourceRef, name: string, generation: number) =>
    until(async () => {
      const o = await m.client.get(res, "s", name);
      return statusOf(o).observedGeneration === generation && o;
    }, `${name}'s status at generation ${generation}`);

  it("has Ready nodes for the cluster status, and runs nothing else: no pods, no ReplicaSets", async () => {
    const nodes = (await m.client.list(RESOURCES.nodes, undefined)).items;
    expect(nodes.map((n) => n.metadata.name).sort()).toEqual(["sink1-node-0", "sink1-node-1"]);
    for (const n of nodes) expect(conditionOf(n, "Ready")?.status).toBe("True");
    await m.client.create(RESOURCES.deployments, deploymentObject("web", "s", { replicas: 3 }));
    await until(
      async () => statusOf(await m.client.get(RESOURCES.deployments, "s", "web")).observedGeneration,
      "status",
    );
    expect((await m.client.list(RESOURCES.pods, "s")).items).toEqual([]);
    expect((await m.client.list(RESOURCES.replicasets, "s")).items).toEqual([]);
    expect(m.runningStageKinds()).toEqual([]);
  });

  it("reports a Deployment ready at once, and again on each spec change, with kube's fields and conditions", async () => {
    await m.client.create(RESOURCES.deployments, deploymentObject("api", "s", { replicas: 2 }));
    const first = await observed(RESOURCES.deployments, "api", 1);
    expect(statusOf(first)).toMatchObject({
      observedGeneration: 1,
      replicas: 2,
      updatedReplicas: 2,
      readyReplicas: 2,
      availableReplicas: 2,
    });
    expect(conditionOf(first, "Available")).toMatchObject({
      status: "True",
      reason: "MinimumReplicasAvailable",
    });
    expect(conditionOf(first, "Progressing")).toMatchObject({
      status: "True",
      reason: "NewReplicaSetAvailable",
    });
    const since = conditionOf(first, "Available")?.lastTransitionTime;

    clock.set("2026-03-01T10:01:00Z");
    await m.client.patch(RESOURCES.deployments, "s", "api", "merge", { spec: { replicas: 0 } });
    const scaled = await observed(RESOURCES.deployments, "api", 2);
    // Zero counts are left out, as kube leaves them out; the conditions keep their times.
    expect(statusOf(scaled).replicas).toBeUndefined();
    expect(statusOf(scaled).availableReplicas).toBeUndefined();
    expect(conditionOf(scaled, "Available")?.lastTransitionTime).toBe(since);

    // A label edit is no spec change: no status write.
    await m.client.patch(RESOURCES.deployments, "s", "api", "merge", { metadata: { labels: { x: "y" } } });
    await new Promise((r) => setTimeout(r, 100));
    const labelled = await m.client.get(RESOURCES.deployments, "s", "api");
    expect(labelled.status).toEqual(scaled.status);
  });

  it("reports a StatefulSet ready at once", async () => {
    await m.client.create(RESOURCES.statefulsets, {
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      metadata: { name: "db", namespace: "s" },
      spec: {
        replicas: 3,
        serviceName: "db",
        selector: { matchLabels: { app: "db" } },
        template: {
          metadata: { labels: { app: "db" } },
          spec: { containers: [{ name: "db", image: "pg" }] },
        },
      },
    });
    const s = await observed(RESOURCES.statefulsets, "db", 1);
    expect(statusOf(s)).toMatchObject({
      replicas: 3,
      readyReplicas: 3,
      currentReplicas: 3,
      updatedReplicas: 3,
      availableReplicas: 3,
      currentRevision: "db-sink",
      updateRevision: "db-sink",
    });
  });
});
