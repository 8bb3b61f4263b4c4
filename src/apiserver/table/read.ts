/**
 * Typed reads out of untyped JSON objects, with Go's zero values for what is absent:
 * printers mirror Go code that reads typed structs, where a missing string is "" and a missing
 * integer is 0.
 */

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The value at `path`, or undefined when any step is missing or not an object. */
export function at(value: unknown, ...path: string[]): unknown {
  let cur = value;
  for (const key of path) {
    if (!isObject(cur)) return undefined;
    cur = cur[key];
  }
  return cur;
}

/** True when the value at `path` is present and not null (a Go pointer that is not nil). */
export function has(value: unknown, ...path: string[]): boolean {
  const v = at(value, ...path);
  return v !== undefined && v !== null;
}

export function str(value: unknown, ...path: string[]): string {
  const v = at(value, ...path);
  return typeof v === "string" ? v : "";
}

export function int(value: unknown, ...path: string[]): number {
  const v = at(value, ...path);
  return typeof v === "number" && Number.isFinite(v) ? Math.trunc(v) : 0;
}

export function bool(value: unknown, ...path: string[]): boolean {
  return at(value, ...path) === true;
}

export function list(value: unknown, ...path: string[]): unknown[] {
  const v = at(value, ...path);
  return Array.isArray(v) ? v : [];
}

export function obj(value: unknown, ...path: string[]): JsonObject {
  const v = at(value, ...path);
  return isObject(v) ? v : {};
}

/** Number of keys of the map at `path` (Go `len(map)`). */
export function size(value: unknown, ...path: string[]): number {
  return Object.keys(obj(value, ...path)).length;
}

/** A `resource.Quantity` as text; the zero Quantity prints as "0". */
export function quantity(value: unknown): string {
  if (typeof value === "string" && value !== "") return value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return "0";
}

/** An `intstr.IntOrString` as text (`String()`). */
export function intOrString(value: unknown): string {
  if (typeof value === "number") return String(Math.trunc(value));
  return typeof value === "string" ? value : "";
}
