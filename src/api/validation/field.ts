/**
 * Field paths and field-error constructors, shaped like apimachinery's `field` package so
 * that messages read exactly as a real API server prints them.
 */

import type { FieldError } from "../../machinery/errors.ts";

/** `spec` + `template` -> `spec.template`; the empty root has no leading dot. */
export function child(path: string, ...names: string[]): string {
  let out = path;
  for (const n of names) out = out === "" ? n : `${out}.${n}`;
  return out;
}

/** `spec.containers` + 0 -> `spec.containers[0]`. */
export function index(path: string, i: number): string {
  return `${path}[${i}]`;
}

/** `metadata.labels` + `app` -> `metadata.labels[app]` (Go prints map keys unquoted). */
export function key(path: string, k: string): string {
  return `${path}[${k}]`;
}

export function required(field: string, detail = ""): FieldError {
  return detail ? { type: "FieldValueRequired", field, detail } : { type: "FieldValueRequired", field };
}

export function invalid(field: string, value: unknown, detail: string): FieldError {
  return detail
    ? { type: "FieldValueInvalid", field, value, detail }
    : { type: "FieldValueInvalid", field, value };
}

/** Go's `strconv.Quote`, which matches JSON string quoting for the values we list. */
function quote(s: string): string {
  return JSON.stringify(s);
}

export function notSupported(field: string, value: unknown, supported: readonly string[]): FieldError {
  const e: FieldError = { type: "FieldValueNotSupported", field, value };
  if (supported.length > 0) e.detail = `supported values: ${supported.map(quote).join(", ")}`;
  return e;
}

export function duplicate(field: string, value: unknown): FieldError {
  return { type: "FieldValueDuplicate", field, value };
}

export function forbidden(field: string, detail: string): FieldError {
  return { type: "FieldValueForbidden", field, detail };
}

export function notFound(field: string, value: unknown): FieldError {
  return { type: "FieldValueNotFound", field, value };
}

export function tooLong(field: string, maxBytes: number): FieldError {
  return { type: "FieldValueTooLong", field, detail: `may not be more than ${maxBytes} bytes` };
}

export function tooMany(field: string, actual: number, max: number): FieldError {
  return { type: "FieldValueTooMany", field, value: actual, detail: `must have at most ${max} items` };
}

export function internalError(field: string, detail: string): FieldError {
  return { type: "InternalError", field, detail };
}

export const FIELD_IMMUTABLE = "field is immutable";
export const IS_NEGATIVE = "must be greater than or equal to 0";

/** Go's `sets.List`: sorted, for the "supported values" lists built from sets. */
export function sorted(values: readonly string[]): string[] {
  return [...values].sort();
}

/** A copy of a map with sorted keys: Go prints maps (`%#v`) in key order. */
export function sortedMap(m: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(m).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
