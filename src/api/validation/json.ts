/**
 * Typed reads over plain JSON objects. Objects reaching defaulting and validation were
 * checked against a structural schema by the caller, but a field may still be absent or
 * null, so every reader answers `undefined` for "not set".
 */

export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function obj(v: unknown): Obj | undefined {
  return isObj(v) ? v : undefined;
}

export function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

export function num(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

export function bool(v: unknown): boolean | undefined {
  return typeof v === "boolean" ? v : undefined;
}

export function arr(v: unknown): unknown[] | undefined {
  return Array.isArray(v) ? v : undefined;
}

/** The elements of a list of objects; non-objects read as empty objects so indexes stay aligned. */
export function objs(v: unknown): Obj[] {
  return (arr(v) ?? []).map((x) => obj(x) ?? {});
}

/** The elements of a list of strings; non-strings read as "". */
export function strs(v: unknown): string[] {
  return (arr(v) ?? []).map((x) => str(x) ?? "");
}

/** A `map[string]string`; non-string values read as "". */
export function strMap(v: unknown): Record<string, string> | undefined {
  const o = obj(v);
  if (!o) return undefined;
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(o)) out[k] = str(val) ?? "";
  return out;
}

/** `parent[key]` as an object, created (and stored) when missing or not an object. */
export function ensureObj(parent: Obj, key: string): Obj {
  const cur = parent[key];
  if (isObj(cur)) return cur;
  const created: Obj = {};
  parent[key] = created;
  return created;
}

/** Sets `parent[key] = value` only when the field is absent (undefined or null). */
export function setDefault(parent: Obj, key: string, value: unknown): void {
  if (parent[key] === undefined || parent[key] === null) parent[key] = value;
}

/** Sets a string field when it is absent or "" (Go's zero value for strings). */
export function setDefaultString(parent: Obj, key: string, value: string): void {
  const cur = parent[key];
  if (cur === undefined || cur === null || cur === "") parent[key] = value;
}

/** Go's `len(string)`: the UTF-8 byte length. */
export function byteLength(s: string): number {
  return Buffer.byteLength(s, "utf8");
}

/** Integer value of an int-or-string holding an int, for port and percentage checks. */
export function isIntValue(v: unknown): v is number {
  return typeof v === "number" && Number.isInteger(v);
}
