/**
 * TypeScript shapes of the Karmada API objects the controllers, scheduler and overriders work
 * with (policy.karmada.io, work.karmada.io, cluster.karmada.io), as upstream's Go structs
 * serialize them. Only what code reads is typed; objects keep every other field untouched.
 */
import type { StoredObject } from "../api/meta.ts";
import type { LabelSelector } from "../machinery/labels.ts";
import type { Taint, Toleration } from "../machinery/tolerations.ts";

export type { Taint, Toleration };

export interface NodeSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

// ---- policy.karmada.io ----------------------------------------------------------------------

export interface ResourceSelector {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name?: string;
  labelSelector?: LabelSelector;
}

export interface FieldSelector {
  matchExpressions?: NodeSelectorRequirement[];
}

export interface ClusterAffinity {
  labelSelector?: LabelSelector;
  fieldSelector?: FieldSelector;
  clusterNames?: string[];
  exclude?: string[];
}

export interface ClusterAffinityTerm extends ClusterAffinity {
  affinityName: string;
  overflowAffinities?: Array<ClusterAffinity & { affinityName: string }>;
}

export interface SpreadConstraint {
  spreadByField?: "cluster" | "region" | "zone" | "provider";
  spreadByLabel?: string;
  maxGroups?: number;
  minGroups?: number;
}

export interface StaticClusterWeight {
  targetCluster: ClusterAffinity;
  weight: number;
}

export interface ReplicaSchedulingStrategy {
  replicaSchedulingType?: "Duplicated" | "Divided";
  replicaDivisionPreference?: "Aggregated" | "Weighted";
  weightPreference?: {
    staticWeightList?: StaticClusterWeight[];
    dynamicWeight?: "AvailableReplicas";
  };
}

export interface Placement {
  clusterAffinity?: ClusterAffinity;
  clusterAffinities?: ClusterAffinityTerm[];
  clusterTolerations?: Toleration[];
  spreadConstraints?: SpreadConstraint[];
  replicaScheduling?: ReplicaSchedulingStrategy;
}

export interface PropagationSpec {
  resourceSelectors: ResourceSelector[];
  propagateDeps?: boolean;
  placement?: Placement;
  priority?: number;
  preemption?: "Always" | "Never";
  dependentOverrides?: string[];
  schedulerName?: string;
  failover?: Record<string, unknown>;
  conflictResolution?: "Abort" | "Overwrite";
  activationPreference?: "Lazy";
  suspension?: Record<string, unknown>;
  preserveResourcesOnDeletion?: boolean;
}

export interface OverrideRule {
  targetCluster?: ClusterAffinity;
  overriders: Overriders;
}

export interface OverrideSpec {
  resourceSelectors?: ResourceSelector[];
  overrideRules?: OverrideRule[];
  /** Deprecated single-rule form. */
  targetCluster?: ClusterAffinity;
  overriders?: Overriders;
}

export interface Overriders {
  plaintext?: Array<{ path: string; operator: "add" | "remove" | "replace"; value?: unknown }>;
  imageOverrider?: Array<{
    predicate?: { path: string };
    component: "Registry" | "Repository" | "Tag";
    operator: "add" | "remove" | "replace";
    value?: string;
  }>;
  commandOverrider?: Array<{ containerName: string; operator: "add" | "remove"; value?: string[] }>;
  argsOverrider?: Array<{ containerName: string; operator: "add" | "remove"; value?: string[] }>;
  labelsOverrider?: Array<{ operator: "add" | "remove" | "replace"; value?: Record<string, string> }>;
  annotationsOverrider?: Array<{ operator: "add" | "remove" | "replace"; value?: Record<string, string> }>;
  fieldOverrider?: Array<{
    fieldPath: string;
    json?: Array<{ subPath: string; operator: "add" | "remove" | "replace"; value?: unknown }>;
    yaml?: Array<{ subPath: string; operator: "add" | "remove" | "replace"; value?: unknown }>;
  }>;
}

// ---- work.karmada.io ------------------------------------------------------------------------

export interface TargetCluster {
  name: string;
  replicas?: number;
}

export interface ReplicaRequirements {
  nodeClaim?: {
    nodeSelector?: Record<string, string>;
    hardNodeAffinity?: unknown;
    tolerations?: Toleration[];
  };
  resourceRequest?: Record<string, string>;
  namespace?: string;
  priorityClassName?: string;
}

export interface ObjectReference {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  uid?: string;
  resourceVersion?: string;
}

export interface GracefulEvictionTask {
  fromCluster: string;
  purgeMode?: string;
  replicas?: number;
  reason: string;
  message?: string;
  producer: string;
  gracePeriodSeconds?: number;
  suppressDeletion?: boolean;
  creationTimestamp?: string;
  preservedLabelState?: Record<string, string>;
  clustersBeforeFailover?: string[];
}

export interface BindingSpec {
  resource: ObjectReference;
  propagateDeps?: boolean;
  replicaRequirements?: ReplicaRequirements;
  replicas?: number;
  clusters?: TargetCluster[];
  placement?: Placement;
  gracefulEvictionTasks?: GracefulEvictionTask[];
  requiredBy?: Array<{ namespace?: string; name: string; clusters?: TargetCluster[] }>;
  schedulerName?: string;
  failover?: Record<string, unknown>;
  conflictResolution?: "Abort" | "Overwrite";
  rescheduleTriggeredAt?: string;
  suspension?: {
    dispatching?: boolean;
    dispatchingOnClusters?: { clusterNames?: string[] };
    scheduling?: boolean;
  };
  preserveResourcesOnDeletion?: boolean;
}

export interface AggregatedStatusItem {
  clusterName: string;
  status?: Record<string, unknown>;
  applied?: boolean;
  appliedMessage?: string;
  health?: "Healthy" | "Unhealthy" | "Unknown";
}

// ---- cluster.karmada.io ---------------------------------------------------------------------

export interface ClusterSpec {
  id?: string;
  syncMode?: "Push" | "Pull";
  apiEndpoint?: string;
  secretRef?: { namespace: string; name: string };
  impersonatorSecretRef?: { namespace: string; name: string };
  provider?: string;
  region?: string;
  zone?: string;
  zones?: string[];
  taints?: Taint[];
  resourceModels?: Array<{ grade: number; ranges: Array<{ name: string; min: string; max: string }> }>;
}

export interface ClusterStatus {
  kubernetesVersion?: string;
  apiEnablements?: Array<{ groupVersion: string; resources?: Array<{ name: string; kind: string }> }>;
  conditions?: Array<{ type: string; status: string; reason?: string; message?: string }>;
  nodeSummary?: { totalNum?: number; readyNum?: number };
  resourceSummary?: {
    allocatable?: Record<string, string>;
    allocating?: Record<string, string>;
    allocated?: Record<string, string>;
    allocatableModelings?: Array<{ grade: number; count: number }>;
  };
}

/** A Cluster as the scheduler and controllers read it. */
export type ClusterObject = StoredObject & { spec?: ClusterSpec; status?: ClusterStatus };
