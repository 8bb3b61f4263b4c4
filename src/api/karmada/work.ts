/**
 * work.karmada.io: Work (v1alpha1), ResourceBinding and ClusterResourceBinding (v1alpha1 served,
 * v1alpha2 served and stored).
 */

import {
  type CrdVersion,
  type CustomResourceDefinition,
  crd,
  described,
  type Schema,
  s,
  topLevel,
} from "../schema.ts";
import { condition, nodeSelector, REASON_PATTERN, resourceList, toleration } from "./kubernetes.ts";
import { conflictResolution, failoverBehavior, placement, suspensionProperties } from "./policy.ts";

export const WORK_GROUP = "work.karmada.io";

/** The health of a member-cluster object as the interpreter judged it (ResourceHealth). */
function resourceHealth(): Schema {
  return s.enum(["Healthy", "Unhealthy", "Unknown"]);
}

// ---- Work (v1alpha1) -----------------------------------------------------------------------

/** Manifest: one whole object, kept as sent. */
export function manifest(): Schema {
  return s.preserve();
}

/** WorkloadTemplate */
export function workloadTemplate(): Schema {
  return s.object({
    manifests: s.array(manifest(), { description: "The objects to apply to the member cluster." }),
  });
}

/** WorkSpec */
export function workSpec(): Schema {
  return s.object({
    workload: described(workloadTemplate(), "The objects this Work applies."),
    suspendDispatching: s.boolean({ description: "Stop applying changes to the member cluster." }),
    preserveResourcesOnDeletion: s.boolean({
      description: "Keep the member-cluster objects when this Work is deleted.",
    }),
  });
}

/** ResourceIdentifier */
export function resourceIdentifier(): Schema {
  return s.object(
    {
      ordinal: s.integer(),
      group: s.string(),
      version: s.string(),
      kind: s.string(),
      resource: s.string(),
      namespace: s.string(),
      name: s.string(),
    },
    { required: ["kind", "name", "ordinal", "resource", "version"] },
  );
}

/** ManifestStatus */
export function manifestStatus(): Schema {
  return s.object(
    {
      identifier: resourceIdentifier(),
      status: s.preserve({ description: "The status of the object in the member cluster." }),
      health: resourceHealth(),
    },
    { required: ["identifier"] },
  );
}

/** WorkStatus */
export function workStatus(): Schema {
  return s.object({
    conditions: s.array(condition()),
    manifestStatuses: s.array(manifestStatus(), { description: "Status of each applied object." }),
  });
}

export const workCrd: CustomResourceDefinition = crd({
  group: WORK_GROUP,
  names: {
    kind: "Work",
    listKind: "WorkList",
    plural: "works",
    singular: "work",
    shortNames: ["wk"],
    categories: ["karmada-io"],
  },
  scope: "Namespaced",
  versions: [
    {
      name: "v1alpha1",
      served: true,
      storage: true,
      schema: {
        openAPIV3Schema: topLevel(
          {
            spec: described(workSpec(), "The objects to apply and how."),
            status: described(workStatus(), "Whether the objects were applied, and their status."),
          },
          { description: "The objects to apply to one member cluster.", required: ["spec"] },
        ),
      },
      subresources: { status: {} },
      additionalPrinterColumns: [
        { name: "WORKLOAD-KIND", type: "string", jsonPath: ".spec.workload.manifests[*].kind" },
        { name: "APPLIED", type: "string", jsonPath: '.status.conditions[?(@.type=="Applied")].status' },
        { name: "AGE", type: "date", jsonPath: ".metadata.creationTimestamp" },
      ],
    },
  ],
});

// ---- ResourceBinding / ClusterResourceBinding v1alpha1 -------------------------------------

/** v1alpha1 ObjectReference */
export function objectReferenceV1alpha1(): Schema {
  return s.object(
    {
      apiVersion: s.string(),
      kind: s.string(),
      namespace: s.string(),
      name: s.string(),
      resourceVersion: s.string(),
      resourcePerReplicas: resourceList(),
      replicas: s.int32(),
    },
    { required: ["apiVersion", "kind", "name"] },
  );
}

/** v1alpha1 TargetCluster */
export function targetClusterV1alpha1(): Schema {
  return s.object({ name: s.string(), replicas: s.int32() }, { required: ["name"] });
}

/** v1alpha1 ResourceBindingSpec */
export function resourceBindingSpecV1alpha1(): Schema {
  return s.object(
    {
      resource: described(objectReferenceV1alpha1(), "The resource template this binding is for."),
      clusters: s.array(targetClusterV1alpha1(), {
        description: "The clusters the template is scheduled to.",
      }),
    },
    { required: ["resource"] },
  );
}

/** v1alpha1 AggregatedStatusItem */
export function aggregatedStatusItemV1alpha1(): Schema {
  return s.object(
    {
      clusterName: s.string(),
      status: s.preserve(),
      applied: s.boolean(),
      appliedMessage: s.string(),
    },
    { required: ["clusterName"] },
  );
}

/** v1alpha1 ResourceBindingStatus */
export function resourceBindingStatusV1alpha1(): Schema {
  return s.object({
    conditions: s.array(condition()),
    aggregatedStatus: s.array(aggregatedStatusItemV1alpha1()),
  });
}

// ---- ResourceBinding / ClusterResourceBinding v1alpha2 -------------------------------------

/** v1alpha2 ObjectReference */
export function objectReference(): Schema {
  return s.object(
    {
      apiVersion: s.string(),
      kind: s.string(),
      namespace: s.string(),
      name: s.string(),
      uid: s.string(),
      resourceVersion: s.string(),
    },
    { required: ["apiVersion", "kind", "name"] },
  );
}

/** NodeClaim */
export function nodeClaim(): Schema {
  return s.object({
    hardNodeAffinity: nodeSelector(),
    nodeSelector: s.map(s.string()),
    tolerations: s.array(toleration()),
  });
}

/** ReplicaRequirements */
export function replicaRequirements(): Schema {
  return s.object({
    nodeClaim: nodeClaim(),
    resourceRequest: resourceList(),
    namespace: s.string(),
    priorityClassName: s.string(),
  });
}

/** ComponentReplicaRequirements */
export function componentReplicaRequirements(): Schema {
  return s.object({
    nodeClaim: nodeClaim(),
    resourceRequest: resourceList(),
    priorityClassName: s.string(),
  });
}

/** Component */
export function component(): Schema {
  return s.object(
    {
      name: s.string({ maxLength: 32 }),
      replicas: s.int32(),
      replicaRequirements: componentReplicaRequirements(),
    },
    { required: ["name", "replicas"] },
  );
}

/** TargetComponent */
export function targetComponent(): Schema {
  return s.object({ name: s.string(), replicas: s.int32() }, { required: ["name", "replicas"] });
}

/** TargetCluster */
export function targetCluster(): Schema {
  return s.object(
    { name: s.string(), replicas: s.int32(), components: s.array(targetComponent()) },
    { required: ["name"] },
  );
}

/** GracefulEvictionTask */
export function gracefulEvictionTask(): Schema {
  return s.object(
    {
      fromCluster: s.string(),
      purgeMode: s.enum(["Directly", "Gracefully", "Never", "Immediately", "Graciously"]),
      replicas: s.int32(),
      reason: s.string({ maxLength: 32, minLength: 1, pattern: REASON_PATTERN }),
      message: s.string({ maxLength: 1024 }),
      producer: s.string(),
      gracePeriodSeconds: s.int32(),
      suppressDeletion: s.boolean(),
      preservedLabelState: s.map(s.string()),
      creationTimestamp: s.time(),
      clustersBeforeFailover: s.array(s.string()),
    },
    { required: ["fromCluster", "producer", "reason"] },
  );
}

/** BindingSnapshot */
export function bindingSnapshot(): Schema {
  return s.object(
    { namespace: s.string(), name: s.string(), clusters: s.array(targetCluster()) },
    { required: ["name"] },
  );
}

/** v1alpha2 Suspension: the policy's Suspension plus scheduling. */
export function bindingSuspension(): Schema {
  return s.object({
    ...suspensionProperties(),
    scheduling: s.boolean({ description: "Stop scheduling this binding." }),
  });
}

/** v1alpha2 SchedulePriority */
export function bindingSchedulePriority(): Schema {
  return s.object({ priority: s.int32({ default: 0 }) });
}

/** WorkloadAffinityGroups */
export function workloadAffinityGroups(): Schema {
  return s.object({ affinityGroup: s.string(), antiAffinityGroup: s.string() });
}

/** v1alpha2 ResourceBindingSpec */
export function resourceBindingSpec(): Schema {
  return s.object(
    {
      resource: described(objectReference(), "The resource template this binding is for."),
      propagateDeps: s.boolean(),
      replicaRequirements: described(replicaRequirements(), "What one replica needs to run."),
      replicas: s.int32({ description: "Replicas of the template to schedule." }),
      components: s.array(component(), { description: "Parts of a multi-component workload." }),
      clusters: s.array(targetCluster(), { description: "The scheduling result: clusters and replicas." }),
      placement: described(placement(), "The placement copied from the matching policy."),
      gracefulEvictionTasks: s.array(gracefulEvictionTask(), {
        description: "Clusters being left, kept until the new copies are ready.",
      }),
      requiredBy: s.array(bindingSnapshot(), { description: "Bindings that depend on this one." }),
      schedulerName: s.string(),
      failover: described(failoverBehavior(), "The failover behavior copied from the matching policy."),
      conflictResolution: conflictResolution(),
      rescheduleTriggeredAt: s.time({ description: "A request to schedule again from scratch." }),
      suspension: described(bindingSuspension(), "Pause scheduling or dispatching."),
      preserveResourcesOnDeletion: s.boolean(),
      schedulePriority: bindingSchedulePriority(),
      workloadAffinityGroups: workloadAffinityGroups(),
    },
    { required: ["resource"] },
  );
}

/** v1alpha2 AggregatedStatusItem */
export function aggregatedStatusItem(): Schema {
  return s.object(
    {
      clusterName: s.string(),
      status: s.preserve(),
      applied: s.boolean(),
      appliedMessage: s.string(),
      health: resourceHealth(),
    },
    { required: ["clusterName"] },
  );
}

/** v1alpha2 ResourceBindingStatus */
export function resourceBindingStatus(): Schema {
  return s.object({
    schedulerObservedGeneration: s.int64(),
    schedulerObservingAffinityName: s.string(),
    lastScheduledTime: s.time(),
    conditions: s.array(condition()),
    aggregatedStatus: s.array(aggregatedStatusItem(), {
      description: "The status of the resource in each cluster.",
    }),
  });
}

function bindingVersions(description: string): CrdVersion[] {
  return [
    {
      name: "v1alpha1",
      served: true,
      storage: false,
      schema: {
        openAPIV3Schema: topLevel(
          { spec: resourceBindingSpecV1alpha1(), status: resourceBindingStatusV1alpha1() },
          { description, required: ["spec"] },
        ),
      },
      subresources: { status: {} },
    },
    {
      name: "v1alpha2",
      served: true,
      storage: true,
      schema: {
        openAPIV3Schema: topLevel(
          {
            spec: described(resourceBindingSpec(), "The template, its placement and the scheduling result."),
            status: described(resourceBindingStatus(), "Scheduling and per-cluster status."),
          },
          { description, required: ["spec"] },
        ),
      },
      subresources: { status: {} },
      additionalPrinterColumns: [
        { name: "SCHEDULED", type: "string", jsonPath: '.status.conditions[?(@.type=="Scheduled")].status' },
        {
          name: "FULLYAPPLIED",
          type: "string",
          jsonPath: '.status.conditions[?(@.type=="FullyApplied")].status',
        },
        { name: "AGE", type: "date", jsonPath: ".metadata.creationTimestamp" },
      ],
    },
  ];
}

export const resourceBindingCrd: CustomResourceDefinition = crd({
  group: WORK_GROUP,
  names: {
    kind: "ResourceBinding",
    listKind: "ResourceBindingList",
    plural: "resourcebindings",
    singular: "resourcebinding",
    shortNames: ["rb"],
    categories: ["karmada-io"],
  },
  scope: "Namespaced",
  versions: bindingVersions("Ties a namespaced resource template to its placement and scheduling result."),
});

export const clusterResourceBindingCrd: CustomResourceDefinition = crd({
  group: WORK_GROUP,
  names: {
    kind: "ClusterResourceBinding",
    listKind: "ClusterResourceBindingList",
    plural: "clusterresourcebindings",
    singular: "clusterresourcebinding",
    shortNames: ["crb"],
    categories: ["karmada-io"],
  },
  scope: "Cluster",
  versions: bindingVersions(
    "Ties a cluster-scoped resource template to its placement and scheduling result.",
  ),
});
