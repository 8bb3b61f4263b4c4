/**
 * The failover timeline's order, shared by the backend (which cuts the newest entries) and the
 * page (which keeps rows in a map): newest first; within one second (event times have no finer
 * grain) effects above their causes, as a newest-first list reads. Imports nothing but types,
 * so the web code can use it too.
 */
import type { TimelineEntry, TimelineKind } from "./wire.ts";

/** Causes first: a cluster's state and taints, evictions, tasks and relayed state, the reschedule, the task's end. */
const CAUSAL_ORDER: readonly TimelineKind[] = [
  "cluster",
  "taint",
  "shadow",
  "application-failover",
  "eviction",
  "eviction-task",
  "state-relayed",
  "rescheduled",
  "task-ended",
];

export function newestFirst(a: TimelineEntry, b: TimelineEntry): number {
  if (a.time !== b.time) return a.time < b.time ? 1 : -1;
  const causal = CAUSAL_ORDER.indexOf(b.kind) - CAUSAL_ORDER.indexOf(a.kind);
  if (causal !== 0) return causal;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}
