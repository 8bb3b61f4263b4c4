import { describe, expect, it } from "vitest";
import {
  aggregated,
  detail,
  duplicated,
  dynamicWeight,
  equalWeights,
  replicasOf,
  spec,
  staticWeights as staticWeightList,
} from "../../../test/support/scheduler-fixtures.ts";
import type {
  BindingSpec,
  Placement,
  ReplicaSchedulingStrategy,
  TargetCluster,
} from "../../karmada/types.ts";
import {
  assignReplicas,
  divide,
  mergeTargetClusters,
  staticWeights,
  UnschedulableError,
} from "./assignment.ts";
import type { ClusterDetail } from "./spread.ts";
import type { BindingSchedulingStatus } from "./types.ts";

const members = (...names: string[]): ClusterDetail[] => names.map((n) => detail(n));
const withCapacity = (capacity: Record<string, number>): ClusterDetail[] =>
  Object.entries(capacity).map(([name, allocatable]) => detail(name, { allocatable }));

function assign(
  clusters: ClusterDetail[],
  fields: Partial<BindingSpec>,
  status: BindingSchedulingStatus = {},
): TargetCluster[] {
  const s = spec(fields);
  return assignReplicas(clusters, s, s.placement ?? {}, status).clusters;
}

const workload = { replicaRequirements: { resourceRequest: {} } };

describe("Duplicated", () => {
  it("every cluster gets all replicas, in the selection order", () => {
    expect(
      assign(members("member2", "member1"), { replicas: 2, placement: { replicaScheduling: duplicated } }),
    ).toEqual([
      { name: "member2", replicas: 2 },
      { name: "member1", replicas: 2 },
    ]);
  });
  it("no replicaScheduling means Duplicated", () => {
    expect(assign(members("m1"), { replicas: 3 })).toEqual([{ name: "m1", replicas: 3 }]);
  });
  it("a workload at 0 replicas drops every cluster", () => {
    expect(assign(members("m1", "m2"), { replicas: 0, ...workload })).toEqual([]);
  });
});

describe("non-workloads", () => {
  it("every selected cluster, without replicas", () => {
    expect(
      assign(members("member1", "member2"), { replicas: 0, placement: { replicaScheduling: dynamicWeight } }),
    ).toEqual([{ name: "member1" }, { name: "member2" }]);
  });
  it("no clusters: error", () => {
    expect(() => assign([], { replicas: 1 })).toThrow("no clusters available to schedule");
  });
});

describe("StaticWeight", () => {
  const cases: Array<[string, string[], ReplicaSchedulingStrategy, number, Record<string, number>]> = [
    [
      "12 by 3:2:1",
      ["member1", "member2", "member3"],
      staticWeightList({ member1: 3, member2: 2, member3: 1 }),
      12,
      { member1: 6, member2: 4, member3: 2 },
    ],
    [
      "12, default (equal) weights",
      ["member1", "member2", "member3"],
      equalWeights,
      12,
      { member1: 4, member2: 4, member3: 4 },
    ],
    [
      "13 by 3:2:1",
      ["member1", "member2", "member3"],
      staticWeightList({ member1: 3, member2: 2, member3: 1 }),
      13,
      { member1: 7, member2: 4, member3: 2 },
    ],
    [
      "14 by 3:2:1",
      ["member1", "member2", "member3"],
      staticWeightList({ member1: 3, member2: 2, member3: 1 }),
      14,
      { member1: 7, member2: 5, member3: 2 },
    ],
    [
      "a cluster without weight is dropped",
      ["member1", "member2"],
      staticWeightList({ member1: 1 }),
      2,
      { member1: 2 },
    ],
    [
      "3 by 1:1",
      ["member1", "member2"],
      staticWeightList({ member1: 1, member2: 1 }),
      3,
      { member1: 2, member2: 1 },
    ],
    [
      "3 by 1:1:1",
      ["member1", "member2", "member3"],
      staticWeightList({ member1: 1, member2: 1, member3: 1 }),
      3,
      { member1: 1, member2: 1, member3: 1 },
    ],
    [
      "5 by 1:1:1",
      ["member1", "member2", "member3"],
      staticWeightList({ member1: 1, member2: 1, member3: 1 }),
      5,
      { member1: 2, member2: 2, member3: 1 },
    ],
    [
      "7 by 2:1:1:1",
      ["member1", "member2", "member3", "member4"],
      staticWeightList({ member1: 2, member2: 1, member3: 1, member4: 1 }),
      7,
      { member1: 3, member2: 2, member3: 1, member4: 1 },
    ],
    [
      "8 by 2:1:1:1",
      ["member1", "member2", "member3", "member4"],
      staticWeightList({ member1: 2, member2: 1, member3: 1, member4: 1 }),
      8,
      { member1: 3, member2: 2, member3: 2, member4: 1 },
    ],
    [
      "9 by 2:1:1:1",
      ["member1", "member2", "member3", "member4"],
      staticWeightList({ member1: 2, member2: 1, member3: 1, member4: 1 }),
      9,
      { member1: 3, member2: 2, member3: 2, member4: 2 },
    ],
    [
      "6 by 1:1:1:1",
      ["member1", "member2", "member3", "member4"],
      staticWeightList({ member1: 1, member2: 1, member3: 1, member4: 1 }),
      6,
      { member1: 2, member2: 2, member3: 1, member4: 1 },
    ],
    [
      "6 by 2:1:1:1",
      ["member1", "member2", "member3", "member4"],
      staticWeightList({ member1: 2, member2: 1, member3: 1, member4: 1 }),
      6,
      { member1: 3, member2: 1, member3: 1, member4: 1 },
    ],
    [
      "5 by 1:1:1:1",
      ["member1", "member2", "member3", "member4"],
      staticWeightList({ member1: 1, member2: 1, member3: 1, member4: 1 }),
      5,
      { member1: 2, member2: 1, member3: 1, member4: 1 },
    ],
    [
      "6 by 1:1:1",
      ["member1", "member2", "member3"],
      staticWeightList({ member1: 1, member2: 1, member3: 1 }),
      6,
      { member1: 2, member2: 2, member3: 2 },
    ],
  ];
  it.each(cases)("%s", (_, names, rs, replicas, want) => {
    const result = assign(members(...names), { replicas, placement: { replicaScheduling: rs } });
    expect(replicasOf(result)).toEqual(want);
    expect(result.map((c) => c.name)).toEqual(Object.keys(want).sort());
  });

  it("a cluster matched by several rules takes the highest weight", () => {
    const rs: ReplicaSchedulingStrategy = {
      ...equalWeights,
      weightPreference: {
        staticWeightList: [
          { targetCluster: { clusterNames: ["member1"] }, weight: 1 },
          { targetCluster: { clusterNames: ["member2"] }, weight: 1 },
          { targetCluster: { clusterNames: ["member1"] }, weight: 2 },
        ],
      },
    };
    expect(
      replicasOf(
        assign(members("member1", "member2"), { replicas: 3, placement: { replicaScheduling: rs } }),
      ),
    ).toEqual({
      member1: 2,
      member2: 1,
    });
  });

  it("weights match clusters by affinity (labels, regions)", () => {
    const placement: Placement = {
      replicaScheduling: {
        ...equalWeights,
        weightPreference: {
          staticWeightList: [
            {
              targetCluster: {
                fieldSelector: { matchExpressions: [{ key: "region", operator: "In", values: ["eu"] }] },
              },
              weight: 3,
            },
            { targetCluster: { clusterNames: ["us1"] }, weight: 1 },
          ],
        },
      },
    };
    const clusters = [
      detail("eu1", { region: "eu" }),
      detail("eu2", { region: "eu" }),
      detail("us1", { region: "us" }),
      detail("ap1", { region: "ap" }),
    ];
    expect(staticWeights(clusters, placement)).toEqual([
      { name: "eu1", weight: 3 },
      { name: "eu2", weight: 3 },
      { name: "us1", weight: 1 },
    ]);
    expect(replicasOf(assign(clusters, { replicas: 7, placement }))).toEqual({ eu1: 3, eu2: 3, us1: 1 });
  });

  it("no rule matches any cluster: all weigh 1", () => {
    expect(staticWeights(members("a", "b"), { replicaScheduling: staticWeightList({ z: 5 }) })).toEqual([
      { name: "a", weight: 1 },
      { name: "b", weight: 1 },
    ]);
  });

  it("0 replicas: every cluster at 0 is dropped", () => {
    expect(
      assign(members("member1", "member2"), {
        replicas: 0,
        ...workload,
        placement: { replicaScheduling: equalWeights },
      }),
    ).toEqual([]);
  });

  it("ignores the previous result", () => {
    const result = assign(members("m1", "m2"), {
      replicas: 4,
      clusters: [{ name: "m1", replicas: 4 }],
      placement: { replicaScheduling: equalWeights },
    });
    expect(replicasOf(result)).toEqual({ m1: 2, m2: 2 });
  });
});

describe("dynamic division (dynamicDivideReplicas)", () => {
  const tc = (replicas: Record<string, number>): TargetCluster[] =>
    Object.entries(replicas).map(([name, r]) => ({ name, replicas: r }));
  const cases: Array<
    [string, TargetCluster[], number, "DynamicWeight" | "Aggregated", Record<string, number>]
  > = [
    [
      "12 by 18:12:6",
      tc({ member1: 18, member2: 12, member3: 6 }),
      12,
      "DynamicWeight",
      { member1: 6, member2: 4, member3: 2 },
    ],
    [
      "12 by 20:12:6",
      tc({ member1: 20, member2: 12, member3: 6 }),
      12,
      "DynamicWeight",
      { member1: 6, member2: 4, member3: 2 },
    ],
    [
      "12 by 6:12:6",
      tc({ member1: 6, member2: 12, member3: 6 }),
      12,
      "DynamicWeight",
      { member1: 3, member2: 6, member3: 3 },
    ],
    [
      "12 aggregated over 12:6:6",
      tc({ member2: 12, member1: 6, member3: 6 }),
      12,
      "Aggregated",
      { member2: 12 },
    ],
    [
      "12 aggregated over 6:6:6",
      tc({ member1: 6, member2: 6, member3: 6 }),
      12,
      "Aggregated",
      { member1: 6, member2: 6 },
    ],
  ];
  it.each(cases)("%s", (_, available, target, strategy, want) => {
    expect(
      replicasOf(divide(available, target, [], strategy, undefined).filter((c) => (c.replicas ?? 0) > 0)),
    ).toEqual(want);
  });

  it("not enough room: Unschedulable with the total", () => {
    expect(() => divide(tc({ a: 1, b: 2 }), 4, [], "DynamicWeight", undefined)).toThrow(
      new UnschedulableError("Clusters available replicas 3 are not enough to schedule."),
    );
  });

  it("merge adds onto the previous result and keeps clusters the new one does not name", () => {
    expect(mergeTargetClusters(tc({ a: 1, b: 2 }), tc({ b: 3, c: 1 }))).toEqual(tc({ b: 5, c: 1, a: 1 }));
    expect(mergeTargetClusters([], tc({ b: 3 }))).toEqual(tc({ b: 3 }));
    expect(mergeTargetClusters(tc({ a: 1 }), [])).toEqual(tc({ a: 1 }));
  });
});

describe("dynamic strategies against the previous result (Steady)", () => {
  const cases: Array<
    [
      string,
      Record<string, number>,
      Record<string, number> | undefined,
      number,
      ReplicaSchedulingStrategy,
      Record<string, number> | string,
    ]
  > = [
    [
      "12 -> 6, dynamic weight 1:1:1 (scale down in proportion)",
      { member1: 1, member2: 1, member3: 1 },
      { member1: 2, member2: 4, member3: 6 },
      6,
      dynamicWeight,
      { member1: 1, member2: 2, member3: 3 },
    ],
    [
      "12 -> 24, dynamic weight 10:10:10",
      { member1: 10, member2: 10, member3: 10 },
      { member1: 2, member2: 4, member3: 6 },
      24,
      dynamicWeight,
      { member1: 6, member2: 8, member3: 10 },
    ],
    [
      "12 -> 24, dynamic weight 1:1:1: no room",
      { member1: 1, member2: 1, member3: 1 },
      { member1: 2, member2: 4, member3: 6 },
      24,
      dynamicWeight,
      "failed to scale up: Clusters available replicas 3 are not enough to schedule.",
    ],
    [
      "12 -> 6, aggregated 1:1:1",
      { member1: 1, member2: 1, member3: 1 },
      { member1: 4, member2: 8 },
      6,
      aggregated,
      { member2: 6 },
    ],
    [
      "12 -> 8, aggregated 100:100",
      { member1: 100, member2: 100 },
      { member1: 4, member2: 8 },
      8,
      aggregated,
      { member2: 8 },
    ],
    [
      "12 -> 24, aggregated 4:6:8",
      { member1: 4, member2: 6, member3: 8 },
      { member1: 4, member2: 8 },
      24,
      aggregated,
      { member1: 7, member2: 12, member3: 5 },
    ],
    [
      "12 -> 24, aggregated 6:6:20",
      { member1: 6, member2: 6, member3: 20 },
      { member1: 4, member2: 8 },
      24,
      aggregated,
      { member1: 10, member2: 14 },
    ],
    [
      "12 -> 24, aggregated 1:1:1: no room",
      { member1: 1, member2: 1, member3: 1 },
      { member1: 4, member2: 8 },
      24,
      aggregated,
      "failed to scale up: Clusters available replicas 3 are not enough to schedule.",
    ],
    [
      "12 -> 24, aggregated 4:8:12, member2 gone, member4 new",
      { member1: 4, member3: 8, member4: 12 },
      { member1: 4, member2: 8 },
      24,
      aggregated,
      { member1: 7, member3: 7, member4: 10 },
    ],
    [
      "first schedule, dynamic weight 6:8:10",
      { member1: 6, member2: 8, member3: 10 },
      undefined,
      12,
      dynamicWeight,
      { member1: 3, member2: 4, member3: 5 },
    ],
    [
      "first schedule, dynamic weight 8:8:10",
      { member1: 8, member2: 8, member3: 10 },
      undefined,
      12,
      dynamicWeight,
      { member1: 4, member2: 4, member3: 4 },
    ],
    [
      "first schedule, dynamic weight 3:3:3: no room",
      { member1: 3, member2: 3, member3: 3 },
      undefined,
      12,
      dynamicWeight,
      "failed to scale up: Clusters available replicas 9 are not enough to schedule.",
    ],
    [
      "first schedule, aggregated 6:8:10",
      { member1: 6, member2: 8, member3: 10 },
      undefined,
      12,
      aggregated,
      { member2: 5, member3: 7 },
    ],
    [
      "first schedule, aggregated 12:8:10",
      { member1: 12, member2: 8, member3: 10 },
      undefined,
      12,
      aggregated,
      { member1: 12 },
    ],
    [
      "first schedule, aggregated 3:3:3: no room",
      { member1: 3, member2: 3, member3: 3 },
      undefined,
      12,
      aggregated,
      "failed to scale up: Clusters available replicas 9 are not enough to schedule.",
    ],
    [
      "first schedule, aggregated 10:5, 3 replicas (API docs)",
      { A: 10, B: 5 },
      undefined,
      3,
      aggregated,
      { A: 3 },
    ],
    [
      "first schedule, dynamic weight 6:12:18, 12 replicas (API docs)",
      { A: 6, B: 12, C: 18 },
      undefined,
      12,
      dynamicWeight,
      { A: 2, B: 4, C: 6 },
    ],
    [
      "scale up 12, member3 gone, member2 new",
      { member1: 3, member2: 3 },
      { member1: 6, member3: 6 },
      12,
      dynamicWeight,
      { member1: 9, member2: 3 },
    ],
    [
      "unchanged: the previous result stays",
      { a: 100, b: 100 },
      { a: 1, b: 5 },
      6,
      dynamicWeight,
      { a: 1, b: 5 },
    ],
  ];
  it.each(cases)("%s", (_, capacity, previous, replicas, rs, want) => {
    const fields: Partial<BindingSpec> = { ...workload, replicas, placement: { replicaScheduling: rs } };
    if (previous) fields.clusters = Object.entries(previous).map(([name, r]) => ({ name, replicas: r }));
    if (typeof want === "string") {
      expect(() => assign(withCapacity(capacity), fields)).toThrow(new UnschedulableError(want));
    } else {
      expect(replicasOf(assign(withCapacity(capacity), fields))).toEqual(want);
    }
  });

  it("explains the mode and what was there before", () => {
    const s = spec({
      ...workload,
      replicas: 6,
      clusters: [{ name: "a", replicas: 4 }],
      placement: { replicaScheduling: dynamicWeight },
    });
    expect(assignReplicas(withCapacity({ a: 10, b: 10 }), s, s.placement!, {}).explanation).toEqual({
      strategy: "DynamicWeight",
      replicas: 6,
      mode: "scale up",
      previouslyAssigned: 4,
    });
  });
});

describe("Fresh mode (reschedule requested)", () => {
  const status = { lastScheduledTime: "2026-01-01T00:00:00Z" };
  const fields = (rs: ReplicaSchedulingStrategy): Partial<BindingSpec> => ({
    ...workload,
    replicas: 6,
    rescheduleTriggeredAt: "2026-01-02T00:00:00Z",
    clusters: [{ name: "a", replicas: 6 }],
    placement: { replicaScheduling: rs },
  });
  it("divides everything again, counting replicas already running as room", () => {
    // a: 0 free + 6 running; b: 6 free; weights 6:6.
    expect(replicasOf(assign(withCapacity({ a: 0, b: 6 }), fields(dynamicWeight), status))).toEqual({
      a: 3,
      b: 3,
    });
  });
  it("without the trigger, the same binding is unchanged", () => {
    expect(replicasOf(assign(withCapacity({ a: 0, b: 6 }), fields(dynamicWeight), {}))).toEqual({ a: 6 });
  });
  it("a trigger before the last schedule does not count", () => {
    const old = { lastScheduledTime: "2026-01-03T00:00:00Z" };
    expect(replicasOf(assign(withCapacity({ a: 0, b: 6 }), fields(dynamicWeight), old))).toEqual({ a: 6 });
  });
  it("aggregated packs again from scratch", () => {
    expect(replicasOf(assign(withCapacity({ a: 0, b: 10 }), fields(aggregated), status))).toEqual({ b: 6 });
  });
});

describe("strategy selection", () => {
  it("an unknown combination is an error", () => {
    const rs = { replicaSchedulingType: "UnsupportedType" } as unknown as ReplicaSchedulingStrategy;
    expect(() => assign(members("member1"), { replicas: 3, placement: { replicaScheduling: rs } })).toThrow(
      "unsupported replica scheduling strategy, replicaSchedulingType: UnsupportedType, replicaDivisionPreference: , please try another scheduling strategy",
    );
  });
  it("Divided without a preference is an error too (the webhook sets Weighted)", () => {
    expect(() =>
      assign(members("m"), {
        replicas: 3,
        placement: { replicaScheduling: { replicaSchedulingType: "Divided" } },
      }),
    ).toThrow("unsupported replica scheduling strategy");
  });
  it("a single Weighted cluster takes everything", () => {
    expect(
      assign(members("member1"), { replicas: 3, placement: { replicaScheduling: equalWeights } }),
    ).toEqual([{ name: "member1", replicas: 3 }]);
  });
});

describe("overflow tiers", () => {
  const placement: Placement = {
    replicaScheduling: dynamicWeight,
    clusterAffinities: [
      {
        affinityName: "affinity1",
        clusterNames: ["member1"],
        overflowAffinities: [{ affinityName: "overflow", clusterNames: ["member2"] }],
      },
    ],
  };
  const status = { schedulerObservingAffinityName: "affinity1" };
  const tiers = (m1: Partial<ClusterDetail>, m2: Partial<ClusterDetail>): ClusterDetail[] => [
    detail("member1", { overflowOrder: 0, ...m1 }),
    detail("member2", { overflowOrder: 1, ...m2 }),
  ];
  it("the primary group has room: no overflow", () => {
    expect(
      assign(
        tiers({ allocatable: 10 }, { allocatable: 10 }),
        { ...workload, replicas: 5, placement },
        status,
      ),
    ).toEqual([{ name: "member1", replicas: 5 }]);
  });
  it("the primary group is full: the rest overflows", () => {
    expect(
      assign(tiers({ allocatable: 2 }, { allocatable: 10 }), { ...workload, replicas: 5, placement }, status),
    ).toEqual([
      { name: "member1", replicas: 2 },
      { name: "member2", replicas: 3 },
    ]);
  });
  it("every tier full: Unschedulable", () => {
    expect(() =>
      assign(tiers({ allocatable: 2 }, { allocatable: 2 }), { ...workload, replicas: 10, placement }, status),
    ).toThrow(new UnschedulableError("Clusters available replicas are not enough to schedule."));
  });
  it("replicas already running count as room of their tier", () => {
    const s = spec({ ...workload, replicas: 8, clusters: [{ name: "member1", replicas: 3 }], placement });
    const result = assignReplicas(
      tiers({ allocatable: 2, available: 5 }, { allocatable: 10 }),
      s,
      placement,
      status,
    );
    expect(result.clusters).toEqual([
      { name: "member1", replicas: 5 },
      { name: "member2", replicas: 3 },
    ]);
    expect(result.explanation.tiers).toEqual([
      { overflowOrder: 0, replicas: 5, mode: "scale up" },
      { overflowOrder: 1, replicas: 3, mode: "scale up" },
    ]);
  });
  it("without the observed term, no tiers", () => {
    expect(
      assign(tiers({ allocatable: 2 }, { allocatable: 10 }), { ...workload, replicas: 5, placement }, {}),
    ).toEqual([
      { name: "member1", replicas: 1 },
      { name: "member2", replicas: 4 },
    ]);
  });
});
