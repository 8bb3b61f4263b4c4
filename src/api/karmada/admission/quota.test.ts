import { describe, expect, it } from "vitest";
import type { StoredObject } from "../../meta.ts";
import { object, rendered } from "./admission.fixtures.ts";
import { validateFederatedResourceQuota } from "./quota.ts";

function frq(spec: Record<string, unknown>, status?: Record<string, unknown>, name = "quota"): StoredObject {
  return object(
    "policy.karmada.io/v1alpha1",
    "FederatedResourceQuota",
    { name, namespace: "default", uid: `uid-${name}` },
    { spec, ...(status ? { status } : {}) },
  );
}

const VALID = {
  overall: { cpu: "4", memory: "8Gi", pods: "20", "example.com/gpu": "2" },
  staticAssignments: [
    { clusterName: "member1", hard: { cpu: "1500m", memory: "4Gi" } },
    { clusterName: "member2", hard: { cpu: "2.5", memory: "4Gi", pods: "20" } },
  ],
};

describe("FederatedResourceQuota", () => {
  it("accepts assignments that add up to the overall quota", () => {
    const status = {
      overall: { cpu: "4" },
      overallUsed: { cpu: "1" },
      aggregatedStatus: [{ clusterName: "member1", hard: { cpu: "1" }, used: { cpu: "500m" } }],
    };
    expect(validateFederatedResourceQuota(frq(VALID, status))).toEqual([]);
  });

  const cases: Array<[string, StoredObject, string[]]> = [
    [
      "a name too long for a label value",
      frq({ overall: { cpu: "1" } }, undefined, "q".repeat(64)),
      [`metadata.name: Invalid value: "${"q".repeat(64)}": must be no more than 63 characters`],
    ],
    [
      "resource names",
      frq({ overall: { gpu: "1", storage: "1Gi", "requests.hugepages-2Mi": "1Gi" } }),
      [
        'spec.overall[gpu]: Invalid value: "gpu": must be a standard resource type or fully qualified',
        'spec.overall[gpu]: Invalid value: "gpu": must be a standard resource for quota',
        'spec.overall[storage]: Invalid value: "storage": must be a standard resource for quota',
      ],
    ],
    [
      "negative and fractional quantities",
      frq({ overall: { cpu: "-1", pods: "1500m", "example.com/gpu": "0.5" } }),
      [
        'spec.overall[cpu]: Invalid value: "-1": must be greater than or equal to 0',
        'spec.overall[pods]: Invalid value: "1500m": must be an integer',
        'spec.overall[example.com/gpu]: Invalid value: "500m": must be an integer',
        // Nothing is assigned, and -1 is still less than that.
        'spec.overall[cpu]: Invalid value: "-1": overall is less than assignments',
      ],
    ],
    [
      "assignments above the overall quota and outside it",
      frq({
        overall: { cpu: "2" },
        staticAssignments: [
          { clusterName: "member1", hard: { cpu: "1500m", memory: "1Gi" } },
          { clusterName: "member2", hard: { cpu: "1" } },
        ],
      }),
      [
        'spec.overall[cpu]: Invalid value: "2": overall is less than assignments',
        'spec.staticAssignments[0].hard[memory]: Invalid value: "memory": assignment resourceName is not exist in overall',
      ],
    ],
    [
      "cluster names in spec and status",
      frq(
        { overall: { cpu: "2" }, staticAssignments: [{ clusterName: "Member_1", hard: {} }] },
        { aggregatedStatus: [{ clusterName: "", hard: {} }] },
      ),
      [
        "spec.staticAssignments[0].clusterName: Invalid value: \"Member_1\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
        'status.aggregatedStatus[0].clusterName: Invalid value: "": must be not empty',
      ],
    ],
    [
      "status resource lists",
      frq(
        { overall: { cpu: "1" } },
        {
          overall: { foo: "1" },
          overallUsed: { memory: "-1" },
          aggregatedStatus: [{ clusterName: "m", used: { pods: "0.5" } }],
        },
      ),
      [
        'status.overall[foo]: Invalid value: "foo": must be a standard resource type or fully qualified',
        'status.overall[foo]: Invalid value: "foo": must be a standard resource for quota',
        'status.overallUsed[memory]: Invalid value: "-1": must be greater than or equal to 0',
        'status.aggregatedStatus[0].used[pods]: Invalid value: "500m": must be an integer',
      ],
    ],
  ];
  it.each(cases)("%s", (_name, quota, expected) => {
    expect(rendered(validateFederatedResourceQuota(quota))).toEqual(expected);
  });
});
