import { describe, expect, it } from "vitest";
import { cluster, spec } from "../../../test/support/scheduler-fixtures.ts";
import type { BindingSpec, ClusterObject, Taint, Toleration } from "../../karmada/types.ts";
import {
  apiEnablement,
  clusterAffinityFilter,
  clusterAffinityScore,
  clusterEviction,
  clusterLocality,
  type FilterPlugin,
  pluginContext,
  spreadConstraintFilter,
  taintToleration,
} from "./plugins.ts";
import type { BindingSchedulingStatus } from "./types.ts";

function run(
  plugin: FilterPlugin,
  c: ClusterObject,
  s: BindingSpec,
  status: BindingSchedulingStatus = {},
): string | undefined {
  return plugin.filter(pluginContext(s, s.placement ?? {}, status), c);
}

describe("APIEnablement", () => {
  const deployments = { groupVersion: "apps/v1", resources: [{ name: "deployments", kind: "Deployment" }] };
  const complete = [{ type: "CompleteAPIEnablements", status: "True" }];
  const cases: Array<[string, ClusterObject, BindingSpec, string | undefined]> = [
    ["API listed", cluster("m1", { status: { apiEnablements: [deployments] } }), spec(), undefined],
    [
      "API missing from a complete list",
      cluster("m1", { status: { apiEnablements: [], conditions: complete } }),
      spec(),
      "cluster(s) did not have the API resource",
    ],
    [
      "API missing from a partial list (unknown also fails)",
      cluster("m1", { status: {} }),
      spec(),
      "cluster(s) did not have the API resource",
    ],
    [
      "same group-version, other kind",
      cluster("m1", { status: { apiEnablements: [deployments] } }),
      spec({ resource: { apiVersion: "apps/v1", kind: "StatefulSet", name: "s" } }),
      "cluster(s) did not have the API resource",
    ],
    [
      "core group",
      cluster("m1", {
        status: {
          apiEnablements: [{ groupVersion: "v1", resources: [{ name: "configmaps", kind: "ConfigMap" }] }],
        },
      }),
      spec({ resource: { apiVersion: "v1", kind: "ConfigMap", name: "c" } }),
      undefined,
    ],
    [
      "already scheduled there: kept",
      cluster("m1", { status: {} }),
      spec({ clusters: [{ name: "m1" }] }),
      undefined,
    ],
  ];
  it.each(cases)("%s", (_, c, s, want) => {
    expect(run(apiEnablement, c, s)).toBe(want);
  });
});

describe("TaintToleration", () => {
  const notReady: Taint = { key: "cluster.karmada.io/not-ready", effect: "NoSchedule" };
  const cases: Array<[string, Taint[], Toleration[], BindingSpec["clusters"], string | undefined]> = [
    ["no taints", [], [], undefined, undefined],
    [
      "untolerated NoSchedule",
      [notReady],
      [],
      undefined,
      "cluster(s) had untolerated taint {cluster.karmada.io/not-ready:NoSchedule}",
    ],
    [
      "untolerated NoExecute with value",
      [{ key: "k", value: "v", effect: "NoExecute" }],
      [],
      undefined,
      "cluster(s) had untolerated taint {k=v:NoExecute}",
    ],
    ["PreferNoSchedule is ignored", [{ key: "k", effect: "PreferNoSchedule" }], [], undefined, undefined],
    [
      "tolerated",
      [notReady],
      [{ key: "cluster.karmada.io/not-ready", operator: "Exists" }],
      undefined,
      undefined,
    ],
    ["already scheduled there: kept", [notReady], [], [{ name: "m1", replicas: 1 }], undefined],
  ];
  it.each(cases)("%s", (_, taints, tolerations, clusters, want) => {
    const s = spec({ placement: { clusterTolerations: tolerations } });
    if (clusters) s.clusters = clusters;
    expect(run(taintToleration, cluster("m1", { taints }), s)).toBe(want);
  });
});

describe("ClusterAffinity", () => {
  const miss = "cluster(s) did not match the placement cluster affinity constraint";
  const member1 = cluster("member1", {
    labels: { env: "prod" },
    provider: "aws",
    region: "us",
    zones: ["us-1"],
  });
  const terms = [
    {
      affinityName: "primary",
      clusterNames: ["member2"],
      overflowAffinities: [{ affinityName: "spill", clusterNames: ["member1"] }],
    },
    { affinityName: "backup", clusterNames: ["member1"] },
  ];
  const cases: Array<[string, BindingSpec, BindingSchedulingStatus, string | undefined]> = [
    ["no affinity: every cluster", spec(), {}, undefined],
    ["by name", spec({ placement: { clusterAffinity: { clusterNames: ["member1"] } } }), {}, undefined],
    ["other name", spec({ placement: { clusterAffinity: { clusterNames: ["member2"] } } }), {}, miss],
    ["excluded", spec({ placement: { clusterAffinity: { exclude: ["member1"] } } }), {}, miss],
    [
      "label selector",
      spec({ placement: { clusterAffinity: { labelSelector: { matchLabels: { env: "prod" } } } } }),
      {},
      undefined,
    ],
    [
      "field selector on region",
      spec({
        placement: {
          clusterAffinity: {
            fieldSelector: { matchExpressions: [{ key: "region", operator: "In", values: ["eu"] }] },
          },
        },
      }),
      {},
      miss,
    ],
    [
      "a selector that cannot be parsed matches nothing",
      spec({
        placement: {
          clusterAffinity: {
            labelSelector: { matchExpressions: [{ key: "env", operator: "Bogus" as "In" }] },
          },
        },
      }),
      {},
      miss,
    ],
    [
      "observed term, not matching",
      spec({ placement: { clusterAffinities: terms } }),
      { schedulerObservingAffinityName: "backup" },
      undefined,
    ],
    [
      "observed term's overflow group counts for workloads",
      spec({ replicas: 2, placement: { clusterAffinities: terms } }),
      { schedulerObservingAffinityName: "primary" },
      undefined,
    ],
    [
      "overflow groups do not count for non-workloads",
      spec({ placement: { clusterAffinities: terms } }),
      { schedulerObservingAffinityName: "primary" },
      miss,
    ],
    ["no observed term: no restriction", spec({ placement: { clusterAffinities: terms } }), {}, undefined],
  ];
  it.each(cases)("%s", (_, s, status, want) => {
    expect(run(clusterAffinityFilter, member1, s, status)).toBe(want);
  });
});

describe("SpreadConstraint", () => {
  const cases: Array<[string, ClusterObject, string | undefined]> = [
    ["has everything", cluster("m", { provider: "p", region: "r", zones: ["z"] }), undefined],
    ["no provider", cluster("m", { region: "r", zones: ["z"] }), "cluster(s) did not have provider property"],
    ["no region", cluster("m", { provider: "p", zones: ["z"] }), "cluster(s) did not have region property"],
    ["no zones", cluster("m", { provider: "p", region: "r" }), "cluster(s) did not have zones property"],
    // Only spec.zones counts, as upstream (admission migrates the deprecated zone into zones).
    [
      "deprecated zone alone",
      cluster("m", { provider: "p", region: "r", zone: "z" }),
      "cluster(s) did not have zones property",
    ],
  ];
  const s = spec({
    placement: {
      spreadConstraints: [
        { spreadByField: "provider", minGroups: 1 },
        { spreadByField: "region", minGroups: 1 },
        { spreadByField: "zone", minGroups: 1 },
        { spreadByField: "cluster", minGroups: 1 },
      ],
    },
  });
  it.each(cases)("%s", (_, c, want) => {
    expect(run(spreadConstraintFilter, c, s)).toBe(want);
  });
  it("cluster and label spreading need nothing", () => {
    const byLabel = spec({
      placement: { spreadConstraints: [{ spreadByField: "cluster" }, { spreadByLabel: "x" }] },
    });
    expect(run(spreadConstraintFilter, cluster("m"), byLabel)).toBeUndefined();
  });
});

describe("ClusterEviction", () => {
  it("rejects the cluster being evicted from", () => {
    const s = spec({
      gracefulEvictionTasks: [{ fromCluster: "m1", reason: "TaintUntolerated", producer: "TaintManager" }],
    });
    expect(run(clusterEviction, cluster("m1"), s)).toBe("cluster(s) is in the process of eviction");
    expect(run(clusterEviction, cluster("m2"), s)).toBeUndefined();
  });
});

describe("score plugins", () => {
  it("ClusterLocality: 100 where the binding runs, else 0", () => {
    const s = spec({ clusters: [{ name: "m1", replicas: 1 }] });
    const ctx = pluginContext(s, {}, {});
    expect(clusterLocality.score(ctx, cluster("m1"))).toBe(100);
    expect(clusterLocality.score(ctx, cluster("m2"))).toBe(0);
    expect(clusterLocality.score(pluginContext(spec(), {}, {}), cluster("m1"))).toBe(0);
  });
  it("ClusterAffinity scores every cluster 0", () => {
    expect(clusterAffinityScore.score()).toBe(0);
  });
});
