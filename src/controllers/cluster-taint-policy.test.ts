import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ClusterTestEnv,
  type RunningManager,
  taintKeys,
  taintsOf,
  until,
} from "../../test/support/cluster-env.ts";
import type { StoredObject } from "../api/meta.ts";
import type { ClusterObject, Taint } from "../karmada/types.ts";
import type { ConditionStatus } from "../machinery/conditions.ts";
import { FeatureGates } from "../runtime/features.ts";
import {
  addPolicyTaints,
  CLUSTER_TAINT_POLICIES,
  CLUSTER_TAINT_POLICY_CONTROLLER,
  type ClusterTaintPolicySpec,
  conditionsMatch,
  type MatchCondition,
  removePolicyTaints,
  taintsByPolicies,
} from "./cluster-taint-policy.ts";

const NOW = Date.parse("2026-05-01T12:00:00Z");
const STAMP = "2026-05-01T12:00:00Z";
const ready = (status: ConditionStatus) => [{ type: "Ready", status }];
const when = (conditionType: string, operator: string, ...statusValues: string[]): MatchCondition => ({
  conditionType,
  operator,
  statusValues,
});

describe("conditionsMatch (upstream conditionMatches)", () => {
  const conds = [
    { type: "Ready", status: "False" as const },
    { type: "Healthy", status: "True" as const },
  ];
  it.each<[string, MatchCondition[] | undefined, boolean]>([
    ["no match conditions never match", [], false],
    ["unset never matches", undefined, false],
    ["In with the status", [when("Ready", "In", "False", "Unknown")], true],
    ["In without the status", [when("Ready", "In", "True")], false],
    ["NotIn without the status", [when("Ready", "NotIn", "True")], true],
    ["NotIn with the status", [when("Ready", "NotIn", "False")], false],
    ["a missing condition type does not match, even with NotIn", [when("Other", "NotIn", "True")], false],
    ["ANDed: all hold", [when("Ready", "In", "False"), when("Healthy", "In", "True")], true],
    ["ANDed: one fails", [when("Ready", "In", "False"), when("Healthy", "In", "False")], false],
    ["an unknown operator fails", [when("Ready", "Exists", "False")], false],
  ])("%s", (_name, matches, want) => {
    expect(conditionsMatch(conds, matches)).toBe(want);
  });
});

describe("addPolicyTaints and removePolicyTaints", () => {
  const existing: Taint[] = [{ key: "a", effect: "NoSchedule", timeAdded: "2026-01-01T00:00:00Z" }];

  it("adds what is missing by key and effect, with timeAdded and value", () => {
    expect(
      addPolicyTaints(
        existing,
        [
          { key: "a", value: "other", effect: "NoSchedule" },
          { key: "a", effect: "NoExecute" },
          { key: "b", value: "v", effect: "NoSchedule" },
        ],
        STAMP,
      ),
    ).toEqual([
      existing[0],
      { key: "a", effect: "NoExecute", timeAdded: STAMP },
      { key: "b", value: "v", effect: "NoSchedule", timeAdded: STAMP },
    ]);
  });

  it("removes by key and effect, whatever the value", () => {
    const taints: Taint[] = [
      { key: "a", value: "x", effect: "NoSchedule" },
      { key: "a", effect: "NoExecute" },
    ];
    expect(removePolicyTaints(taints, [{ key: "a", effect: "NoSchedule" }])).toEqual([taints[1]]);
    expect(removePolicyTaints(taints, [{ key: "z", effect: "NoSchedule" }])).toEqual(taints);
  });
});

describe("taintsByPolicies", () => {
  const cluster = (
    name: string,
    status: ConditionStatus,
    taints: Taint[] = [],
    labels = {},
  ): ClusterObject => ({
    apiVersion: "cluster.karmada.io/v1alpha1",
    kind: "Cluster",
    metadata: { name, uid: `uid-${name}`, labels },
    spec: { taints },
    status: { conditions: ready(status) },
  });
  const policy = (name: string, created: string, spec: Partial<ClusterTaintPolicySpec>): StoredObject => ({
    apiVersion: "policy.karmada.io/v1alpha1",
    kind: "ClusterTaintPolicy",
    metadata: { name, uid: `uid-${name}`, creationTimestamp: created },
    spec: { taints: [{ key: "t", effect: "NoSchedule" }], ...spec },
  });
  const notReady = {
    addOnConditions: [when("Ready", "In", "False")],
    removeOnConditions: [when("Ready", "In", "True")],
  };
  const keys = (ts: Taint[]) => ts.map((t) => `${t.key}:${t.effect}`);

  it("adds on its conditions, removes on the others, leaves other taints alone", () => {
    const p = policy("p", "2026-01-01T00:00:00Z", notReady);
    const other = { key: "user", effect: "NoSchedule" };
    expect(taintsByPolicies(cluster("m1", "False", [other]), [p], NOW)).toEqual([
      other,
      { key: "t", effect: "NoSchedule", timeAdded: STAMP },
    ]);
    expect(
      taintsByPolicies(cluster("m1", "True", [other, { key: "t", effect: "NoSchedule" }]), [p], NOW),
    ).toEqual([other]);
    expect(taintsByPolicies(cluster("m1", "Unknown", [other]), [p], NOW)).toEqual([other]);
  });

  it("applies only to its target clusters (all when unset)", () => {
    const p = policy("p", "2026-01-01T00:00:00Z", {
      ...notReady,
      targetClusters: { labelSelector: { matchLabels: { env: "prod" } } },
    });
    expect(taintsByPolicies(cluster("m1", "False", [], { env: "prod" }), [p], NOW)).toHaveLength(1);
    expect(taintsByPolicies(cluster("m2", "False", [], { env: "dev" }), [p], NOW)).toEqual([]);
    const byName = policy("q", "2026-01-01T00:00:00Z", {
      ...notReady,
      targetClusters: { clusterNames: ["m2"] },
    });
    expect(taintsByPolicies(cluster("m1", "False"), [byName], NOW)).toEqual([]);
  });

  it("applies policies oldest first: a later policy removing what an earlier one added wins", () => {
    const adds = policy("z-adds", "2026-01-01T00:00:00Z", {
      addOnConditions: [when("Ready", "In", "False")],
    });
    const removes = policy("a-removes", "2026-01-02T00:00:00Z", {
      removeOnConditions: [when("Ready", "In", "False")],
    });
    expect(taintsByPolicies(cluster("m1", "False"), [removes, adds], NOW)).toEqual([]);
    // The other way round the taint stays.
    const removesFirst = {
      ...removes,
      metadata: { ...removes.metadata, creationTimestamp: "2025-12-31T00:00:00Z" },
    };
    expect(keys(taintsByPolicies(cluster("m1", "False"), [adds, removesFirst], NOW))).toEqual([
      "t:NoSchedule",
    ]);
  });
});

describe("cluster taint policy controller over a member made unreachable", () => {
  const TAINT = "example.io/not-ready:NoSchedule";
  let env: ClusterTestEnv;
  let mgr: RunningManager;

  beforeAll(async () => {
    env = await ClusterTestEnv.start();
    mgr = env.startManager({
      controllers: ["cluster", "clusterStatus", "clustertaintpolicy"],
      options: {
        clusterStatusUpdateFrequencyMs: 100,
        clusterSuccessThresholdMs: 100,
        clusterFailureThresholdMs: 300,
        features: new FeatureGates({ Failover: true }),
      },
    });
    for (const name of ["member1", "member2"]) {
      await env.addMember(name);
      await env.join(name);
    }
    for (const name of ["member1", "member2"]) await env.untilReady(name, "True", "ClusterReady");
    await env.client.create(CLUSTER_TAINT_POLICIES, {
      apiVersion: "policy.karmada.io/v1alpha1",
      kind: "ClusterTaintPolicy",
      metadata: { name: "not-ready" },
      spec: {
        addOnConditions: [{ conditionType: "Ready", operator: "In", statusValues: ["False"] }],
        removeOnConditions: [{ conditionType: "Ready", operator: "In", statusValues: ["True"] }],
        taints: [{ key: "example.io/not-ready", effect: "NoSchedule" }],
      },
    });
  }, 60_000);
  afterAll(async () => {
    await env?.stop();
  });

  it("runs only with the Failover gate, under upstream's name", () => {
    expect(mgr.manager.running.map((r) => r.name)).toContain("cluster-taint-policy-controller");
    const off = env.startManager({ controllers: ["clustertaintpolicy"] });
    expect(off.manager.running.map((r) => r.name)).toEqual(["resource-detector"]);
    off.stop();
  });

  it("taints the cluster once Ready turns False, and untaints it when Ready is True again", async () => {
    await env.member("member1").faults.set({ type: "unreachable", mode: "reset" });
    await env.untilReady("member1", "False", "ClusterNotReachable");
    const tainted = await until(async () => {
      const c = await env.getCluster("member1");
      return taintKeys(c).includes(TAINT) && c;
    }, "the policy's taint on member1");
    const added = taintsOf(tainted).find((t) => `${t.key}:${t.effect}` === TAINT);
    expect(Date.parse(added?.timeAdded ?? "")).toBeGreaterThan(Date.now() - 60_000);
    // The cluster controller's own taint is there too; the healthy member is left alone.
    expect(taintKeys(tainted)).toContain("cluster.karmada.io/not-ready:NoSchedule");
    expect(taintKeys(await env.getCluster("member2"))).toEqual([]);

    await until(
      async () =>
        (await env.eventsFor("member1")).find(
          (e) =>
            e.reason === "TaintClusterSucceed" &&
            (e.source as { component?: string } | undefined)?.component === CLUSTER_TAINT_POLICY_CONTROLLER &&
            String(e.message).startsWith("Update Cluster(member1) with taints(cluster now has taints(["),
        ),
      "the policy controller's event",
    );

    await env.member("member1").faults.restore();
    await env.untilReady("member1", "True", "ClusterReady");
    await until(async () => taintKeys(await env.getCluster("member1")).length === 0, "member1 untainted");
    // The message lists the taints left then (the cluster controller's may still be there).
    const fromPolicy = (e: StoredObject) =>
      e.reason === "TaintClusterSucceed" &&
      (e.source as { component?: string } | undefined)?.component === CLUSTER_TAINT_POLICY_CONTROLLER;
    const untainted = await until(
      async () =>
        (await env.eventsFor("member1")).find(
          (e) => fromPolicy(e) && !String(e.message).includes("example.io/not-ready"),
        ),
      "the untaint event",
    );
    expect(untainted.message).toMatch(
      /^Update Cluster\(member1\) with taints\(cluster now (does not have taints|has taints\(\[\{Key:cluster\.karmada\.io\/not-ready,Effect:NoSchedule\}\]\))\) succeed$/,
    );
  }, 60_000);

  it("a new policy applies to the clusters it targets at once", async () => {
    await env.client.create(CLUSTER_TAINT_POLICIES, {
      apiVersion: "policy.karmada.io/v1alpha1",
      kind: "ClusterTaintPolicy",
      metadata: { name: "ready-member2" },
      spec: {
        targetClusters: { clusterNames: ["member2"] },
        addOnConditions: [{ conditionType: "Ready", operator: "In", statusValues: ["True"] }],
        taints: [{ key: "example.io/ready", value: "yes", effect: "NoSchedule" }],
      },
    });
    await until(
      async () => taintKeys(await env.getCluster("member2")).includes("example.io/ready:NoSchedule"),
      "member2 tainted by the new policy",
    );
    expect(taintsOf(await env.getCluster("member2"))[0]).toMatchObject({ value: "yes" });
    expect(taintKeys(await env.getCluster("member1"))).toEqual([]);
  });
});
