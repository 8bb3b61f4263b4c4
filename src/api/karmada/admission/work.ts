/**
 * Work: a permanent id, and every manifest cleaned of what the control plane's API server
 * wrote into it (and what a member cluster would refuse or fight over), then stamped with the
 * Work's id and the managed-labels / managed-annotations bookkeeping annotations.
 */

import type { StoredObject } from "../../meta.ts";
import { isObj, type Obj, obj, str } from "../../validation/json.ts";
import { ensurePermanentId } from "./binding.ts";
import type { MutationContext } from "./context.ts";

export const WORK_PERMANENT_ID = "work.karmada.io/permanent-id";
export const MANAGED_LABELS_ANNOTATION = "resourcetemplate.karmada.io/managed-labels";
export const MANAGED_ANNOTATIONS_ANNOTATION = "resourcetemplate.karmada.io/managed-annotations";

const SERVER_OWNED_METADATA = [
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "generation",
  "managedFields",
  "resourceVersion",
  "selfLink",
  "uid",
  "ownerReferences",
  "finalizers",
];

function removeAnnotations(manifest: Obj, keys: string[]): void {
  const annotations = obj(obj(manifest.metadata)?.annotations);
  if (annotations) for (const k of keys) delete annotations[k];
}

function pruneJob(job: Obj): void {
  const spec = obj(job.spec);
  if (!spec) return;
  delete spec.ttlSecondsAfterFinished;
  if (spec.manualSelector === true) return;
  // Labels the Job controller generates; the member cluster's controller adds its own.
  const matchLabels = obj(obj(spec.selector)?.matchLabels);
  if (matchLabels)
    for (const k of ["controller-uid", "batch.kubernetes.io/controller-uid"]) delete matchLabels[k];
  const templateLabels = obj(obj(obj(spec.template)?.metadata)?.labels);
  if (templateLabels) {
    for (const k of [
      "controller-uid",
      "job-name",
      "batch.kubernetes.io/controller-uid",
      "batch.kubernetes.io/job-name",
    ]) {
      delete templateLabels[k];
    }
  }
}

function pruneServiceAccount(sa: Obj): void {
  if (!Array.isArray(sa.secrets) || sa.secrets.length === 0) return;
  const tokenPrefix = `${str(obj(sa.metadata)?.name) ?? ""}-token-`;
  sa.secrets = sa.secrets.filter((s) => !(str(obj(s)?.name) ?? "").startsWith(tokenPrefix));
}

function pruneService(svc: Obj): void {
  const spec = obj(svc.spec);
  // A headless Service (clusterIP None) keeps it; any other address belongs to the member cluster.
  if (spec && typeof spec.clusterIP === "string" && spec.clusterIP !== "None") {
    delete spec.clusterIP;
    delete spec.clusterIPs;
  }
}

function pruneSecret(secret: Obj): void {
  if (secret.type !== "kubernetes.io/service-account-token") return;
  removeAnnotations(secret, ["kubernetes.io/service-account.uid"]);
  secret.data = null;
}

function prunePersistentVolumeClaim(pvc: Obj): void {
  const annotations = obj(obj(pvc.metadata)?.annotations);
  if (annotations && str(annotations["volume.kubernetes.io/selected-node"])) {
    delete annotations["volume.kubernetes.io/selected-node"];
  }
}

const KIND_PRUNERS: Record<string, (manifest: Obj) => void> = {
  Deployment: (d) =>
    removeAnnotations(d, ["deployment.kubernetes.io/revision", "deployment.kubernetes.io/revision-history"]),
  Job: pruneJob,
  Secret: pruneSecret,
  ServiceAccount: pruneServiceAccount,
  Service: pruneService,
  PersistentVolumeClaim: prunePersistentVolumeClaim,
};

/** Drops server-written metadata and status, and per-kind fields that belong to the member cluster. */
export function removeIrrelevantFields(manifest: Obj): void {
  const metadata = obj(manifest.metadata);
  if (metadata) for (const f of SERVER_OWNED_METADATA) delete metadata[f];
  delete manifest.status;
  const kind = str(manifest.kind) ?? "";
  KIND_PRUNERS[kind]?.(manifest);
}

/** Records the annotation keys (including the two bookkeeping ones) and, after the id label, the label keys. */
function recordManagedKeys(manifest: Obj, workId: string): void {
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
