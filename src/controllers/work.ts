/**
 * Writing Works, shared by the binding and namespace controllers (upstream's
 * CreateOrUpdateWork): the manifest pruned and stamped with the Work's permanent id and the
 * managed-labels / managed-annotations bookkeeping, then the Work created, or updated only
 * when something changed. Applied-overrides annotations that no longer apply are dropped.
 */

import { recordManagedKeys } from "../api/karmada/admission/work.ts";
import type { KubeObject, OwnerReference, StoredObject } from "../api/meta.ts";
import { prune } from "../interpreter/native/prune.ts";
import { ANNOTATION, FINALIZER } from "../karmada/names.ts";
import { KARMADA } from "../karmada/resources.ts";
import { deepEqual } from "../machinery/equality.ts";
import type { ControllerContext } from "./context.ts";

/**
 * The manifest as it travels in a Work: pruned, with the Work's id and Karmada's bookkeeping,
 * exactly as Work admission (upstream's webhook) would leave it, so that no update is a no-op
 * the admission then changes.
 */
export function workManifest(obj: KubeObject, workId: string): KubeObject {
  const manifest = prune(obj);
  recordManagedKeys(manifest, workId);
  return manifest;
}

export interface WorkToWrite {
  namespace: string;
  name: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  ownerReferences?: OwnerReference[];
  spec: Record<string, unknown>;
}

const OVERRIDE_RECORDS = [ANNOTATION.appliedOverrides, ANNOTATION.appliedClusterOverrides] as string[];

/** Creates the Work, or updates it when it differs; whether anything was written. */
export async function createOrUpdateWork(
  ctx: ControllerContext,
  existing: StoredObject | undefined,
  work: WorkToWrite,
): Promise<boolean> {
  if (!existing) {
    await ctx.client.create(KARMADA.works, {
      apiVersion: "work.karmada.io/v1alpha1",
      kind: "Work",
      metadata: {
        name: work.name,
        namespace: work.namespace,
        finalizers: [FINALIZER.execution],
        labels: work.labels,
        annotations: work.annotations,
        ...(work.ownerReferences ? { ownerReferences: work.ownerReferences } : {}),
      },
      spec: work.spec,
    });
    return true;
  }
  if (existing.metadata.deletionTimestamp)
    throw new Error(`work ${work.namespace}/${work.name} is being deleted`);
  const kept = Object.fromEntries(
    Object.entries(existing.metadata.annotations ?? {}).filter(([k]) => !OVERRIDE_RECORDS.includes(k)),
  );
  const next = {
    ...existing,
    metadata: {
      ...existing.metadata,
      labels: { ...existing.metadata.labels, ...work.labels },
      annotations: { ...kept, ...work.annotations },
      finalizers: [...new Set([...(existing.metadata.finalizers ?? []), FINALIZER.execution])],
    },
    spec: work.spec,
  };
  if (deepEqual(next.metadata, existing.metadata) && deepEqual(next.spec, existing.spec)) return false;
  await ctx.client.update(KARMADA.works, next);
  return true;
}
