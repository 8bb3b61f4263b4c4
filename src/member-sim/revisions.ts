/**
 * ControllerRevisions for StatefulSets and DaemonSets: the pod template is saved as a
 * revision named `<owner>-<hash>` (label `controller.kubernetes.io/hash`), reused while the
 * template is unchanged, numbered upwards; unused old ones are pruned past
 * revisionHistoryLimit.
 */
import type { StoredObject } from "../api/meta.ts";
import { RESOURCES } from "../client/client.ts";
import { deepEqual } from "../machinery/equality.ts";
import { isAlreadyExists, isNotFound } from "../machinery/errors.ts";
import type { Sim } from "./context.ts";
import type { PodTemplateSpec } from "./types.ts";
import { BY_CONTROLLER, controllerRef, templateHash } from "./workload.ts";

export const HASH_LABEL = "controller.kubernetes.io/hash";

/** What a revision stores: the template, as a strategic-merge "replace" patch (upstream's shape). */
export function revisionData(template: PodTemplateSpec | undefined): Record<string, unknown> {
  return { spec: { template: { ...structuredClone(template ?? {}), $patch: "replace" } } };
}

export function revisionsOf(sim: Sim, owner: StoredObject): StoredObject[] {
  return sim.informers.controllerrevisions
    .byIndex(BY_CONTROLLER, owner.metadata.uid)
    .sort((a, b) => Number(a.revision ?? 0) - Number(b.revision ?? 0));
}

/** The revision for the owner's current template, created when missing. */
export async function currentRevision(
  sim: Sim,
  owner: StoredObject,
  template: PodTemplateSpec | undefined,
  labels: Record<string, string> | undefined,
): Promise<{ revision: StoredObject; hash: string }> {
  const data = revisionData(template);
  const existing = revisionsOf(sim, owner);
  const hash = templateHash(data);
  const found = existing.find((r) => deepEqual(r.data, data));
  if (found) return { revision: found, hash: found.metadata.labels?.[HASH_LABEL] ?? hash };
  const number = Math.max(0, ...existing.map((r) => Number(r.revision ?? 0))) + 1;
  const name = `${owner.metadata.name}-${hash}`;
  try {
    const created = await sim.client.create(RESOURCES.controllerrevisions, {
      apiVersion: "apps/v1",
      kind: "ControllerRevision",
      metadata: {
        name,
        namespace: owner.metadata.namespace!,
        labels: { ...labels, [HASH_LABEL]: hash },
        ownerReferences: [controllerRef(owner)],
      },
      data,
      revision: number,
    });
    await sim.caughtUp(sim.informers.controllerrevisions, created);
    return { revision: created, hash };
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
    // Same template seen again (e.g. a rollback): it becomes the newest revision.
    const old = await sim.client.get(RESOURCES.controllerrevisions, owner.metadata.namespace, name);
    const written = await sim.client.update(RESOURCES.controllerrevisions, { ...old, revision: number });
    await sim.caughtUp(sim.informers.controllerrevisions, written);
    return { revision: written, hash };
  }
}

/** Deletes the oldest revisions beyond `limit` that no live pod uses. */
export async function pruneRevisions(
  sim: Sim,
  owner: StoredObject,
  limit: number,
  inUse: ReadonlySet<string>,
): Promise<void> {
  const unused = revisionsOf(sim, owner).filter((r) => !inUse.has(r.metadata.name));
  for (const r of unused.slice(0, Math.max(0, unused.length - limit))) {
    try {
      await sim.client.delete(RESOURCES.controllerrevisions, r.metadata.namespace, r.metadata.name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}
