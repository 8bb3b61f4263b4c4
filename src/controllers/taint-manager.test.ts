/**
 * The taint manager's rules as tables: when a binding must leave a NoExecute-tainted cluster
 * (upstream's needEviction over the applied placement's tolerations), what the eviction writes,
 * which purge mode it takes, and how evictions are paced.
 */
import { describe, expect, it } from "vitest";
import { evictCluster } from "../karmada/failover.ts";
import type { BindingSpec, Taint, Toleration } from "../karmada/types.ts";
import {
  appliedTolerations,
  clusterPurgeMode,
  type EvictionDecision,
  evictionDecision,
  evictionPacer,
} from "./taint-manager.ts";

const T0 = Date.UTC(2024, 0, 2, 3, 4, 0);
const at = (seconds: number): string => new Date(T0 + seconds * 1000).toISOString().replace(".000Z", "Z");

const notReady = (addedAt = 0): Taint => ({
  key: "cluster.karmada.io/not-ready",
  effect: "NoExecute",
  timeAdded: at(addedAt),
});
const unreachable = (addedAt = 0): Taint => ({
  key: "cluster.karmada.io/unreachable",
  effect: "NoExecute",
  timeAdded: at(addedAt),
});
const noSchedule: Taint = { key: "cluster.karmada.io/not-ready", effect: "NoSchedule", timeAdded: at(0) };
const tolerate = (key: string, seconds?: number, operator = "Exists"): Toleration => ({
  key,
  operator,
  effect: "NoExecute",
  ...(seconds !== undefined ? { tolerationSeconds: seconds } : {}),
});

describe("evictionDecision", () => {
  const cases: Array<[string, Taint[], Toleration[] | undefined, number, EvictionDecision]> = [
    ["no taints", [], [], 0, { evict: false }],
    ["only NoSchedule taints", [noSchedule], [], 0, { evict: false }],
    [
      "no applied placement",
      [notReady()],
      undefined,
      0,
      { evict: true, why: "the binding has no applied placement" },
    ],
    [
      "no tolerations",
      [notReady()],
      [],
      0,
      { evict: true, why: "taint cluster.karmada.io/not-ready:NoExecute is not tolerated" },
    ],
    [
      "one of two taints not tolerated",
      [notReady(), unreachable()],
      [tolerate("cluster.karmada.io/not-ready", 300)],
      0,
      { evict: true, why: "taint cluster.karmada.io/unreachable:NoExecute is not tolerated" },
    ],
    [
      "a toleration for another effect does not count",
      [notReady()],
      [{ key: "cluster.karmada.io/not-ready", operator: "Exists", effect: "NoSchedule" }],
      0,
      { evict: true, why: "taint cluster.karmada.io/not-ready:NoExecute is not tolerated" },
    ],
    [
      "tolerated forever (no seconds)",
      [notReady()],
      [tolerate("cluster.karmada.io/not-ready")],
      600,
      { evict: false },
    ],
    [
      "an empty key with Exists tolerates every taint, forever",
      [notReady(), unreachable()],
      [{ operator: "Exists" }],
      600,
      { evict: false },
    ],
    [
      "tolerated for now: look again when the seconds run out",
      [notReady(10)],
      [tolerate("cluster.karmada.io/not-ready", 30)],
      25,
      { evict: false, recheckAfterMs: 15_000 },
    ],
    [
      "the seconds run out exactly now",
      [notReady(10)],
      [tolerate("cluster.karmada.io/not-ready", 30)],
      40,
      { evict: true, why: "the toleration of taint cluster.karmada.io/not-ready:NoExecute has run out" },
    ],
    [
      "the earliest trigger over all taints wins",
      [notReady(0), unreachable(20)],
      [tolerate("cluster.karmada.io/not-ready", 100), tolerate("cluster.karmada.io/unreachable", 30)],
      10,
      { evict: false, recheckAfterMs: 40_000 },
    ],
    [
      "a used toleration counts against every taint it tolerates (upstream's GetMinTolerationTime)",
      [notReady(0), unreachable(50)],
      [{ operator: "Exists", tolerationSeconds: 60 }],
      10,
      { evict: false, recheckAfterMs: 50_000 },
    ],
    [
      "only the first matching toleration of a taint is used",
      [notReady(0)],
      [tolerate("cluster.karmada.io/not-ready"), tolerate("cluster.karmada.io/not-ready", 5)],
      60,
      { evict: false },
    ],
    [
      "zero seconds evicts at once",
      [notReady(0)],
      [tolerate("cluster.karmada.io/not-ready", 0)],
      0,
      { evict: true, why: "the toleration of taint cluster.karmada.io/not-ready:NoExecute has run out" },
    ],
    [
      "a taint without timeAdded has no trigger (upstream: should not happen)",
      [{ key: "cluster.karmada.io/not-ready", effect: "NoExecute" }],
      [tolerate("cluster.karmada.io/not-ready", 5)],
      600,
      { evict: false },
    ],
    [
      "Equal compares the value",
      [{ key: "fail-test", value: "x", effect: "NoExecute", timeAdded: at(0) }],
      [{ key: "fail-test", operator: "Equal", value: "y", effect: "NoExecute" }],
      0,
      { evict: true, why: "taint fail-test=x:NoExecute is not tolerated" },
    ],
  ];
  it.each(cases)("%s", (_name, taints, tolerations, nowSeconds, expected) => {
    expect(evictionDecision(taints, tolerations, T0 + nowSeconds * 1000)).toEqual(expected);
  });
});

describe("appliedTolerations", () => {
  const key = "policy.karmada.io/applied-placement";
  it.each([
    ["no annotations", undefined, undefined],
    ["no annotation", {}, undefined],
    ["not JSON", { [key]: "{" }, undefined],
    ["not an object", { [key]: "null" }, undefined],
    ["a placement without tolerations", { [key]: "{}" }, []],
    [
      "the placement's tolerations",
      { [key]: JSON.stringify({ clusterTolerations: [tolerate("a", 1)] }) },
      [tolerate("a", 1)],
    ],
  ] as Array<[string, Record<string, string> | undefined, Toleration[] | undefined]>)(
    "%s",
    (_name, annotations, expected) => {
      expect(appliedTolerations(annotations)).toEqual(expected);
    },
  );
});

describe("clusterPurgeMode", () => {
  it.each([
    ["no failover, GracefulEviction on", undefined, true, "Gracefully"],
    ["no failover, GracefulEviction off (v1.12: Immediately)", undefined, false, "Directly"],
    ["application failover only", { application: {} }, false, "Directly"],
    ["cluster failover without a mode", { cluster: {} }, false, "Gracefully"],
    ["cluster failover Directly", { cluster: { purgeMode: "Directly" } }, true, "Directly"],
    ["cluster failover Gracefully", { cluster: { purgeMode: "Gracefully" } }, false, "Gracefully"],
    ["the old name Immediately", { cluster: { purgeMode: "Immediately" } }, true, "Directly"],
    ["the old name Graciously", { cluster: { purgeMode: "Graciously" } }, false, "Gracefully"],
  ] as Array<[string, unknown, boolean, string]>)("%s", (_name, failover, graceful, expected) => {
    expect(clusterPurgeMode(failover, graceful)).toBe(expected);
  });

  it("--no-execute-taint-eviction-purge-mode decides when the policy has no cluster behaviour", () => {
    expect(clusterPurgeMode(undefined, true, "Directly")).toBe("Directly");
    expect(clusterPurgeMode({ application: {} }, true, "Gracefully")).toBe("Gracefully");
    expect(clusterPurgeMode({ cluster: { purgeMode: "Gracefully" } }, true, "Directly")).toBe("Gracefully");
    // Without GracefulEviction there is no graceful task to make.
    expect(clusterPurgeMode(undefined, false, "Gracefully")).toBe("Directly");
  });
});

describe("evictCluster", () => {
  const spec = (extra: Partial<BindingSpec> = {}): BindingSpec => ({
    resource: { apiVersion: "apps/v1", kind: "Deployment", namespace: "default", name: "nginx" },
    clusters: [
      { name: "member1", replicas: 2 },
      { name: "member2", replicas: 0 },
    ],
    ...extra,
  });
  const task = { purgeMode: "Gracefully", reason: "TaintUntolerated", producer: "TaintManager" };

  it("removes the cluster and appends a task with its replicas", () => {
    expect(evictCluster(spec(), "member1", task)).toEqual({
      clusters: [{ name: "member2", replicas: 0 }],
      gracefulEvictionTasks: [
        {
          fromCluster: "member1",
          purgeMode: "Gracefully",
          replicas: 2,
          reason: "TaintUntolerated",
          producer: "TaintManager",
        },
      ],
    });
  });

  it("leaves replicas out when there were none", () => {
    expect(evictCluster(spec(), "member2", task)?.gracefulEvictionTasks).toEqual([
      {
        fromCluster: "member2",
        purgeMode: "Gracefully",
        reason: "TaintUntolerated",
        producer: "TaintManager",
      },
    ]);
  });

  it("keeps an existing task of that cluster instead of adding another", () => {
    const existing = { fromCluster: "member1", reason: "ApplicationFailure", producer: "someone" };
    expect(evictCluster(spec({ gracefulEvictionTasks: [existing] }), "member1", task)).toEqual({
      clusters: [{ name: "member2", replicas: 0 }],
      gracefulEvictionTasks: [existing],
    });
  });

  it("does nothing for a cluster that is not a target", () => {
    expect(evictCluster(spec(), "member3", task)).toBeUndefined();
  });
});

describe("evictionPacer", () => {
  it("lets one eviction through per interval, the first at once", () => {
    const pacer = evictionPacer(0.5);
    expect(pacer.take(0)).toBe(0);
    expect(pacer.take(500)).toBe(1500);
    expect(pacer.take(1999)).toBe(1);
    expect(pacer.take(2000)).toBe(0);
    expect(pacer.take(2000)).toBe(2000);
  });

  it("waits 30 minutes between evictions at rate 0, as upstream", () => {
    const pacer = evictionPacer(0);
    expect(pacer.take(0)).toBe(0);
    expect(pacer.take(1)).toBe(1_799_999);
  });
});
