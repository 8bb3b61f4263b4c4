/**
 * Status conditions as `metav1.Condition` and apimachinery's `meta` helpers keep them: one per
 * type, set in place, the transition time moving only when the status does. Karmada's kinds,
 * CRDs and namespaces follow this convention; the built-in workload kinds keep their own
 * variant (see `member-sim/conditions.ts`) but share the shape and the lookups.
 */

export type ConditionStatus = "True" | "False" | "Unknown";

/** `metav1.Condition`. */
export interface Condition {
  type: string;
  status: ConditionStatus;
  /** CamelCase, for programs. */
  reason: string;
  /** For people; may be empty. */
  message: string;
  /** RFC 3339: when `status` last changed. */
  lastTransitionTime: string;
  /** The `metadata.generation` the condition was computed from. */
  observedGeneration?: number;
}

/** What a controller sets: `setCondition` works out the transition time unless it is given. */
export type ConditionUpdate = Omit<Condition, "lastTransitionTime"> & { lastTransitionTime?: string };

/** The condition of that type, if any (`meta.FindStatusCondition`). */
export function findCondition<C extends { type: string }>(
  conditions: readonly C[] | undefined,
  type: string,
): C | undefined {
  return conditions?.find((c) => c.type === type);
}

/** Whether the condition of that type is there with status `True` (`meta.IsStatusConditionTrue`). */
export function isConditionTrue(
  conditions: readonly { type: string; status?: unknown }[] | undefined,
  type: string,
): boolean {
  return findCondition(conditions, type)?.status === "True";
}

/**
 * `meta.SetStatusCondition`: a new type is appended; an existing one takes status, reason,
 * message and observedGeneration from `next`, and its lastTransitionTime moves (to `next`'s,
 * else `now`) only when the status changes. Edits the array in place by replacing the element,
 * never the condition objects themselves, so a shallow copy of a cached list is enough. Fields
 * of the existing condition this type does not know are kept. Returns whether anything changed.
 */
export function setCondition(conditions: Condition[], next: Condition): boolean;
export function setCondition(conditions: Condition[], next: ConditionUpdate, now: string): boolean;
export function setCondition(conditions: Condition[], next: ConditionUpdate, now?: string): boolean {
  const stamp = (): string => {
    const at = next.lastTransitionTime ?? now;
    if (at === undefined) throw new TypeError(`setCondition(${next.type}): no lastTransitionTime and no now`);
    return at;
  };
  const at = conditions.findIndex((c) => c.type === next.type);
  const existing = conditions[at];
  if (existing === undefined) {
    conditions.push({ ...next, lastTransitionTime: stamp() });
    return true;
  }
  const updated: Condition = { ...existing, reason: next.reason, message: next.message };
  if (existing.status !== next.status) {
    updated.status = next.status;
    updated.lastTransitionTime = stamp();
  }
  if (next.observedGeneration === undefined) delete updated.observedGeneration;
  else updated.observedGeneration = next.observedGeneration;
  const changed =
    updated.status !== existing.status ||
    updated.reason !== existing.reason ||
    updated.message !== existing.message ||
    updated.observedGeneration !== existing.observedGeneration;
  if (changed) conditions[at] = updated;
  return changed;
}

/** Removes the condition of that type, in place (`meta.RemoveStatusCondition`); whether there was one. */
export function removeCondition(conditions: { type: string }[], type: string): boolean {
  const at = conditions.findIndex((c) => c.type === type);
  if (at < 0) return false;
  conditions.splice(at, 1);
  return true;
}
