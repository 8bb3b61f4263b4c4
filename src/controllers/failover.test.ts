/**
 * Cluster failover over real simulated members, with gate Failover and short durations: a
 * member that stops answering turns NotReady, gets `not-ready:NoSchedule` at once and
 * `not-ready:NoExecute` once that has lasted the eviction timeout; the taint manager then moves
 * the workloads that do not tolerate it (at once without a toleration, after the toleration's
 * seconds with one), leaves non-workloads alone, and the graceful eviction controller ends the
 * tasks. When the member answers again, both taints go. Shadow mode only records.
 *
 * Assertions are on the order of things (one timeline of Cluster versions and binding
 * changes), never on elapsed times.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ClusterTestEnv, type RunningManager, taintKeys, until } from "../../test/support/cluster-env.ts";
import { isObject, type NewObject, type StoredObject } from "../api/meta.ts";
import { ANNOTATION } from "../karmada/names.ts";
import { KARMADA } from "../karmada/resources.ts";
import type { BindingSpec, GracefulEvictionTask, Toleration } from "../karmada/types.ts";
import { FeatureGates } from "../runtime/features.ts";
import { Informer } from "../runtime/informer.ts";
import type { ControllerOptions } from "./context.ts";

const FAILOVER: Partial<ControllerOptions> = {
  clusterStatusUpdateFrequencyMs: 100,
  clusterSuccessThresholdMs: 100,
  clusterFailureThresholdMs: 300,
  failoverEvictionTimeoutMs: 500,
  resourceEvictionRate: 100,
  gracefulEvictionTimeoutMs: 1_000,
  features: new FeatureGates({ Failover: true }),
};
const CONTROLLERS = ["cluster", "clusterStatus", "gracefulEviction"];
const NOT_READY_NO_EXECUTE = "cluster.karmada.io/not-ready:NoExecute";

function rb(
  name: string,
  cluster: string,
  spec: Partial<BindingSpec>,
  tolerations?: Toleration[],
): NewObject {
  return {
    apiVersion: "work.karmada.io/v1alpha2",
    kind: "ResourceBinding",
    metadata: {
      name,
      namespace: "default",
      annotations: {
        [ANNOTATION.appliedPlacement]: JSON.stringify(tolerations ? { clusterTolerations: tolerations } : {}),
      },
    },
    spec: {
      resource: { apiVersion: "apps/v1", kind: "Deployment", namespace: "default", name },
      clusters: [{ name: cluster, ...(spec.replicas ? { replicas: spec.replicas } : {}) }],
      placement: tolerations ? { clusterTolerations: tolerations } : {},
      ...spec,
    },
  };
}

const specOf = (b: StoredObject | undefined) => (isObject(b?.spec) ? b.spec : {}) as Partial<BindingSpec>;
const targets = (b: StoredObject | undefined) => (specOf(b).clusters ?? []).map((c) => c.name);
const tasksOf = (b: StoredObject | undefined): GracefulEvictionTask[] =>
  specOf(b).gracefulEvictionTasks ?? [];

/** The tasks each binding had when it left the cluster. */
const evictedWith = new Map<string, GracefulEvictionTask[]>();

/** Marks in the cluster history when a binding leaves `cluster` and when its tasks end. */
function watchBindings(env: ClusterTestEnv, ref: typeof KARMADA.resourceBindings, cluster: string): Informer {
  const informer = new Informer(env.client, ref);
  informer.addHandler({
    onUpdate: (old, obj) => {
      if (targets(old).includes(cluster) && !targets(obj).includes(cluster)) {
        env.history.mark(cluster, `evicted ${obj.metadata.name}`);
        evictedWith.set(obj.metadata.name, tasksOf(obj));
      }
      if (tasksOf(old).length > 0 && tasksOf(obj).length === 0)
        env.history.mark(cluster, `tasks ended ${obj.metadata.name}`);
    },
  });
  informer.start();
  return informer;
}

/** The cluster's timeline: taint sets (repeats collapsed), Ready statuses and markers. */
function timeline(env: ClusterTestEnv, cluster: string): string[] {
  const out: string[] = [];
  for (const e of env.history.of(cluster)) {
    const line =
      e.marker ?? (e.snapshot ? `${e.snapshot.ready ?? "-"} [${e.snapshot.taints.join(" ")}]` : undefined);
    if (line && out[out.length - 1] !== line) out.push(line);
  }
  return out;
}

const indexOf = (lines: string[], pred: (l: string) => boolean, what: string): number => {
  const i = lines.findIndex(pred);
  if (i < 0) throw new Error(`no ${what} in:\n${lines.join("\n")}`);
  return i;
};

describe("cluster failover on a member that stops answering", () => {
  let env: ClusterTestEnv;
  let mgr: RunningManager;
  const informers: Informer[] = [];

  beforeAll(async () => {
    env = await ClusterTestEnv.start();
    mgr = env.startManager({ controllers: CONTROLLERS, options: FAILOVER });
    for (const name of ["m1", "m2"]) {
      await env.addMember(name);
      await env.join(name);
    }
    for (const name of ["m1", "m2"]) await env.untilReady(name, "True", "ClusterReady");
    informers.push(watchBindings(env, KARMADA.resourceBindings, "m1"));
    informers.push(watchBindings(env, KARMADA.clusterResourceBindings, "m1"));
    await Promise.all(informers.map((i) => i.waitForSync()));
  }, 60_000);
  afterAll(async () => {
    for (const i of informers) i.stop();
    mgr?.stop();
    await env?.stop();
  });

  it("taints after the timeout, evicts by tolerations, keeps non-workloads, untaints on recovery", async () => {
    const notReady = (seconds: number): Toleration => ({
      key: "cluster.karmada.io/not-ready",
      operator: "Exists",
      effect: "NoExecute",
      tolerationSeconds: seconds,
    });
    // A workload tolerating the taint for 1 s, one tolerating nothing (cluster-scoped), one
    // tolerating it for good, and a ConfigMap (not a workload) tolerating nothing.
    await env.client.create(KARMADA.resourceBindings, rb("web", "m1", { replicas: 2 }, [notReady(1)]));
    await env.client.create(
      KARMADA.resourceBindings,
      rb("pinned", "m1", { replicas: 1 }, [{ operator: "Exists" }]),
    );
    await env.client.create(KARMADA.resourceBindings, {
      ...rb("cfg", "m1", {}, []),
      spec: {
        resource: { apiVersion: "v1", kind: "ConfigMap", namespace: "default", name: "cfg" },
        clusters: [{ name: "m1" }],
        placement: {},
      },
    });
    await env.client.create(KARMADA.clusterResourceBindings, {
      apiVersion: "work.karmada.io/v1alpha2",
      kind: "ClusterResourceBinding",
      metadata: { name: "crd-thing", annotations: { [ANNOTATION.appliedPlacement]: "{}" } },
      spec: {
        resource: { apiVersion: "example.io/v1", kind: "Thing", name: "thing" },
        replicas: 3,
        clusters: [{ name: "m1", replicas: 3 }],
        failover: { cluster: { purgeMode: "Directly" } },
      },
    });

    env.history.mark("m1", "fault");
    await env.member("m1").faults.set({ type: "unreachable", mode: "reset" });
    await until(
      async () => taintKeys(await env.getCluster("m1")).includes(NOT_READY_NO_EXECUTE),
      "not-ready:NoExecute",
    );
    await until(
      () => evictedWith.has("web") && evictedWith.has("crd-thing"),
      "web and crd-thing evicted from m1",
    );
    expect(evictedWith.get("web")).toEqual([
      {
        fromCluster: "m1",
        purgeMode: "Gracefully",
        replicas: 2,
        reason: "TaintUntolerated",
        producer: "TaintManager",
      },
    ]);
    expect(evictedWith.get("crd-thing")).toEqual([
      {
        fromCluster: "m1",
        purgeMode: "Directly",
        replicas: 3,
        reason: "TaintUntolerated",
        producer: "TaintManager",
      },
    ]);

    // Nothing schedules these bindings here: the tasks end by their timeout.
    await until(async () => {
      const b = await env.client.get(KARMADA.resourceBindings, "default", "web");
      return tasksOf(b).length === 0;
    }, "web's task ended");

    env.history.mark("m1", "restore");
    await env.member("m1").faults.restore();
    await until(async () => taintKeys(await env.getCluster("m1")).length === 0, "m1 untainted");

    for (const name of ["pinned", "cfg"]) {
      const b = await env.client.get(KARMADA.resourceBindings, "default", name);
      expect(targets(b), name).toEqual(["m1"]);
      expect(tasksOf(b), name).toEqual([]);
    }

    const lines = timeline(env, "m1");
    const fault = lines.indexOf("fault");
    const notReadyAt = indexOf(lines, (l) => l.startsWith("False"), "Ready=False");
    const noExecute = indexOf(lines, (l) => l.includes(NOT_READY_NO_EXECUTE), "NoExecute");
    const crbEvicted = lines.indexOf("evicted crd-thing");
    const webEvicted = lines.indexOf("evicted web");
    const webEnded = lines.indexOf("tasks ended web");
    const restore = lines.indexOf("restore");
    const untainted = lines.lastIndexOf("True []");
    expect(fault).toBeLessThan(notReadyAt);
    // Both taints follow Ready=False (which comes first of the two is up to two controllers here,
    // with a timeout this short; the timeout itself is the table's business).
    indexOf(
      lines.slice(notReadyAt),
      (l) => l.includes("not-ready:NoSchedule"),
      "NoSchedule after Ready=False",
    );
    expect(notReadyAt).toBeLessThan(noExecute);
    // Untolerated goes at once, the 1 s toleration later, its task after that.
    expect(noExecute).toBeLessThan(crbEvicted);
    expect(crbEvicted).toBeLessThan(webEvicted);
    expect(webEvicted).toBeLessThan(webEnded);
    expect(restore).toBeLessThan(untainted);
    // It came with Ready=False, and went (with the NoSchedule one) once Ready was True again.
    expect(lines[noExecute]).toMatch(/^False /);
    expect(lines.slice(restore).some((l) => l.startsWith("True ") && l.includes(NOT_READY_NO_EXECUTE))).toBe(
      true,
    );

    const clusterEvents = await env.eventsFor("m1");
    expect(
      clusterEvents.some(
        (e) =>
          e.reason === "TaintClusterSucceed" &&
          String(e.message).includes("{Key:cluster.karmada.io/not-ready,Effect:NoExecute}"),
      ),
    ).toBe(true);
    const webEvents = await until(async () => {
      const events = await env.eventsFor("web");
      return events.some((e) => e.reason === "EvictWorkloadFromClusterSucceed") && events;
    }, "eviction events of web");
    expect(webEvents.find((e) => e.reason === "EvictWorkloadFromClusterSucceed")?.message).toBe(
      "Evict from cluster m1 succeed.",
    );
  }, 60_000);
});

describe("failover shadow mode", () => {
  let env: ClusterTestEnv;
  let mgr: RunningManager;

  beforeAll(async () => {
    env = await ClusterTestEnv.start();
    mgr = env.startManager({ controllers: CONTROLLERS, options: { ...FAILOVER, failoverShadowMode: true } });
    await env.addMember("m1");
    await env.join("m1");
    await env.untilReady("m1", "True", "ClusterReady");
  }, 60_000);
  afterAll(async () => {
    mgr?.stop();
    await env?.stop();
  });

  it("records the eviction it would make and makes none", async () => {
    await env.client.create(KARMADA.resourceBindings, rb("web", "m1", { replicas: 2 }, []));
    await env.member("m1").faults.set({ type: "unreachable", mode: "reset" });
    await until(
      async () => taintKeys(await env.getCluster("m1")).includes(NOT_READY_NO_EXECUTE),
      "not-ready:NoExecute",
    );
    const shadowed = await until(async () => {
      const events = await env.eventsFor("web");
      return events.find((e) => e.reason === "EvictionShadowed");
    }, "EvictionShadowed event");
    expect(shadowed.message).toBe(
      "Would evict from cluster m1 (failover shadow mode): taint cluster.karmada.io/not-ready:NoExecute is not tolerated.",
    );
    const b = await env.client.get(KARMADA.resourceBindings, "default", "web");
    expect(targets(b)).toEqual(["m1"]);
    expect(tasksOf(b)).toEqual([]);
    await env.member("m1").faults.restore();
  }, 60_000);
});

describe("cluster failover state relay (gate StatefulFailoverInjection)", () => {
  let env: ClusterTestEnv;
  let mgr: RunningManager;
  let bindings: Informer;

  beforeAll(async () => {
    env = await ClusterTestEnv.start();
    mgr = env.startManager({
      controllers: CONTROLLERS,
      options: {
        ...FAILOVER,
        noExecuteTaintEvictionPurgeMode: "Directly",
        features: new FeatureGates({ Failover: true, StatefulFailoverInjection: true }),
      },
    });
    await env.addMember("m1");
    await env.join("m1");
    await env.untilReady("m1", "True", "ClusterReady");
    bindings = watchBindings(env, KARMADA.resourceBindings, "m1");
  }, 60_000);
  afterAll(async () => {
    bindings?.stop();
    mgr?.stop();
    await env?.stop();
  });

  it("keeps the label state of failover.cluster.statePreservation from what the cluster reported; the flag's purge mode applies without a cluster behaviour", async () => {
    // Replicas make them workloads: failover leaves anything else where it is.
    const flink = rb("flink", "m1", {
      replicas: 1,
      failover: {
        cluster: {
          purgeMode: "Directly",
          statePreservation: { rules: [{ aliasLabelName: "job-id", jsonPath: "{ .jobStatus.jobID }" }] },
        },
      },
    } as Partial<BindingSpec>);
    const created = await env.client.create(KARMADA.resourceBindings, flink);
    await env.client.updateStatus(KARMADA.resourceBindings, {
      ...created,
      status: {
        aggregatedStatus: [
          { clusterName: "m1", applied: true, health: "Healthy", status: { jobStatus: { jobID: "f00d" } } },
        ],
      },
    });
    await env.client.create(KARMADA.resourceBindings, rb("plain", "m1", { replicas: 1 }));
    await env.member("m1").faults.set({ type: "unreachable", mode: "reset" });
    await until(async () => evictedWith.has("flink") && evictedWith.has("plain"), "both evictions", 30_000);
    expect(evictedWith.get("flink")).toMatchObject([
      {
        fromCluster: "m1",
        purgeMode: "Directly",
        reason: "TaintUntolerated",
        producer: "TaintManager",
        preservedLabelState: { "job-id": "f00d" },
        clustersBeforeFailover: ["m1"],
      },
    ]);
    const plain = evictedWith.get("plain")!;
    expect(plain).toMatchObject([{ fromCluster: "m1", purgeMode: "Directly" }]);
    expect(plain[0]!.preservedLabelState).toBeUndefined();
    await env.member("m1").faults.restore();
  }, 60_000);
});
