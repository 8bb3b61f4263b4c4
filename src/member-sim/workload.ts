/**
 * What the workload controllers share: controller references, pods from templates, template
 * hashes (pod-template-hash, controller-revision-hash), int-or-percent values, and the pod
 * predicates (active, ready, available) they count with.
 */
import { type KubeObject, type OwnerReference, rfc3339, type StoredObject } from "../api/meta.ts";
import { cloneJson } from "../machinery/merge-patch.ts";
import type { BuiltinCondition, IntOrString, PodSpec, PodStatus, PodTemplateSpec } from "./types.ts";

/** The index (on every informer that needs it) of objects by their controller's uid. */
export const BY_CONTROLLER = "controller";
/** The pod index by `spec.nodeName`. */
export const BY_NODE = "node";
/** The pod index by namespace (selector lookups: services, adoption). */
export const BY_NAMESPACE = "namespace";

export function controllerOf(obj: Pick<StoredObject, "metadata">): OwnerReference | undefined {
  return obj.metadata.ownerReferences?.find((r) => r.controller === true);
}

export function controllerUids(obj: StoredObject): string[] {
  const ref = controllerOf(obj);
  return ref ? [ref.uid] : [];
}

/** The `namespace/name` key of the object's controller when it is of `kind`. */
export function controllerKey(obj: StoredObject, kind: string): string[] {
  const ref = controllerOf(obj);
  return ref && ref.kind === kind ? [`${obj.metadata.namespace}/${ref.name}`] : [];
}

export function controllerRef(owner: StoredObject): OwnerReference {
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name: owner.metadata.name,
    uid: owner.metadata.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** A pod for `owner` from a pod template, as controller.GetPodFromTemplate builds it. */
export function podFromTemplate(
  template: PodTemplateSpec | undefined,
  owner: StoredObject,
  extra: {
    name?: string;
    generateName?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    spec?: (spec: PodSpec) => void;
  } = {},
): KubeObject {
  const meta = template?.metadata ?? {};
  const labels = { ...meta.labels, ...extra.labels };
  const annotations = { ...meta.annotations, ...extra.annotations };
  const spec = cloneJson(template?.spec ?? {});
  extra.spec?.(spec);
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      ...(extra.name
        ? { name: extra.name }
        : { generateName: extra.generateName ?? `${owner.metadata.name}-` }),
      namespace: owner.metadata.namespace!,
      ...(Object.keys(labels).length > 0 ? { labels } : {}),
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
      ...(meta.finalizers ? { finalizers: [...meta.finalizers] } : {}),
      ownerReferences: [controllerRef(owner)],
    },
    spec,
  };
}

/** A stable JSON form (object keys sorted) for hashing. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** 32-bit FNV-1a over the UTF-8 bytes of `text`. */
export function fnv32a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, "utf8")) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

const SAFE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

/**
 * A short hash of a template in the alphabet Kubernetes uses for generated names (no vowels,
 * so no words): the shape of `pod-template-hash` and `controller-revision-hash` values.
 */
export function templateHash(template: unknown, collisionCount = 0): string {
  const n = fnv32a(canonicalJson(template) + (collisionCount > 0 ? `#${collisionCount}` : ""));
  return [...String(n)].map((d) => SAFE_ALPHABET[d.charCodeAt(0) % SAFE_ALPHABET.length]).join("");
}

/** An int-or-percent against `total`, percentages rounded up or down (intstr.GetScaledValueFromIntOrPercent). */
export function scaledValue(value: IntOrString | undefined, total: number, roundUp: boolean): number {
  if (value === undefined) return 0;
  if (typeof value === "number") return value;
  const m = /^(\d+)%$/.exec(value);
  if (!m) return Number.isInteger(Number(value)) ? Number(value) : 0;
  const exact = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}

export function podSpec(pod: StoredObject): PodSpec {
  return (pod.spec ?? {}) as PodSpec;
}

export function podStatus(pod: StoredObject): PodStatus {
  return (pod.status ?? {}) as PodStatus;
}

export function isTerminal(pod: StoredObject): boolean {
  const phase = podStatus(pod).phase;
  return phase === "Succeeded" || phase === "Failed";
}

/** Counted by controllers: not finished and not being deleted (controller.IsPodActive). */
export function isActive(pod: StoredObject): boolean {
  return !isTerminal(pod) && !pod.metadata.deletionTimestamp;
}

export function readyCondition(pod: StoredObject): BuiltinCondition | undefined {
  return podStatus(pod).conditions?.find((c) => c.type === "Ready");
}

export function isReady(pod: StoredObject): boolean {
  return readyCondition(pod)?.status === "True";
}

export function isRunningAndReady(pod: StoredObject): boolean {
  return podStatus(pod).phase === "Running" && isReady(pod);
}

/** Ready for at least `minReadySeconds` (podutil.IsPodAvailable). */
export function isAvailable(pod: StoredObject, minReadySeconds: number, now: number): boolean {
  const ready = readyCondition(pod);
  if (ready?.status !== "True") return false;
  if (minReadySeconds <= 0) return true;
  const since = ready.lastTransitionTime ? Date.parse(ready.lastTransitionTime) : now;
  return since + minReadySeconds * 1000 <= now;
}

/** Milliseconds until a ready pod becomes available, for a requeue (undefined: never or already). */
export function untilAvailable(pod: StoredObject, minReadySeconds: number, now: number): number | undefined {
  const ready = readyCondition(pod);
  if (ready?.status !== "True" || minReadySeconds <= 0 || !ready.lastTransitionTime) return undefined;
  const wait = Date.parse(ready.lastTransitionTime) + minReadySeconds * 1000 - now;
  return wait > 0 ? wait : undefined;
}

/** Labels ⊇ wanted. */
export function hasLabels(
  labels: Record<string, string> | undefined,
  wanted: Record<string, string> | undefined,
): boolean {
  for (const [k, v] of Object.entries(wanted ?? {})) if (labels?.[k] !== v) return false;
  return true;
}

/** Zero-valued fields dropped, as Go's `omitempty` does on int32 status fields. */
export function omitZero<T>(status: Record<string, unknown>, keep: readonly string[] = []): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(status)) {
    if (v === undefined) continue;
    if (v === 0 && !keep.includes(k)) continue;
    out[k] = v;
  }
  return out as T;
}

export function timestamp(now: number): string {
  return rfc3339(now);
}
