/**
 * The Deployment controller: one ReplicaSet per pod template (`<name>-<pod-template-hash>`,
 * the hash also a label on the ReplicaSet, its selector and its pods), revisions in the
 * `deployment.kubernetes.io/revision` annotation (rollbacks renumber the old ReplicaSet),
 * rolling updates within maxSurge/maxUnavailable or Recreate, old ReplicaSets scaled to 0
 * and kept up to revisionHistoryLimit, and status + conditions as kube-controller-manager
 * writes them (see deployment-rollout.ts), so `kubectl rollout status` finishes.
 *
 * Simplified: scaling during a rollout is not proportional (the rolling update absorbs it);
 * orphan ReplicaSets are not adopted; hash collisions bump collisionCount and retry.
 */
import type { StoredObject } from "../api/meta.ts";
import { RESOURCES } from "../client/client.ts";
import { deepEqual } from "../machinery/equality.ts";
import { isAlreadyExists } from "../machinery/errors.ts";
import { cloneJson } from "../machinery/merge-patch.ts";
import type { Controller } from "../runtime/controller.ts";
import type { Sim } from "./context.ts";
import {
  calculateStatus,
  DESIRED_REPLICAS_ANNOTATION,
  deploymentComplete,
  MAX_REPLICAS_ANNOTATION,
  maxSurge,
  newReplicaSetCondition,
  newReplicaSetReplicas,
  oldReplicaSetsScaleDown,
  REVISION_ANNOTATION,
  revisionOf,
  specReplicas,
  untilProgressDeadline,
  withProgress,
} from "./deployment-rollout.ts";
import type { DeploymentSpec, DeploymentStatus, PodTemplateSpec, ReplicaSetSpec } from "./types.ts";
import {
  BY_CONTROLLER,
  controllerKey,
  controllerOf,
  controllerRef,
  templateHash,
  timestamp,
} from "./workload.ts";

export const POD_TEMPLATE_HASH = "pod-template-hash";

/** Annotations a Deployment does not pass on to its ReplicaSets. */
const NOT_COPIED = new Set([
  "kubectl.kubernetes.io/last-applied-configuration",
  REVISION_ANNOTATION,
  "deployment.kubernetes.io/revision-history",
  DESIRED_REPLICAS_ANNOTATION,
  MAX_REPLICAS_ANNOTATION,
  "deprecated.deployment.rollback.to",
]);

function withoutHash(template: PodTemplateSpec | undefined): PodTemplateSpec {
  const t = cloneJson(template ?? {});
  if (t.metadata?.labels) {
    delete t.metadata.labels[POD_TEMPLATE_HASH];
    if (Object.keys(t.metadata.labels).length === 0) delete t.metadata.labels;
  }
  return t;
}

/** Whether a ReplicaSet runs the Deployment's current template (EqualIgnoreHash). */
export function sameTemplate(rs: StoredObject, d: StoredObject): boolean {
  return deepEqual(
    withoutHash((rs.spec as ReplicaSetSpec | undefined)?.template),
    withoutHash((d.spec as DeploymentSpec | undefined)?.template),
  );
}

function copiedAnnotations(d: StoredObject): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(d.metadata.annotations ?? {})) if (!NOT_COPIED.has(k)) out[k] = v;
  return out;
}

export function deploymentController(sim: Sim): Controller {
  const { deployments, replicasets } = sim.informers;

  /** Scales a ReplicaSet (and refreshes its replicas annotations). */
  const scale = async (d: StoredObject, rs: StoredObject, replicas: number): Promise<StoredObject> => {
    const spec = (d.spec ?? {}) as DeploymentSpec;
    const want = spec.replicas ?? 1;
    const annotations = {
      ...rs.metadata.annotations,
      [DESIRED_REPLICAS_ANNOTATION]: String(want),
      [MAX_REPLICAS_ANNOTATION]: String(want + maxSurge(spec)),
    };
    const old = specReplicas(rs);
    if (old === replicas && deepEqual(annotations, rs.metadata.annotations ?? {})) return rs;
    const written = await sim.client.update(RESOURCES.replicasets, {
      ...rs,
      metadata: { ...rs.metadata, annotations },
      spec: { ...(rs.spec as object), replicas },
    });
    await sim.caughtUp(replicasets, written);
    if (old !== replicas) {
      const op = old < replicas ? "up" : "down";
      sim.events.event(
        d,
        "Normal",
        "ScalingReplicaSet",
        `Scaled ${op} replica set ${rs.metadata.name} to ${replicas} from ${old}`,
      );
    }
    return written;
  };

  const createNewReplicaSet = async (
    d: StoredObject,
    all: StoredObject[],
    revision: number,
  ): Promise<StoredObject> => {
    const spec = (d.spec ?? {}) as DeploymentSpec;
    const status = (d.status ?? {}) as DeploymentStatus;
    const hash = templateHash(withoutHash(spec.template), status.collisionCount ?? 0);
    const template = cloneJson(spec.template ?? {});
    template.metadata = {
      ...template.metadata,
      labels: { ...template.metadata?.labels, [POD_TEMPLATE_HASH]: hash },
    };
    const replicas = newReplicaSetReplicas(spec, all, undefined);
    const want = spec.replicas ?? 1;
    const rs = {
      apiVersion: "apps/v1",
      kind: "ReplicaSet",
      metadata: {
        name: `${d.metadata.name}-${hash}`,
        namespace: d.metadata.namespace!,
        labels: { ...template.metadata.labels },
        annotations: {
          ...copiedAnnotations(d),
          [REVISION_ANNOTATION]: String(revision),
          [DESIRED_REPLICAS_ANNOTATION]: String(want),
          [MAX_REPLICAS_ANNOTATION]: String(want + maxSurge(spec)),
        },
        ownerReferences: [controllerRef(d)],
      },
      spec: {
        replicas,
        minReadySeconds: spec.minReadySeconds ?? 0,
        selector: {
          ...spec.selector,
          matchLabels: { ...spec.selector?.matchLabels, [POD_TEMPLATE_HASH]: hash },
        },
        template,
      },
    };
    try {
      const created = await sim.client.create(RESOURCES.replicasets, rs);
      await sim.caughtUp(replicasets, created);
      if (replicas > 0) {
        sim.events.event(
          d,
          "Normal",
          "ScalingReplicaSet",
          `Scaled up replica set ${created.metadata.name} to ${replicas} from 0`,
        );
      }
      return created;
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      const existing = await sim.client.get(RESOURCES.replicasets, rs.metadata.namespace, rs.metadata.name);
      if (controllerOf(existing)?.uid === d.metadata.uid && sameTemplate(existing, d)) return existing;
      // Another template hashed the same: count the collision and try another name next time.
      const written = await sim.client.updateStatus(RESOURCES.deployments, {
        ...d,
        status: { ...status, collisionCount: (status.collisionCount ?? 0) + 1 },
      });
      await sim.caughtUp(deployments, written);
      throw err;
    }
  };

  /** Rolling update / recreate steps; returns the ReplicaSets as they are afterwards. */
  const rollout = async (d: StoredObject, newRS: StoredObject, oldRSs: StoredObject[]): Promise<void> => {
    const spec = (d.spec ?? {}) as DeploymentSpec;
    const replicas = spec.replicas ?? 1;
    if (spec.strategy?.type === "Recreate") {
      const running = oldRSs.filter((rs) => specReplicas(rs) > 0);
      for (const rs of running) await scale(d, rs, 0);
      const oldPods = oldRSs.some((rs) => ((rs.status ?? {}) as { replicas?: number }).replicas);
      if (running.length === 0 && !oldPods) await scale(d, newRS, replicas);
      return;
    }
    const target = newReplicaSetReplicas(spec, [...oldRSs, newRS], newRS);
    if (target !== specReplicas(newRS)) {
      await scale(d, newRS, target);
      return;
    }
    const plan = oldReplicaSetsScaleDown(spec, oldRSs, newRS);
    for (const rs of oldRSs) {
      const size = plan.get(rs.metadata.name);
      if (size !== undefined && size !== specReplicas(rs)) await scale(d, rs, size);
    }
  };

  /** Deletes old, empty ReplicaSets beyond revisionHistoryLimit, oldest first. */
  const cleanup = async (d: StoredObject, oldRSs: StoredObject[]): Promise<void> => {
    const limit = ((d.spec ?? {}) as DeploymentSpec).revisionHistoryLimit ?? 10;
    const empty = oldRSs
      .filter((rs) => specReplicas(rs) === 0 && !((rs.status ?? {}) as { replicas?: number }).replicas)
      .sort((a, b) => revisionOf(a) - revisionOf(b));
    for (const rs of empty.slice(0, Math.max(0, empty.length - limit))) {
      await sim.client.delete(RESOURCES.replicasets, rs.metadata.namespace, rs.metadata.name, {
        preconditions: { uid: rs.metadata.uid },
      });
    }
  };

  return {
    name: "deployment",
    for: deployments,
    watches: [{ informer: replicasets, map: (rs) => controllerKey(rs, "Deployment") }],
    async reconcile(_ctx, key) {
      let d = deployments.getByKey(key);
      if (!d || d.metadata.deletionTimestamp) return undefined;
      const spec = (d.spec ?? {}) as DeploymentSpec;
      const owned = () =>
        replicasets.byIndex(BY_CONTROLLER, d!.metadata.uid).filter((rs) => !rs.metadata.deletionTimestamp);
      let all = owned();
      let newRS = all.find((rs) => sameTemplate(rs, d!));
      let oldRSs = all.filter((rs) => rs !== newRS);
      const now = timestamp(sim.now());
      let conditions = ((d.status ?? {}) as DeploymentStatus).conditions ?? [];
      if (!spec.paused) {
        const maxOld = Math.max(0, ...oldRSs.map(revisionOf));
        if (!newRS) {
          newRS = await createNewReplicaSet(d, all, maxOld + 1);
          conditions = newReplicaSetCondition(conditions, newRS.metadata.name, true, now);
        } else {
          conditions = newReplicaSetCondition(conditions, newRS.metadata.name, false, now);
          if (revisionOf(newRS) <= maxOld) {
            // A rollback: the old template's ReplicaSet becomes the newest revision.
            const written = await sim.client.update(RESOURCES.replicasets, {
              ...newRS,
              metadata: {
                ...newRS.metadata,
                annotations: { ...newRS.metadata.annotations, [REVISION_ANNOTATION]: String(maxOld + 1) },
              },
            });
            await sim.caughtUp(replicasets, written);
            newRS = written;
          }
        }
        const revision = String(revisionOf(newRS));
        if (d.metadata.annotations?.[REVISION_ANNOTATION] !== revision) {
          d = await sim.client.update(RESOURCES.deployments, {
            ...d,
            metadata: {
              ...d.metadata,
              annotations: { ...d.metadata.annotations, [REVISION_ANNOTATION]: revision },
            },
          });
          await sim.caughtUp(deployments, d);
        }
        await rollout(d, newRS, oldRSs);
        all = owned();
        newRS = all.find((rs) => rs.metadata.uid === newRS!.metadata.uid) ?? newRS;
        oldRSs = all.filter((rs) => rs.metadata.uid !== newRS!.metadata.uid);
      }
      const nowMs = sim.now();
      let status = calculateStatus(d, all, newRS, conditions, now);
      if (!spec.paused) status = withProgress(d, status, newRS, now, nowMs);
      if (!deepEqual(d.status ?? {}, status)) {
        d = await sim.client.updateStatus(RESOURCES.deployments, { ...d, status });
        await sim.caughtUp(deployments, d);
      }
      if (!spec.paused && deploymentComplete(d, status)) await cleanup(d, oldRSs);
      const deadline = untilProgressDeadline(d, status.conditions, nowMs);
      return deadline !== undefined
        ? { requeueAfterMs: Math.max(1, Math.min(deadline, sim.timing.syncPeriodMs)) }
        : undefined;
    },
  };
}
