import { describe, expect, it } from "vitest";
import {
  cluster,
  duplicated,
  placement,
  spec,
  staticWeights,
} from "../../test/support/scheduler-fixtures.ts";
import type { Binding } from "../karmada/bindings.ts";
import { ANNOTATION, LABEL } from "../karmada/names.ts";
import type { BindingSpec, ClusterObject, Placement, Toleration } from "../karmada/types.ts";
import { applyFleetChanges, parseFleetChanges } from "./changes.ts";
import { replayBindings } from "./replay.ts";
import type { FleetChanges } from "./types.ts";

const NOW = Date.UTC(2026, 0, 2, 3, 4, 5);

/** A binding as the scheduler left it: placed, its placement applied, scheduled at this generation. */
function scheduled(
  name: string,
  fields: Partial<BindingSpec>,
  extra: Partial<Binding["metadata"]> = {},
): Binding {
  const s = spec({
    resource: { apiVersion: "apps/v1", kind: "Deployment", namespace: "default", name },
    ...fields,
  });
  return {
    apiVersion: "work.karmada.io/v1alpha2",
    kind: "ResourceBinding",
    metadata: {
      name: `${name}-deployment`,
      namespace: "default",
      uid: `uid-${name}`,
      generation: 2,
      labels: { [LABEL.ppPermanentId]: "pp-1" },
      annotations: { [ANNOTATION.appliedPlacement]: JSON.stringify(s.placement ?? {}) },
      ...extra,
    },
    spec: s,
    status: {
      schedulerObservedGeneration: 2,
      conditions: [
        { type: "Scheduled", status: "True", reason: "Success", message: "", lastTransitionTime: "" },
      ],
    },
  };
}

const TWO = ["member1", "member2"];
/** Upstream's quick-start nginx: Divided 1:1 by static weight over member1 and member2. */
const nginx = (fields: Partial<BindingSpec> = {}, tolerations?: Toleration[]) =>
  scheduled("nginx", {
    replicas: 2,
    placement: placement(staticWeights({ member1: 1, member2: 1 }), {
      clusterAffinity: { clusterNames: TWO },
      ...(tolerations ? { clusterTolerations: tolerations } : {}),
    }),
    clusters: [
      { name: "member1", replicas: 1 },
      { name: "member2", replicas: 1 },
    ],
    ...fields,
  });

const fleet: ClusterObject[] = [
  cluster("member1", { labels: { env: "prod" } }),
  cluster("member2", { labels: { env: "prod" } }),
  cluster("member3"),
];

function replay(bindings: Binding[], changes: FleetChanges, failover = true, clusters = fleet) {
  const changed = applyFleetChanges(clusters, changes, NOW);
  return replayBindings(
    {
      resourceBindings: bindings,
      clusterResourceBindings: [],
      clusters: changed.clusters,
      changed: changed.changed,
    },
    { now: NOW, failover },
  );
}

const tolerate = (key: string, tolerationSeconds?: number): Toleration => ({
  key,
  operator: "Exists",
  effect: "NoExecute",
  ...(tolerationSeconds !== undefined ? { tolerationSeconds } : {}),
});

describe("replayBindings", () => {
  it("without member1, nginx's replica there moves to member2", () => {
    const report = replay([nginx()], parseFleetChanges({ withoutCluster: ["member1"] }));
    expect(report.summary).toEqual({ bindings: 1, moved: 1, unschedulable: 0 });
    const [change] = report.changes;
    expect(change).toMatchObject({
      kind: "ResourceBinding",
      namespace: "default",
      name: "nginx-deployment",
      resource: { kind: "Deployment", name: "nginx" },
      replicas: 2,
      workload: true,
      trigger: "TerminatingTarget",
      after: [{ name: "member2", replicas: 2 }],
    });
    expect(change!.shifts).toEqual([
      { cluster: "member1", before: 1, after: null, why: "cluster member1 is being removed" },
      { cluster: "member2", before: 1, after: 2 },
    ]);
  });

  it.each<[string, FleetChanges, boolean]>([
    ["a cordon keeps what runs", parseFleetChanges({ cordon: ["member1"] }), true],
    [
      "a NoExecute taint evicts nothing with Failover off",
      parseFleetChanges({ taint: ["member1=x:NoExecute"] }),
      false,
    ],
    ["a tolerated NoExecute taint", parseFleetChanges({ taint: ["member1=x:NoExecute"] }), true],
    [
      "a label: Divided workloads are not rebalanced",
      parseFleetChanges({ label: ["member3=env=prod"] }),
      true,
    ],
    ["a cluster it does not use", parseFleetChanges({ withoutCluster: ["member3"] }), true],
  ])("nothing moves: %s", (_, changes, failover) => {
    const binding = _ === "a tolerated NoExecute taint" ? nginx({}, [tolerate("x")]) : nginx();
    expect(replay([binding], changes, failover)).toEqual({
      changes: [],
      summary: { bindings: 1, moved: 0, unschedulable: 0 },
    });
  });

  it("an untolerated NoExecute taint evicts at once and the scheduler places the replica elsewhere", () => {
    const report = replay(
      [nginx({}, [tolerate("cluster.karmada.io/not-ready", 300)])],
      parseFleetChanges({ taint: ["member1=x=y:NoExecute"] }),
    );
    const [change] = report.changes;
    expect(change?.evictions).toEqual([{ cluster: "member1", why: "taint x=y:NoExecute is not tolerated" }]);
    expect(change?.trigger).toBe("ReplicasChanged");
    expect(change?.shifts).toEqual([
      { cluster: "member1", before: 1, after: null, why: "evicted: taint x=y:NoExecute is not tolerated" },
      { cluster: "member2", before: 1, after: 2 },
    ]);
  });

  it("a toleration with seconds evicts when they run out", () => {
    const report = replay(
      [nginx({}, [tolerate("x", 60)])],
      parseFleetChanges({ taint: ["member1=x:NoExecute"] }),
    );
    expect(report.changes[0]?.evictions).toEqual([
      { cluster: "member1", why: "a toleration runs out", afterSeconds: 60 },
    ]);
    expect(report.changes[0]?.shifts[0]?.why).toBe("evicted after 60s: a toleration runs out");
  });

  it("a workload with nowhere left to go becomes unschedulable, and its placement is cleared", () => {
    const only1 = scheduled("solo", {
      replicas: 3,
      placement: placement(staticWeights({ member1: 1 }), { clusterAffinity: { clusterNames: ["member1"] } }),
      clusters: [{ name: "member1", replicas: 3 }],
    });
    const report = replay([only1, nginx()], parseFleetChanges({ withoutCluster: ["member1"] }));
    expect(report.summary).toEqual({ bindings: 2, moved: 1, unschedulable: 1 });
    expect(report.changes[0]).toMatchObject({
      name: "solo-deployment",
      failure: {
        reason: "NoClusterFit",
        message:
          "0/3 clusters are available: 2 cluster(s) did not match the placement cluster affinity constraint.",
      },
      after: [],
      shifts: [{ cluster: "member1", before: 3, after: null, why: "cluster member1 is being removed" }],
    });
  });

  it("a binding that already failed to schedule and still does is not news", () => {
    const failing = nginx({ clusters: [] });
    failing.status = {
      schedulerObservedGeneration: 2,
      conditions: [
        { type: "Scheduled", status: "False", reason: "NoClusterFit", message: "", lastTransitionTime: "" },
      ],
    };
    failing.spec.placement = placement(staticWeights({ member1: 1 }), {
      clusterAffinity: { clusterNames: ["member1"] },
    });
    failing.metadata.annotations = { [ANNOTATION.appliedPlacement]: JSON.stringify(failing.spec.placement) };
    expect(replay([failing], parseFleetChanges({ withoutCluster: ["member1"] })).changes).toEqual([]);
  });

  it("Duplicated and non-workloads follow label changes both ways", () => {
    const byLabel: Placement = placement(duplicated, {
      clusterAffinity: { labelSelector: { matchLabels: { env: "prod" } } },
    });
    const config = scheduled("config", {
      resource: { apiVersion: "v1", kind: "ConfigMap", namespace: "default", name: "config" },
      placement: byLabel,
      clusters: [{ name: "member1" }, { name: "member2" }],
    });
    const report = replay([config], parseFleetChanges({ label: ["member3=env=prod", "member2=env-"] }));
    expect(report.changes[0]).toMatchObject({ workload: false, trigger: "NonWorkload" });
    expect(report.changes[0]?.shifts).toEqual([
      { cluster: "member2", before: 0, after: null },
      { cluster: "member3", before: null, after: 0 },
    ]);
  });

  it("dependencies follow the bindings that require them", () => {
    const dep: Binding = {
      apiVersion: "work.karmada.io/v1alpha2",
      kind: "ResourceBinding",
      metadata: { name: "conf-configmap", namespace: "default", uid: "u-dep", labels: {} },
      spec: {
        resource: { apiVersion: "v1", kind: "ConfigMap", namespace: "default", name: "conf" },
        requiredBy: [
          {
            namespace: "default",
            name: "nginx-deployment",
            clusters: [
              { name: "member1", replicas: 1 },
              { name: "member2", replicas: 1 },
            ],
          },
        ],
      },
    };
    const report = replay([nginx(), dep], parseFleetChanges({ withoutCluster: ["member1"] }));
    expect(report.summary).toEqual({ bindings: 2, moved: 2, unschedulable: 0 });
    expect(report.changes[1]).toMatchObject({
      name: "conf-configmap",
      follows: ["default/nginx-deployment"],
      shifts: [{ cluster: "member1", before: 0, after: null }],
    });
  });

  it("bindings of other schedulers and suspended ones are left alone", () => {
    const other = nginx({ schedulerName: "my-scheduler" });
    const suspended = nginx({ suspension: { scheduling: true } });
    expect(replay([other, suspended], parseFleetChanges({ withoutCluster: ["member1"] })).changes).toEqual(
      [],
    );
  });
});
