/** apps.karmada.io/v1alpha1: WorkloadRebalancer. */

import { type CustomResourceDefinition, crd, described, type Schema, s, topLevel } from "../schema.ts";

export const APPS_GROUP = "apps.karmada.io";

/** ObjectReference */
export function workloadReference(): Schema {
  return s.object(
    {
      apiVersion: s.string(),
      kind: s.string(),
      name: s.string(),
      namespace: s.string({ description: "Empty for cluster-scoped workloads." }),
    },
    { required: ["apiVersion", "kind", "name"] },
  );
}

/** WorkloadRebalancerSpec */
export function workloadRebalancerSpec(): Schema {
  return s.object(
    {
      workloads: s.array(workloadReference(), {
        minItems: 1,
        description: "The resource templates whose bindings are scheduled again.",
      }),
      ttlSecondsAfterFinished: s.int32({ description: "Delete this object that long after it finished." }),
    },
    { required: ["workloads"] },
  );
}

/** ObservedWorkload */
export function observedWorkload(): Schema {
  return s.object(
    { workload: workloadReference(), result: s.string(), reason: s.string() },
    { required: ["workload"] },
  );
}

/** WorkloadRebalancerStatus */
export function workloadRebalancerStatus(): Schema {
  return s.object({
    observedWorkloads: s.array(observedWorkload(), { description: "The outcome for each workload." }),
    observedGeneration: s.int64(),
    finishTime: s.time(),
  });
}

export const workloadRebalancerCrd: CustomResourceDefinition = crd({
  group: APPS_GROUP,
  names: {
    kind: "WorkloadRebalancer",
    listKind: "WorkloadRebalancerList",
    plural: "workloadrebalancers",
    singular: "workloadrebalancer",
  },
  scope: "Cluster",
  versions: [
    {
      name: "v1alpha1",
      served: true,
      storage: true,
      schema: {
        openAPIV3Schema: topLevel(
          {
            spec: described(workloadRebalancerSpec(), "The workloads to reschedule."),
            status: described(workloadRebalancerStatus(), "Progress of the rescheduling."),
          },
          {
            description: "A one-off request to schedule some workloads again from scratch.",
            required: ["spec"],
          },
        ),
      },
      subresources: { status: {} },
    },
  ],
});
