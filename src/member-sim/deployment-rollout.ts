/**
 * The Deployment controller's arithmetic, pure: surge and unavailability bounds, how far
 * the new ReplicaSet may grow, how far old ones may shrink, and the status with its
 * Available/Progressing conditions, following kube-controller-manager's
 * pkg/controller/deployment (rolling.go, sync.go, progress.go, util/deployment_util.go).
 */
import type { StoredObject } from "../api/meta.ts";
import { findCondition } from "../machinery/conditions.ts";
import { setWorkloadCondition, withoutCondition } from "./conditions.ts";
import type {
  BuiltinCondition,
  DeploymentSpec,
  DeploymentStatus,
  ReplicaSetSpec,
  ReplicaSetStatus,
} from "./types.ts";
import { omitZero, scaledValue } from "./workload.ts";

export const REVISION_ANNOTATION = "deployment.kubernetes.io/revision";
export const DESIRED_REPLICAS_ANNOTATION = "deployment.kubernetes.io/desired-replicas";
export const MAX_REPLICAS_ANNOTATION = "deployment.kubernetes.io/max-replicas";
const MAX_INT32 = 2147483647;

export function specReplicas(rs: StoredObject): number {
  return ((rs.spec ?? {}) as ReplicaSetSpec).replicas ?? 0;
}

function rsStatus(rs: StoredObject): Partial<ReplicaSetStatus> {
  return (rs.status ?? {}) as Partial<ReplicaSetStatus>;
}

export function revisionOf(obj: StoredObject): number {
  const n = Number(obj.metadata.annotations?.[REVISION_ANNOTATION]);
  return Number.isInteger(n) ? n : 0;
}

function isRollingUpdate(spec: DeploymentSpec): boolean {
  return (spec.strategy?.type ?? "RollingUpdate") === "RollingUpdate";
}

/** maxSurge (rounded up) and maxUnavailable (rounded down); both 0 → maxUnavailable 1. */
export function fenceposts(spec: DeploymentSpec): { maxSurge: number; maxUnavailable: number } {
  const replicas = spec.replicas ?? 1;
  const ru = spec.strategy?.rollingUpdate ?? {};
  const maxSurge = scaledValue(ru.maxSurge ?? "25%", replicas, true);
  const maxUnavailable = scaledValue(ru.maxUnavailable ?? "25%", replicas, false);
  return { maxSurge, maxUnavailable: maxSurge === 0 && maxUnavailable === 0 ? 1 : maxUnavailable };
}

export function maxUnavailable(spec: DeploymentSpec): number {
  const replicas = spec.replicas ?? 1;
  if (!isRollingUpdate(spec) || replicas === 0) return 0;
  return Math.min(fenceposts(spec).maxUnavailable, replicas);
}

export function maxSurge(spec: DeploymentSpec): number {
  return isRollingUpdate(spec) ? fenceposts(spec).maxSurge : 0;
}

function sum(rss: readonly StoredObject[], f: (rs: StoredObject) => number): number {
  return rss.reduce((n, rs) => n + f(rs), 0);
}

/** The size the new ReplicaSet should have now (NewRSNewReplicas). */
export function newReplicaSetReplicas(
  spec: DeploymentSpec,
  allRSs: readonly StoredObject[],
  newRS: StoredObject | undefined,
): number {
  const replicas = spec.replicas ?? 1;
  const current = newRS ? specReplicas(newRS) : 0;
  if (!isRollingUpdate(spec)) return replicas;
  if (current > replicas) return replicas;
  const maxTotal = replicas + maxSurge(spec);
  const podCount = sum(allRSs, specReplicas) + (newRS && !allRSs.includes(newRS) ? current : 0);
  if (podCount >= maxTotal) return current;
  return current + Math.min(maxTotal - podCount, replicas - current);
}

/**
 * How far each old ReplicaSet may shrink now (reconcileOldReplicaSets): first their
 * unavailable pods, then available ones while availability stays at replicas - maxUnavailable.
 * Returns the new sizes of the old ReplicaSets that change, by name.
 */
export function oldReplicaSetsScaleDown(
  spec: DeploymentSpec,
  oldRSs: readonly StoredObject[],
  newRS: StoredObject,
): Map<string, number> {
  const plan = new Map<string, number>();
  const sizeOf = (rs: StoredObject): number => plan.get(rs.metadata.name) ?? specReplicas(rs);
  if (sum(oldRSs, specReplicas) === 0) return plan;
  const all = [...oldRSs, newRS];
  const minAvailable = (spec.replicas ?? 1) - maxUnavailable(spec);
  const newUnavailable = specReplicas(newRS) - (rsStatus(newRS).availableReplicas ?? 0);
  const maxScaledDown = sum(all, specReplicas) - minAvailable - newUnavailable;
  if (maxScaledDown <= 0) return plan;
  const oldest = [...oldRSs].sort((a, b) =>
    (a.metadata.creationTimestamp ?? "") < (b.metadata.creationTimestamp ?? "") ? -1 : 1,
  );
  // Unhealthy replicas first: they do not count towards availability.
  let cleaned = 0;
  for (const rs of oldest) {
    if (cleaned >= maxScaledDown) break;
    const unhealthy = specReplicas(rs) - (rsStatus(rs).availableReplicas ?? 0);
    if (unhealthy <= 0) continue;
    const n = Math.min(maxScaledDown - cleaned, unhealthy);
    plan.set(rs.metadata.name, specReplicas(rs) - n);
    cleaned += n;
  }
  // Then available ones, keeping minAvailable.
  const available = sum(all, (rs) => Math.min(rsStatus(rs).availableReplicas ?? 0, sizeOf(rs)));
  if (available <= minAvailable) return plan;
  let budget = available - minAvailable;
  for (const rs of oldest) {
    if (budget <= 0) break;
    const size = sizeOf(rs);
    if (size === 0) continue;
    const n = Math.min(size, budget);
    plan.set(rs.metadata.name, size - n);
    budget -= n;
  }
  return plan;
}

function newCondition(
  type: string,
  status: "True" | "False",
  reason: string,
  message: string,
  now: string,
): BuiltinCondition {
  return { type, status, lastUpdateTime: now, lastTransitionTime: now, reason, message };
}

/** calculateStatus: counts summed over the ReplicaSets, and the Available condition. */
export function calculateStatus(
  d: StoredObject,
  allRSs: readonly StoredObject[],
  newRS: StoredObject | undefined,
  conditions: readonly BuiltinCondition[],
  now: string,
): DeploymentStatus {
  const spec = (d.spec ?? {}) as DeploymentSpec;
  const available = sum(allRSs, (rs) => rsStatus(rs).availableReplicas ?? 0);
  const total = sum(allRSs, specReplicas);
  const status = omitZero<DeploymentStatus>({
    observedGeneration: d.metadata.generation,
    replicas: sum(allRSs, (rs) => rsStatus(rs).replicas ?? 0),
    updatedReplicas: newRS ? (rsStatus(newRS).replicas ?? 0) : 0,
    readyReplicas: sum(allRSs, (rs) => rsStatus(rs).readyReplicas ?? 0),
    availableReplicas: available,
    unavailableReplicas: Math.max(0, total - available),
  });
  const collisionCount = ((d.status ?? {}) as DeploymentStatus).collisionCount;
  if (collisionCount !== undefined) status.collisionCount = collisionCount;
  const replicas = spec.replicas ?? 1;
  const cond =
    available >= replicas - maxUnavailable(spec)
      ? newCondition(
          "Available",
          "True",
          "MinimumReplicasAvailable",
          "Deployment has minimum availability.",
          now,
        )
      : newCondition(
          "Available",
          "False",
          "MinimumReplicasUnavailable",
          "Deployment does not have minimum availability.",
          now,
        );
  status.conditions = setWorkloadCondition(conditions, cond);
  return status;
}

function hasProgressDeadline(spec: DeploymentSpec): boolean {
  return spec.progressDeadlineSeconds !== undefined && spec.progressDeadlineSeconds !== MAX_INT32;
}

export function deploymentComplete(d: StoredObject, status: DeploymentStatus): boolean {
  const replicas = ((d.spec ?? {}) as DeploymentSpec).replicas ?? 1;
  return (
    (status.updatedReplicas ?? 0) === replicas &&
    (status.replicas ?? 0) === replicas &&
    (status.availableReplicas ?? 0) === replicas &&
    (status.observedGeneration ?? 0) >= (d.metadata.generation ?? 0)
  );
}

function deploymentProgressing(old: DeploymentStatus, next: DeploymentStatus): boolean {
  const oldOld = (old.replicas ?? 0) - (old.updatedReplicas ?? 0);
  const newOld = (next.replicas ?? 0) - (next.updatedReplicas ?? 0);
  return (
    (next.updatedReplicas ?? 0) > (old.updatedReplicas ?? 0) ||
    newOld < oldOld ||
    (next.readyReplicas ?? 0) > (old.readyReplicas ?? 0) ||
    (next.availableReplicas ?? 0) > (old.availableReplicas ?? 0)
  );
}

/** Milliseconds until the rollout times out (undefined: no deadline running), ≤ 0: timed out. */
export function untilProgressDeadline(
  d: StoredObject,
  conditions: readonly BuiltinCondition[] | undefined,
  nowMs: number,
): number | undefined {
  const spec = (d.spec ?? {}) as DeploymentSpec;
  if (!hasProgressDeadline(spec)) return undefined;
  const cond = findCondition(conditions, "Progressing");
  if (!cond || cond.reason === "NewReplicaSetAvailable" || cond.reason === "ProgressDeadlineExceeded")
    return undefined;
  const from = Date.parse(cond.lastUpdateTime ?? "");
  if (Number.isNaN(from)) return undefined;
  return from + (spec.progressDeadlineSeconds ?? 0) * 1000 - nowMs;
}

/** syncRolloutStatus: the Progressing condition from how the rollout moved since the last status. */
export function withProgress(
  d: StoredObject,
  next: DeploymentStatus,
  newRS: StoredObject | undefined,
  now: string,
  nowMs: number,
): DeploymentStatus {
  const spec = (d.spec ?? {}) as DeploymentSpec;
  const old = (d.status ?? {}) as DeploymentStatus;
  let conditions = next.conditions ?? [];
  if (!hasProgressDeadline(spec)) conditions = withoutCondition(conditions, "Progressing");
  const current = findCondition(old.conditions, "Progressing");
  const complete =
    (next.replicas ?? 0) === (next.updatedReplicas ?? 0) && current?.reason === "NewReplicaSetAvailable";
  if (hasProgressDeadline(spec) && !complete) {
    const name = newRS?.metadata.name;
    if (deploymentComplete(d, next)) {
      const msg = name
        ? `ReplicaSet "${name}" has successfully progressed.`
        : "Deployment has successfully progressed.";
      conditions = setWorkloadCondition(
        conditions,
        newCondition("Progressing", "True", "NewReplicaSetAvailable", msg, now),
      );
    } else if (deploymentProgressing(old, next)) {
      const msg = name
        ? `ReplicaSet "${name}" is progressing.`
        : `Deployment "${d.metadata.name}" is progressing.`;
      const cond = newCondition("Progressing", "True", "ReplicaSetUpdated", msg, now);
      // Progress refreshes lastUpdateTime even when the reason stays the same.
      const existing = findCondition(conditions, "Progressing");
      if (existing?.status === "True" && existing.lastTransitionTime)
        cond.lastTransitionTime = existing.lastTransitionTime;
      conditions = [...withoutCondition(conditions, "Progressing"), cond];
    } else if ((untilProgressDeadline(d, conditions, nowMs) ?? 1) <= 0) {
      const msg = name
        ? `ReplicaSet "${name}" has timed out progressing.`
        : `Deployment "${d.metadata.name}" has timed out progressing.`;
      conditions = setWorkloadCondition(
        conditions,
        newCondition("Progressing", "False", "ProgressDeadlineExceeded", msg, now),
      );
    }
  }
  return { ...next, conditions };
}

/** The Progressing condition set when the new ReplicaSet is created or first found. */
export function newReplicaSetCondition(
  conditions: readonly BuiltinCondition[] | undefined,
  rsName: string,
  created: boolean,
  now: string,
): BuiltinCondition[] {
  if (created) {
    return setWorkloadCondition(
      conditions,
      newCondition("Progressing", "True", "NewReplicaSetCreated", `Created new replica set "${rsName}"`, now),
    );
  }
  if (findCondition(conditions, "Progressing")) return [...(conditions ?? [])];
  return setWorkloadCondition(
    conditions,
    newCondition("Progressing", "True", "FoundNewReplicaSet", `Found new replica set "${rsName}"`, now),
  );
}
