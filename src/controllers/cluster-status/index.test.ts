import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ClusterTestEnv,
  conditionsOf,
  type RunningManager,
  readyOf,
  taintKeys,
  until,
} from "../../../test/support/cluster-env.ts";
import { deploymentObject, podObject, TestClock } from "../../../test/support/member-sim.ts";
import { isObject, rfc3339 } from "../../api/meta.ts";
import { RESOURCES } from "../../client/client.ts";
import { HttpClient } from "../../client/http.ts";
import { sumResourceLists } from "../../machinery/quantity.ts";
import { TAINT_NOT_READY } from "../cluster.ts";
import { READY_MESSAGES } from "./readiness.ts";

const NOT_READY = `${TAINT_NOT_READY}:NoSchedule`;

describe("cluster status controller over joined members", () => {
  let env: ClusterTestEnv;
  let mgr: RunningManager;
  const PROBE_TIMEOUT_MS = 300;

  beforeAll(async () => {
    env = await ClusterTestEnv.start();
    mgr = env.startManager({
      options: {
        clusterStatusUpdateFrequencyMs: 100,
        clusterFailureThresholdMs: 300,
        clusterSuccessThresholdMs: 300,
        clusterProbeTimeoutMs: PROBE_TIMEOUT_MS,
      },
    });
    for (const name of ["healthy", "flaky", "hang", "gone"]) {
      await env.addMember(name);
      await env.join(name);
    }
    for (const name of ["healthy", "flaky", "hang", "gone"])
      await env.untilReady(name, "True", "ClusterReady");
  });
  afterAll(async () => {
    await env?.stop();
  });

  it("reports a healthy member: Ready, version, API enablements, nodes and resources", async () => {
    const m = env.member("healthy");
    const cluster = await env.getCluster("healthy");
    const status = cluster.status as Record<string, unknown>;
    expect(readyOf(cluster)).toMatchObject({ type: "Ready", ...READY_MESSAGES.ready });
    expect(READY_MESSAGES.ready).toEqual({
      status: "True",
      reason: "ClusterReady",
      message: "cluster is healthy and ready to accept workloads",
    });
    expect(conditionsOf(cluster).map((c) => c.type)).toEqual(["CompleteAPIEnablements", "Ready"]);
    expect(conditionsOf(cluster)[0]).toMatchObject({
      status: "True",
      reason: "Complete",
      message: "collected complete APIEnablements from the cluster",
    });
    const direct = new HttpClient(m.connection);
    const version = JSON.parse((await direct.getRaw("/version")).body) as { gitVersion: string };
    direct.close();
    expect(status.kubernetesVersion).toBe(version.gitVersion);

    const enablements = status.apiEnablements as Array<{
      groupVersion: string;
      resources: Array<{ name: string; kind: string }>;
    }>;
    const gvs = enablements.map((e) => e.groupVersion);
    expect(gvs).toEqual([...gvs].sort());
    expect(gvs).toEqual(expect.arrayContaining(["v1", "apps/v1", "batch/v1", "coordination.k8s.io/v1"]));
    const resourcesOf = (gv: string) => enablements.find((e) => e.groupVersion === gv)!.resources;
    expect(resourcesOf("apps/v1")).toEqual(
      expect.arrayContaining([
        { name: "deployments", kind: "Deployment" },
        { name: "statefulsets", kind: "StatefulSet" },
      ]),
    );
    expect(resourcesOf("v1")).toEqual(
      expect.arrayContaining([
        { name: "pods", kind: "Pod" },
        { name: "nodes", kind: "Node" },
      ]),
    );
    for (const e of enablements) {
      const names = e.resources.map((r) => r.name);
      expect(names).toEqual([...names].sort());
      expect(names.filter((n) => n.includes("/"))).toEqual([]);
    }

    const nodes = (await m.client.list(RESOURCES.nodes, undefined)).items;
    expect(status.nodeSummary).toEqual({ totalNum: 3, readyNum: 3 });
    const allocatable = sumResourceLists(
      nodes.map((n) => (n.status as { allocatable: object }).allocatable as never),
    );
    expect(status.resourceSummary).toMatchObject({ allocatable });
    expect((await m.client.list(RESOURCES.pods, undefined)).items).toEqual([]);
    expect(status.resourceSummary).not.toHaveProperty("allocated");
    expect(status.resourceSummary).not.toHaveProperty("allocating");
    // The default resource models of the Cluster: all three 8-cpu/32Gi nodes in one grade.
    const modelings = (status.resourceSummary as { allocatableModelings: Array<{ count: number }> })
      .allocatableModelings;
    expect(modelings).toHaveLength(9);
    expect(modelings.reduce((n, g) => n + g.count, 0)).toBe(3);
  });

  it("follows the member's pods: allocated for scheduled pods, allocating for pending ones", async () => {
    const m = env.member("healthy");
    await m.client.create(RESOURCES.namespaces, {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "shop" },
    });
    const web = deploymentObject("web", "shop", {
      replicas: 2,
      pod: {
        containers: [
          { name: "app", image: "nginx", resources: { requests: { cpu: "250m", memory: "64Mi" } } },
        ],
      },
    });
    await m.client.create(RESOURCES.deployments, web);
    const summary = async () =>
      ((await env.getCluster("healthy")).status as { resourceSummary: Record<string, unknown> })
        .resourceSummary;
    await until(
      async () =>
        JSON.stringify((await summary()).allocated) ===
        JSON.stringify({ cpu: "500m", memory: "128Mi", pods: "2" }),
      "allocated to count the deployment's pods",
    );
    // A pod no node can take stays unscheduled: it is allocating, with its init container's cpu.
    await m.client.create(
      RESOURCES.pods,
      podObject("stuck", "shop", {
        nodeSelector: { "no-such": "label" },
        initContainers: [{ name: "init", image: "busybox", resources: { requests: { cpu: "2" } } }],
        containers: [
          { name: "app", image: "nginx", resources: { requests: { cpu: "100m", memory: "10Mi" } } },
        ],
      }),
    );
    await until(
      async () =>
        JSON.stringify((await summary()).allocating) ===
        JSON.stringify({ cpu: "2", memory: "10Mi", pods: "1" }),
      "allocating to count the pending pod",
    );
    await m.client.delete(RESOURCES.pods, "shop", "stuck");
    await m.client.patch(RESOURCES.deployments, "shop", "web", "merge", { spec: { replicas: 0 } });
    await until(async () => {
      const s = await summary();
      return !("allocated" in s) && !("allocating" in s);
    }, "allocated and allocating to go");
  });

  it("an unhealthy member turns NotReady only after the failure threshold, and Ready again after the success threshold", async () => {
    const m = env.member("flaky");
    env.history.mark("flaky", "unhealthy");
    await m.faults.set({ type: "unhealthy" });
    const down = await env.untilReady("flaky", "False");
    expect(readyOf(down)).toMatchObject({
      reason: "ClusterNotReady",
      message: "cluster is reachable but health endpoint responded without ok",
    });
    expect(READY_MESSAGES.notReady).toMatchObject({
      reason: "ClusterNotReady",
      message: "cluster is reachable but health endpoint responded without ok",
    });
    // 300 ms of failures at 100 ms probes: seen failing at least twice before it was published.
    const failing = env.history.probesBefore("flaky", "unhealthy", "False").filter((p) => p.status === 500);
    expect(failing.length).toBeGreaterThanOrEqual(2);
    await until(
      async () => taintKeys(await env.getCluster("flaky")).includes(NOT_READY),
      "the not-ready taint",
    );
    // Still reachable: what was collected stays.
    expect((down.status as Record<string, unknown>).nodeSummary).toEqual({ totalNum: 3, readyNum: 3 });

    env.history.mark("flaky", "restored");
    await m.faults.restore();
    await env.untilReady("flaky", "True", "ClusterReady");
    const healthy = env.history.probesBefore("flaky", "restored", "True").filter((p) => p.status === 200);
    expect(healthy.length).toBeGreaterThanOrEqual(2);
    await until(async () => taintKeys(await env.getCluster("flaky")).length === 0, "no taints");
  });

  it("an unreachable member (connections reset) turns NotReady with ClusterNotReachable", async () => {
    const m = env.member("flaky");
    env.history.mark("flaky", "unreachable");
    await m.faults.set({ type: "unreachable" });
    const down = await env.untilReady("flaky", "False");
    expect(readyOf(down)).toMatchObject({ ...READY_MESSAGES.unreachable });
    expect(READY_MESSAGES.unreachable).toEqual({
      status: "False",
      reason: "ClusterNotReachable",
      message: "cluster is not reachable",
    });
    const failing = env.history.probesBefore("flaky", "unreachable", "False").filter((p) => p.error);
    expect(failing.length).toBeGreaterThanOrEqual(2);
    await m.faults.restore();
    await env.untilReady("flaky", "True", "ClusterReady");
  });

  it("a member that stops answering is given up on after the probe timeout, and recovers", async () => {
    const m = env.member("hang");
    env.history.mark("hang", "hang");
    await m.faults.set({ type: "unreachable", mode: "hang" });
    const down = await env.untilReady("hang", "False", "ClusterNotReachable");
    // Requests the member answered between the mark and the fault taking hold are not failures.
    // One timed-out health probe can be enough: the failure threshold counts from the last
    // success, which may be a threshold's time ago when the fault lands between two probes.
    const failing = env.history.probesBefore("hang", "hang", "False").filter((p) => p.status !== 200);
    expect(failing.length).toBeGreaterThanOrEqual(1);
    for (const p of failing) expect(p.error).toContain(`no response within ${PROBE_TIMEOUT_MS} ms`);
    expect(readyOf(down)?.message).toBe("cluster is not reachable");
    await m.faults.restore();
    await env.untilReady("hang", "True", "ClusterReady");
  });

  it("a stopped member turns NotReady (ClusterNotReachable); only the Ready condition changes", async () => {
    const before = await env.getCluster("gone");
    await env.stopMember("gone");
    const down = await env.untilReady("gone", "False", "ClusterNotReachable");
    const { conditions: _a, ...restBefore } = before.status as Record<string, unknown>;
    const { conditions: _b, ...restAfter } = down.status as Record<string, unknown>;
    expect(restAfter).toEqual(restBefore);
    expect(conditionsOf(down).find((c) => c.type === "CompleteAPIEnablements")).toEqual(
      conditionsOf(before).find((c) => c.type === "CompleteAPIEnablements"),
    );
    await until(
      async () => taintKeys(await env.getCluster("gone")).includes(NOT_READY),
      "the not-ready taint",
    );
  });

  it("a cluster whose credentials cannot be read: Ready=False StatusCollectionFailed", async () => {
    await env.client.create(RESOURCES.clusters, {
      apiVersion: "cluster.karmada.io/v1alpha1",
      kind: "Cluster",
      metadata: { name: "nosecret" },
      spec: {
        syncMode: "Push",
        apiEndpoint: env.member("healthy").url,
        secretRef: { namespace: "karmada-cluster", name: "nosecret" },
      },
    });
    const c = await env.untilReady("nosecret", "False", "StatusCollectionFailed");
    expect(readyOf(c)?.message).toMatch(/^failed to create a ClusterClient: .*nosecret.*not found/);
  });

  it("keeps probing every --cluster-status-update-frequency while nothing changes", async () => {
    const count = mgr.healthProbes("healthy").length;
    await until(() => mgr.healthProbes("healthy").length >= count + 3, "three more probes");
  });
});

describe("cluster status thresholds on the controller's clock", () => {
  let env: ClusterTestEnv;
  const clock = new TestClock("2026-06-01T08:00:00Z");
  const options = {
    clusterStatusUpdateFrequencyMs: 50,
    clusterFailureThresholdMs: 30_000,
    clusterSuccessThresholdMs: 30_000,
  };
  beforeAll(async () => {
    env = await ClusterTestEnv.start();
    await env.addMember("member1");
  });
  afterAll(async () => {
    await env?.stop();
  });

  /** Waits until `n` more health probes than now were answered with `status`. */
  const moreProbes = async (mgr: RunningManager, status: number, n: number): Promise<void> => {
    const seen = mgr.healthProbes("member1").filter((p) => p.status === status).length;
    await until(
      () => mgr.healthProbes("member1").filter((p) => p.status === status).length >= seen + n,
      `${n} probes answering ${status}`,
    );
  };

  it("publishes a flip only once it has lasted the threshold on the injected clock", async () => {
    const mgr = env.startManager({ options, now: () => clock.now() });
    await env.join("member1");
    // The first observation is published as it is.
    const up = await env.untilReady("member1", "True");
    expect(readyOf(up)?.lastTransitionTime).toBe("2026-06-01T08:00:00Z");

    const m = env.member("member1");
    await m.faults.set({ type: "unhealthy" });
    await moreProbes(mgr, 500, 3);
    expect(readyOf(await env.getCluster("member1"))?.status).toBe("True");
    clock.t += 29_000;
    await moreProbes(mgr, 500, 2);
    expect(readyOf(await env.getCluster("member1"))?.status).toBe("True");
    clock.t += 1_000;
    const down = await env.untilReady("member1", "False", "ClusterNotReady");
    expect(readyOf(down)?.lastTransitionTime).toBe(rfc3339(clock.t));

    await m.faults.restore();
    await moreProbes(mgr, 200, 3);
    expect(readyOf(await env.getCluster("member1"))?.status).toBe("False");
    clock.t += 30_000;
    const back = await env.untilReady("member1", "True", "ClusterReady");
    expect(readyOf(back)?.lastTransitionTime).toBe(rfc3339(clock.t));
    mgr.stop();
  });

  it("after a restart, the first observation is published at once (upstream's condition cache starts empty)", async () => {
    const m = env.member("member1");
    await m.faults.set({ type: "unhealthy" });
    // The clock does not move: only the first observation can turn the stored True into False.
    const mgr = env.startManager({ options, now: () => clock.now() });
    const down = await env.untilReady("member1", "False", "ClusterNotReady");
    expect(readyOf(down)?.lastTransitionTime).toBe(rfc3339(clock.t));
    // ...and from then on the thresholds apply again.
    await m.faults.restore();
    await moreProbes(mgr, 200, 3);
    expect(readyOf(await env.getCluster("member1"))?.status).toBe("False");
    const cluster = await env.getCluster("member1");
    expect(isObject(cluster.status) && cluster.status.kubernetesVersion).toBeTruthy();
  });
});
