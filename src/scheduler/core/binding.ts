/**
 * What the algorithm asks of a binding: is it a workload, how are its replicas scheduled,
 * where does it run now, and was a fresh reschedule requested.
 */
import type { BindingSpec, Placement, TargetCluster } from "../../karmada/types.ts";
import type { BindingSchedulingStatus } from "./types.ts";

/** `ResourceBindingSpec.IsWorkload`: replicas, per-replica requirements or components. */
export function isWorkload(spec: BindingSpec): boolean {
  return (spec.replicas ?? 0) > 0 || spec.replicaRequirements != null || componentCount(spec) >= 1;
}

/** `spec.components` (multi-template workloads) is not typed yet; only its length matters here. */
export function componentCount(spec: BindingSpec): number {
  const components = (spec as { components?: unknown[] }).components;
  return Array.isArray(components) ? components.length : 0;
}

/**
 * `Placement.ReplicaSchedulingType()`: no replicaScheduling means Duplicated. A
 * replicaScheduling without a type is Divided, the CRD default every stored binding has.
 */
export function replicaSchedulingType(placement: Placement | undefined): string {
  const rs = placement?.replicaScheduling;
  if (!rs) return "Duplicated";
  return rs.replicaSchedulingType ?? "Divided";
}

export function targetNames(clusters: readonly TargetCluster[] | undefined): Set<string> {
  return new Set((clusters ?? []).map((c) => c.name));
}

export function sumReplicas(clusters: readonly TargetCluster[] | undefined): number {
  let sum = 0;
  for (const c of clusters ?? []) sum += c.replicas ?? 0;
  return sum;
}

/** `util.RescheduleRequired`: a trigger strictly after the last successful schedule. */
export function rescheduleRequired(spec: BindingSpec, status: BindingSchedulingStatus | undefined): boolean {
  if (!spec.rescheduleTriggeredAt || !status?.lastScheduledTime) return false;
  const triggered = Date.parse(spec.rescheduleTriggeredAt);
  const last = Date.parse(status.lastScheduledTime);
  return Number.isFinite(triggered) && Number.isFinite(last) && triggered > last;
}
