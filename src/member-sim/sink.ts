/**
 * The sink member's one controller (`member-sim --sink`): a member that stores and watches
 * what it is sent and reports workloads ready at once, so that a benchmark measures the control
 * plane rather than the simulated kubelets and controllers behind it. A Deployment or
 * StatefulSet gets, in one status write per spec change, the status a healthy cluster reaches
 * once its pods run: every replica updated, ready and available, `observedGeneration` caught up,
 * Deployments `Available` and `Progressing` (NewReplicaSetAvailable). No pods, no ReplicaSets,
 * no revisions: what Karmada reads of a member (the workload's own status) is all there is.
 */
import type { StoredObject } from "../api/meta.ts";
import { rfc3339 } from "../api/meta.ts";
import { RESOURCES, type ResourceRef } from "../client/client.ts";
import { type Controller, done } from "../runtime/controller.ts";
import type { Informer } from "../runtime/informer.ts";
import { parseObjectKey } from "../runtime/keys.ts";
import { commitStatus } from "./commit.ts";
import { setWorkloadCondition } from "./conditions.ts";
import type { Sim } from "./context.ts";
import type { BuiltinCondition, DeploymentStatus } from "./types.ts";

/** Workers per kind: status writes are in-process and short. */
const WORKERS = 4;

function replicasOf(obj: StoredObject): number {
  const r = (obj.spec as { replicas?: unknown } | undefined)?.replicas;
  return typeof r === "number" && Number.isInteger(r) && r >= 0 ? r : 1;
}

/** Counts as kube writes them: a count of 0 is left out (the fields are omitempty). */
function counts(fields: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== 0));
}

function condition(type: string, reason: string, message: string, now: string): BuiltinCondition {
  return { type, status: "True", lastUpdateTime: now, lastTransitionTime: now, reason, message };
}

/** A Deployment's status once all its replicas run the current template. */
export function sinkDeploymentStatus(d: StoredObject, now: string): DeploymentStatus {
  const r = replicasOf(d);
  const old = (d.status ?? {}) as DeploymentStatus;
  let conditions = setWorkloadCondition(
    old.conditions,
    condition("Available", "MinimumReplicasAvailable", "Deployment has minimum availability.", now),
  );
  conditions = setWorkloadCondition(
    conditions,
    condition(
      "Progressing",
      "NewReplicaSetAvailable",
      `Deployment "${d.metadata.name}" has successfully progressed.`,
      now,
    ),
  );
  return {
    observedGeneration: d.metadata.generation ?? 1,
    ...counts({ replicas: r, updatedReplicas: r, readyReplicas: r, availableReplicas: r }),
    conditions,
  };
}

/** A StatefulSet's status once all its replicas run the current revision. */
export function sinkStatefulSetStatus(s: StoredObject): Record<string, unknown> {
  const r = replicasOf(s);
  const revision = `${s.metadata.name}-sink`;
  return {
    observedGeneration: s.metadata.generation ?? 1,
    ...counts({ replicas: r, readyReplicas: r, currentReplicas: r, updatedReplicas: r }),
    // availableReplicas is not omitempty in apps/v1.
    availableReplicas: r,
    currentRevision: revision,
    updateRevision: revision,
    collisionCount: 0,
  };
}

function sinkController(
  sim: Sim,
  name: string,
  res: ResourceRef,
  informer: Informer,
  status: (obj: StoredObject, now: string) => unknown,
): Controller {
  return {
    name,
    for: informer,
    workers: WORKERS,
    // Its own status writes do not call for another.
    updateFilter: (old, obj) => old.metadata.generation !== obj.metadata.generation,
    async reconcile(_ctx, key) {
      const { namespace, name: objName } = parseObjectKey(key);
      const obj = informer.get(namespace, objName);
      if (!obj || obj.metadata.deletionTimestamp) return done;
      await commitStatus(sim, res, informer, obj, status(obj, rfc3339(sim.now())));
      return done;
    },
  };
}

/** The sink's controllers: Deployment and StatefulSet status, nothing else. */
export function sinkControllers(sim: Sim): Controller[] {
  return [
    sinkController(
      sim,
      "sink-deployments",
      RESOURCES.deployments,
      sim.informers.deployments,
      sinkDeploymentStatus,
    ),
    sinkController(
      sim,
      "sink-statefulsets",
      RESOURCES.statefulsets,
      sim.informers.statefulsets,
      sinkStatefulSetStatus,
    ),
  ];
}
