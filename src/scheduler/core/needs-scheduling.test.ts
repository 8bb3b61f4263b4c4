import { describe, expect, it } from "vitest";
import { cluster, duplicated, dynamicWeight, spec } from "../../../test/support/scheduler-fixtures.ts";
import { ANNOTATION } from "../../karmada/names.ts";
import type { BindingSpec, Placement } from "../../karmada/types.ts";
import { EXPLANATION_ANNOTATION } from "./explanation.ts";
import {
  needsScheduling,
  placementChanged,
  replicasChanged,
  type SchedulingBinding,
} from "./needs-scheduling.ts";
import type { BindingSchedulingStatus } from "./types.ts";

const divided: Placement = { replicaScheduling: dynamicWeight };

/** A binding last scheduled with its current placement (`applied` null: never scheduled). */
function binding(
  fields: Partial<BindingSpec>,
  status: BindingSchedulingStatus = {},
  applied: Placement | string | null = fields.placement ?? {},
): SchedulingBinding {
  const annotations: Record<string, string> = {};
  if (applied !== null) {
    annotations[ANNOTATION.appliedPlacement] =
      typeof applied === "string" ? applied : JSON.stringify(applied);
  }
  return { metadata: { annotations }, spec: spec(fields), status };
}

/** The binding with a recorded decision that left out `cluster` for not serving the API. */
function withExplanation(b: SchedulingBinding, cluster: string): SchedulingBinding {
  const explanation = {
    attempts: [
      {
        clusters: [
          { name: "x", selected: true },
          { name: cluster, filteredBy: "APIEnablement", reason: "cluster(s) did not have the API resource" },
        ],
      },
    ],
  };
  b.metadata.annotations = {
    ...b.metadata.annotations,
    [EXPLANATION_ANNOTATION]: JSON.stringify(explanation),
  };
  return b;
}

const scheduledDivided = {
  replicas: 3,
  ...{ replicaRequirements: { resourceRequest: { cpu: "1" } } },
  placement: divided,
};

describe("needsScheduling", () => {
  const cases: Array<[string, SchedulingBinding, ReturnType<typeof needsScheduling>]> = [
    ["never scheduled (no applied placement)", binding(scheduledDivided, {}, null), "PlacementChanged"],
    [
      "placement changed",
      binding(
        { ...scheduledDivided, clusters: [{ name: "a", replicas: 3 }] },
        {},
        { replicaScheduling: duplicated },
      ),
      "PlacementChanged",
    ],
    [
      "Divided replicas changed",
      binding({ ...scheduledDivided, clusters: [{ name: "a", replicas: 2 }] }),
      "ReplicasChanged",
    ],
    [
      "Duplicated replicas changed",
      binding({
        replicas: 3,
        placement: { replicaScheduling: duplicated },
        clusters: [{ name: "a", replicas: 2 }],
      }),
      "ReplicasChanged",
    ],
    [
      "reschedule triggered after the last schedule",
      binding(
        {
          ...scheduledDivided,
          clusters: [{ name: "a", replicas: 3 }],
          rescheduleTriggeredAt: "2026-02-01T00:00:00Z",
        },
        { lastScheduledTime: "2026-01-01T00:00:00Z" },
      ),
      "RescheduleTriggered",
    ],
    [
      "reschedule triggered before the last schedule",
      binding(
        {
          ...scheduledDivided,
          clusters: [{ name: "a", replicas: 3 }],
          rescheduleTriggeredAt: "2026-01-01T00:00:00Z",
        },
        { lastScheduledTime: "2026-02-01T00:00:00Z" },
      ),
      undefined,
    ],
    [
      "reschedule triggered but never scheduled successfully",
      binding({
        ...scheduledDivided,
        clusters: [{ name: "a", replicas: 3 }],
        rescheduleTriggeredAt: "2026-01-01T00:00:00Z",
      }),
      undefined,
    ],
    ["non-workloads always", binding({ placement: divided }), "NonWorkload"],
    [
      "Duplicated always",
      binding({ replicas: 2, placement: {}, clusters: [{ name: "a", replicas: 2 }] }),
      "Duplicated",
    ],
    [
      "Divided and settled: no",
      binding({ ...scheduledDivided, clusters: [{ name: "a", replicas: 3 }] }),
      undefined,
    ],
    [
      "a target cluster is being deleted",
      binding({ ...scheduledDivided, clusters: [{ name: "gone", replicas: 3 }] }),
      "TerminatingTarget",
    ],
    [
      "a cluster left out for its API serves it now",
      withExplanation(binding({ ...scheduledDivided, clusters: [{ name: "x", replicas: 3 }] }), "a"),
      "APIEnabled",
    ],
    [
      "a cluster left out for its API that is gone: nothing to do",
      withExplanation(binding({ ...scheduledDivided, clusters: [{ name: "x", replicas: 3 }] }), "elsewhere"),
      undefined,
    ],
    [
      "deleting binding: never",
      { ...binding(scheduledDivided, {}, null), metadata: { deletionTimestamp: "2026-01-01T00:00:00Z" } },
      undefined,
    ],
    ["no placement: never", { metadata: {}, spec: { resource: spec().resource } }, undefined],
  ];
  it.each(cases)("%s", (_, b, want) => {
    expect(needsScheduling(b, [cluster("a"), cluster("gone", { deleting: true })])).toBe(want);
  });
});

describe("replicasChanged", () => {
  it("only with an explicit replicaScheduling", () => {
    expect(replicasChanged(spec({ replicas: 3, clusters: [{ name: "a", replicas: 1 }] }), {})).toBe(false);
    expect(replicasChanged(spec({ replicas: 3, clusters: [] }), divided)).toBe(true);
    expect(replicasChanged(spec({ replicas: 0 }), divided)).toBe(false);
  });
});

describe("placementChanged", () => {
  const affinities: Placement = {
    clusterAffinities: [
      { affinityName: "a", clusterNames: ["m1"] },
      { affinityName: "b", clusterNames: ["m2"] },
    ],
  };
  const cases: Array<[string, Placement, string, string, boolean]> = [
    ["no annotation", {}, "", "", true],
    ["malformed annotation counts as unchanged", { replicaScheduling: duplicated }, "{", "", false],
    ["identical", divided, JSON.stringify(divided), "", false],
    [
      "zero values and empty lists equal absent ones (Go omitempty)",
      {
        clusterAffinity: { clusterNames: [] },
        spreadConstraints: [{ spreadByField: "cluster", maxGroups: 0, minGroups: 1 }],
      },
      JSON.stringify({
        clusterAffinity: {},
        spreadConstraints: [{ spreadByField: "cluster", minGroups: 1 }],
      }),
      "",
      false,
    ],
    ["an empty object is not an absent one", { clusterAffinity: {} }, "{}", "", true],
    [
      "clusterAffinity",
      { clusterAffinity: { clusterNames: ["m1"] } },
      JSON.stringify({ clusterAffinity: { clusterNames: ["m2"] } }),
      "",
      true,
    ],
    ["clusterTolerations", { clusterTolerations: [{ key: "k", operator: "Exists" }] }, "{}", "", true],
    [
      "spreadConstraints",
      { spreadConstraints: [{ spreadByField: "cluster", maxGroups: 2 }] },
      "{}",
      "",
      true,
    ],
    ["replicaScheduling", divided, JSON.stringify({ replicaScheduling: duplicated }), "", true],
    [
      "observed term unchanged, another term changed: unchanged",
      affinities,
      JSON.stringify({
        clusterAffinities: [affinities.clusterAffinities![0], { affinityName: "b", clusterNames: ["m9"] }],
      }),
      "a",
      false,
    ],
    [
      "observed term changed",
      affinities,
      JSON.stringify({
        clusterAffinities: [{ affinityName: "a", clusterNames: ["m9"] }, affinities.clusterAffinities![1]],
      }),
      "a",
      true,
    ],
    [
      "observed term gone from the applied placement",
      affinities,
      JSON.stringify({ clusterAffinities: [{ affinityName: "b", clusterNames: ["m9"] }] }),
      "b",
      true,
    ],
    [
      "no observed term recorded",
      affinities,
      JSON.stringify({ clusterAffinities: [affinities.clusterAffinities![0]] }),
      "",
      true,
    ],
  ];
  it.each(cases)("%s", (_, placement, applied, observed, want) => {
    expect(placementChanged(placement, applied, observed)).toBe(want);
  });
});
