/**
 * "Does this binding need scheduling?" (upstream `doScheduleBinding`): the first rule that holds
 * names the reason. Divided workloads are deliberately not rebalanced when clusters come and go;
 * they are only rescheduled on these triggers.
 */

import { ANNOTATION } from "../../karmada/names.ts";
import type { BindingSpec, ClusterAffinityTerm, ClusterObject, Placement } from "../../karmada/types.ts";
import { deepEqual } from "../../machinery/equality.ts";
import { isWorkload, replicaSchedulingType, rescheduleRequired, sumReplicas } from "./binding.ts";
import { EXPLANATION_ANNOTATION, recordedExplanation } from "./explanation.ts";
import { servesApi } from "./plugins.ts";
import type { BindingSchedulingStatus } from "./types.ts";

export type SchedulingTrigger =
  /** No applied-placement annotation, or the placement differs from the one last scheduled. */
  | "PlacementChanged"
  /** `spec.replicas` no longer matches the replicas in `spec.clusters` (upstream's "ScaleSchedule"). */
  | "ReplicasChanged"
  /** `spec.rescheduleTriggeredAt` is after `status.lastScheduledTime`. */
  | "RescheduleTriggered"
  /** Not a workload: always rescheduled, so new clusters get it. */
  | "NonWorkload"
  /** Duplicated (or no replicaScheduling): always rescheduled. */
  | "Duplicated"
  /** A cluster in `spec.clusters` is being deleted. */
  | "TerminatingTarget"
  /**
   * Beyond upstream: a cluster the last decision left out for not serving the resource's API
   * serves it now (a CRD that reached the member after the workload was scheduled).
   */
  | "APIEnabled";

export interface SchedulingBinding {
  metadata: { annotations?: Record<string, string>; deletionTimestamp?: string };
  spec: BindingSpec;
  status?: BindingSchedulingStatus;
}

/**
 * Why the binding needs scheduling, or undefined when it does not (then only
 * `status.schedulerObservedGeneration` is brought up to `metadata.generation`). A deleting
 * binding, or one without a placement (upstream errors: "never reach here"), is not scheduled.
 */
export function needsScheduling(
  binding: SchedulingBinding,
  clusters: readonly ClusterObject[],
): SchedulingTrigger | undefined {
  if (binding.metadata.deletionTimestamp) return undefined;
  const { spec } = binding;
  const placement = spec.placement;
  if (!placement) return undefined;
  const applied = binding.metadata.annotations?.[ANNOTATION.appliedPlacement] ?? "";
  if (placementChanged(placement, applied, binding.status?.schedulerObservingAffinityName ?? "")) {
    return "PlacementChanged";
  }
  if (replicasChanged(spec, placement)) return "ReplicasChanged";
  if (rescheduleRequired(spec, binding.status)) return "RescheduleTriggered";
  if (!isWorkload(spec)) return "NonWorkload";
  if (replicaSchedulingType(placement) === "Duplicated") return "Duplicated";
  const targets = new Set((spec.clusters ?? []).map((c) => c.name));
  if (clusters.some((c) => c.metadata.deletionTimestamp && targets.has(c.metadata.name))) {
    return "TerminatingTarget";
  }
  const leftOut = apiFilteredOut(binding.metadata.annotations);
  if (
    leftOut.size > 0 &&
    clusters.some(
      (c) => leftOut.has(c.metadata.name) && servesApi(c, spec.resource.apiVersion, spec.resource.kind),
    )
  ) {
    return "APIEnabled";
  }
  return undefined;
}

/** The clusters the binding's last recorded decision left out because they did not serve the API. */
export function apiFilteredOut(annotations: Record<string, string> | undefined): Set<string> {
  const out = new Set<string>();
  // Most decisions left nobody out for that: no need to parse them.
  if (!annotations?.[EXPLANATION_ANNOTATION]?.includes('"APIEnablement"')) return out;
  for (const a of recordedExplanation(annotations)?.attempts ?? [])
    for (const x of a.clusters ?? []) if (x.filteredBy === "APIEnablement") out.add(x.name);
  return out;
}

/** `util.IsBindingReplicasChanged`: only with an explicit replicaScheduling. */
export function replicasChanged(spec: BindingSpec, placement: Placement): boolean {
  if (!placement.replicaScheduling) return false;
  const replicas = spec.replicas ?? 0;
  switch (replicaSchedulingType(placement)) {
    case "Duplicated":
      return (spec.clusters ?? []).some((c) => (c.replicas ?? 0) !== replicas);
    case "Divided":
      return sumReplicas(spec.clusters) !== replicas;
    default:
      return false;
  }
}

/**
 * Upstream compares the placement with the applied one decoded into Go structs, where an
 * absent field, `null`, `""`, `0`, `false` and an empty list all read back the same (omitempty).
 * Empty objects stay: they are non-nil pointers there.
 */
function normalize(value: unknown): unknown {
  if (value === null || value === undefined || value === "" || value === 0 || value === false)
    return undefined;
  if (Array.isArray(value)) {
    return value.length === 0 ? undefined : value.map((v) => normalize(v) ?? null);
  }
  if (typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      const v = normalize((value as Record<string, unknown>)[key]);
      if (v !== undefined) out[key] = v;
    }
    return out;
  }
  return value;
}

function same(a: unknown, b: unknown): boolean {
  return deepEqual(normalize(a) ?? null, normalize(b) ?? null);
}

/**
 * `placementChanged`: the fields that decide scheduling differ from the applied placement, or
 * (clusterAffinities) the observed term is gone, changed or not recorded. A malformed
 * annotation counts as unchanged, as upstream logs and moves on.
 */
export function placementChanged(
  placement: Placement,
  appliedJson: string,
  observedAffinity: string,
): boolean {
  if (appliedJson === "") return true;
  let applied: Placement;
  try {
    const parsed: unknown = JSON.parse(appliedJson);
    applied = (typeof parsed === "object" && parsed !== null ? parsed : {}) as Placement;
  } catch {
    return false;
  }
  if (same(placement, applied)) return false;
  if (
    !same(placement.clusterAffinity, applied.clusterAffinity) ||
    !same(placement.clusterTolerations, applied.clusterTolerations) ||
    !same(placement.spreadConstraints, applied.spreadConstraints) ||
    !same(placement.replicaScheduling, applied.replicaScheduling)
  ) {
    return true;
  }
  return clusterAffinitiesChanged(placement.clusterAffinities, applied.clusterAffinities, observedAffinity);
}

function clusterAffinitiesChanged(
  current: readonly ClusterAffinityTerm[] | undefined,
  applied: readonly ClusterAffinityTerm[] | undefined,
  observed: string,
): boolean {
  if (observed === "") return true;
  const now = current?.find((t) => t.affinityName === observed);
  const then = applied?.find((t) => t.affinityName === observed);
  if (!now || !then) return true;
  return !same(now, then);
}
