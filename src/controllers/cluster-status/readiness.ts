/**
 * The conditions cluster status publishes, as pure functions: Ready from the probed health,
 * held back by the success and failure thresholds (upstream's clusterConditionStore), and
 * CompleteAPIEnablements from what discovery returned.
 */
import type { Condition, ConditionStatus, ConditionUpdate } from "../../machinery/conditions.ts";
import type { Health } from "./probe.ts";

export const READY_MESSAGES = {
  ready: {
    status: "True",
    reason: "ClusterReady",
    message: "cluster is healthy and ready to accept workloads",
  },
  notReady: {
    status: "False",
    reason: "ClusterNotReady",
    message: "cluster is reachable but health endpoint responded without ok",
  },
  unreachable: { status: "False", reason: "ClusterNotReachable", message: "cluster is not reachable" },
} as const;

/** The Ready condition a probe's health calls for. */
export function observedReady(health: Health): ConditionUpdate {
  const messages =
    health === "healthy"
      ? READY_MESSAGES.ready
      : health === "unhealthy"
        ? READY_MESSAGES.notReady
        : READY_MESSAGES.unreachable;
  return { type: "Ready", ...messages };
}

/** The Ready condition when no client for the member could be made (its credentials, say). */
export function connectFailedReady(err: Error): ConditionUpdate {
  const message = `failed to create a ClusterClient: ${err.message}`;
  return { type: "Ready", status: "False", reason: "StatusCollectionFailed", message };
}

/** The Ready status last observed for a cluster, and since when it has been observed. */
export interface Observation {
  /** The Cluster's uid: a Cluster recreated under the same name starts afresh. */
  uid: string | undefined;
  status: ConditionStatus;
  since: number;
}

export interface Thresholds {
  successMs: number;
  failureMs: number;
}

/**
 * Whether an observed Ready status may be published now: a flip between True and not-True
 * must persist for the threshold (failure threshold when losing True, success threshold when
 * gaining it); anything else is published at once.
 */
export function publishable(
  current: Pick<Condition, "status"> | undefined,
  observed: ConditionStatus,
  observedSince: number,
  now: number,
  thresholds: Thresholds,
): boolean {
  if (!current || current.status === observed) return true;
  if (current.status === "True") return now - observedSince >= thresholds.failureMs;
  if (observed === "True") return now - observedSince >= thresholds.successMs;
  return true;
}

/**
 * The Ready condition to publish (the observed one, unless it flips True/not-True and has not
 * lasted the threshold yet: then the current one) and the observation to remember. The first
 * observation of a cluster (`seen` absent, or of another uid) is published as it is, as
 * upstream's condition cache starts empty.
 */
export function thresholdAdjusted(
  seen: Observation | undefined,
  uid: string | undefined,
  current: Condition | undefined,
  observed: ConditionUpdate,
  now: number,
  thresholds: Thresholds,
): { ready: ConditionUpdate; seen: Observation } {
  const first = seen === undefined || seen.uid !== uid;
  const since = !first && seen.status === observed.status ? seen.since : now;
  const next: Observation = { uid, status: observed.status, since };
  if (first || !current) return { ready: observed, seen: next };
  return {
    ready: publishable(current, observed.status, since, now, thresholds) ? observed : current,
    seen: next,
  };
}

/** CompleteAPIEnablements from how many group versions discovery listed, and whether all. */
export function completeAPIEnablements(count: number, complete: boolean): ConditionUpdate {
  const type = "CompleteAPIEnablements";
  if (count === 0)
    return {
      type,
      status: "False",
      reason: "Empty",
      message: "collected empty APIEnablements from the cluster",
    };
  if (!complete)
    return {
      type,
      status: "False",
      reason: "Partial",
      message: `might collect partial APIEnablements(${count}) from the cluster`,
    };
  return {
    type,
    status: "True",
    reason: "Complete",
    message: "collected complete APIEnablements from the cluster",
  };
}
