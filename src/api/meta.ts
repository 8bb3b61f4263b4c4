/**
 * meta.k8s.io/v1 shapes every object shares, and small typed accessors for the plain JSON
 * objects the server handles.
 */
import { type Schema, s } from "./schema.ts";

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ManagedFieldsEntry {
  manager?: string;
  operation?: "Apply" | "Update";
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: Record<string, unknown>;
  subresource?: string;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  selfLink?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string | null;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: ManagedFieldsEntry[];
}

/** Any Kubernetes object as JSON. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  [field: string]: unknown;
}

/** An object about to be written: the server fills in `uid`, and `name` from `generateName`. */
export interface NewObject extends KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
}

/** What every stored object's metadata has: the server assigns `uid`, and `name` (or fills it from `generateName`). */
export interface StoredMeta extends ObjectMeta {
  name: string;
  uid: string;
}

/** An object the server has read or written: metadata, its name and uid are always present. */
export interface StoredObject extends KubeObject {
  apiVersion: string;
  kind: string;
  metadata: StoredMeta;
}

export const ownerReferenceSchema: Schema = s.object(
  {
    apiVersion: s.string(),
    blockOwnerDeletion: s.boolean(),
    controller: s.boolean(),
    kind: s.string(),
    name: s.string(),
    uid: s.string(),
  },
  { required: ["apiVersion", "kind", "name", "uid"], "x-kubernetes-map-type": "atomic" },
);

export const managedFieldsEntrySchema: Schema = s.object({
  apiVersion: s.string(),
  fieldsType: s.string(),
  fieldsV1: s.preserve(),
  manager: s.string(),
  operation: s.string(),
  subresource: s.string(),
  time: s.time(),
});

/** ObjectMeta as every kind's (and every embedded resource's) `metadata` is pruned and checked. */
export const objectMetaSchema: Schema = s.object({
  annotations: s.map(s.string()),
  creationTimestamp: s.time(),
  deletionGracePeriodSeconds: s.int64(),
  deletionTimestamp: s.time(),
  finalizers: s.array(s.string(), {
    "x-kubernetes-list-type": "set",
    "x-kubernetes-patch-strategy": "merge",
  }),
  generateName: s.string(),
  generation: s.int64(),
  labels: s.map(s.string()),
  managedFields: s.array(managedFieldsEntrySchema, { "x-kubernetes-list-type": "atomic" }),
  name: s.string(),
  namespace: s.string(),
  ownerReferences: s.array(ownerReferenceSchema, {
    "x-kubernetes-list-type": "map",
    "x-kubernetes-list-map-keys": ["uid"],
    "x-kubernetes-patch-strategy": "merge",
    "x-kubernetes-patch-merge-key": "uid",
  }),
  resourceVersion: s.string(),
  selfLink: s.string(),
  uid: s.string(),
});

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** `group/version` → `{group, version}`; `v1` → core. */
export function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf("/");
  return slash < 0
    ? { group: "", version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

export function apiVersionOf(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

let lastSecond = -1;
let lastText = "";

/** RFC 3339 with second precision, as Kubernetes writes `metav1.Time`. */
export function rfc3339(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== lastSecond) {
    lastSecond = second;
    lastText = `${new Date(second * 1000).toISOString().slice(0, 19)}Z`;
  }
  return lastText;
}

/** RFC 3339 with microseconds (`metav1.MicroTime`). */
export function rfc3339Micro(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 23)}000Z`;
}
