/**
 * Conditions the way kube-controller-manager's workload controllers keep them (the
 * Deployment and Job controllers' own setters), which differs from `meta.SetStatusCondition`
 * (`machinery/conditions.ts`, whose lookups these kinds share): a condition whose status and
 * reason did not change is left alone, message included; a changed one moves to the end of
 * the list and keeps its lastTransitionTime unless its status flipped.
 */
import type { BuiltinCondition } from "./types.ts";

/**
 * Returns the conditions with `next` set (a new array; the input is not changed). The caller
 * fills the timestamps of `next`; `lastTransitionTime` is carried over when the status did
 * not change.
 */
export function setWorkloadCondition(
  conditions: readonly BuiltinCondition[] | undefined,
  next: BuiltinCondition,
): BuiltinCondition[] {
  const list = conditions ?? [];
  const current = list.find((c) => c.type === next.type);
  if (current && current.status === next.status && current.reason === next.reason) return [...list];
  const cond = { ...next };
  if (current && current.status === next.status && current.lastTransitionTime) {
    cond.lastTransitionTime = current.lastTransitionTime;
  }
  return [...withoutCondition(list, next.type), cond];
}

/** The conditions without the one of that type (a new array). */
export function withoutCondition(
  conditions: readonly BuiltinCondition[] | undefined,
  type: string,
): BuiltinCondition[] {
  return (conditions ?? []).filter((c) => c.type !== type);
}
