import { describe, expect, it } from "vitest";
import { cluster } from "../../../test/support/scheduler-fixtures.ts";
import type { ClusterObject, ClusterSpec, ClusterStatus } from "../../karmada/types.ts";
import {
  allowedPodNumber,
  availableReplicas,
  MAX_INT32,
  maxAvailableReplicas,
  maxReplicasByModels,
  maxReplicasBySummary,
} from "./estimate.ts";

type Summary = NonNullable<ClusterStatus["resourceSummary"]>;
type Models = NonNullable<ClusterSpec["resourceModels"]>;

const cpuModels: Models = [
  { grade: 0, ranges: [{ name: "cpu", min: "0", max: "1" }] },
  { grade: 1, ranges: [{ name: "cpu", min: "1", max: "2" }] },
  { grade: 2, ranges: [{ name: "cpu", min: "2", max: "4" }] },
];
const cpuMemModels: Models = [
  {
    grade: 0,
    ranges: [
      { name: "cpu", min: "0", max: "1" },
      { name: "memory", min: "0", max: "1Gi" },
    ],
  },
  {
    grade: 1,
    ranges: [
      { name: "cpu", min: "1", max: "2" },
      { name: "memory", min: "1Gi", max: "2Gi" },
    ],
  },
  {
    grade: 2,
    ranges: [
      { name: "cpu", min: "2", max: "4" },
      { name: "memory", min: "2Gi", max: "4Gi" },
    ],
  },
];
const oneNodePerGrade = [
  { grade: 0, count: 1 },
  { grade: 1, count: 1 },
  { grade: 2, count: 1 },
];

function modelled(
  resourceModels: Models,
  allocatableModelings: NonNullable<Summary["allocatableModelings"]>,
  extra: Summary = {},
): ClusterObject {
  return cluster("m", { resourceModels, status: { resourceSummary: { ...extra, allocatableModelings } } });
}

describe("resource models", () => {
  const cases: Array<[string, ClusterObject, Record<string, string>, number | string]> = [
    [
      "no models defined: error",
      cluster("m", { status: { resourceSummary: {} } }),
      { cpu: "1" },
      "no resource models defined",
    ],
    ["partially compliant grades", modelled(cpuModels, oneNodePerGrade), { cpu: "1.5" }, 1],
    ["no compliant grades", modelled(cpuModels, oneNodePerGrade), { cpu: "3" }, 0],
    [
      "multi-resource request: the grade meeting both",
      modelled(cpuMemModels, oneNodePerGrade),
      { cpu: "1", memory: "1.5Gi" },
      1,
    ],
    [
      "request exceeds the highest grade",
      modelled(cpuMemModels, oneNodePerGrade),
      { cpu: "1", memory: "2.5Gi" },
      0,
    ],
    [
      "several nodes per grade, several replicas per node",
      modelled(cpuModels, [
        { grade: 1, count: 3 },
        { grade: 2, count: 2 },
      ]),
      { cpu: "500m" },
      3 * 2 + 2 * 4,
    ],
    ["no request: 110 pods per node", modelled(cpuModels, [{ grade: 2, count: 2 }]), {}, 220],
    [
      "tiny requests: still 110 pods per node",
      modelled(cpuModels, [{ grade: 2, count: 1 }]),
      { cpu: "1m" },
      110,
    ],
    [
      "a resource no model has: nothing fits",
      modelled(cpuModels, [{ grade: 2, count: 1 }]),
      { "nvidia.com/gpu": "1" },
      0,
    ],
    [
      "an unknown native resource is not divided",
      modelled(cpuModels, [{ grade: 2, count: 1 }]),
      { foo: "1", cpu: "1" },
      2,
    ],
    [
      "negative count: error",
      modelled(cpuModels, [{ grade: 1, count: -1 }]),
      { cpu: "1" },
      "negative node count for grade 1",
    ],
    ["grades only in the status are ignored", modelled(cpuModels, [{ grade: 7, count: 5 }]), { cpu: "1" }, 0],
  ];
  it.each(cases)("%s", (_, c, request, want) => {
    expect(maxReplicasByModels(c, request)).toBe(want);
  });

  it("default models: grade minimums in cores and GiB", () => {
    const defaults: Models = [0, 1, 2, 3].map((grade) => ({
      grade,
      ranges: [
        { name: "cpu", min: String([0, 1, 2, 4][grade]), max: String([1, 2, 4, 8][grade]) },
        { name: "memory", min: `${[0, 4, 16, 32][grade]}Gi`, max: `${[4, 16, 32, 64][grade]}Gi` },
      ],
    }));
    const c = modelled(
      defaults,
      [
        { grade: 0, count: 4 },
        { grade: 1, count: 2 },
        { grade: 3, count: 1 },
      ],
      { allocatable: { pods: "1000", cpu: "100", memory: "1000Gi" } },
    );
    // grade 0 nodes fit nothing (0 cpu); grade 1: min(1000m/250m, 4Gi/1Gi) = 4; grade 3: min(16, 32) = 16.
    expect(maxAvailableReplicas(c, { resourceRequest: { cpu: "250m", memory: "1Gi" } })).toBe(2 * 4 + 16);
  });
});

describe("resource summary", () => {
  const cases: Array<[string, Summary, number]> = [
    [
      "normal case",
      { allocatable: { pods: "100" }, allocated: { pods: "40" }, allocating: { pods: "10" } },
      50,
    ],
    ["no allocatable pods", { allocated: { pods: "10" } }, 0],
    [
      "over allocation",
      { allocatable: { pods: "100" }, allocated: { pods: "90" }, allocating: { pods: "20" } },
      0,
    ],
  ];
  it.each(cases)("allowed pods: %s", (_, summary, want) => {
    expect(allowedPodNumber(summary)).toBe(want);
  });

  const byResources: Array<[string, Summary, Record<string, string>, number]> = [
    [
      "sufficient resources",
      { allocatable: { cpu: "4", memory: "8Gi" }, allocated: { cpu: "1", memory: "2Gi" } },
      { cpu: "500m", memory: "1Gi" },
      6,
    ],
    [
      "insufficient memory",
      { allocatable: { cpu: "4", memory: "2Gi" }, allocated: { cpu: "1", memory: "1.5Gi" } },
      { cpu: "500m", memory: "1Gi" },
      0,
    ],
    [
      "allocating counts too",
      { allocatable: { cpu: "4" }, allocated: { cpu: "1" }, allocating: { cpu: "1500m" } },
      { cpu: "500m" },
      3,
    ],
    ["resource not allocatable at all", { allocatable: { cpu: "4" } }, { "nvidia.com/gpu": "1" }, 0],
    ["nothing left", { allocatable: { cpu: "4" }, allocated: { cpu: "4" } }, { cpu: "100m" }, 0],
    [
      "zero requests are ignored",
      { allocatable: { cpu: "4" } },
      { cpu: "0", memory: "0" },
      Number.MAX_SAFE_INTEGER,
    ],
    ["cpu in milli-units", { allocatable: { cpu: "1" } }, { cpu: "300m" }, 3],
  ];
  it.each(byResources)("by resources: %s", (_, summary, request, want) => {
    expect(maxReplicasBySummary(summary, request)).toBe(want);
  });
});

describe("maxAvailableReplicas (general estimator)", () => {
  const full: Summary = {
    allocatable: { pods: "100", cpu: "4", memory: "8Gi" },
    allocated: { pods: "20", cpu: "1", memory: "2Gi" },
  };
  const cases: Array<[string, ClusterObject, Parameters<typeof maxAvailableReplicas>[1], number]> = [
    ["no resource summary", cluster("m"), undefined, 0],
    [
      "no pods left",
      cluster("m", {
        status: { resourceSummary: { allocatable: { pods: "10" }, allocated: { pods: "10" } } },
      }),
      undefined,
      0,
    ],
    ["no requirements: free pods", cluster("m", { pods: 10 }), undefined, 10],
    [
      "basic estimation",
      cluster("m", { status: { resourceSummary: full } }),
      { resourceRequest: { cpu: "500m", memory: "1Gi" } },
      6,
    ],
    [
      "capped by free pods",
      cluster("m", { status: { resourceSummary: { ...full, allocated: { pods: "98" } } } }),
      { resourceRequest: { cpu: "100m" } },
      2,
    ],
    [
      "models win over the summary when they apply",
      modelled(cpuModels, [{ grade: 1, count: 3 }], { allocatable: { pods: "100", cpu: "100" } }),
      { resourceRequest: { cpu: "500m" } },
      6,
    ],
    [
      "models capped by free pods",
      modelled(cpuModels, [{ grade: 1, count: 3 }], { allocatable: { pods: "4", cpu: "100" } }),
      { resourceRequest: { cpu: "500m" } },
      4,
    ],
    [
      "unusable models fall back to the summary",
      cluster("m", {
        status: { resourceSummary: { ...full, allocatableModelings: [{ grade: 1, count: 3 }] } },
      }),
      { resourceRequest: { cpu: "500m", memory: "1Gi" } },
      6,
    ],
  ];
  it.each(cases)("%s", (_, c, requirements, want) => {
    expect(maxAvailableReplicas(c, requirements)).toBe(want);
  });
});

describe("availableReplicas", () => {
  it("non-workloads are not estimated", () => {
    expect(availableReplicas([cluster("a"), cluster("b")], 0, undefined)).toEqual([MAX_INT32, MAX_INT32]);
  });
  it("takes the estimate, and spec.replicas where the estimator had no answer", () => {
    const huge = cluster("huge", { pods: MAX_INT32 + 10 });
    expect(availableReplicas([cluster("none"), cluster("ten", { pods: 10 }), huge], 5, undefined)).toEqual([
      0, 10, 5,
    ]);
  });
});
