/**
 * JSON merge patch (RFC 7386), the `application/merge-patch+json` body of a PATCH, and the
 * small JSON-value helpers the other patch engines share.
 *
 * Objects in the patch merge recursively into the target, `null` removes a member, and any
 * other value (arrays included) replaces the target value wholesale.
 */

import { deepEqual } from "./equality.ts";

/** A JSON object as `JSON.parse` returns it. */
export type JsonObject = { [key: string]: unknown };

/** True for JSON objects (not arrays, not null). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The own member `key` of `object`; never a value inherited from `Object.prototype`. */
export function getMember(object: JsonObject, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

/**
 * Sets an own member. Plain assignment of `__proto__` would replace the prototype instead of
 * creating a member, and patches come from clients.
 */
export function setMember(object: JsonObject, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    object[key] = value;
  }
}

/**
 * A deep copy of a JSON value (`undefined` stays `undefined`, as do members whose value is
 * `undefined`). A plain walk: several times quicker than `structuredClone`, which serializes,
 * and it runs on every patch and on most controller writes.
 */
export function cloneJson<T>(value: T): T {
  return value === null || typeof value !== "object" ? value : (cloneValue(value) as T);
}

function cloneValue(value: object): unknown {
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      out[i] = v === null || typeof v !== "object" ? v : cloneValue(v);
    }
    return out;
  }
  const out: JsonObject = {};
  for (const key of Object.keys(value)) {
    const v = (value as JsonObject)[key];
    const copy = v === null || typeof v !== "object" ? v : cloneValue(v);
    if (key === "__proto__") setMember(out, key, copy);
    else out[key] = copy;
  }
  return out;
}

/**
 * A deep copy with `JSON.stringify` semantics, without the string: properties that are
 * `undefined` (or functions) are left out and such array items become `null`. What an
 * in-process caller's body looks like after it crossed the wire.
 */
export function toJson(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    return value.map((v) => (v === undefined || typeof v === "function" ? null : toJson(v)));
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") {
    return toJson((value as { toJSON(): unknown }).toJSON());
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined && typeof v !== "function") out[key] = toJson(v);
  }
  return out;
}

/**
 * Applies an RFC 7386 merge patch and returns the result. Neither input is modified and the
 * result shares no objects with them.
 *
 * A patch that is not an object replaces the target (RFC 7386 section 2); the API server
 * rejects such bodies before calling this.
 */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isJsonObject(patch)) return cloneJson(patch);
  const result: JsonObject = isJsonObject(target) ? cloneJson(target) : {};
  mergeInto(result, patch);
  return result;
}

/**
 * Applies an RFC 7386 merge patch to `target` itself when it is an object (the result shares no
 * objects with `patch`); for callers that own `target` and would only throw the original away.
 */
export function mergePatchInto(target: unknown, patch: unknown): unknown {
  if (!isJsonObject(patch)) return cloneJson(patch);
  const result: JsonObject = isJsonObject(target) ? target : {};
  mergeInto(result, patch);
  return result;
}

function mergeInto(target: JsonObject, patch: JsonObject): void {
  for (const key of Object.keys(patch)) {
    const value = patch[key];
    if (value === null) {
      delete target[key];
    } else if (isJsonObject(value)) {
      const current = getMember(target, key);
      const next: JsonObject = isJsonObject(current) ? current : {};
      mergeInto(next, value);
      setMember(target, key, next);
    } else {
      setMember(target, key, cloneJson(value));
    }
  }
}

/**
 * The JSON merge patch (RFC 7386) that turns `before` into `after`: changed members as they
 * are now, removed members as null, arrays and scalars whole. Undefined when nothing changed.
 * (A null inside `after` cannot be written by a merge patch; callers diff JSON objects, where
 * Kubernetes treats null and absent alike.)
 */
export function createMergePatch(before: unknown, after: unknown): unknown {
  if (!isJsonObject(before) || !isJsonObject(after)) {
    return deepEqual(before, after) ? undefined : cloneJson(after);
  }
  const patch: JsonObject = {};
  let changed = false;
  for (const key of Object.keys(before)) {
    if (getMember(before, key) !== undefined && getMember(after, key) === undefined) {
      setMember(patch, key, null);
      changed = true;
    }
  }
  for (const key of Object.keys(after)) {
    const next = getMember(after, key);
    if (next === undefined) continue;
    const prev = getMember(before, key);
    const sub = prev === undefined ? cloneJson(next) : createMergePatch(prev, next);
    if (sub !== undefined) {
      setMember(patch, key, sub);
      changed = true;
    }
  }
  return changed ? patch : undefined;
}
