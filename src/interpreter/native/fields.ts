/**
 * Reading and writing fields of plain JSON objects the way the native interpreter needs it:
 * a missing or mistyped field reads as the Go zero value (upstream converts to typed structs,
 * where an absent `int32` is 0 and an absent string is "").
 */

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function valueAt(obj: unknown, ...path: string[]): unknown {
  let cur = obj;
  for (const key of path) {
    if (!isObject(cur)) return undefined;
    cur = cur[key];
  }
  return cur;
}

export function hasPath(obj: unknown, ...path: string[]): boolean {
  const parent = valueAt(obj, ...path.slice(0, -1));
  const last = path.at(-1);
  return last !== undefined && isObject(parent) && Object.hasOwn(parent, last);
}

export function objectAt(obj: unknown, ...path: string[]): JsonObject | undefined {
  const v = valueAt(obj, ...path);
  return isObject(v) ? v : undefined;
}

export function arrayAt(obj: unknown, ...path: string[]): unknown[] {
  const v = valueAt(obj, ...path);
  return Array.isArray(v) ? v : [];
}

export function stringAt(obj: unknown, ...path: string[]): string {
  const v = valueAt(obj, ...path);
  return typeof v === "string" ? v : "";
}

export function numberAt(obj: unknown, ...path: string[]): number {
  const v = valueAt(obj, ...path);
  return typeof v === "number" && Number.isFinite(v) ? v : 0;
}

/** An integer field, or undefined when absent (a Go `*int32`). */
export function optionalIntAt(obj: unknown, ...path: string[]): number | undefined {
  const v = valueAt(obj, ...path);
  return typeof v === "number" && Number.isInteger(v) ? v : undefined;
}

/** A `map[string]string` field: undefined when absent, an error when a value is not a string. */
export function stringMapAt(obj: unknown, ...path: string[]): Record<string, string> | undefined {
  const v = valueAt(obj, ...path);
  if (v === undefined || v === null) return undefined;
  if (!isObject(v)) throw new Error(`.${path.join(".")} accessor error: ${JSON.stringify(v)} is not a map`);
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(v)) {
    if (typeof value !== "string") {
      throw new Error(`.${path.join(".")}.${key} accessor error: ${JSON.stringify(value)} is not a string`);
    }
    out[key] = value;
  }
  return out;
}

/** Sets a nested field, creating (or replacing non-object) intermediate objects. */
export function setAt(obj: JsonObject, path: readonly string[], value: unknown): void {
  let cur = obj;
  for (const key of path.slice(0, -1)) {
    const next = cur[key];
    if (isObject(next)) {
      cur = next;
    } else {
      const created: JsonObject = {};
      cur[key] = created;
      cur = created;
    }
  }
  cur[path.at(-1)!] = value;
}

/** Deletes a nested field; parents are left in place, even when they become empty. */
export function deleteAt(obj: unknown, path: readonly string[]): void {
  const parent = valueAt(obj, ...path.slice(0, -1));
  if (isObject(parent)) delete parent[path.at(-1)!];
}

/** Go's `omitempty` for a numeric status field: zero is left out unless the field always serializes. */
export function putCount(target: JsonObject, key: string, value: number, always = false): void {
  if (value !== 0 || always) target[key] = value;
  else delete target[key];
}
