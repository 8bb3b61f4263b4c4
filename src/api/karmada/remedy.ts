/** remedy.karmada.io/v1alpha1: Remedy. */

import { type CustomResourceDefinition, crd, described, type Schema, s, topLevel } from "../schema.ts";

export const REMEDY_GROUP = "remedy.karmada.io";

/** ClusterAffinity (remedy's own: names only) */
export function remedyClusterAffinity(): Schema {
  return s.object({ clusterNames: s.array(s.string()) });
}

/** ClusterConditionRequirement */
export function clusterConditionRequirement(): Schema {
  return s.object(
    {
      conditionType: s.string(),
      operator: s.enum(["Equal", "NotEqual"]),
      conditionStatus: s.string(),
    },
    { required: ["conditionStatus", "conditionType", "operator"] },
  );
}

/** DecisionMatch */
export function decisionMatch(): Schema {
  return s.object({ clusterConditionMatch: clusterConditionRequirement() });
}

/** RemedySpec */
export function remedySpec(): Schema {
  return s.object({
    clusterAffinity: described(remedyClusterAffinity(), "The clusters to watch; all when empty."),
    decisionMatches: s.array(decisionMatch(), {
      description: "Cluster conditions that trigger the actions; any one is enough.",
    }),
    actions: s.array(s.string(), { description: "What to do, e.g. TrafficControl." }),
  });
}

export const remedyCrd: CustomResourceDefinition = crd({
  group: REMEDY_GROUP,
  names: {
    kind: "Remedy",
    listKind: "RemedyList",
    plural: "remedies",
    singular: "remedy",
    categories: ["karmada-io"],
  },
  scope: "Cluster",
  versions: [
    {
      name: "v1alpha1",
      served: true,
      storage: true,
      schema: {
        openAPIV3Schema: topLevel(
          { spec: described(remedySpec(), "Which clusters, on which conditions, which actions.") },
          { description: "Actions to take on clusters whose conditions match.", required: ["spec"] },
        ),
      },
    },
  ],
});
