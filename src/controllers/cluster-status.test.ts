import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isObject, rfc3339, type StoredObject } from "../api/meta.ts";
import { RESOURCES } from "../client/client.ts";
import { HttpClient } from "../client/http.ts";
import { sumResourceLists } from "../machinery/quantity.ts";
import { deploymentObject, podObject, TestClock } from "../member-sim/test-support.ts";
import { TAINT_NOT_READY } from "./cluster.ts";
import {
  allocatableModelings,
  type Condition,
  podRequests,
  publishable,
  READY_MESSAGES,
  setCondition,
  summarize,
} from "./cluster-status.ts";
import { trimNode, trimPod } from "./member-inventory.ts";
import {
  ClusterTestEnv,
  conditionsOf,
  type RunningManager,
  readyOf,
  taintKeys,
  until,
} from "./test-support.ts";

const NOT_READY = `${TAINT_NOT_READY}:NoSchedule`;

function node(name: string, allocatable: Record<string, string>, ready = "True"): StoredObject {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name },
    status: { allocatable, conditions: [{ type: "Ready", status: ready }] },
  };
}

function pod(
  name: string,
  opts: {
    node?: string;
    phase?: string;
    requests?: Array<Record<string, string>>;
    init?: Array<Record<string, string>>;
    overhead?: Record<string, string>;
  } = {},
): StoredObject {
  const containers = (opts.requests ?? [{}]).map((requests, i) => ({
    name: `c${i}`,
    image: "nginx",
    resources: { requests },
  }));
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default" },
    spec: {
      containers,
      ...(opts.init
        ? { initContainers: opts.init.map((requests, i) => ({ name: `i${i}`, resources: { requests } })) }
        : {}),
      ...(opts.overhead ? { overhead: opts.overhead } : {}),
      ...(opts.node ? { nodeName: opts.node } : {}),
    },
    status: { phase: opts.phase ?? (opts.node ? "Running" : "Pending") },
  };
}

describe("publishable (success and failure thresholds)", () => {
  const th = { successMs: 300, failureMs: 500 };
  const cond = (status: Condition["status"]): Condition => ({
    type: "Ready",
    status,
    reason: "",
    message: "",
  });
  const cases: Array<[string, Condition | undefined, Condition["status"], number, boolean]> = [
    ["no Ready yet: at once", undefined, "False", 0, true],
    ["same status: at once", cond("True"), "True", 0, true],
    ["True -> False before the failure threshold: kept", cond("True"), "False", 499, false],
    ["True -> False at the failure threshold", cond("True"), "False", 500, true],
    ["False -> True before the success threshold: kept", cond("False"), "True", 299, false],
    ["False -> True at the success threshold", cond("False"), "True", 300, true],
    ["Unknown -> True waits for the success threshold", cond("Unknown"), "True", 299, false],
    ["Unknown -> False: at once", cond("Unknown"), "False", 0, true],
    ["False -> Unknown: at once", cond("False"), "Unknown", 0, true],
  ];
  for (const [name, current, observed, elapsed, want] of cases) {
    it(name, () => {
      expect(publishable(current, observed, 1_000, 1_000 + elapsed, th)).toBe(want);
    });
  }
});

describe("setCondition (meta.SetStatusCondition)", () => {
  const t0 = "2026-01-01T00:00:00Z";
  const t1 = "2026-01-01T00:01:00Z";
  const base: Condition[] = [
    { type: "Ready", status: "True", reason: "ClusterReady", message: "m", lastTransitionTime: t0 },
    {
      type: "CompleteAPIEnablements",
      status: "True",
      reason: "Complete",
      message: "m",
      lastTransitionTime: t0,
    },
  ];
  it("replaces in place, keeping the transition time while the status stays", () => {
    const out = setCondition(
      base,
      { type: "Ready", status: "True", reason: "ClusterReady", message: "m2" },
      t1,
    );
    expect(out.map((c) => c.type)).toEqual(["Ready", "CompleteAPIEnablements"]);
    expect(out[0]).toEqual({ ...base[0], message: "m2" });
  });
  it("moves the transition time with the status, and appends new types", () => {
    const out = setCondition(base, { ...READY_MESSAGES.notReady, type: "Ready" }, t1);
    expect(out[0]).toEqual({ type: "Ready", ...READY_MESSAGES.notReady, lastTransitionTime: t1 });
    const added = setCondition(base, { type: "NetworkReady", status: "True", reason: "r", message: "m" }, t1);
    expect(added.map((c) => c.type)).toEqual(["Ready", "CompleteAPIEnablements", "NetworkReady"]);
  });
});

describe("resource summary (getResourceSummary, getNodeSummary, getAllocatableModelings)", () => {
  it("a pod's effective request: containers summed, the largest init container if bigger, plus overhead", () => {
    expect(podRequests(pod("a", { requests: [{ cpu: "250m", memory: "64Mi" }, { cpu: "250m" }] }))).toEqual({
      cpu: "500m",
      memory: "64Mi",
    });
    const withInit = pod("b", {
      requests: [{ cpu: "250m", memory: "64Mi" }],
      init: [{ cpu: "1" }, { cpu: "500m", memory: "32Mi" }],
      overhead: { cpu: "100m" },
    });
    expect(podRequests(withInit)).toEqual({ cpu: "1100m", memory: "64Mi" });
  });

  it("sums node allocatable, counts Ready nodes, splits pods into allocating (unscheduled) and allocated (scheduled, not finished)", () => {
    const nodes = [
      node("n1", { cpu: "8", memory: "32Gi", pods: "110", "hugepages-2Mi": "0" }),
      node("n2", { cpu: "4", memory: "16Gi", pods: "110", "hugepages-2Mi": "0" }, "Unknown"),
    ];
    const pods = [
      pod("running", { node: "n1", requests: [{ cpu: "500m", memory: "1Gi" }] }),
      pod("done", { node: "n1", phase: "Succeeded", requests: [{ cpu: "4" }] }),
      pod("failed", { node: "n2", phase: "Failed", requests: [{ cpu: "4" }] }),
      pod("pending", { requests: [{ cpu: "2", memory: "0" }] }),
      pod("no-requests", { node: "n2" }),
    ];
    expect(summarize(nodes, pods)).toEqual({
      nodeSummary: { totalNum: 2, readyNum: 1 },
      resourceSummary: {
        // Zero amounts stay in allocatable (a sum of node lists) ...
        allocatable: { cpu: "12", "hugepages-2Mi": "0", memory: "48Gi", pods: "220" },
        // ... and are left out of allocating/allocated (upstream's Resource.ResourceList()).
        allocating: { cpu: "2", pods: "1" },
        allocated: { cpu: "500m", memory: "1Gi", pods: "2" },
      },
    });
  });

  it("the member inventory keeps only what the summaries read, and the summaries come out the same", () => {
    const nodes = [
      node("n1", { cpu: "8", memory: "32Gi", pods: "110" }),
      node("n2", { cpu: "4", memory: "16Gi", pods: "110" }, "Unknown"),
    ];
    const pods = [
      pod("running", { node: "n1", requests: [{ cpu: "500m", memory: "1Gi" }, { cpu: "1" }] }),
      pod("init", {
        node: "n2",
        requests: [{ cpu: "100m" }],
        init: [{ cpu: "2" }],
        overhead: { cpu: "10m" },
      }),
      pod("done", { node: "n1", phase: "Succeeded", requests: [{ cpu: "4" }] }),
      pod("pending", { requests: [{ cpu: "2", memory: "64Mi" }] }),
      pod("no-requests", { node: "n2" }),
    ];
    const models = [
      { grade: 0, ranges: [{ name: "cpu", min: "0", max: "4" }] },
      { grade: 1, ranges: [{ name: "cpu", min: "4", max: "100" }] },
    ];
    expect(summarize(nodes.map(trimNode), pods.map(trimPod), models)).toEqual(summarize(nodes, pods, models));
    const full = {
      ...pods[0]!,
      metadata: { ...pods[0]!.metadata, labels: { app: "x" }, annotations: { big: "y".repeat(1000) } },
      spec: {
        ...(pods[0]!.spec as Record<string, unknown>),
        volumes: [{ name: "v", emptyDir: {} }],
      },
    };
    const trimmed = trimPod(full);
    expect(trimmed.metadata).toEqual({ name: "running", namespace: full.metadata.namespace });
    expect(JSON.stringify(trimmed)).not.toContain("volumes");
    expect(JSON.stringify(trimmed)).not.toContain("image");
  });

  it("leaves allocating and allocated out when no pod counts", () => {
    const out = summarize(
      [node("n1", { cpu: "1", pods: "10" })],
      [pod("done", { node: "n1", phase: "Succeeded" })],
    );
    expect(out.resourceSummary).toEqual({ allocatable: { cpu: "1", pods: "10" } });
  });

  it("counts nodes per resource-model grade by their free resources, stopping at a node without pod room", () => {
    const models = [
      { grade: 0, ranges: [{ name: "cpu", min: "0", max: "2" }] },
      { grade: 1, ranges: [{ name: "cpu", min: "2", max: "4" }] },
      { grade: 2, ranges: [{ name: "cpu", min: "4", max: "9223372036854775807" }] },
    ];
    const nodes = [
      node("big", { cpu: "8", pods: "10" }),
      node("busy", { cpu: "8", pods: "10" }),
      node("small", { cpu: "1", pods: "10" }),
      node("full", { cpu: "8", pods: "1" }),
      node("after-full", { cpu: "8", pods: "10" }),
    ];
    const bound = [
      pod("p1", { node: "busy", requests: [{ cpu: "5" }] }),
      pod("p2", { node: "full", requests: [{ cpu: "1" }] }),
    ];
    expect(allocatableModelings(models, nodes, bound)).toEqual([
      { grade: 0, count: 1 },
      { grade: 1, count: 1 },
      { grade: 2, count: 1 },
    ]);
  });
});

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
    const failing = env.history.probesBefore("hang", "hang", "False");
    expect(failing.length).toBeGreaterThanOrEqual(2);
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
