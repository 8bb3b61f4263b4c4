/**
 * Work: a permanent id, and every manifest cleaned of what the control plane's API server
 * wrote into it (and what a member cluster would refuse or fight over), then stamped with the
 * Work's id and the managed-labels / managed-annotations bookkeeping annotations.
 */

import { prune } from "../../../interpreter/native/prune.ts";
import type { StoredObject } from "../../meta.ts";
import { isObj, type Obj, obj } from "../../validation/json.ts";
import { ensurePermanentId } from "./binding.ts";
import type { MutationContext } from "./context.ts";

export const WORK_PERMANENT_ID = "work.karmada.io/permanent-id";
export const MANAGED_LABELS_ANNOTATION = "resourcetemplate.karmada.io/managed-labels";
export const MANAGED_ANNOTATIONS_ANNOTATION = "resourcetemplate.karmada.io/managed-annotations";

/**
 * Drops server-written metadata and status, and per-kind fields that belong to the member
 * cluster, in place: the interpreter's prune (one list for Works, promote and comparisons).
 */
export function removeIrrelevantFields(manifest: Obj): void {
  const pruned = prune(manifest);
  for (const k of Object.keys(manifest)) delete manifest[k];
  Object.assign(manifest, pruned);
}

/** Records the annotation keys (including the two bookkeeping ones) and, after the id label, the label keys. */
export function recordManagedKeys(manifest: Obj, workId: string): void {
  const metadata = obj(manifest.metadata) ?? {};
  manifest.metadata = metadata;
  const annotations: Record<string, unknown> = obj(metadata.annotations) ?? {};
  const annotationKeys = Object.keys(annotations).filter(
    (k) => k !== MANAGED_ANNOTATIONS_ANNOTATION && k !== MANAGED_LABELS_ANNOTATION,
  );
  annotations[MANAGED_ANNOTATIONS_ANNOTATION] = [
    MANAGED_ANNOTATIONS_ANNOTATION,
    MANAGED_LABELS_ANNOTATION,
    ...annotationKeys,
  ]
    .sort()
    .join(",");
  if (workId) metadata.labels = { ...obj(metadata.labels), [WORK_PERMANENT_ID]: workId };
  annotations[MANAGED_LABELS_ANNOTATION] = Object.keys(obj(metadata.labels) ?? {})
    .sort()
    .join(",");
  metadata.annotations = annotations;
}

export function mutateWork(work: StoredObject, _old: StoredObject | undefined, ctx: MutationContext): void {
  ensurePermanentId(work, WORK_PERMANENT_ID, ctx);
  const workId = work.metadata.labels?.[WORK_PERMANENT_ID] ?? "";
  const workload = obj(obj(work.spec)?.workload);
  if (!workload || !Array.isArray(workload.manifests)) return;
  for (const manifest of workload.manifests) {
    if (!isObj(manifest)) continue;
    removeIrrelevantFields(manifest);
    recordManagedKeys(manifest, workId);
  }
}
