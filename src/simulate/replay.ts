/**
 * Replaying the existing bindings against the changed fleet (pure): for each
 * (Cluster)ResourceBinding, what the control plane would do after the clusters changed, in the
 * order it would do it.
 *
 * 1. The taint manager (gate Failover): a workload on a cluster whose NoExecute taints changed
 *    is evicted when its applied placement does not tolerate them, at once or when a
 *    toleration's seconds run out (the same decision as src/controllers/taint-manager.ts). The
 *    cluster leaves `spec.clusters` for a graceful eviction task.
 * 2. The scheduler: a binding is looked at again when a changed cluster (as it was or as it
 *    is now) matches its cluster affinity, as upstream's `enqueueAffectedBindings`, or when an
 *    eviction changed it. `needsScheduling` (upstream's doScheduleBinding) then says whether it
 *    is scheduled: Duplicated and non-workloads always, Divided workloads only when a target is
 *    being deleted, replicas no longer add up (after an eviction) or the placement changed.
 *    Divided workloads are deliberately not rebalanced onto clusters that merely became
 *    eligible, as upstream.
 * 3. `schedule` (src/scheduler/core) gives the new `spec.clusters`; a failure keeps them
 *    (cleared on a no-fit, as upstream writes `spec.clusters = null`).
 * 4. Dependencies (`propagateDeps`) follow the bindings that require them.
 */

import { schedulable } from "../controllers/scheduler.ts";
import { appliedTolerations, evictionDecision, noExecuteTaints } from "../controllers/taint-manager.ts";
import type { Binding } from "../karmada/bindings.ts";
import { evictCluster } from "../karmada/failover.ts";
import type { BindingSpec, ClusterAffinity, ClusterObject, TargetCluster } from "../karmada/types.ts";
import type { Condition } from "../machinery/conditions.ts";
import { affinityMatches } from "../scheduler/core/affinity.ts";
import { isWorkload } from "../scheduler/core/binding.ts";
import { needsScheduling, type SchedulingTrigger } from "../scheduler/core/needs-scheduling.ts";
import { schedule } from "../scheduler/core/schedule.ts";
import {
  type BindingSchedulingStatus,
  ScheduleError,
  type ScheduleExplanation,
  type ScheduleFailureReason,
  type ScheduleOptions,
} from "../scheduler/core/types.ts";
import type { ChangedCluster } from "./changes.ts";
import type { BindingChange, BindingKind, ClusterShift, Eviction, ReplayReport } from "./types.ts";

export interface ReplayInput {
  resourceBindings: readonly Binding[];
  clusterResourceBindings: readonly Binding[];
  /** The fleet's clusters after the changes. */
  clusters: readonly ClusterObject[];
  /** The clusters the changes altered. */
  changed: readonly ChangedCluster[];
}

export interface ReplayOptions {
  now: number;
  /** Gate Failover: the taint manager evicts. */
  failover: boolean;
  schedule?: ScheduleOptions;
}

type SchedulingStatus = BindingSchedulingStatus & {
  schedulerObservedGeneration?: number;
  conditions?: Condition[];
};

const statusOf = (b: Binding): SchedulingStatus => (b.status ?? {}) as SchedulingStatus;

/** The affinity upstream's scheduler matches a changed cluster against; undefined: any cluster. */
function affinityOf(b: Binding): { any: true } | { affinity: ClusterAffinity | undefined } {
  const placement = b.spec.placement!;
  const terms = placement.clusterAffinities;
  if (!terms) return { affinity: placement.clusterAffinity };
  const status = statusOf(b);
  // Not scheduled since its last change: upstream requeues it whatever the cluster.
  if (status.schedulerObservedGeneration !== b.metadata.generation) return { any: true };
  const at = terms.findIndex((t) => t.affinityName === status.schedulerObservingAffinityName);
  return { affinity: terms[Math.max(at, 0)] };
}

/** Whether upstream's `enqueueAffectedBindings` would queue the binding for these cluster changes. */
export function affectedByClusters(b: Binding, changed: readonly ChangedCluster[]): boolean {
  if (!b.spec.placement || changed.length === 0) return false;
  const a = affinityOf(b);
  if ("any" in a) return true;
  return changed.some((c) => affinityMatches(c.before, a.affinity) || affinityMatches(c.after, a.affinity));
}

const noExecuteOf = (c: ClusterObject | undefined) =>
  JSON.stringify(noExecuteTaints(c?.spec?.taints).map((t) => [t.key, t.value ?? "", t.effect]));

/** The taint manager's evictions of this binding from clusters whose NoExecute taints changed. */
export function taintEvictions(b: Binding, changed: readonly ChangedCluster[], now: number): Eviction[] {
  if (!isWorkload(b.spec) || b.metadata.deletionTimestamp) return [];
  const targets = new Set((b.spec.clusters ?? []).map((c) => c.name));
  const tolerations = appliedTolerations(b.metadata.annotations);
  const out: Eviction[] = [];
  for (const { before, after } of changed) {
    const name = after.metadata.name;
    if (!targets.has(name) || noExecuteOf(before) === noExecuteOf(after)) continue;
    const decision = evictionDecision(after.spec?.taints, tolerations, now);
    if (decision.evict) out.push({ cluster: name, why: decision.why });
    else if (decision.recheckAfterMs !== undefined) {
      out.push({
        cluster: name,
        why: "a toleration runs out",
        afterSeconds: Math.ceil(decision.recheckAfterMs / 1000),
      });
    }
  }
  return out;
}

const placed = (clusters: readonly TargetCluster[] | undefined): Map<string, number> =>
  new Map((clusters ?? []).map((c) => [c.name, c.replicas ?? 0]));

/** The clusters whose replicas differ, in the order before-then-new. */
export function shiftsBetween(
  before: readonly TargetCluster[] | undefined,
  after: readonly TargetCluster[] | undefined,
): ClusterShift[] {
  const b = placed(before);
  const a = placed(after);
  const names = [...new Set([...b.keys(), ...a.keys()])];
  return names
    .filter((n) => b.get(n) !== a.get(n))
    .map((n) => ({ cluster: n, before: b.get(n) ?? null, after: a.get(n) ?? null }));
}

function wasUnschedulable(b: Binding): boolean {
  return (statusOf(b).conditions ?? []).some((c) => c.type === "Scheduled" && c.status === "False");
}

/** A binding's spec after the taint manager moved the evicted clusters into eviction tasks. */
export function withEvictions(spec: BindingSpec, evictions: readonly Eviction[]): BindingSpec {
  let out = spec;
  for (const e of evictions) {
    const next = evictCluster(out, e.cluster, { reason: "TaintUntolerated", producer: "TaintManager" });
    if (next) out = { ...out, ...next };
  }
  return out;
}

/** What the scheduler does with a binding it looks at: whether it schedules, and the outcome. */
export interface Rescheduling {
  trigger?: SchedulingTrigger;
  /** `spec.clusters` afterwards. */
  clusters: TargetCluster[];
  failure?: { reason: ScheduleFailureReason; message: string };
  explanation?: ScheduleExplanation;
}

/** `needsScheduling`, then `schedule` when it says so; a failure keeps `spec.clusters` but a no-fit clears them. */
export function reschedule(
  binding: { metadata: Binding["metadata"]; spec: BindingSpec; status: BindingSchedulingStatus },
  clusters: readonly ClusterObject[],
  options?: ScheduleOptions,
): Rescheduling {
  const { metadata, spec, status } = binding;
  const trigger = needsScheduling({ metadata, spec, status }, clusters);
  if (!trigger) return { clusters: spec.clusters ?? [] };
  try {
    const result = schedule({
      binding: {
        ...(metadata.namespace ? { namespace: metadata.namespace } : {}),
        name: metadata.name,
        spec,
        status,
      },
      clusters: [...clusters],
      ...(options ? { options } : {}),
    });
    return { trigger, clusters: result.clusters, explanation: result.explanation };
  } catch (err) {
    if (!(err instanceof ScheduleError)) throw err;
    return {
      trigger,
      clusters: err.clearsClusters ? [] : (spec.clusters ?? []),
      failure: { reason: err.reason, message: err.message },
      explanation: err.explanation,
    };
  }
}

function resourceOf(b: Binding): BindingChange["resource"] {
  const r = b.spec.resource;
  return {
    apiVersion: r.apiVersion,
    kind: r.kind,
    ...(r.namespace ? { namespace: r.namespace } : {}),
    name: r.name,
  };
}

interface Outcome {
  change?: BindingChange;
  /** `spec.clusters` after the replay (for the dependencies that follow it). */
  clusters: TargetCluster[];
}

function replayOne(kind: BindingKind, b: Binding, input: ReplayInput, options: ReplayOptions): Outcome {
  const before = b.spec.clusters ?? [];
  if (b.metadata.deletionTimestamp || !schedulable(b) || !b.spec.placement) return { clusters: before };
  const evictions = options.failover ? taintEvictions(b, input.changed, options.now) : [];
  if (evictions.length === 0 && !affectedByClusters(b, input.changed)) return { clusters: before };
  const spec = withEvictions(b.spec, evictions);
  const next = reschedule(
    { metadata: b.metadata, spec, status: statusOf(b) },
    input.clusters,
    options.schedule,
  );
  const shifts = shiftsBetween(before, next.clusters);
  // A binding that already failed to schedule and still does is no news.
  const newlyFailing = next.failure !== undefined && (!wasUnschedulable(b) || shifts.length > 0);
  if (shifts.length === 0 && !newlyFailing) return { clusters: next.clusters };
  annotateShifts(shifts, evictions, input.clusters);
  const workload = isWorkload(b.spec);
  const change: BindingChange = {
    kind,
    ...(b.metadata.namespace ? { namespace: b.metadata.namespace } : {}),
    name: b.metadata.name,
    resource: resourceOf(b),
    ...(workload ? { replicas: b.spec.replicas ?? 0 } : {}),
    workload,
    before,
    after: next.clusters,
    shifts,
    ...(evictions.length ? { evictions } : {}),
    ...(next.trigger ? { trigger: next.trigger } : {}),
    ...(next.failure ? { failure: next.failure } : {}),
    ...(next.explanation ? { explanation: next.explanation } : {}),
  };
  return { change, clusters: next.clusters };
}

/** Says why a cluster lost the binding: it is being removed, or evicted; else the scheduler moved it. */
function annotateShifts(
  shifts: ClusterShift[],
  evictions: readonly Eviction[],
  clusters: readonly ClusterObject[],
): void {
  const deleting = new Set(clusters.filter((c) => c.metadata.deletionTimestamp).map((c) => c.metadata.name));
  for (const s of shifts) {
    const eviction = evictions.find((e) => e.cluster === s.cluster);
    if (eviction) {
      const when = eviction.afterSeconds !== undefined ? ` after ${eviction.afterSeconds}s` : "";
      s.why = `evicted${when}: ${eviction.why}`;
    } else if (deleting.has(s.cluster) && s.after === null) {
      s.why = `cluster ${s.cluster} is being removed`;
    }
  }
}

const bindingKey = (namespace: string | undefined, name: string): string =>
  namespace ? `${namespace}/${name}` : name;

/** Every binding replayed; only those that change (or would fail to schedule) are reported. */
export function replayBindings(input: ReplayInput, options: ReplayOptions): ReplayReport {
  const changes: BindingChange[] = [];
  const newClusters = new Map<string, TargetCluster[]>();
  const all: Array<[BindingKind, Binding]> = [
    ...input.resourceBindings.map((b): [BindingKind, Binding] => ["ResourceBinding", b]),
    ...input.clusterResourceBindings.map((b): [BindingKind, Binding] => ["ClusterResourceBinding", b]),
  ];
  for (const [kind, b] of all) {
    const outcome = replayOne(kind, b, input, options);
    if (kind === "ResourceBinding")
      newClusters.set(bindingKey(b.metadata.namespace, b.metadata.name), outcome.clusters);
    if (outcome.change) changes.push(outcome.change);
  }
  // Dependencies are placed where the bindings requiring them are (upstream's attached bindings).
  for (const [kind, b] of all) {
    const requiredBy = b.spec.requiredBy ?? [];
    if (requiredBy.length === 0 || b.metadata.deletionTimestamp) continue;
    const followed = requiredBy.filter((r) => {
      const next = newClusters.get(bindingKey(r.namespace, r.name));
      return next !== undefined && shiftsBetween(r.clusters, next).length > 0;
    });
    if (followed.length === 0) continue;
    const union = (pick: (r: (typeof requiredBy)[number]) => readonly TargetCluster[] | undefined) => {
      const names = new Set((b.spec.clusters ?? []).map((c) => c.name));
      for (const r of requiredBy) for (const c of pick(r) ?? []) names.add(c.name);
      return [...names].map((name) => ({ name }));
    };
    const before = union((r) => r.clusters);
    const after = union((r) => newClusters.get(bindingKey(r.namespace, r.name)) ?? r.clusters);
    const shifts = shiftsBetween(before, after);
    if (shifts.length === 0) continue;
    const existing = changes.find(
      (c) => c.kind === kind && c.namespace === b.metadata.namespace && c.name === b.metadata.name,
    );
    const follows = followed.map((r) => bindingKey(r.namespace, r.name));
    if (existing) {
      existing.follows = follows;
      continue;
    }
    changes.push({
      kind,
      ...(b.metadata.namespace ? { namespace: b.metadata.namespace } : {}),
      name: b.metadata.name,
      resource: resourceOf(b),
      workload: false,
      before,
      after,
      shifts,
      follows,
    });
  }
  const unschedulable = changes.filter((c) => c.failure).length;
  return {
    changes,
    summary: { bindings: all.length, moved: changes.length - unschedulable, unschedulable },
  };
}
