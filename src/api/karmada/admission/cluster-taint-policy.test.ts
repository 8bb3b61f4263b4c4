import { describe, expect, it } from "vitest";
import type { StoredObject } from "../../meta.ts";
import { object, rendered } from "./admission.fixtures.ts";
import { validateClusterTaintPolicy } from "./cluster-taint-policy.ts";

function ctp(taints: Array<Record<string, string>>): StoredObject {
  return object(
    "policy.karmada.io/v1alpha1",
    "ClusterTaintPolicy",
    { name: "detect-not-ready", uid: "uid-detect-not-ready" },
    {
      spec: {
        targetClusters: { clusterNames: ["member1"] },
        addOnConditions: [{ conditionType: "Ready", operator: "NotIn", statusValues: ["True"] }],
        removeOnConditions: [{ conditionType: "Ready", operator: "In", statusValues: ["True"] }],
        taints,
      },
    },
  );
}

const NO_EXECUTE =
  "spec.taints[0]: Forbidden: Configuring taint with NoExecute effect is not allowed, this capability must be explicitly enabled by administrators through command-line flags";

describe("ClusterTaintPolicy", () => {
  it("accepts NoSchedule taints", () => {
    expect(
      validateClusterTaintPolicy(ctp([{ key: "cluster.karmada.io/not-ready", effect: "NoSchedule" }])),
    ).toEqual([]);
  });

  const cases: Array<[string, Array<Record<string, string>>, boolean, string[]]> = [
    ["NoExecute by default", [{ key: "k", effect: "NoExecute" }], false, [NO_EXECUTE]],
    ["NoExecute when allowed", [{ key: "k", effect: "NoExecute" }], true, []],
    [
      "the same key and effect twice, reported at the first",
      [
        { key: "k", effect: "NoSchedule" },
        { key: "k", effect: "NoSchedule", value: "other" },
        { key: "k", effect: "NoSchedule" },
        { key: "k", effect: "PreferNoSchedule" },
      ],
      false,
      [
        'spec.taints[0]: Duplicate value: "Duplicate taint with the same key(k) and effect(NoSchedule) is not allowed"',
        'spec.taints[1]: Duplicate value: "Duplicate taint with the same key(k) and effect(NoSchedule) is not allowed"',
      ],
    ],
  ];
  it.each(cases)("%s", (_name, taints, allow, expected) => {
    expect(
      rendered(validateClusterTaintPolicy(ctp(taints), undefined, { allowNoExecuteTaintPolicy: allow })),
    ).toEqual(expected);
  });
});
