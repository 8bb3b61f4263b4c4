/**
 * Pruning of the fields that must not travel in a Work manifest (upstream's
 * `RemoveIrrelevantFields`): what the control plane's API server populated, and per kind what
 * the member cluster allocates or generates for itself. Also applied to the observed member
 * object before it is compared with the desired one, so both sides lose the same fields.
 */
import type { KubeObject } from "../../api/meta.ts";
import { cloneJson } from "../../machinery/merge-patch.ts";
import { arrayAt, deleteAt, isObject, objectAt, stringAt, valueAt } from "./fields.ts";

export interface PruneOptions {
  /**
   * Keep a Job's `spec.ttlSecondsAfterFinished`. Every Work-related caller drops it (a member's
   * TTL controller would delete the finished Job and Karmada would recreate it); only
   * `karmadactl promote` keeps it.
   */
  keepJobTtlSecondsAfterFinished?: boolean;
}

const SERVER_POPULATED_METADATA = [
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
] as const;

const DEPLOYMENT_REVISION_ANNOTATIONS = [
  "deployment.kubernetes.io/revision",
  "deployment.kubernetes.io/revision-history",
];

/** Labels the Job controller generates from the Job's uid and name (both pre- and post-1.27 spellings). */
const JOB_SELECTOR_LABELS = ["controller-uid", "batch.kubernetes.io/controller-uid"];
const JOB_TEMPLATE_LABELS = [...JOB_SELECTOR_LABELS, "job-name", "batch.kubernetes.io/job-name"];

const SERVICE_ACCOUNT_TOKEN_TYPE = "kubernetes.io/service-account-token";
const SERVICE_ACCOUNT_UID_ANNOTATION = "kubernetes.io/service-account.uid";
const SELECTED_NODE_ANNOTATION = "volume.kubernetes.io/selected-node";

const KIND_PRUNERS: Record<string, (obj: KubeObject) => void> = {
  Deployment: pruneDeployment,
  Job: pruneJob,
  Secret: pruneSecret,
  ServiceAccount: pruneServiceAccount,
  Service: pruneService,
  PersistentVolumeClaim: prunePersistentVolumeClaim,
};

const SERVER_POPULATED = new Set<string>(SERVER_POPULATED_METADATA);

/**
 * A copy of `obj` without the irrelevant fields; pruners are chosen by kind alone, as upstream.
 * What goes is not copied first: a member's object brings its status and managed fields, often
 * most of it, and every Work is pruned on each apply and each render.
 */
export function prune(obj: KubeObject, options: PruneOptions = {}): KubeObject {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(obj)) {
    if (key === "status") continue;
    if (key === "metadata" && isObject(value)) {
      const metadata: Record<string, unknown> = {};
      for (const [field, v] of Object.entries(value))
        if (!SERVER_POPULATED.has(field)) metadata[field] = cloneJson(v);
      out[key] = metadata;
    } else out[key] = cloneJson(value);
  }
  const pruned = out as KubeObject;
  KIND_PRUNERS[pruned.kind ?? ""]?.(pruned);
  if (pruned.kind === "Job" && !options.keepJobTtlSecondsAfterFinished) {
    deleteAt(pruned, ["spec", "ttlSecondsAfterFinished"]);
  }
  return pruned;
}

function pruneDeployment(obj: KubeObject): void {
  for (const key of DEPLOYMENT_REVISION_ANNOTATIONS) deleteAt(obj, ["metadata", "annotations", key]);
}

function pruneJob(obj: KubeObject): void {
  if (valueAt(obj, "spec", "manualSelector") === true) return;
  const matchLabels = objectAt(obj, "spec", "selector", "matchLabels");
  if (matchLabels) for (const key of JOB_SELECTOR_LABELS) delete matchLabels[key];
  const templateLabels = objectAt(obj, "spec", "template", "metadata", "labels");
  if (templateLabels) for (const key of JOB_TEMPLATE_LABELS) delete templateLabels[key];
}

/** Token Secrets are filled in by the member's token controller: their data and SA uid are its own. */
function pruneSecret(obj: KubeObject): void {
  if (obj.type !== SERVICE_ACCOUNT_TOKEN_TYPE) return;
  deleteAt(obj, ["metadata", "annotations", SERVICE_ACCOUNT_UID_ANNOTATION]);
  obj.data = null;
}

/** Drops the `<sa>-token-*` Secrets the (legacy) token controller listed in `secrets`. */
function pruneServiceAccount(obj: KubeObject): void {
  const secrets = arrayAt(obj, "secrets");
  if (secrets.length === 0) return;
  const tokenPrefix = `${obj.metadata?.name ?? ""}-token-`;
  obj.secrets = secrets.filter((ref) => !stringAt(ref, "name").startsWith(tokenPrefix));
}

/** Cluster IPs are allocated by each member; a headless Service (`None`) keeps its marker. */
function pruneService(obj: KubeObject): void {
  const clusterIP = valueAt(obj, "spec", "clusterIP");
  if (typeof clusterIP === "string" && clusterIP !== "None") {
    deleteAt(obj, ["spec", "clusterIP"]);
    deleteAt(obj, ["spec", "clusterIPs"]);
  }
}

/** The scheduler of one member picked that node; it means nothing elsewhere. */
function prunePersistentVolumeClaim(obj: KubeObject): void {
  if (stringAt(obj, "metadata", "annotations", SELECTED_NODE_ANNOTATION) !== "") {
    deleteAt(obj, ["metadata", "annotations", SELECTED_NODE_ANNOTATION]);
  }
}
