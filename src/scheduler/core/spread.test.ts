import { describe, expect, it } from "vitest";
import {
  aggregated,
  detail,
  duplicated,
  dynamicWeight,
  equalWeights,
  staticWeights,
} from "../../../test/support/scheduler-fixtures.ts";
import type { Placement, ReplicaSchedulingStrategy, SpreadConstraint } from "../../karmada/types.ts";
import {
  type ClusterDetail,
  compareClusters,
  type GroupInfo,
  groupScore,
  isStaticWeighted,
  type RegionGroup,
  SelectionError,
  selectBestClustersByRegion,
  selectClusters,
  selectGroups,
} from "./spread.ts";

const names = (clusters: readonly ClusterDetail[]): string[] => clusters.map((c) => c.name);

function expectSelectionError(run: () => unknown, message: string): void {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(SelectionError);
    expect((err as Error).message).toBe(message);
    return;
  }
  expect.unreachable(`no error, expected "${message}"`);
}

describe("compareClusters", () => {
  const cases: Array<[string, ClusterDetail[], string[]]> = [
    ["higher score first", [detail("a", { score: 1 }), detail("b", { score: 2 })], ["b", "a"]],
    [
      "same score: more available replicas first",
      [detail("a", { score: 1, available: 5 }), detail("b", { score: 1, available: 10 })],
      ["b", "a"],
    ],
    [
      "same score and replicas: by name",
      [detail("b", { score: 1, available: 5 }), detail("a", { score: 1, available: 5 })],
      ["a", "b"],
    ],
    [
      "overflow order before everything",
      [detail("a", { score: 100, overflowOrder: 1 }), detail("b", { score: 0, overflowOrder: 0 })],
      ["b", "a"],
    ],
  ];
  it.each(cases)("%s", (_, clusters, want) => {
    expect(names([...clusters].sort(compareClusters))).toEqual(want);
  });
});

describe("selectGroups", () => {
  const g = (name: string, value: number, weight: number): GroupInfo => ({ name, value, weight });
  const cases: Array<[string, GroupInfo[], number, number, number, string[]]> = [
    ["empty groups", [], 2, 3, 1, []],
    ["not enough groups", [g("R1", 1, 80)], 2, 3, 1, []],
    ["not enough value", [g("R1", 1, 80), g("R2", 2, 30)], 2, 3, 4, []],
    ["one group", [g("R1", 1, 80)], 1, 3, 1, ["R1"]],
    [
      "prioritize one path",
      [g("R1", 1, 80), g("R3", 1, 80), g("R2", 1, 60), g("R5", 2, 60), g("R4", 5, 50), g("R6", 3, 50)],
      1,
      3,
      10,
      ["R5", "R4", "R6"],
    ],
    [
      "groups with fewer clusters in total",
      [g("R1", 1, 80), g("R2", 4, 40), g("R3", 1, 30), g("R4", 3, 30), g("R5", 3, 20), g("R6", 5, 10)],
      2,
      6,
      5,
      ["R1", "R2"],
    ],
    [
      "groups with the highest score",
      [g("R1", 1, 60), g("R2", 1, 50), g("R3", 1, 40), g("R4", 3, 30), g("R5", 3, 20), g("R6", 3, 10)],
      1,
      3,
      6,
      ["R1", "R4", "R5"],
    ],
    [
      "groups found earlier",
      [g("R1", 1, 60), g("R2", 2, 50), g("R3", 3, 40), g("R4", 4, 30)],
      1,
      2,
      5,
      ["R1", "R4"],
    ],
    [
      "groups with greater value",
      [g("R4", 1, 60), g("R3", 3, 50), g("R1", 3, 40), g("R2", 4, 30)],
      1,
      2,
      5,
      ["R3", "R1"],
    ],
    ["all groups needed for the minimum", [g("R1", 1, 10), g("R2", 1, 20)], 2, 2, 1, ["R2", "R1"]],
  ];
  it.each(cases)("%s", (_, groups, min, max, target, want) => {
    expect(selectGroups(groups, min, max, target).map((x) => x.name)).toEqual(want);
  });
});

describe("groupScore", () => {
  const clustersOf = (scores: number[], available: number[]): ClusterDetail[] =>
    scores.map((score, i) => detail(`member${i + 1}`, { score, available: available[i]! }));
  const p = (rs: ReplicaSchedulingStrategy): Placement => ({ replicaScheduling: rs });
  // Each: group 1, group 2, placement, replicas, the groups' minGroups, whether group 1 wins (>=).
  const cases: Array<[string, ClusterDetail[], ClusterDetail[], Placement, number, number, boolean]> = [
    [
      "duplicated: more clusters that fit wins",
      clustersOf([100, 100, 0, 0, 0], [30, 30, 30, 30, 30]),
      clustersOf([100, 100, 100, 100, 100], [30, 30, 30, 10, 10]),
      p(duplicated),
      20,
      0,
      true,
    ],
    [
      "duplicated: as many fit, higher score wins",
      clustersOf([100, 100, 0, 0, 0], [30, 30, 30, 10, 10]),
      clustersOf([100, 100, 100, 100, 100], [30, 30, 30, 10, 10]),
      p(duplicated),
      20,
      0,
      false,
    ],
    [
      "aggregated: the group that can hold its share wins",
      clustersOf([100, 100, 0, 0, 0], [30, 30, 30, 10, 10]),
      clustersOf([100, 100, 100, 100, 100], [10, 10, 10, 5, 5]),
      p(aggregated),
      100,
      2,
      true,
    ],
    [
      "dynamic weight: more capacity wins",
      clustersOf([100, 100, 0, 0, 0], [10, 10, 10, 10, 5]),
      clustersOf([100, 100, 100, 100, 100], [10, 10, 10, 5, 5]),
      p(dynamicWeight),
      100,
      2,
      true,
    ],
    [
      "equal capacity: higher score wins",
      clustersOf([100, 100, 0, 0, 0], [10, 10, 10, 5, 5]),
      clustersOf([100, 100, 100, 100, 100], [10, 10, 10, 5, 5]),
      p({ ...equalWeights, weightPreference: { staticWeightList: [] } }),
      100,
      2,
      false,
    ],
    [
      "both can hold their share: higher score wins over more capacity",
      clustersOf([0, 0, 0, 0, 0], [100, 100, 100, 100, 100]),
      clustersOf([100, 100, 100, 100, 100], [50, 50, 50, 50, 50]),
      p(aggregated),
      100,
      2,
      false,
    ],
  ];
  it.each(cases)("%s", (_, g1, g2, placement, replicas, minGroups, group1Wins) => {
    expect(
      groupScore(g1, placement, replicas, minGroups) >= groupScore(g2, placement, replicas, minGroups),
    ).toBe(group1Wins);
  });

  it("duplicated scores: 0 without clusters or when none fits, else fits*1000 + average score", () => {
    expect(groupScore([], undefined, 10, 0)).toBe(0);
    expect(groupScore(clustersOf([50, 50], [5, 5]), undefined, 10, 0)).toBe(0);
    expect(groupScore(clustersOf([100, 100, 100, 0, 0], [60, 70, 40, 30, 10]), undefined, 50, 0)).toBe(2100);
  });

  it("divided scores follow upstream's worked examples", () => {
    const spread = (rs: ReplicaSchedulingStrategy): Placement => ({
      replicaScheduling: rs,
      spreadConstraints: [{ spreadByField: "cluster", minGroups: 1 }],
    });
    expect(
      groupScore(clustersOf([100, 100, 100, 100, 100], [10, 10, 10, 10, 5]), spread(aggregated), 100, 2),
    ).toBe(45100);
    expect(groupScore(clustersOf([0, 0, 0, 0], [40, 30, 10, 10]), spread(aggregated), 100, 2)).toBe(50000);
    expect(
      groupScore(clustersOf([100, 100, 100, 100, 100], [40, 40, 10, 10, 5]), spread(aggregated), 100, 2),
    ).toBe(50100);
  });
});

describe("isStaticWeighted", () => {
  const cases: Array<[string, ReplicaSchedulingStrategy | undefined, boolean]> = [
    ["no replicaScheduling", undefined, false],
    ["duplicated", duplicated, false],
    ["aggregated", aggregated, false],
    ["weighted without preference", equalWeights, true],
    ["static list", staticWeights({ m1: 1 }), true],
    ["dynamic weight", dynamicWeight, false],
    ["empty static list", { ...equalWeights, weightPreference: { staticWeightList: [] } }, false],
  ];
  it.each(cases)("%s", (_, rs, want) => {
    expect(isStaticWeighted(rs ? { replicaScheduling: rs } : {})).toBe(want);
  });
});

describe("selectClusters by cluster", () => {
  // Already ranked by score.
  const ranked = [
    detail("member4", { score: 60, available: 50, region: "R2" }),
    detail("member2", { score: 40, available: 60, region: "R1" }),
    detail("member3", { score: 30, available: 80, region: "R1" }),
    detail("member1", { score: 20, available: 40, region: "R1" }),
  ];
  const byCluster = (min: number, max: number): SpreadConstraint[] => [
    { spreadByField: "cluster", minGroups: min, maxGroups: max },
  ];
  const cases: Array<[string, Placement, number, string[] | string]> = [
    ["no constraints: all", {}, 100, ["member4", "member2", "member3", "member1"]],
    [
      "top 2 by score (Duplicated ignores capacity)",
      { spreadConstraints: byCluster(1, 2) },
      100,
      ["member4", "member2"],
    ],
    [
      "Duplicated ignores capacity",
      { spreadConstraints: byCluster(1, 2), replicaScheduling: duplicated },
      120,
      ["member4", "member2"],
    ],
    [
      "static weights ignore the constraints",
      { spreadConstraints: byCluster(1, 2), replicaScheduling: staticWeights({ member1: 2 }) },
      120,
      ["member4", "member2", "member3", "member1"],
    ],
    [
      "capacity swaps in the cluster with most room",
      { spreadConstraints: byCluster(1, 2), replicaScheduling: { replicaSchedulingType: "Divided" } },
      120,
      ["member4", "member3"],
    ],
    [
      "not enough capacity",
      { spreadConstraints: byCluster(1, 2), replicaScheduling: { replicaSchedulingType: "Divided" } },
      200,
      "no enough resource when selecting 2 clusters",
    ],
    [
      "fewer clusters than minGroups",
      { spreadConstraints: byCluster(7, 7) },
      30,
      "the number of feasible clusters is less than spreadConstraint.MinGroups",
    ],
    [
      "maxGroups 0 selects nothing",
      { spreadConstraints: byCluster(0, 0), replicaScheduling: dynamicWeight },
      3,
      "no enough resource when selecting 0 clusters",
    ],
    [
      "zone constraints fall back to the cluster constraint",
      { spreadConstraints: [{ spreadByField: "zone", minGroups: 1, maxGroups: 3 }, ...byCluster(1, 1)] },
      1,
      ["member4"],
    ],
    [
      "only a label constraint",
      { spreadConstraints: [{ spreadByLabel: "team", minGroups: 1 }], replicaScheduling: dynamicWeight },
      1,
      "just support cluster and region spread constraint",
    ],
  ];
  it.each(cases)("%s", (_, placement, replicas, want) => {
    if (typeof want === "string") {
      expectSelectionError(() => selectClusters(placement, ranked, replicas), want);
    } else {
      expect(names(selectClusters(placement, ranked, replicas).clusters)).toEqual(want);
    }
  });
});

describe("selectBestClustersByRegion", () => {
  const constraints = (rMin: number, rMax: number, cMin: number, cMax: number) =>
    [
      { spreadByField: "region", minGroups: rMin, maxGroups: rMax },
      { spreadByField: "cluster", minGroups: cMin, maxGroups: cMax },
    ] as const;
  const m = (name: string, score: number, available: number): ClusterDetail =>
    detail(name, { score, available });
  const region = (name: string, score: number, members: ClusterDetail[]): RegionGroup => ({
    name,
    score,
    members,
  });
  const twoRegions = (): RegionGroup[] => [
    region("R1", 100, [m("member1", 100, 40), m("member2", 80, 40)]),
    region("R2", 80, [m("member3", 80, 40), m("member4", 80, 40), m("member5", 60, 40)]),
  ];
  const cases: Array<[string, ReturnType<typeof constraints>, RegionGroup[], string[] | string]> = [
    ["the region with the higher score", constraints(1, 1, 2, 2), twoRegions(), ["member1", "member2"]],
    [
      "the region with enough clusters",
      constraints(1, 1, 3, 3),
      twoRegions(),
      ["member3", "member4", "member5"],
    ],
    [
      "enough clusters and higher score",
      constraints(2, 2, 4, 5),
      [
        region("R1", 90, [m("member1", 90, 40)]),
        region("R2", 70, [m("member2", 70, 40), m("member3", 60, 40), m("member4", 30, 40)]),
        region("R3", 80, [m("member5", 80, 40), m("member6", 50, 60)]),
        region("R4", 50, [
          m("member7", 50, 50),
          m("member8", 40, 50),
          m("member9", 10, 50),
          m("member10", 0, 50),
        ]),
      ],
      ["member1", "member2", "member3", "member4"],
    ],
    [
      "more than minGroups regions",
      constraints(1, 3, 6, 8),
      [
        region("R1", 70, [m("member1", 70, 40)]),
        region("R2", 40, [m("member2", 40, 40), m("member3", 40, 40), m("member4", 40, 40)]),
        region("R3", 60, [m("member5", 60, 40), m("member6", 50, 60)]),
        region("R4", 70, [m("member7", 70, 100)]),
        region("R5", 50, [m("member8", 50, 50)]),
      ],
      ["member1", "member5", "member2", "member6", "member3", "member4"],
    ],
    [
      "not enough regions",
      constraints(3, 3, 3, 3),
      twoRegions(),
      "the number of feasible region is less than spreadConstraint.MinGroups",
    ],
    [
      "not enough clusters",
      constraints(1, 1, 4, 4),
      twoRegions(),
      "the number of clusters is less than the cluster spreadConstraint.MinGroups",
    ],
    [
      "no other region to take",
      constraints(1, 1, 3, 4),
      [region("R1", 100, [m("member1", 100, 40), m("member2", 80, 20)])],
      "the number of clusters is less than the cluster spreadConstraint.MinGroups",
    ],
  ];
  it.each(cases)("%s", (_, [regionConstraint, clusterConstraint], regions, want) => {
    if (typeof want === "string") {
      expectSelectionError(
        () => selectBestClustersByRegion(regions, regionConstraint, clusterConstraint),
        want,
      );
    } else {
      expect(
        names(selectBestClustersByRegion(regions, regionConstraint, clusterConstraint).clusters),
      ).toEqual(want);
    }
  });
});

describe("selectClusters by region", () => {
  const byRegion = (rMin: number, rMax: number, cMin: number, cMax: number, rs = duplicated): Placement => ({
    replicaScheduling: rs,
    spreadConstraints: [
      { spreadByField: "region", minGroups: rMin, maxGroups: rMax },
      { spreadByField: "cluster", minGroups: cMin, maxGroups: cMax },
    ],
  });
  const ranked = (): ClusterDetail[] =>
    [
      detail("a1", { region: "A", score: 100, available: 10 }),
      detail("a2", { region: "A", available: 10 }),
      detail("b1", { region: "B", available: 30 }),
      detail("b2", { region: "B", available: 5 }),
      detail("b3", { region: "B", available: 1 }),
      detail("c1", { region: "C", available: 2 }),
    ].sort(compareClusters);

  it("scores regions (Duplicated: clusters fitting all replicas) and explains the choice", () => {
    const { clusters, spread } = selectClusters(byRegion(1, 2, 2, 3), ranked(), 5);
    // A: 2 fit (2000 + avg 50), B: 2 fit (2000), C: none.
    expect(spread.regions).toEqual([
      { name: "A", score: 2050, clusters: 2 },
      { name: "B", score: 2000, clusters: 3 },
      { name: "C", score: 0, clusters: 1 },
    ]);
    expect(spread.chosenRegions).toEqual(["A"]);
    expect(names(clusters)).toEqual(["a1", "a2"]);
  });

  it("divided: a region's share is replicas/minGroups", () => {
    const { spread, clusters } = selectClusters(byRegion(2, 2, 2, 4, dynamicWeight), ranked(), 40);
    // Share 20: A holds 20 (20000 + avg 50), B 30 >= 20 after one cluster (20000), C 2 (2000 + 0).
    expect(spread.regions).toEqual([
      { name: "A", score: 20050, clusters: 2 },
      { name: "B", score: 20000, clusters: 3 },
      { name: "C", score: 2000, clusters: 1 },
    ]);
    expect(spread.chosenRegions).toEqual(["A", "B"]);
    expect(names(clusters)).toEqual(["a1", "b1", "a2", "b2"]);
  });

  it("a failed choice still explains the regions", () => {
    try {
      selectClusters(byRegion(4, 4, 4, 4), ranked(), 1);
      expect.unreachable();
    } catch (err) {
      expect((err as SelectionError).message).toBe(
        "the number of feasible region is less than spreadConstraint.MinGroups",
      );
      expect((err as SelectionError).spread?.regions).toHaveLength(3);
    }
  });
});
