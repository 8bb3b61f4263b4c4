/**
 * InterpretStatus (ReflectStatus) for the built-in kinds: the part of a member object's status
 * the work-status controller records in its Work, which the aggregation later sums up.
 * Workloads also carry their "federated generation": the member's `metadata.generation` and the
 * template generation it was built from, so aggregation can tell a stale status from a current one.
 *
 * Fields follow Go's JSON encoding of upstream's status structs: zero counters are left out
 * unless the Kubernetes type always serializes them.
 */
import type { KubeObject } from "../../api/meta.ts";
import { ANNOTATION } from "../../karmada/names.ts";
import { cloneJson } from "../../machinery/merge-patch.ts";
import {
  arrayAt,
  isObject,
  type JsonObject,
  numberAt,
  objectAt,
  putCount,
  stringAt,
  valueAt,
} from "./fields.ts";
import { describeObject, GVK, gvkOf } from "./kinds.ts";

/** `null`: the hook ran and there is no status to record. */
type Reflector = (obj: KubeObject) => JsonObject | null;

/**
 * The template generation a member object was built from (annotation
 * `resourcetemplate.karmada.io/generation`). Like upstream's `strconv.ParseInt`, a missing or
 * malformed value is an error, not 0.
 */
export function resourceTemplateGeneration(obj: KubeObject): number {
  const text = obj.metadata?.annotations?.[ANNOTATION.templateGeneration] ?? "";
  if (!/^[+-]?\d+$/.test(text) || !Number.isSafeInteger(Number(text))) {
    throw new Error(
      `failed to parse ${describeObject(obj)} generation from annotation(${ANNOTATION.templateGeneration}:${text})`,
    );
  }
  return Number(text);
}

function federatedGeneration(obj: KubeObject): JsonObject {
  const out: JsonObject = {};
  putCount(out, "generation", obj.metadata?.generation ?? 0);
  putCount(out, "resourceTemplateGeneration", resourceTemplateGeneration(obj));
  return out;
}

/** Copies counters from `status`; `always` lists those Go serializes even when zero. */
function counters(status: JsonObject, fields: readonly string[], always: readonly string[] = []): JsonObject {
  const out: JsonObject = {};
  for (const field of fields) putCount(out, field, numberAt(status, field), always.includes(field));
  return out;
}

const reflectDeploymentStatus: Reflector = (obj) => {
  const status = objectAt(obj, "status");
  if (!status) return null;
  const out = {
    ...federatedGeneration(obj),
    ...counters(status, [
      "replicas",
      "updatedReplicas",
      "readyReplicas",
      "availableReplicas",
      "unavailableReplicas",
      "observedGeneration",
    ]),
  };
  // An empty result means the member has not reported anything yet.
  return Object.keys(out).length > 0 ? out : null;
};

const reflectReplicaSetStatus: Reflector = (obj) => {
  const status = objectAt(obj, "status");
  if (!status) return null;
  return {
    ...federatedGeneration(obj),
    ...counters(
      status,
      ["replicas", "readyReplicas", "availableReplicas", "observedGeneration"],
      ["replicas"],
    ),
  };
};

const DAEMON_SET_COUNTERS = [
  "currentNumberScheduled",
  "desiredNumberScheduled",
  "numberAvailable",
  "numberMisscheduled",
  "numberReady",
  "updatedNumberScheduled",
  "numberUnavailable",
] as const;
const DAEMON_SET_ALWAYS = [
  "currentNumberScheduled",
  "numberMisscheduled",
  "desiredNumberScheduled",
  "numberReady",
];

const reflectDaemonSetStatus: Reflector = (obj) => {
  const status = objectAt(obj, "status");
  if (!status) return null;
  return {
    ...federatedGeneration(obj),
    ...counters(status, [...DAEMON_SET_COUNTERS, "observedGeneration"], DAEMON_SET_ALWAYS),
  };
};

const STATEFUL_SET_COUNTERS = [
  "availableReplicas",
  "currentReplicas",
  "readyReplicas",
  "replicas",
  "updatedReplicas",
] as const;
const STATEFUL_SET_ALWAYS = ["replicas", "availableReplicas"];

/** Upstream reflects no observedGeneration for StatefulSets. */
const reflectStatefulSetStatus: Reflector = (obj) => {
  const status = objectAt(obj, "status");
  if (!status) return null;
  return { ...federatedGeneration(obj), ...counters(status, STATEFUL_SET_COUNTERS, STATEFUL_SET_ALWAYS) };
};

/** Only a LoadBalancer Service has a status worth collecting: its ingress points. */
const reflectServiceStatus: Reflector = (obj) => {
  if (stringAt(obj, "spec", "type") !== "LoadBalancer") return null;
  const status = objectAt(obj, "status");
  if (!status) return null;
  return { loadBalancer: cloneJson(objectAt(status, "loadBalancer") ?? {}) };
};

const reflectJobStatus: Reflector = (obj) => {
  const status = objectAt(obj, "status");
  if (!status) return null;
  const out: JsonObject = {};
  const conditions = arrayAt(status, "conditions");
  if (conditions.length > 0) out.conditions = cloneJson(conditions);
  for (const field of ["startTime", "completionTime"]) {
    const time = valueAt(status, field);
    if (typeof time === "string" && time !== "") out[field] = time;
  }
  return { ...out, ...counters(status, ["active", "succeeded", "failed"]) };
};

const reflectPodDisruptionBudgetStatus: Reflector = (obj) => {
  const status = objectAt(obj, "status");
  if (!status) return null;
  const out = counters(
    status,
    ["disruptionsAllowed", "expectedPods", "desiredHealthy", "currentHealthy"],
    ["disruptionsAllowed", "expectedPods", "desiredHealthy", "currentHealthy"],
  );
  const disruptedPods = objectAt(status, "disruptedPods");
  if (disruptedPods && Object.keys(disruptedPods).length > 0) out.disruptedPods = cloneJson(disruptedPods);
  return out;
};

const reflectHorizontalPodAutoscalerStatus: Reflector = (obj) => {
  const status = objectAt(obj, "status");
  if (!status) return null;
  return counters(status, ["currentReplicas", "desiredReplicas"], ["desiredReplicas"]);
};

/** What every kind without a specialised reflector records: its whole `.status`. */
export function reflectWholeStatus(obj: KubeObject): JsonObject | null {
  return isObject(obj.status) ? cloneJson(obj.status) : null;
}

export const STATUS_REFLECTORS: Record<string, Reflector> = {
  [GVK.deployment]: reflectDeploymentStatus,
  [GVK.replicaSet]: reflectReplicaSetStatus,
  [GVK.service]: reflectServiceStatus,
  [GVK.ingress]: reflectWholeStatus,
  [GVK.job]: reflectJobStatus,
  [GVK.daemonSet]: reflectDaemonSetStatus,
  [GVK.statefulSet]: reflectStatefulSetStatus,
  [GVK.podDisruptionBudget]: reflectPodDisruptionBudgetStatus,
  [GVK.horizontalPodAutoscaler]: reflectHorizontalPodAutoscalerStatus,
};

/**
 * The status to record for `obj`: a status object, `null` when a specialised reflector ran and
 * found nothing to record (a ClusterIP Service, a workload that has not reported yet), or
 * `undefined` when the kind has no specialised reflector (record the whole status).
 */
export function reflectNativeStatus(obj: KubeObject): JsonObject | null | undefined {
  const reflect = STATUS_REFLECTORS[gvkOf(obj)];
  return reflect ? reflect(obj) : undefined;
}
