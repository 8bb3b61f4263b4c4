/**
 * The shapes `simulate` reads and returns: the fleet snapshot, the changes made to a copy of
 * it, and the report. Everything is plain JSON (the report is what `-o json` prints and what
 * the dashboard renders).
 */
import type { StoredObject } from "../api/meta.ts";
import type { Binding } from "../karmada/bindings.ts";
import type { ClusterObject, PropagationSpec, TargetCluster } from "../karmada/types.ts";
import type { SchedulingTrigger } from "../scheduler/core/needs-scheduling.ts";
import type {
  ClusterExplanation,
  ScheduleExplanation,
  ScheduleFailureReason,
} from "../scheduler/core/types.ts";

export type Policy = StoredObject & { spec: PropagationSpec };

/** What the simulation reads of the control plane (`loadFleet`). Nothing else is consulted. */
export interface Fleet {
  clusters: ClusterObject[];
  resourceBindings: Binding[];
  clusterResourceBindings: Binding[];
  propagationPolicies: Policy[];
  clusterPropagationPolicies: Policy[];
  /** Only their names count (a policy's `dependentOverrides`). */
  overridePolicies: StoredObject[];
  clusterOverridePolicies: StoredObject[];
  /** ResourceInterpreterCustomizations: how templates' replicas are read. */
  customizations: StoredObject[];
  /** ResourceInterpreterWebhookConfigurations: not called, only named in warnings. */
  webhookConfigurations: StoredObject[];
  /** What could not be read (no permission), said in the report. */
  warnings: string[];
}

/** A taint added to a cluster, or (`remove`) taken off: by key and effect, every effect when `effect` is empty. */
export interface TaintChange {
  cluster: string;
  key: string;
  value?: string;
  effect: string;
  remove?: boolean;
}

/** A label set on a cluster, or (`value` null) removed. */
export interface LabelChange {
  cluster: string;
  key: string;
  value: string | null;
}

/** The what-if: changes made to a copy of the fleet's clusters, in this order. */
export interface FleetChanges {
  /** Clusters removed from the fleet (as being deleted: the scheduler moves their workloads). */
  withoutClusters?: string[];
  /** Clusters cordoned, as `karmadactl cordon` does it: the `cluster.karmada.io/unschedulable:NoSchedule` taint. */
  cordon?: string[];
  taints?: TaintChange[];
  labels?: LabelChange[];
}

/** Upstream feature gates of the controller manager that change what happens. */
export interface SimulationFeatures {
  /** The taint manager evicts from NoExecute-tainted clusters (upstream default: off). */
  Failover?: boolean;
  /** Policies with `preemption: Always` take templates from lower-priority claimers (upstream default: off). */
  PropagationPolicyPreemption?: boolean;
}

/** One cluster of a binding, before and after: replicas, 0 for a non-workload, null when not placed there. */
export interface ClusterShift {
  cluster: string;
  before: number | null;
  after: number | null;
  /** Why the cluster was left, when it was: removed, evicted, or rescheduled away. */
  why?: string;
}

/** A taint manager eviction the change causes. */
export interface Eviction {
  cluster: string;
  why: string;
  /** Seconds until a toleration runs out, when it is not at once. */
  afterSeconds?: number;
}

export type BindingKind = "ResourceBinding" | "ClusterResourceBinding";

/** An existing binding whose placement the change alters. */
export interface BindingChange {
  kind: BindingKind;
  namespace?: string;
  name: string;
  resource: { apiVersion: string; kind: string; namespace?: string; name: string };
  /** Replicas of the workload (absent for non-workloads). */
  replicas?: number;
  workload: boolean;
  before: TargetCluster[];
  after: TargetCluster[];
  /** Only the clusters that change. */
  shifts: ClusterShift[];
  evictions?: Eviction[];
  /** Why the scheduler looked at it again (upstream's doScheduleBinding reasons). */
  trigger?: SchedulingTrigger;
  /** The scheduler would fail: the condition reason and upstream's message. */
  failure?: { reason: ScheduleFailureReason; message: string };
  /** A dependency (propagateDeps) that follows these bindings. */
  follows?: string[];
  explanation?: ScheduleExplanation;
}

export interface ReplayReport {
  /** Only bindings whose placement changes, or that would become unschedulable. */
  changes: BindingChange[];
  summary: { bindings: number; moved: number; unschedulable: number };
}

export type TemplateOutcome =
  /** The scheduler places it (the clusters say where). */
  | "Scheduled"
  /** It exists already and would not be rescheduled: placement as it is. */
  | "Unchanged"
  /** The scheduler would fail (message: upstream's). */
  | "Unschedulable"
  /** No binding would be scheduled (no policy, reserved namespace, kind not served, ...). */
  | "NotPropagated";

export interface TemplateResult {
  /** The file (or `-`) it came from. */
  source: string;
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  outcome: TemplateOutcome;
  /** Why not propagated or unschedulable, or why unchanged. */
  message?: string;
  /** The scheduler would fail: the condition reason and upstream's message (also in `message`). */
  failure?: { reason: ScheduleFailureReason; message: string };
  policy?: {
    kind: "PropagationPolicy" | "ClusterPropagationPolicy";
    namespace?: string;
    name: string;
    fromFile: boolean;
  };
  /** The binding the detector would write, and whether it exists already. */
  binding?: { kind: BindingKind; namespace?: string; name: string; exists: boolean };
  replicas?: number;
  workload?: boolean;
  trigger?: SchedulingTrigger;
  /** The resulting `spec.clusters`. */
  placement: TargetCluster[];
  /** Per cluster of the fleet: the scheduler's verdict (filter and reason, or replicas). */
  clusters: ClusterExplanation[];
  explanation?: ScheduleExplanation;
  warnings?: string[];
}

export interface TemplatesReport {
  results: TemplateResult[];
  summary: {
    templates: number;
    scheduled: number;
    unchanged: number;
    unschedulable: number;
    notPropagated: number;
  };
}

export interface SimulationReport {
  /** The changes, as sentences ("cluster member1 removed"). */
  changes: string[];
  /** Gates assumed for the controller manager. */
  features: Required<SimulationFeatures>;
  /** With templates: where each would go. */
  templates?: TemplatesReport;
  /** Without templates: the existing bindings that would move. */
  bindings?: ReplayReport;
  /** Things the reader should know (unreadable objects, NoExecute taints with Failover off, ...). */
  warnings: string[];
}
