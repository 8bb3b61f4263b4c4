/**
 * Status conditions the way the Kubernetes controllers keep them: one per type; a condition
 * whose status and reason did not change is left alone; a changed one moves to the end of
 * the list and keeps its lastTransitionTime unless its status flipped.
 */
import type { Condition } from "./types.ts";

export function getCondition(
  conditions: readonly Condition[] | undefined,
  type: string,
): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

export function isConditionTrue(conditions: readonly Condition[] | undefined, type: string): boolean {
  return getCondition(conditions, type)?.status === "True";
}

/**
 * Returns the conditions with `next` set (a new array; the input is not changed). The caller
 * fills the timestamps of `next`; `lastTransitionTime` is carried over when the status did
 * not change.
 */
export function setCondition(conditions: readonly Condition[] | undefined, next: Condition): Condition[] {
  const list = conditions ?? [];
  const current = getCondition(list, next.type);
  if (current && current.status === next.status && current.reason === next.reason) return [...list];
  const cond = { ...next };
  if (current && current.status === next.status && current.lastTransitionTime) {
    cond.lastTransitionTime = current.lastTransitionTime;
  }
  return [...list.filter((c) => c.type !== next.type), cond];
}

export function removeCondition(conditions: readonly Condition[] | undefined, type: string): Condition[] {
  return (conditions ?? []).filter((c) => c.type !== type);
}
