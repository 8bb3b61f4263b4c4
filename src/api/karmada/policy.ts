/**
 * policy.karmada.io/v1alpha1: PropagationPolicy, ClusterPropagationPolicy, OverridePolicy,
 * ClusterOverridePolicy, ClusterTaintPolicy, FederatedResourceQuota.
 *
 * One function per Go struct of `pkg/apis/policy/v1alpha1`; structs that Go embeds inline
 * (`ClusterAffinity` in the affinity terms) contribute their properties through a
 * `...Properties()` function.
 */

import {
  type CustomResourceDefinition,
  crd,
  described,
  type PrinterColumn,
  type Schema,
  s,
  topLevel,
} from "../schema.ts";
import {
  labelSelector,
  nodeSelectorRequirement,
  resourceList,
  resourceQuotaStatusProperties,
  toleration,
} from "./kubernetes.ts";

export const POLICY_GROUP = "policy.karmada.io";

// ---- shared by propagation and override policies -------------------------------------------

/** ResourceSelector */
export function resourceSelector(): Schema {
  return s.object(
    {
      apiVersion: s.string({ description: "apiVersion of the resource templates to select, e.g. apps/v1." }),
      kind: s.string({ description: "Kind of the resource templates to select." }),
      namespace: s.string({ description: "Namespace of the templates; empty selects every namespace." }),
      name: s.string({ description: "Name of one template; when set the labelSelector is ignored." }),
      labelSelector: described(labelSelector(), "Labels the templates must carry; used when name is empty."),
    },
    { required: ["apiVersion", "kind"] },
  );
}

/** FieldSelector */
export function fieldSelector(): Schema {
  return s.object({ matchExpressions: s.array(nodeSelectorRequirement()) });
}

/** The fields of ClusterAffinity, for the structs that embed it. */
export function clusterAffinityProperties(): Record<string, Schema> {
  return {
    labelSelector: described(labelSelector(), "Selects clusters by their labels."),
    fieldSelector: described(fieldSelector(), "Selects clusters by provider, region or zone."),
    clusterNames: s.array(s.string(), { description: "Clusters picked by name." }),
    exclude: s.array(s.string(), { description: "Clusters never picked, whatever else matches." }),
  };
}

/** ClusterAffinity */
export function clusterAffinity(): Schema {
  return s.object(clusterAffinityProperties());
}

// ---- PropagationPolicy / ClusterPropagationPolicy ------------------------------------------

/** SuspendClusters */
export function suspendClusters(): Schema {
  return s.object({ clusterNames: s.array(s.string()) });
}

/** The fields of Suspension, for work.karmada.io's Suspension that embeds it. */
export function suspensionProperties(): Record<string, Schema> {
  return {
    dispatching: s.boolean({ description: "Stop dispatching to every cluster." }),
    dispatchingOnClusters: described(suspendClusters(), "Stop dispatching to the clusters listed."),
  };
}

/** Suspension */
export function suspension(): Schema {
  return s.object(suspensionProperties());
}

/** DecisionConditions */
export function decisionConditions(): Schema {
  return s.object({
    tolerationSeconds: s.int32({
      default: 300,
      description: "How long the application may stay unhealthy before failover starts.",
    }),
  });
}

/** StatePreservationRule */
export function statePreservationRule(): Schema {
  return s.object(
    { aliasLabelName: s.string(), jsonPath: s.string() },
    { required: ["aliasLabelName", "jsonPath"] },
  );
}

/** StatePreservation */
export function statePreservation(): Schema {
  return s.object({ rules: s.array(statePreservationRule()) }, { required: ["rules"] });
}

/** ApplicationFailoverBehavior */
export function applicationFailoverBehavior(): Schema {
  return s.object(
    {
      decisionConditions: decisionConditions(),
      // v1.12's names (Immediately, Graciously) are still accepted, stored as given.
      purgeMode: s.enum(["Directly", "Gracefully", "Never", "Immediately", "Graciously"], {
        default: "Gracefully",
        description: "How the copy on the failed cluster is removed.",
      }),
      gracePeriodSeconds: s.int32(),
      statePreservation: described(statePreservation(), "State carried from the old copy to the new one."),
    },
    { required: ["decisionConditions"] },
  );
}

/** ClusterFailoverBehavior */
export function clusterFailoverBehavior(): Schema {
  return s.object({
    purgeMode: s.enum(["Directly", "Gracefully", "Immediately", "Graciously"], {
      default: "Gracefully",
      description: "How the copy on the failed cluster is removed.",
    }),
    statePreservation: described(statePreservation(), "State carried from the old copy to the new one."),
  });
}

/** FailoverBehavior */
export function failoverBehavior(): Schema {
  return s.object({
    application: described(
      applicationFailoverBehavior(),
      "Move the application away from a cluster where it stays unhealthy.",
    ),
    cluster: described(clusterFailoverBehavior(), "Move the application away from a failed cluster."),
  });
}

/** ClusterAffinityTerm.AffinityName and OverflowClusterAffinity.AffinityName */
function affinityName(): Schema {
  return s.string({ minLength: 1, maxLength: 32, description: "Name of this cluster group." });
}

/** OverflowClusterAffinity */
export function overflowClusterAffinity(): Schema {
  return s.object(
    { affinityName: affinityName(), ...clusterAffinityProperties() },
    { required: ["affinityName"] },
  );
}

/** ClusterAffinityTerm */
export function clusterAffinityTerm(): Schema {
  return s.object(
    {
      affinityName: affinityName(),
      ...clusterAffinityProperties(),
      overflowAffinities: s.array(overflowClusterAffinity(), {
        description: "Extra groups used when the primary group runs out of room.",
      }),
    },
    { required: ["affinityName"] },
  );
}

/** SpreadConstraint */
export function spreadConstraint(): Schema {
  return s.object({
    spreadByField: s.enum(["cluster", "region", "zone", "provider"]),
    spreadByLabel: s.string(),
    maxGroups: s.integer(),
    minGroups: s.integer(),
  });
}

/** StaticClusterWeight */
export function staticClusterWeight(): Schema {
  return s.object(
    { targetCluster: clusterAffinity(), weight: s.int64({ minimum: 1 }) },
    { required: ["targetCluster", "weight"] },
  );
}

/** ClusterPreferences */
export function clusterPreferences(): Schema {
  return s.object({
    staticWeightList: s.array(staticClusterWeight(), { description: "Fixed weight per group of clusters." }),
    dynamicWeight: s.enum(["AvailableReplicas"], {
      description: "Weigh clusters by a live measure instead.",
    }),
  });
}

/** ReplicaSchedulingStrategy */
export function replicaSchedulingStrategy(): Schema {
  return s.object({
    replicaSchedulingType: s.enum(["Duplicated", "Divided"], {
      default: "Divided",
      description: "Duplicated runs all replicas in every cluster; Divided splits them.",
    }),
    replicaDivisionPreference: s.enum(["Aggregated", "Weighted"], {
      description: "How Divided replicas are split: packed into few clusters or by weight.",
    }),
    weightPreference: described(clusterPreferences(), "Weights used by the Weighted preference."),
  });
}

/** WorkloadAffinityTerm */
export function workloadAffinityTerm(): Schema {
  return s.object({ groupByLabelKey: s.string() }, { required: ["groupByLabelKey"] });
}

/** WorkloadAntiAffinityTerm */
export function workloadAntiAffinityTerm(): Schema {
  return s.object({ groupByLabelKey: s.string() }, { required: ["groupByLabelKey"] });
}

/** WorkloadAffinity */
export function workloadAffinity(): Schema {
  return s.object({
    affinity: described(workloadAffinityTerm(), "Keep workloads of one group in the same clusters."),
    antiAffinity: described(workloadAntiAffinityTerm(), "Keep workloads of one group in different clusters."),
  });
}

/** Placement */
export function placement(): Schema {
  return s.object({
    clusterAffinity: described(clusterAffinity(), "The clusters that may receive the resources."),
    clusterAffinities: s.array(clusterAffinityTerm(), {
      description: "Ordered groups of clusters, tried one after another.",
    }),
    clusterTolerations: s.array(toleration(), { description: "Cluster taints this placement tolerates." }),
    spreadConstraints: s.array(spreadConstraint(), {
      description: "How many clusters, regions, zones or providers to spread over.",
    }),
    replicaScheduling: described(replicaSchedulingStrategy(), "How replicas are assigned to clusters."),
    workloadAffinity: described(workloadAffinity(), "Co-locate or separate related workloads."),
  });
}

/** The conflict-resolution field, shared by policies and bindings. */
export function conflictResolution(): Schema {
  return s.enum(["Abort", "Overwrite"], {
    default: "Abort",
    description: "What to do when the object already exists in a member cluster: Abort or Overwrite it.",
  });
}

/** SchedulePriority */
export function schedulePriority(): Schema {
  return s.object(
    {
      priorityClassSource: s.enum(["KubePriorityClass"]),
      priorityClassName: s.string(),
    },
    { required: ["priorityClassName", "priorityClassSource"] },
  );
}

/** PropagationSpec */
export function propagationSpec(): Schema {
  return s.object(
    {
      resourceSelectors: s.array(resourceSelector(), {
        minItems: 1,
        description: "The resource templates this policy propagates.",
      }),
      association: s.boolean(),
      propagateDeps: s.boolean({
        description: "Also propagate what the templates depend on (ConfigMaps, Secrets, ...).",
      }),
      placement: described(placement(), "Which clusters receive the resources and how replicas are split."),
      priority: s.int32({ default: 0, description: "Higher wins when several policies match a template." }),
      preemption: s.enum(["Always", "Never"], {
        default: "Never",
        description: "Whether this policy may take templates away from other policies.",
      }),
      dependentOverrides: s.array(s.string(), {
        description: "Override policies that must exist before this policy applies.",
      }),
      schedulerName: s.string({ default: "default-scheduler", description: "The scheduler in charge." }),
      failover: described(failoverBehavior(), "When and how to move the application to other clusters."),
      conflictResolution: conflictResolution(),
      activationPreference: s.enum(["Lazy"], {
        description: "Lazy: policy changes reach a template only when the template changes.",
      }),
      suspension: described(suspension(), "Pause dispatching to all or some clusters."),
      preserveResourcesOnDeletion: s.boolean({
        description: "Keep the member-cluster copies when the template is deleted.",
      }),
      schedulePriority: described(schedulePriority(), "Where the scheduling priority comes from."),
    },
    { required: ["resourceSelectors"] },
  );
}

function propagationPolicyColumns(): PrinterColumn[] {
  return [
    { name: "CONFLICT-RESOLUTION", type: "string", jsonPath: ".spec.conflictResolution" },
    { name: "PRIORITY", type: "string", jsonPath: ".spec.priority" },
    { name: "AGE", type: "date", jsonPath: ".metadata.creationTimestamp" },
  ];
}

function propagationPolicySchema(description: string): Schema {
  return topLevel(
    { spec: described(propagationSpec(), "What to propagate and where.") },
    { description, required: ["spec"] },
  );
}

export const propagationPolicyCrd: CustomResourceDefinition = crd({
  group: POLICY_GROUP,
  names: {
    kind: "PropagationPolicy",
    listKind: "PropagationPolicyList",
    plural: "propagationpolicies",
    singular: "propagationpolicy",
    shortNames: ["pp"],
    categories: ["karmada-io"],
  },
  scope: "Namespaced",
  versions: [
    {
      name: "v1alpha1",
      served: true,
      storage: true,
      schema: {
        openAPIV3Schema: propagationPolicySchema(
          "Propagates resource templates of its namespace to member clusters.",
        ),
      },
      subresources: {},
      additionalPrinterColumns: propagationPolicyColumns(),
    },
  ],
});

export const clusterPropagationPolicyCrd: CustomResourceDefinition = crd({
  group: POLICY_GROUP,
  names: {
    kind: "ClusterPropagationPolicy",
    listKind: "ClusterPropagationPolicyList",
    plural: "clusterpropagationpolicies",
    singular: "clusterpropagationpolicy",
    shortNames: ["cpp"],
    categories: ["karmada-io"],
  },
  scope: "Cluster",
  versions: [
    {
      name: "v1alpha1",
      served: true,
      storage: true,
      schema: {
        openAPIV3Schema: propagationPolicySchema(
          "Propagates cluster-scoped templates, or templates of any namespace, to member clusters.",
        ),
      },
      subresources: {},
      additionalPrinterColumns: propagationPolicyColumns(),
    },
  ],
});

// ---- OverridePolicy / ClusterOverridePolicy ------------------------------------------------

const overriderOperator = ["add", "remove", "replace"];

/** PlaintextOverrider */
export function plaintextOverrider(): Schema {
  return s.object(
    {
      path: s.string({ description: "JSON pointer to the field to change." }),
      operator: s.enum(overriderOperator),
      value: s.json(),
    },
    { required: ["operator", "path"] },
  );
}

/** ImagePredicate */
export function imagePredicate(): Schema {
  return s.object({ path: s.string() }, { required: ["path"] });
}

/** ImageOverrider */
export function imageOverrider(): Schema {
  return s.object(
    {
      predicate: described(imagePredicate(), "Which image field to change; all containers when empty."),
      component: s.enum(["Registry", "Repository", "Tag"], {
        description: "The part of the image to change.",
      }),
      operator: s.enum(overriderOperator),
      value: s.string(),
    },
    { required: ["component", "operator"] },
  );
}

/** CommandArgsOverrider */
export function commandArgsOverrider(): Schema {
  return s.object(
    {
      containerName: s.string(),
      operator: s.enum(["add", "remove"]),
      value: s.array(s.string()),
    },
    { required: ["containerName", "operator"] },
  );
}

/** LabelAnnotationOverrider */
export function labelAnnotationOverrider(): Schema {
  return s.object(
    { operator: s.enum(overriderOperator), value: s.map(s.string()) },
    { required: ["operator", "value"] },
  );
}

/** JSONPatchOperation */
export function jsonPatchOperation(): Schema {
  return s.object(
    { subPath: s.string(), operator: s.enum(overriderOperator), value: s.json() },
    { required: ["operator", "subPath"] },
  );
}

/** YAMLPatchOperation */
export function yamlPatchOperation(): Schema {
  return s.object(
    { subPath: s.string(), operator: s.enum(overriderOperator), value: s.json() },
    { required: ["operator", "subPath"] },
  );
}

/** FieldOverrider */
export function fieldOverrider(): Schema {
  return s.object(
    {
      fieldPath: s.string({ description: "JSON pointer to a string field holding JSON or YAML." }),
      json: s.array(jsonPatchOperation(), { description: "Patches applied to the field read as JSON." }),
      yaml: s.array(yamlPatchOperation(), { description: "Patches applied to the field read as YAML." }),
    },
    { required: ["fieldPath"] },
  );
}

/** Overriders */
export function overriders(): Schema {
  return s.object({
    plaintext: s.array(plaintextOverrider(), { description: "JSON patch operations on the whole object." }),
    imageOverrider: s.array(imageOverrider(), { description: "Changes to container images." }),
    commandOverrider: s.array(commandArgsOverrider(), { description: "Changes to container commands." }),
    argsOverrider: s.array(commandArgsOverrider(), { description: "Changes to container arguments." }),
    labelsOverrider: s.array(labelAnnotationOverrider(), { description: "Changes to labels." }),
    annotationsOverrider: s.array(labelAnnotationOverrider(), { description: "Changes to annotations." }),
    fieldOverrider: s.array(fieldOverrider(), {
      description: "Changes inside a string field that holds JSON or YAML.",
    }),
  });
}

/** RuleWithCluster */
export function ruleWithCluster(): Schema {
  return s.object(
    {
      targetCluster: described(clusterAffinity(), "The clusters this rule applies to; all when empty."),
      overriders: described(overriders(), "The changes this rule makes."),
    },
    { required: ["overriders"] },
  );
}

/** OverrideSpec */
export function overrideSpec(): Schema {
  return s.object({
    resourceSelectors: s.array(resourceSelector(), {
      description: "The resource templates to change; all when empty.",
    }),
    overrideRules: s.array(ruleWithCluster(), {
      description: "Per-cluster changes, applied in order.",
    }),
    targetCluster: described(clusterAffinity(), "Deprecated: use overrideRules."),
    overriders: described(overriders(), "Deprecated: use overrideRules."),
  });
}

function overridePolicySchema(description: string): Schema {
  return topLevel(
    { spec: described(overrideSpec(), "Which templates to change, and how, per cluster.") },
    { description, required: ["spec"] },
  );
}

export const overridePolicyCrd: CustomResourceDefinition = crd({
  group: POLICY_GROUP,
  names: {
    kind: "OverridePolicy",
    listKind: "OverridePolicyList",
    plural: "overridepolicies",
    singular: "overridepolicy",
    shortNames: ["op"],
    categories: ["karmada-io"],
  },
  scope: "Namespaced",
  versions: [
    {
      name: "v1alpha1",
      served: true,
      storage: true,
      schema: {
        openAPIV3Schema: overridePolicySchema(
          "Changes resources of its namespace differently for each member cluster.",
        ),
      },
    },
  ],
});

export const clusterOverridePolicyCrd: CustomResourceDefinition = crd({
  group: POLICY_GROUP,
  names: {
    kind: "ClusterOverridePolicy",
    listKind: "ClusterOverridePolicyList",
    plural: "clusteroverridepolicies",
    singular: "clusteroverridepolicy",
    shortNames: ["cop"],
    categories: ["karmada-io"],
  },
  scope: "Cluster",
  versions: [
    {
      name: "v1alpha1",
      served: true,
      storage: true,
      schema: {
        openAPIV3Schema: overridePolicySchema(
          "Changes resources of any namespace, or cluster-scoped ones, differently for each member cluster.",
        ),
      },
    },
  ],
});

// ---- ClusterTaintPolicy --------------------------------------------------------------------

/** MatchCondition */
export function matchCondition(): Schema {
  return s.object(
    {
      conditionType: s.string(),
      operator: s.string(),
      statusValues: s.array(s.string()),
    },
    { required: ["conditionType", "operator", "statusValues"] },
  );
}

/** Taint (the policy's own, without timeAdded) */
export function policyTaint(): Schema {
  return s.object(
    { key: s.string(), effect: s.string(), value: s.string() },
    { required: ["effect", "key"] },
  );
}

/** ClusterTaintPolicySpec */
export function clusterTaintPolicySpec(): Schema {
  return s.object(
    {
      targetClusters: described(clusterAffinity(), "The clusters this policy watches; all when empty."),
      addOnConditions: s.array(matchCondition(), {
        description: "Add the taints when all of these cluster conditions hold.",
      }),
      removeOnConditions: s.array(matchCondition(), {
        description: "Remove the taints when all of these cluster conditions hold.",
      }),
      taints: s.array(policyTaint(), { minItems: 1, description: "The taints to add or remove." }),
    },
    { required: ["taints"] },
  );
}

export const clusterTaintPolicyCrd: CustomResourceDefinition = crd({
  group: POLICY_GROUP,
  names: {
    kind: "ClusterTaintPolicy",
    listKind: "ClusterTaintPolicyList",
    plural: "clustertaintpolicies",
    singular: "clustertaintpolicy",
  },
  scope: "Cluster",
  versions: [
    {
      name: "v1alpha1",
      served: true,
      storage: true,
      schema: {
        openAPIV3Schema: topLevel(
          { spec: described(clusterTaintPolicySpec(), "Which clusters, on which conditions, which taints.") },
          { description: "Taints and untaints clusters as their conditions change.", required: ["spec"] },
        ),
      },
    },
  ],
});

// ---- FederatedResourceQuota ----------------------------------------------------------------

/** StaticClusterAssignment */
export function staticClusterAssignment(): Schema {
  return s.object({ clusterName: s.string(), hard: resourceList() }, { required: ["clusterName", "hard"] });
}

/** FederatedResourceQuotaSpec */
export function federatedResourceQuotaSpec(): Schema {
  return s.object(
    {
      overall: described(resourceList(), "The total quota across all clusters."),
      staticAssignments: s.array(staticClusterAssignment(), {
        description: "Fixed shares of the quota per cluster.",
      }),
    },
    { required: ["overall"] },
  );
}

/** ClusterQuotaStatus */
export function clusterQuotaStatus(): Schema {
  return s.object(
    { clusterName: s.string(), ...resourceQuotaStatusProperties() },
    { required: ["clusterName"] },
  );
}

/** FederatedResourceQuotaStatus */
export function federatedResourceQuotaStatus(): Schema {
  return s.object({
    overall: resourceList(),
    overallUsed: resourceList(),
    aggregatedStatus: s.array(clusterQuotaStatus()),
  });
}

export const federatedResourceQuotaCrd: CustomResourceDefinition = crd({
  group: POLICY_GROUP,
  names: {
    kind: "FederatedResourceQuota",
    listKind: "FederatedResourceQuotaList",
    plural: "federatedresourcequotas",
    singular: "federatedresourcequota",
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
            spec: described(federatedResourceQuotaSpec(), "The quota and how it is shared among clusters."),
            status: described(federatedResourceQuotaStatus(), "Quota and usage, overall and per cluster."),
          },
          {
            description: "A resource quota for one namespace across all member clusters.",
            required: ["spec"],
          },
        ),
      },
      subresources: { status: {} },
      additionalPrinterColumns: [
        { name: "OVERALL", type: "string", jsonPath: ".status.overall" },
        { name: "OVERALL_USED", type: "string", jsonPath: ".status.overallUsed" },
      ],
    },
  ],
});
