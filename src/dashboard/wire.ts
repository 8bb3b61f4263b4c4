/**
 * What the dashboard's backend sends the browser: plain JSON shapes, computed server-side per
 * signed-in user from what that user may read. This file imports nothing, so the web code
 * (src/dashboard/web, DOM types) and the backend (Node types) type-check the same declarations.
 */

/** How a status reads at a glance: green, amber, red, grey. Every tone is shown with a text label too. */
export type Tone = "good" | "warn" | "bad" | "neutral";

/** A source the view needs that the user may not read (or that failed), as the API server said it. */
export interface Problem {
  /** `clusters.cluster.karmada.io`, `resourcebindings.work.karmada.io` ... */
  resource: string;
  /** The namespace listed, absent for all namespaces or a cluster-scoped resource. */
  namespace?: string;
  /** The HTTP status: 403 forbidden, 401 unauthorized, 503 unreachable ... */
  code: number;
  reason: string;
  message: string;
}

/** Who the dashboard acts as (SelfSubjectReview, as `kubectl auth whoami`). */
export interface WhoAmI {
  /** `local`: bound to loopback, acting as the kubeconfig's user; `token`: the user's bearer token. */
  mode: "local" | "token";
  username: string;
  groups: string[];
  /** The control plane the dashboard reads. */
  server: string;
}

/** One message of a live view stream (newline-delimited JSON). Rows are keyed by `key`. */
export type StreamMessage<Row extends { key: string }, Meta> =
  | {
      type: "snapshot";
      rows: Row[];
      meta: Meta;
      problems: Problem[];
      /** False until every source has listed once (or failed): the page shows "loading". */
      synced: boolean;
    }
  | {
      type: "patch";
      upsert: Row[];
      remove: string[];
      meta?: Meta;
      problems?: Problem[];
      synced?: boolean;
    }
  /** Keeps idle connections open through proxies; carries nothing. */
  | { type: "ping" };

// ---- Clusters -------------------------------------------------------------------------------

export type Readiness = "Ready" | "NotReady" | "Unknown";

export interface CapacityBar {
  resource: string;
  /** In base units: cores, bytes, pods. */
  allocatable: number;
  allocated: number;
  /** Ready to show, e.g. `1.5 / 8 cores`. */
  text: string;
}

export interface TaintView {
  key: string;
  value?: string;
  effect: string;
  timeAdded?: string;
}

export interface ClusterTile {
  key: string;
  name: string;
  /** `spec.region`, "" when unset. */
  region: string;
  /** The first of `spec.zones` (or the deprecated `spec.zone`), "" when unset. */
  zone: string;
  zones: string[];
  provider?: string;
  readiness: Readiness;
  /** The Ready condition's reason and message. */
  readyReason?: string;
  readyMessage?: string;
  syncMode: "Push" | "Pull";
  kubernetesVersion?: string;
  nodes?: { total: number; ready: number };
  capacity: CapacityBar[];
  taints: TaintView[];
  /** Bindings with this cluster in `spec.clusters`. */
  workloads: number;
  deleting: boolean;
}

export interface ClustersMeta {
  total: number;
  ready: number;
  notReady: number;
  unknown: number;
  tainted: number;
}

// ---- Workloads ------------------------------------------------------------------------------

export type MemberHealth = "Healthy" | "Unhealthy" | "Unknown";

/** A binding's health over its clusters, worst first: what the workloads table colours. */
export type WorkloadHealth =
  | "Unschedulable"
  | "Unhealthy"
  | "Progressing"
  | "Pending"
  | "Unknown"
  | "Healthy";

export interface PolicyRef {
  kind: "PropagationPolicy" | "ClusterPropagationPolicy";
  namespace?: string;
  name: string;
}

export interface Placement {
  cluster: string;
  /** Replicas assigned there (absent for non-workloads). */
  replicas?: number;
  /** From `status.aggregatedStatus`; absent while the cluster has not reported. */
  health?: MemberHealth;
  applied?: boolean;
  appliedMessage?: string;
  /** Ready replicas over desired, from the reflected status, when it has them. */
  ready?: string;
  /** The cluster is leaving: a graceful eviction task keeps its copy for now. */
  evicting?: boolean;
}

export interface WorkloadRow {
  /** `rb/<namespace>/<name>` or `crb/<name>`: the binding. */
  key: string;
  bindingKind: "ResourceBinding" | "ClusterResourceBinding";
  bindingName: string;
  /** The template's. */
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  policy?: PolicyRef;
  /** `spec.replicas`; 0 for objects that are not workloads. */
  replicas: number;
  placements: Placement[];
  health: WorkloadHealth;
  /** A sentence saying why the health is what it is. */
  healthText: string;
  /** The newest condition transition, RFC 3339. */
  updated?: string;
}

export interface WorkloadsMeta {
  total: number;
  byHealth: Partial<Record<WorkloadHealth, number>>;
}

// ---- One workload ---------------------------------------------------------------------------

export interface ConditionView {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

export interface SchedulingCluster {
  name: string;
  outcome: "selected" | "not selected" | "filtered out" | "being deleted";
  tone: Tone;
  replicas?: number;
  /** Filtered: `<Plugin>: <reason>`; passed: score, fit, current replicas. */
  detail: string;
  filteredBy?: string;
}

export interface SchedulingAttempt {
  /** The clusterAffinities term, when the policy has several. */
  title?: string;
  needs?: string;
  clusters: SchedulingCluster[];
  spread?: string;
  replicas?: string;
  error?: string;
}

export interface ProvenanceChange {
  /** A JSON path in the manifest, e.g. `spec.template.spec.containers[0].image`. */
  path: string;
  op: "added" | "removed" | "changed";
  /** YAML-ish short renderings; absent for added (before) or removed (after). */
  before?: string;
  after?: string;
  /** Who made the change. */
  by: {
    source: "ClusterOverridePolicy" | "OverridePolicy" | "Scheduler" | "Failover";
    /** The policy's name (namespace/name for an OverridePolicy). */
    policy?: string;
    /** `imageOverrider`, `labelsOverrider`, `plaintext` ... */
    overrider?: string;
    note?: string;
  };
}

export interface MemberView {
  cluster: string;
  workNamespace: string;
  workName: string;
  /** The manifest the member gets, as YAML. */
  yaml: string;
  provenance: ProvenanceChange[];
  /** Why provenance is incomplete or absent (template unreadable, result differs ...). */
  provenanceNote?: string;
  applied?: boolean;
  appliedMessage?: string;
  health?: MemberHealth;
  suspended: boolean;
}

export interface EvictionTaskView {
  fromCluster: string;
  reason: string;
  producer: string;
  purgeMode?: string;
  replicas?: number;
  message?: string;
  created?: string;
  preservedLabelState?: Record<string, string>;
  clustersBeforeFailover?: string[];
}

export interface WorkloadDetail {
  key: "detail";
  row: WorkloadRow;
  policy?: PolicyRef & { found: boolean; summary: string[] };
  scheduling: SchedulingAttempt[];
  /** The scheduler's explanation, as `karmadactl describe` prints it. */
  schedulingText: string[];
  conditions: ConditionView[];
  members: MemberView[];
  /** Why members are missing (Works unreadable ...). */
  membersNote?: string;
  evictionTasks: EvictionTaskView[];
  events: TimelineEntry[];
}

// ---- Failover timeline ----------------------------------------------------------------------

export type TimelineKind =
  | "taint"
  | "cluster"
  | "eviction"
  | "eviction-task"
  | "task-ended"
  | "application-failover"
  | "state-relayed"
  | "rescheduled"
  | "shadow";

export interface TimelineEntry {
  key: string;
  /** RFC 3339. */
  time: string;
  kind: TimelineKind;
  tone: Tone;
  title: string;
  detail?: string;
  cluster?: string;
  /** The workload it is about: its key (WorkloadRow.key) and a label. */
  workload?: { key: string; label: string };
  /** The component that reported it (events), or `binding` / `cluster` for what objects show. */
  source: string;
  count?: number;
}

export interface TimelineMeta {
  total: number;
  clusters: string[];
}

// ---- Policies -------------------------------------------------------------------------------

export type PolicyKind =
  | "PropagationPolicy"
  | "ClusterPropagationPolicy"
  | "OverridePolicy"
  | "ClusterOverridePolicy";

export interface PolicyRow {
  /** `<kind>/<namespace>/<name>` or `<kind>/<name>`. */
  key: string;
  kind: PolicyKind;
  namespace?: string;
  name: string;
  priority?: number;
  preemption?: string;
  /** One line per resource selector. */
  selectors: string[];
  /** Propagation policies: placement, replica scheduling, failover, in short lines. */
  placement: string[];
  /** Override policies: one line per rule (target clusters: overriders). */
  rules: string[];
  /** The workloads it claims (propagation), or whose member copies it changed (override). */
  claims: Array<{ key: string; label: string }>;
}

export interface PoliciesMeta {
  propagation: number;
  override: number;
}

// ---- What-if --------------------------------------------------------------------------------

/** What the what-if page asks: the same changes as `karmadactl simulate`'s flags, in their syntax. */
export interface WhatIfRequest {
  withoutClusters: string[];
  cordon: string[];
  /** `cluster=key[=value]:Effect`, `cluster=key:Effect-`. */
  taints: string[];
  /** `cluster=key=value`, `cluster=key-`. */
  labels: string[];
  /** Templates and policies to place (YAML or JSON, as `-f`); absent: replay the existing bindings. */
  manifests?: string;
  /** Assume the controller manager's Failover gate is on (NoExecute taints evict). */
  failover?: boolean;
}

export interface WhatIfShift {
  cluster: string;
  /** Replicas before and after; null: not placed there. */
  before: number | null;
  after: number | null;
  why?: string;
}

export interface WhatIfMove {
  /** The workload's key (WorkloadRow.key). */
  key: string;
  label: string;
  workload: boolean;
  replicas?: number;
  shifts: WhatIfShift[];
  evictions: string[];
  /** The scheduler would fail: why. */
  failure?: string;
  follows?: string[];
}

export interface WhatIfTemplate {
  label: string;
  outcome: "Scheduled" | "Unchanged" | "Unschedulable" | "NotPropagated";
  tone: Tone;
  message?: string;
  policy?: string;
  placement: Array<{ cluster: string; replicas?: number }>;
  /** Clusters a filter plugin left out, with the plugin and its reason. */
  filtered: Array<{ cluster: string; reason: string }>;
}

export interface WhatIfResult {
  /** The changes as sentences. */
  changes: string[];
  warnings: string[];
  /** Replay: what would move. */
  replay?: { bindings: number; moved: number; unschedulable: number; moves: WhatIfMove[] };
  /** Templates: where each would go. */
  templates?: WhatIfTemplate[];
}
