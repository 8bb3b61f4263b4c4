/**
 * The scheduler core's inputs, outputs and explanation. Everything here is plain data:
 * the controller reads a binding and the clusters from its informers, calls `schedule`,
 * and writes `clusters` (and `affinityName`) back; the explanation is JSON it may store or
 * print with `explanationText`.
 */
import type { BindingSpec, ClusterObject, TargetCluster } from "../../karmada/types.ts";

/** The part of a binding's status the algorithm reads. */
export interface BindingSchedulingStatus {
  /** The clusterAffinities term the binding was last scheduled with. */
  schedulerObservingAffinityName?: string;
  /** RFC 3339; a `spec.rescheduleTriggeredAt` after it asks for a fresh reschedule. */
  lastScheduledTime?: string;
}

export interface ScheduleOptions {
  /** Upstream's `--enable-empty-workload-propagation` (default false). */
  enableEmptyWorkloadPropagation?: boolean;
  /** Upstream's `--plugins`: the filter and score plugins turned off (by name, e.g. `ClusterLocality`). */
  disabledPlugins?: ReadonlySet<string>;
}

export interface ScheduleInput {
  binding: {
    /** Empty for a ClusterResourceBinding. */
    namespace?: string;
    name: string;
    spec: BindingSpec;
    status?: BindingSchedulingStatus;
  };
  /** Every Cluster the scheduler knows, deleting ones included (they count in "0/N"). */
  clusters: ClusterObject[];
  options?: ScheduleOptions;
  /** Told how long each step and plugin took (the scheduler's metrics); never changes a decision. */
  trace?: ScheduleTrace;
}

/** Upstream's schedule steps (`scheduling_algorithm_duration_seconds{schedule_step}`). */
export type ScheduleStep = "Filter" | "Score" | "Select" | "AssignReplicas";

export interface ScheduleTrace {
  /** One step of an attempt took `ms`; `failed` when it ended the attempt (no cluster fit, say). */
  step(step: ScheduleStep, ms: number, failed: boolean): void;
  /** A plugin ran at an extension point over all of an attempt's clusters, `ms` in total. */
  plugin(name: string, extensionPoint: "Filter" | "Score", ms: number): void;
}

export interface ScheduleResult {
  /** `spec.clusters` to write, in the order upstream writes them. */
  clusters: TargetCluster[];
  /** The clusterAffinities term used, for `status.schedulerObservingAffinityName`. */
  affinityName?: string;
  explanation: ScheduleExplanation;
}

export type FilterPluginName =
  | "APIEnablement"
  | "TaintToleration"
  | "ClusterAffinity"
  | "SpreadConstraint"
  | "ClusterEviction";

export type ScorePluginName = "ClusterLocality" | "ClusterAffinity";

/** The `reason` of the binding's `Scheduled=False` condition upstream would write. */
export type ScheduleFailureReason = "NoClusterFit" | "Unschedulable" | "SchedulerError";

export type AssignStrategy = "Duplicated" | "StaticWeight" | "DynamicWeight" | "Aggregated";

/** How a dynamic strategy treated the previous `spec.clusters` (upstream's Steady/Fresh modes). */
export type AssignMode = "fresh" | "scale up" | "scale down" | "unchanged";

export interface ClusterExplanation {
  name: string;
  /** Skipped before filtering because the Cluster is being deleted. */
  deleting?: true;
  /** The first filter that rejected the cluster, with upstream's reason. */
  filteredBy?: FilterPluginName;
  reason?: string;
  /** Sum of the score plugins (passed clusters only). */
  score?: number;
  /** Replicas the estimator says the cluster can still take (workloads only). */
  fits?: number;
  /** Replicas the binding already has there (`spec.clusters`). */
  assigned?: number;
  /** 0 = the affinity term itself, i = its overflowAffinities[i-1]; only shown when not 0. */
  overflowOrder?: number;
  /** Chosen by cluster selection (spread constraints). */
  selected?: boolean;
  /** Replicas in the result. */
  replicas?: number;
}

export interface SpreadExplanation {
  /**
   * `all`: no spread constraint applies (none given, or static weights ignore them);
   * `cluster`: the cluster constraint picked clusters; `region`: regions first, then clusters.
   */
  by: "all" | "cluster" | "region";
  /** Why constraints were ignored, when they were. */
  ignored?: string;
  minGroups?: number;
  maxGroups?: number;
  /** Replicas the chosen clusters must fit together; absent when capacity is ignored. */
  needReplicas?: number;
  regions?: Array<{ name: string; score: number; clusters: number }>;
  chosenRegions?: string[];
}

export interface ReplicaExplanation {
  /** Absent for non-workloads: every selected cluster gets the object, without replicas. */
  strategy?: AssignStrategy;
  replicas: number;
  /** Dynamic strategies without overflow: how the previous result was used. */
  mode?: AssignMode;
  /** Replicas already placed on the still-selected clusters. */
  previouslyAssigned?: number;
  /** Static weights per cluster (StaticWeight). */
  weights?: Record<string, number>;
  /** Overflow tiers, in the order they were filled. */
  tiers?: Array<{ overflowOrder: number; replicas: number; mode?: AssignMode }>;
}

export interface AttemptExplanation {
  /** The clusterAffinities term this attempt used (absent with a single clusterAffinity). */
  affinityName?: string;
  affinityIndex?: number;
  /** What the binding asks for: `spec.replicas`, each needing `request` (resourceRequest). */
  needs?: { replicas: number; request?: Record<string, string> };
  clusters: ClusterExplanation[];
  spread?: SpreadExplanation;
  replicas?: ReplicaExplanation;
  error?: { reason: ScheduleFailureReason; message: string };
}

export interface ScheduleExplanation {
  /** One per scheduling run: one, or one per clusterAffinities term tried, in order. */
  attempts: AttemptExplanation[];
  /** The term that succeeded. */
  affinityName?: string;
}

/**
 * No placement fits. `message` is upstream's error text (the condition message);
 * `reason` the condition reason. `clearsClusters`: upstream writes `spec.clusters = null`
 * (a no-fit removes the workload everywhere); other failures leave `spec.clusters` alone.
 */
export class ScheduleError extends Error {
  readonly reason: ScheduleFailureReason;
  readonly explanation: ScheduleExplanation;
  readonly clearsClusters: boolean;

  constructor(reason: ScheduleFailureReason, message: string, explanation: ScheduleExplanation) {
    super(message);
    this.name = "ScheduleError";
    this.reason = reason;
    this.explanation = explanation;
    this.clearsClusters = reason === "NoClusterFit";
  }
}
