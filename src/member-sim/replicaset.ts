/**
 * The ReplicaSet controller: keeps `spec.replicas` active pods (its own, by controller
 * reference; orphans matching the selector are adopted), deletes the least valuable extras
 * first (unscheduled, pending, not ready, youngest), and writes status as
 * kube-controller-manager does: replicas, fullyLabeledReplicas, readyReplicas,
 * availableReplicas, observedGeneration.
 *
 * Simplified: no slow-start batches, pods that stop matching the selector are not released.
 */
import type { StoredObject } from "../api/meta.ts";
import { RESOURCES } from "../client/client.ts";
import { isNotFound } from "../machinery/errors.ts";
import { fromLabelSelector, matches } from "../machinery/labels.ts";
import type { Controller } from "../runtime/controller.ts";
import { objectKey } from "../runtime/keys.ts";
import { commitStatus, createPods, deletePods, requeueUntilAvailable } from "./commit.ts";
import type { Sim } from "./context.ts";
import type { ReplicaSetSpec, ReplicaSetStatus } from "./types.ts";
import {
  BY_CONTROLLER,
  BY_NAMESPACE,
  controllerKey,
  controllerOf,
  controllerRef,
  hasLabels,
  isActive,
  isAvailable,
  isReady,
  omitZero,
  podFromTemplate,
  podSpec,
  podStatus,
} from "./workload.ts";

/** Lower ranks go first when scaling down (controller.ActivePods ordering, simplified). */
function deletionRank(pod: StoredObject): number[] {
  const phase = podStatus(pod).phase ?? "Pending";
  return [
    podSpec(pod).nodeName ? 1 : 0,
    phase === "Pending" ? 0 : phase === "Unknown" ? 1 : 2,
    isReady(pod) ? 1 : 0,
    // Younger pods go first.
    -Date.parse(pod.metadata.creationTimestamp ?? "") || 0,
  ];
}

export function podsToDelete(pods: StoredObject[], count: number): StoredObject[] {
  const ranked = pods.map((p) => ({ p, r: deletionRank(p) }));
  ranked.sort((a, b) => {
    for (let i = 0; i < a.r.length; i++) if (a.r[i] !== b.r[i]) return a.r[i]! - b.r[i]!;
    return 0;
  });
  return ranked.slice(0, count).map((x) => x.p);
}

/** Adopts orphan pods in the namespace that match the owner's selector (ControllerRefManager). */
export async function adoptOrphans(
  sim: Sim,
  owner: StoredObject,
  selector: ReturnType<typeof fromLabelSelector>,
): Promise<void> {
  if (selector.length === 0) return;
  const { pods } = sim.informers;
  for (const pod of pods.byIndex(BY_NAMESPACE, owner.metadata.namespace ?? "")) {
    if (controllerOf(pod) || pod.metadata.deletionTimestamp || !matches(selector, pod.metadata.labels))
      continue;
    try {
      const written = await sim.client.patch(
        RESOURCES.pods,
        pod.metadata.namespace,
        pod.metadata.name,
        "merge",
        {
          metadata: {
            resourceVersion: pod.metadata.resourceVersion,
            ownerReferences: [...(pod.metadata.ownerReferences ?? []), controllerRef(owner)],
          },
        },
      );
      await sim.caughtUp(pods, written);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}

/** Creates or deletes pods until `spec.replicas` are active. */
async function manageReplicas(sim: Sim, rs: StoredObject): Promise<void> {
  const spec = (rs.spec ?? {}) as ReplicaSetSpec;
  const active = sim.informers.pods.byIndex(BY_CONTROLLER, rs.metadata.uid).filter(isActive);
  const want = spec.replicas ?? 1;
  if (active.length < want) {
    const missing = Array.from({ length: want - active.length }, () => podFromTemplate(spec.template, rs));
    await createPods(sim, rs, missing, (p) => ["SuccessfulCreate", `Created pod: ${p.metadata.name}`]);
  } else if (active.length > want) {
    await deletePods(sim, podsToDelete(active, active.length - want), (p) =>
      sim.events.event(rs, "Normal", "SuccessfulDelete", `Deleted pod: ${p.metadata.name}`),
    );
  }
}

export function replicaSetStatus(rs: StoredObject, active: StoredObject[], now: number): ReplicaSetStatus {
  const spec = (rs.spec ?? {}) as ReplicaSetSpec;
  const minReady = spec.minReadySeconds ?? 0;
  const conditions = (rs.status as ReplicaSetStatus | undefined)?.conditions;
  return omitZero<ReplicaSetStatus>(
    {
      replicas: active.length,
      fullyLabeledReplicas: active.filter((p) =>
        hasLabels(p.metadata.labels, spec.template?.metadata?.labels),
      ).length,
      readyReplicas: active.filter(isReady).length,
      availableReplicas: active.filter((p) => isAvailable(p, minReady, now)).length,
      observedGeneration: rs.metadata.generation,
      ...(conditions?.length ? { conditions } : {}),
    },
    ["replicas"],
  );
}

export function replicaSetController(sim: Sim): Controller {
  const { replicasets, pods } = sim.informers;
  return {
    name: "replicaset",
    for: replicasets,
    watches: [
      {
        informer: pods,
        map: (pod) => {
          const owned = controllerKey(pod, "ReplicaSet");
          if (owned.length > 0 || controllerOf(pod)) return owned;
          // An orphan: the replica sets that would adopt it.
          return replicasets
            .list(pod.metadata.namespace)
            .filter((rs) => {
              const sel = fromLabelSelector((rs.spec as ReplicaSetSpec | undefined)?.selector);
              return sel.length > 0 && matches(sel, pod.metadata.labels);
            })
            .map(objectKey);
        },
      },
    ],
    async reconcile(_ctx, key) {
      const rs = replicasets.getByKey(key);
      if (!rs || rs.metadata.deletionTimestamp) return undefined;
      const spec = (rs.spec ?? {}) as ReplicaSetSpec;
      await adoptOrphans(sim, rs, fromLabelSelector(spec.selector));
      await manageReplicas(sim, rs);
      const active = pods.byIndex(BY_CONTROLLER, rs.metadata.uid).filter(isActive);
      const now = sim.now();
      const current = replicasets.getByKey(key) ?? rs;
      await commitStatus(
        sim,
        RESOURCES.replicasets,
        replicasets,
        current,
        replicaSetStatus(current, active, now),
      );
      return requeueUntilAvailable(active, spec.minReadySeconds ?? 0, now);
    },
  };
}
