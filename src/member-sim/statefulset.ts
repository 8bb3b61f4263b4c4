/**
 * The StatefulSet controller: pods `<name>-<ordinal>` (from spec.ordinals.start), created in
 * order and one at a time under OrderedReady (each waits for the previous to be Running and
 * Ready), all at once under Parallel; removed from the highest ordinal down; rolling updates
 * replace pods from the highest ordinal down to the partition, one at a time, each after the
 * rest are Ready. Revisions are ControllerRevisions; pods carry `controller-revision-hash`
 * (= the revision's name), `statefulset.kubernetes.io/pod-name` and `apps.kubernetes.io/pod-index`.
 * Status: replicas, readyReplicas, availableReplicas, currentReplicas, updatedReplicas,
 * currentRevision, updateRevision, collisionCount, observedGeneration.
 *
 * Each pod gets a volume per volumeClaimTemplate (`persistentVolumeClaim: <template>-<pod>`),
 * as the real controller mounts them. Simplified: the claims themselves are not created;
 * maxUnavailable is 1.
 */
import type { KubeObject, StoredObject } from "../api/meta.ts";
import { RESOURCES } from "../client/client.ts";
import { isAlreadyExists } from "../machinery/errors.ts";
import type { Controller } from "../runtime/controller.ts";
import { commitStatus, createPods, deletePods, requeueUntilAvailable } from "./commit.ts";
import type { Sim } from "./context.ts";
import { pruneRevisions, currentRevision as revisionFor } from "./revisions.ts";
import type { PodTemplateSpec } from "./types.ts";
import {
  BY_CONTROLLER,
  controllerKey,
  isAvailable,
  isRunningAndReady,
  isTerminal,
  omitZero,
  podFromTemplate,
} from "./workload.ts";

export const REVISION_LABEL = "controller-revision-hash";

interface StatefulSetSpec {
  replicas?: number;
  serviceName?: string;
  template?: PodTemplateSpec;
  podManagementPolicy?: "OrderedReady" | "Parallel";
  updateStrategy?: { type?: "RollingUpdate" | "OnDelete"; rollingUpdate?: { partition?: number } };
  revisionHistoryLimit?: number;
  minReadySeconds?: number;
  ordinals?: { start?: number };
  volumeClaimTemplates?: Array<{ metadata?: { name?: string } }>;
}

interface StatefulSetStatus {
  currentRevision?: string;
  updateRevision?: string;
  [field: string]: unknown;
}

function ordinalOf(sts: StoredObject, pod: StoredObject): number | undefined {
  const prefix = `${sts.metadata.name}-`;
  const name = pod.metadata.name ?? "";
  if (!name.startsWith(prefix)) return undefined;
  const rest = name.slice(prefix.length);
  return /^(0|[1-9]\d*)$/.test(rest) ? Number(rest) : undefined;
}

function podFor(sts: StoredObject, ordinal: number, revision: string): KubeObject {
  const spec = (sts.spec ?? {}) as StatefulSetSpec;
  const name = `${sts.metadata.name}-${ordinal}`;
  return podFromTemplate(spec.template, sts, {
    name,
    labels: {
      [REVISION_LABEL]: revision,
      "statefulset.kubernetes.io/pod-name": name,
      "apps.kubernetes.io/pod-index": String(ordinal),
    },
    spec: (s) => {
      s.hostname = name;
      if (spec.serviceName) s.subdomain = spec.serviceName;
      const claims = (spec.volumeClaimTemplates ?? []).flatMap((t) =>
        t.metadata?.name ? [t.metadata.name] : [],
      );
      if (claims.length > 0) {
        const volumes = ((s.volumes as Array<{ name?: string }> | undefined) ?? []).filter(
          (v) => !claims.includes(v.name ?? ""),
        );
        s.volumes = [
          ...volumes,
          ...claims.map((claim) => ({
            name: claim,
            persistentVolumeClaim: { claimName: `${claim}-${name}` },
          })),
        ];
      }
    },
  });
}

/** What one reconcile works from. */
interface Plan {
  sts: StoredObject;
  start: number;
  replicas: number;
  ordered: boolean;
  partition: number;
  rollingUpdate: boolean;
  byOrdinal: Map<number, StoredObject>;
  currentRev: string;
  updateRev: string;
}

function planFor(sim: Sim, sts: StoredObject, currentRev: string, updateRev: string): Plan {
  const spec = (sts.spec ?? {}) as StatefulSetSpec;
  const byOrdinal = new Map<number, StoredObject>();
  for (const pod of sim.informers.pods.byIndex(BY_CONTROLLER, sts.metadata.uid)) {
    const o = ordinalOf(sts, pod);
    if (o !== undefined) byOrdinal.set(o, pod);
  }
  return {
    sts,
    start: spec.ordinals?.start ?? 0,
    replicas: spec.replicas ?? 1,
    ordered: (spec.podManagementPolicy ?? "OrderedReady") === "OrderedReady",
    partition: spec.updateStrategy?.rollingUpdate?.partition ?? 0,
    rollingUpdate: (spec.updateStrategy?.type ?? "RollingUpdate") === "RollingUpdate",
    byOrdinal,
    currentRev,
    updateRev,
  };
}

async function createPod(sim: Sim, p: Plan, ordinal: number): Promise<void> {
  // Below the partition, a rolling update keeps the current revision.
  const rev = p.currentRev !== p.updateRev && ordinal - p.start < p.partition ? p.currentRev : p.updateRev;
  const name = `${p.sts.metadata.name}-${ordinal}`;
  try {
    await createPods(sim, p.sts, [podFor(p.sts, ordinal, rev)], () => [
      "SuccessfulCreate",
      `create Pod ${name} in StatefulSet ${p.sts.metadata.name} successful`,
    ]);
  } catch (err) {
    // The previous pod of this ordinal is still terminating.
    if (!isAlreadyExists(err)) throw err;
  }
}

function deletePod(sim: Sim, p: Plan, pod: StoredObject): Promise<void> {
  return deletePods(sim, [pod], () =>
    sim.events.event(
      p.sts,
      "Normal",
      "SuccessfulDelete",
      `delete Pod ${pod.metadata.name} in StatefulSet ${p.sts.metadata.name} successful`,
    ),
  );
}

/** Creates missing ordinals; under OrderedReady one at a time after the ones before are Ready. True: stop here. */
async function createMissing(sim: Sim, p: Plan): Promise<boolean> {
  for (let o = p.start; o < p.start + p.replicas; o++) {
    const pod = p.byOrdinal.get(o);
    if (!pod) {
      await createPod(sim, p, o);
      if (p.ordered) return true;
    } else if (p.ordered && (pod.metadata.deletionTimestamp || !isRunningAndReady(pod))) {
      return true;
    }
  }
  return false;
}

/** Removes ordinals beyond the replicas, highest first. True: stop here. */
async function removeCondemned(sim: Sim, p: Plan): Promise<boolean> {
  const condemned = [...p.byOrdinal.entries()]
    .filter(([o]) => o < p.start || o >= p.start + p.replicas)
    .sort(([a], [b]) => b - a)
    .map(([, pod]) => pod);
  for (const pod of condemned) {
    if (!pod.metadata.deletionTimestamp) await deletePod(sim, p, pod);
    if (p.ordered) return true;
  }
  return false;
}

/** Replaces the highest pod not at the update revision, once all down to the partition are Ready. */
async function rollOne(sim: Sim, p: Plan): Promise<void> {
  if (!p.rollingUpdate) return;
  for (let o = p.start + p.replicas - 1; o >= p.start + p.partition; o--) {
    const pod = p.byOrdinal.get(o);
    if (!pod || pod.metadata.deletionTimestamp || !isRunningAndReady(pod)) return;
    if (pod.metadata.labels?.[REVISION_LABEL] !== p.updateRev) {
      await deletePod(sim, p, pod);
      return;
    }
  }
}

export function statefulSetStatus(
  sts: StoredObject,
  owned: StoredObject[],
  revisions: { current: string; update: string },
  now: number,
): Record<string, unknown> {
  const spec = (sts.spec ?? {}) as StatefulSetSpec;
  const replicas = spec.replicas ?? 1;
  const minReady = spec.minReadySeconds ?? 0;
  const live = owned.filter((p) => !p.metadata.deletionTimestamp);
  const revOf = (p: StoredObject) => p.metadata.labels?.[REVISION_LABEL];
  const ready = owned.filter(isRunningAndReady).length;
  const updated = live.filter((p) => revOf(p) === revisions.update).length;
  // A complete rollout makes the update revision current.
  const complete = updated === replicas && ready === replicas && owned.length === replicas;
  return omitZero<Record<string, unknown>>(
    {
      observedGeneration: sts.metadata.generation,
      replicas: owned.filter((p) => !isTerminal(p)).length,
      readyReplicas: ready,
      currentReplicas: complete ? updated : live.filter((p) => revOf(p) === revisions.current).length,
      updatedReplicas: updated,
      currentRevision: complete ? revisions.update : revisions.current,
      updateRevision: revisions.update,
      collisionCount: 0,
      availableReplicas: owned.filter((p) => isRunningAndReady(p) && isAvailable(p, minReady, now)).length,
    },
    ["replicas", "availableReplicas", "collisionCount"],
  );
}

export function statefulSetController(sim: Sim): Controller {
  const { statefulsets, pods } = sim.informers;
  return {
    name: "statefulset",
    for: statefulsets,
    watches: [{ informer: pods, map: (pod) => controllerKey(pod, "StatefulSet") }],
    async reconcile(_ctx, key) {
      const sts = statefulsets.getByKey(key);
      if (!sts || sts.metadata.deletionTimestamp) return undefined;
      const spec = (sts.spec ?? {}) as StatefulSetSpec;
      const { revision } = await revisionFor(sim, sts, spec.template, spec.template?.metadata?.labels);
      const update = revision.metadata.name;
      const current = ((sts.status ?? {}) as StatefulSetStatus).currentRevision ?? update;
      const plan = planFor(sim, sts, current, update);
      // Failed pods are replaced.
      const failed = [...plan.byOrdinal.values()].filter(
        (p) => isTerminal(p) && !p.metadata.deletionTimestamp,
      );
      for (const pod of failed) await deletePod(sim, plan, pod);
      if (failed.length === 0 && !(await createMissing(sim, plan)) && !(await removeCondemned(sim, plan))) {
        await rollOne(sim, plan);
      }
      const now = sim.now();
      const latest = statefulsets.getByKey(key) ?? sts;
      const owned = pods
        .byIndex(BY_CONTROLLER, sts.metadata.uid)
        .filter((p) => ordinalOf(sts, p) !== undefined);
      const status = statefulSetStatus(latest, owned, { current, update }, now);
      await commitStatus(sim, RESOURCES.statefulsets, statefulsets, latest, status);
      const inUse = new Set([
        current,
        update,
        ...owned.map((p) => p.metadata.labels?.[REVISION_LABEL] ?? ""),
      ]);
      await pruneRevisions(sim, sts, spec.revisionHistoryLimit ?? 10, inUse);
      return requeueUntilAvailable(owned, spec.minReadySeconds ?? 0, now);
    },
  };
}
