/**
 * Objects in and out of the store: the stored JSON never carries `resourceVersion` (it is
 * the key's modRevision), objects are stored in their storage version and converted to the
 * requested one on the way out, and store errors become Kubernetes Status errors here.
 */
import { apiVersionOf, type StoredObject } from "../api/meta.ts";
import {
  type ApiError,
  alreadyExists,
  conflict,
  expired,
  notFound,
  OBJECT_MODIFIED,
  timeout,
} from "../machinery/errors.ts";
import { applySchemaDefaults } from "../machinery/structural.ts";
import {
  CompactedError,
  FutureRevisionError,
  KeyExistsError,
  KeyNotFoundError,
  type KeyValue,
  RevisionMismatchError,
} from "../storage/store.ts";
import { convertVersion } from "./conversion.ts";
import { type ResourceType, resourceRef } from "./resource-type.ts";

/** The stored value → the object as served at `rt`'s version. */
export function decodeStored(rt: ResourceType, kv: KeyValue): StoredObject {
  const obj = JSON.parse(kv.value) as StoredObject;
  obj.metadata.resourceVersion = String(kv.modRevision);
  return toServedVersion(rt, obj);
}

export function toServedVersion(rt: ResourceType, obj: StoredObject): StoredObject {
  const want = apiVersionOf(rt.group, rt.version);
  if (obj.apiVersion !== want) obj = convertVersion(rt, obj, want);
  if (!rt.builtin) applySchemaDefaults(obj, rt.schema);
  return obj;
}

/** The object → the value to store, in the storage version, without `resourceVersion`. */
export function encodeForStorage(rt: ResourceType, obj: StoredObject): string {
  const storageApiVersion = apiVersionOf(rt.group, rt.storage.version);
  const stored = obj.apiVersion === storageApiVersion ? obj : convertVersion(rt, obj, storageApiVersion);
  const rv = stored.metadata.resourceVersion;
  delete stored.metadata.resourceVersion;
  try {
    return JSON.stringify(stored);
  } finally {
    if (rv !== undefined) stored.metadata.resourceVersion = rv;
  }
}

export function tooLargeResourceVersion(requested: number, current: number): ApiError {
  const e = timeout(`Too large resource version: ${requested}, current: ${current}`, 1);
  e.status.details = {
    ...e.status.details,
    causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }],
  };
  return e;
}

/** Store errors → Status errors naming the object. */
export function translateStoreError(rt: ResourceType, name: string, err: unknown): unknown {
  const ref = resourceRef(rt);
  if (err instanceof KeyExistsError) return alreadyExists(ref, name);
  if (err instanceof KeyNotFoundError) return notFound(ref, name);
  if (err instanceof RevisionMismatchError) return conflict(ref, name, OBJECT_MODIFIED);
  if (err instanceof CompactedError) {
    return expired(`The resourceVersion for the provided list is too old.`);
  }
  if (err instanceof FutureRevisionError) return tooLargeResourceVersion(err.requested, err.current);
  return err;
}
