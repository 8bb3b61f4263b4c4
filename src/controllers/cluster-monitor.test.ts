/**
 * The cluster health monitor on a manual clock: Pull clusters that never report or stop
 * renewing their Lease turn Ready=Unknown (and get the unreachable taint) once the grace period
 * has passed on the clock; a renewed Lease restarts the wait; Push clusters are left alone.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readyOf, until } from "../../test/support/cluster-env.ts";
import { rfc3339Micro, type StoredObject } from "../api/meta.ts";
import { ApiServer } from "../apiserver/server.ts";
import { RESOURCES } from "../client/client.ts";
import { LocalClient } from "../client/local.ts";
import type { Taint } from "../karmada/types.ts";
import { silentLogger } from "../log.ts";
import { openStore } from "../storage/open.ts";
import type { Store } from "../storage/store.ts";
import { CLUSTER_LEASE_NAMESPACE, failoverTaints } from "./cluster-monitor.ts";
import { type RunningControllerManager, startControllerManager } from "./index.ts";

const GRACE = 40_000;
const STARTUP_GRACE = 60_000;

describe("cluster health monitor", () => {
  let store: Store;
  let api: ApiServer;
  let client: LocalClient;
  let manager: RunningControllerManager;
  let clock: number;

  const cluster = (name: string) => client.get(RESOURCES.clusters, undefined, name);
  const settle = () => new Promise((r) => setTimeout(r, 150));

  const createCluster = async (name: string, syncMode: "Push" | "Pull", ready?: "True"): Promise<void> => {
    const created = await client.create(RESOURCES.clusters, {
      apiVersion: "cluster.karmada.io/v1alpha1",
      kind: "Cluster",
      metadata: { name },
      spec: { syncMode, ...(syncMode === "Push" ? { apiEndpoint: "https://127.0.0.1:1" } : {}) },
    });
    if (ready) {
      // A patch: the cluster controller is adding its finalizer at the same time.
      await client.patch(
        RESOURCES.clusters,
        undefined,
        created.metadata.name,
        "merge",
        {
          status: {
            conditions: [
              {
                type: "Ready",
                status: ready,
                reason: "ClusterReady",
                message: "cluster is healthy and ready to accept workloads",
                lastTransitionTime: new Date(clock).toISOString().replace(/\.\d+Z$/, "Z"),
              },
            ],
          },
        },
        { subresource: "status" },
      );
    }
  };

  const renewLease = async (name: string): Promise<string> => {
    const renewTime = rfc3339Micro(clock);
    const spec = { holderIdentity: name, leaseDurationSeconds: 40, renewTime };
    let existing: StoredObject | undefined;
    try {
      existing = await client.get(RESOURCES.leases, CLUSTER_LEASE_NAMESPACE, name);
    } catch {
      existing = undefined;
    }
    if (existing) await client.update(RESOURCES.leases, { ...existing, spec });
    else
      await client.create(RESOURCES.leases, {
        apiVersion: "coordination.k8s.io/v1",
        kind: "Lease",
        metadata: { namespace: CLUSTER_LEASE_NAMESPACE, name },
        spec,
      });
    // Wait until the monitor's own Lease cache has it, so the clock only moves on after that.
    const leases = manager.informers.informer(RESOURCES.leases, { namespace: CLUSTER_LEASE_NAMESPACE });
    await until(
      () =>
        (leases.get(CLUSTER_LEASE_NAMESPACE, name)?.spec as { renewTime?: string } | undefined)?.renewTime ===
        renewTime,
      "the renewed lease in the monitor's cache",
    );
    return renewTime;
  };

  beforeEach(async () => {
    // The API server stamps creationTimestamp with the real clock; ours starts there and moves by hand.
    clock = Date.now();
    store = await openStore("memory:");
    api = await ApiServer.start({ store, log: silentLogger, compactionIntervalMs: 0 });
    client = new LocalClient(api.context, { fieldManager: "test" });
    manager = startControllerManager({
      client,
      members: {
        connect: async () => {
          throw new Error("no member connections in this test");
        },
        forget() {},
      },
      log: silentLogger,
      controllers: ["cluster"],
      now: () => clock,
      options: {
        clusterMonitorPeriodMs: 20,
        clusterMonitorGracePeriodMs: GRACE,
        clusterStartupGracePeriodMs: STARTUP_GRACE,
      },
    });
  });
  afterEach(async () => {
    manager.stop();
    await api.close();
    await store.close();
  });

  it("a Pull cluster that never reports turns Unknown after the startup grace period, with the unreachable taint", async () => {
    await createCluster("pull-silent", "Pull");
    await until(async () => (await cluster("pull-silent")).metadata.finalizers?.length, "the finalizer");
    clock += STARTUP_GRACE - 1000;
    await settle();
    expect(
      readyOf(await cluster("pull-silent")),
      JSON.stringify((await cluster("pull-silent")).status),
    ).toBeUndefined();

    clock += 2000;
    const c = await until(async () => {
      const got = await cluster("pull-silent");
      return readyOf(got)?.status === "Unknown" ? got : undefined;
    }, "Ready=Unknown");
    expect(readyOf(c)).toMatchObject({
      reason: "ClusterStatusNeverUpdated",
      message: "Cluster status controller never posted cluster status.",
    });
    const taints = await until(async () => {
      const t = ((await cluster("pull-silent")).spec as { taints?: Array<{ key: string; effect: string }> })
        .taints;
      return t?.some((x) => x.key === "cluster.karmada.io/unreachable") ? t : undefined;
    }, "the unreachable taint");
    expect(taints.map((t) => `${t.key}:${t.effect}`)).toEqual(["cluster.karmada.io/unreachable:NoSchedule"]);
  });

  it("a renewed Lease keeps a Pull cluster Ready; when renewals stop it turns Unknown after the grace period", async () => {
    await createCluster("pull-agent", "Pull", "True");
    await renewLease("pull-agent");
    await settle();

    // Renew a little before each grace period ends, three times over.
    for (let i = 0; i < 3; i++) {
      clock += GRACE - 5000;
      await renewLease("pull-agent");
      await settle();
      expect(readyOf(await cluster("pull-agent"))?.status).toBe("True");
    }

    clock += GRACE - 5000;
    await settle();
    expect(readyOf(await cluster("pull-agent"))?.status).toBe("True");
    clock += 10_000;
    const c = await until(async () => {
      const got = await cluster("pull-agent");
      return readyOf(got)?.status === "Unknown" ? got : undefined;
    }, "Ready=Unknown");
    expect(readyOf(c)).toMatchObject({
      reason: "ClusterStatusUnknown",
      message: "Cluster status controller stopped posting cluster status.",
      lastTransitionTime: new Date(clock).toISOString().replace(/\.\d+Z$/, "Z"),
    });
  });

  it("leaves Push clusters to the cluster-status controller", async () => {
    await createCluster("push", "Push", "True");
    await settle();
    clock += STARTUP_GRACE * 3;
    await settle();
    expect(readyOf(await cluster("push"))?.status).toBe("True");
  });
});

describe("failoverTaints (gate Failover: NoExecute taints by Ready, after the eviction timeout)", () => {
  const T = Date.UTC(2024, 0, 2, 3, 0, 0);
  const TIMEOUT = 300_000;
  const stamp = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");
  const taint = (key: string, effect: string, at = T) => ({ key, effect, timeAdded: stamp(at) });
  const NOT_READY = "cluster.karmada.io/not-ready";
  const UNREACHABLE = "cluster.karmada.io/unreachable";
  const user = { key: "dedicated", value: "x", effect: "NoExecute" };
  // Ready=False counts from its transition; Unknown from the last sign of life.
  const clocks = { readyTransitionTimestamp: T, probeTimestamp: T + 60_000 };

  const cases: Array<[string, Taint[], string | undefined, number, ReturnType<typeof failoverTaints>]> = [
    ["no Ready condition: nothing", [], undefined, T + 10 * TIMEOUT, { taints: [] }],
    [
      "Ready=False within the timeout: look again when it ends",
      [taint(NOT_READY, "NoSchedule")],
      "False",
      T + 1000,
      { taints: [taint(NOT_READY, "NoSchedule")], recheckAfterMs: TIMEOUT - 1000 + 1 },
    ],
    [
      "Ready=False at the deadline itself: not yet (upstream: after it)",
      [],
      "False",
      T + TIMEOUT,
      { taints: [], recheckAfterMs: 1 },
    ],
    [
      "Ready=False past the timeout: not-ready:NoExecute, the unreachable one goes",
      [taint(NOT_READY, "NoSchedule"), taint(UNREACHABLE, "NoExecute"), user],
      "False",
      T + TIMEOUT + 1000,
      { taints: [taint(NOT_READY, "NoSchedule"), user, taint(NOT_READY, "NoExecute", T + TIMEOUT + 1000)] },
    ],
    [
      "an existing not-ready:NoExecute keeps its timeAdded",
      [taint(NOT_READY, "NoExecute", T - 5000)],
      "False",
      T + TIMEOUT + 1000,
      { taints: [taint(NOT_READY, "NoExecute", T - 5000)] },
    ],
    [
      "Ready=Unknown counts from the last sign of life",
      [],
      "Unknown",
      T + TIMEOUT + 1000,
      { taints: [], recheckAfterMs: 60_000 - 1000 + 1 },
    ],
    [
      "Ready=Unknown past the timeout: unreachable:NoExecute, the not-ready one goes",
      [taint(NOT_READY, "NoExecute")],
      "Unknown",
      T + 60_000 + TIMEOUT + 1,
      { taints: [taint(UNREACHABLE, "NoExecute", T + 60_000 + TIMEOUT + 1)] },
    ],
    [
      "Ready=True removes both at once, and only them",
      [taint(NOT_READY, "NoExecute"), taint(UNREACHABLE, "NoExecute"), taint(NOT_READY, "NoSchedule"), user],
      "True",
      T,
      { taints: [taint(NOT_READY, "NoSchedule"), user] },
    ],
  ];
  it.each(cases)("%s", (_name, taints, ready, now, expected) => {
    expect(failoverTaints(taints, ready, clocks, now, TIMEOUT)).toEqual(expected);
  });
});
