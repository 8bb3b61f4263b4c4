/**
 * Retain for the built-in kinds: before the execution controller updates a member object, the
 * fields the member cluster owns (allocated IPs, bound volumes, generated tokens, the node a pod
 * runs on, replicas an HPA manages) are copied from the observed object into the desired one.
 * Both inputs are left untouched.
 */
import type { KubeObject } from "../../api/meta.ts";
import { LABEL } from "../../karmada/names.ts";
import { cloneJson } from "../../machinery/merge-patch.ts";
import {
  arrayAt,
  deleteAt,
  hasPath,
  isObject,
  type JsonObject,
  numberAt,
  optionalIntAt,
  setAt,
  stringAt,
  stringMapAt,
  valueAt,
} from "./fields.ts";
import { describeObject, GVK } from "./kinds.ts";

type Retainer = (desired: KubeObject, observed: KubeObject) => KubeObject;

/** With the retain-replicas label the member's replicas win (something there scales it, e.g. an HPA). */
const retainWorkloadReplicas: Retainer = (desired, observed) => {
  const out = cloneJson(desired);
  if (desired.metadata?.labels?.[LABEL.retainReplicas] !== "true") return out;
  const replicas = optionalIntAt(observed, "spec", "replicas");
  if (replicas === undefined) throw new Error(`failed to get spec.replicas from ${describeObject(observed)}`);
  setAt(out, ["spec", "replicas"], replicas);
  return out;
};

/** Go's `omitempty`: what a typed copy of the field would leave out. */
function isEmptyValue(value: unknown): boolean {
  return (
    value === undefined || value === null || value === "" || (Array.isArray(value) && value.length === 0)
  );
}

/** Sets `path` to the observed value, or removes it when the member has none (a typed overwrite). */
function overwrite(out: KubeObject, observed: KubeObject, path: string[]): void {
  const value = valueAt(observed, ...path);
  if (isEmptyValue(value)) deleteAt(out, path);
  else setAt(out, path, cloneJson(value));
}

/**
 * A scheduled pod's node, service account and volumes (the member injects the projected token
 * volume and its mounts) are fixed once it exists.
 */
const retainPodFields: Retainer = (desired, observed) => {
  const out = cloneJson(desired);
  for (const field of ["nodeName", "serviceAccountName", "volumes"])
    overwrite(out, observed, ["spec", field]);
  for (const list of ["containers", "initContainers"]) {
    const desiredContainers = arrayAt(out, "spec", list);
    for (const observedContainer of arrayAt(observed, "spec", list)) {
      const name = stringAt(observedContainer, "name");
      const target = desiredContainers.find((c) => stringAt(c, "name") === name);
      if (!isObject(target)) continue;
      const mounts = valueAt(observedContainer, "volumeMounts");
      if (isEmptyValue(mounts)) delete target.volumeMounts;
      else target.volumeMounts = cloneJson(mounts);
    }
  }
  return out;
};

/** The member allocates a Service's cluster IP and health-check node port; neither may change. */
const retainServiceFields: Retainer = (desired, observed) => {
  const out = cloneJson(desired);
  const healthCheckNodePort = numberAt(observed, "spec", "healthCheckNodePort");
  if (healthCheckNodePort > 0) setAt(out, ["spec", "healthCheckNodePort"], healthCheckNodePort);
  const clusterIP = stringAt(observed, "spec", "clusterIP");
  if (clusterIP !== "") setAt(out, ["spec", "clusterIP"], clusterIP);
  return out;
};

/**
 * Desired `secrets`/`imagePullSecrets` first, then the member's extra ones (e.g. generated
 * tokens), so the member's token controller is not made to regenerate them forever.
 */
const retainServiceAccountFields: Retainer = (desired, observed) => {
  const out = cloneJson(desired);
  for (const field of ["secrets", "imagePullSecrets"]) {
    const merged: unknown[] = [];
    const seen = new Set<string>();
    for (const ref of [...arrayAt(desired, field), ...arrayAt(observed, field)]) {
      const name = stringAt(ref, "name");
      if (seen.has(name)) continue;
      seen.add(name);
      merged.push(cloneJson(ref));
    }
    if (merged.length > 0) out[field] = merged;
    else delete out[field];
  }
  return out;
};

/** The member binds the claim to one of its volumes. */
const retainPersistentVolumeClaimFields: Retainer = (desired, observed) => {
  const out = cloneJson(desired);
  const volumeName = stringAt(observed, "spec", "volumeName");
  if (volumeName !== "") setAt(out, ["spec", "volumeName"], volumeName);
  return out;
};

/** The member's controller-manager binds the volume to a claim. */
const retainPersistentVolumeFields: Retainer = (desired, observed) => {
  const out = cloneJson(desired);
  if (hasPath(observed, "spec", "claimRef")) {
    setAt(out, ["spec", "claimRef"], cloneJson(valueAt(observed, "spec", "claimRef")));
  }
  return out;
};

/** The Job's generated selector (controller-uid) is immutable on the member. */
const retainJobSelectorFields: Retainer = (desired, observed) => {
  const out = cloneJson(desired);
  const matchLabels = stringMapAt(observed, "spec", "selector", "matchLabels");
  if (matchLabels) setAt(out, ["spec", "selector", "matchLabels"], matchLabels);
  const templateLabels = stringMapAt(observed, "spec", "template", "metadata", "labels");
  if (templateLabels) setAt(out, ["spec", "template", "metadata", "labels"], templateLabels);
  return out;
};

/** A token Secret's data is written by the member's token controller. */
const retainServiceAccountTokenData: Retainer = (desired, observed) => {
  const out = cloneJson(desired);
  if (desired.type !== "kubernetes.io/service-account-token") return out;
  const data = stringMapAt(observed, "data");
  if (data) out.data = data satisfies JsonObject;
  return out;
};

export const RETAINERS: Record<string, Retainer> = {
  [GVK.deployment]: retainWorkloadReplicas,
  [GVK.pod]: retainPodFields,
  [GVK.service]: retainServiceFields,
  [GVK.serviceAccount]: retainServiceAccountFields,
  [GVK.persistentVolumeClaim]: retainPersistentVolumeClaimFields,
  [GVK.persistentVolume]: retainPersistentVolumeFields,
  [GVK.job]: retainJobSelectorFields,
  [GVK.secret]: retainServiceAccountTokenData,
};
