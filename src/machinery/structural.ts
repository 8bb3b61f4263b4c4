/**
 * Structural-schema behaviour of the API server, for CRDs and built-ins alike: pruning of
 * unknown fields, defaulting, and validation with Kubernetes' messages. Pure functions over
 * plain JSON; the callers decide what an unknown field means (drop, warn, reject).
 */
import { isObject, objectMetaSchema } from "../api/meta.ts";
import type { Schema } from "../api/schema.ts";
import { deepEqual } from "./equality.ts";
import type { FieldError } from "./errors.ts";
import { cloneJson } from "./merge-patch.ts";

/** Joins a path like Kubernetes prints it: `spec.template.spec.containers[0].name`, `data[key]`. */
function child(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}
function index(path: string, i: number | string): string {
  return `${path}[${i}]`;
}

function preserves(schema: Schema): boolean {
  return schema["x-kubernetes-preserve-unknown-fields"] === true;
}

// ---------------------------------------------------------------------------------------
// Pruning

/**
 * Removes fields the schema does not know, and nulls in fields that are not nullable.
 * Returns the paths of removed unknown fields (for `fieldValidation`). Mutates `obj`.
 * `obj` is a whole object: `apiVersion`, `kind` are kept, `metadata` is pruned as ObjectMeta.
 */
export function pruneObject(obj: Record<string, unknown>, schema: Schema): string[] {
  const unknown: string[] = [];
  pruneResource(obj, schema, "", unknown);
  return unknown;
}

function pruneResource(obj: Record<string, unknown>, schema: Schema, path: string, unknown: string[]): void {
  const props = schema.properties ?? {};
  for (const key of Object.keys(obj)) {
    if (key === "apiVersion" || key === "kind") continue;
    if (key === "metadata") {
      const meta = obj.metadata;
      if (isObject(meta)) pruneValue(meta, objectMetaSchema, child(path, "metadata"), unknown);
      else if (meta === null) delete obj.metadata;
      continue;
    }
    const sub = props[key];
    if (sub === undefined) {
      if (!preserves(schema)) {
        delete obj[key];
        unknown.push(child(path, key));
      }
      continue;
    }
    if (obj[key] === null && !sub.nullable) {
      delete obj[key];
      continue;
    }
    pruneValue(obj[key], sub, child(path, key), unknown);
  }
}

function pruneValue(value: unknown, schema: Schema, path: string, unknown: string[]): void {
  if (Array.isArray(value)) {
    if (schema.items)
      for (let i = 0; i < value.length; i++) pruneValue(value[i], schema.items, index(path, i), unknown);
    return;
  }
  if (!isObject(value)) return;
  if (schema["x-kubernetes-embedded-resource"]) {
    pruneResource(value, schema, path, unknown);
    return;
  }
  const props = schema.properties;
  if (props) {
    for (const key of Object.keys(value)) {
      const sub = props[key];
      if (sub === undefined) {
        if (!preserves(schema)) {
          delete value[key];
          unknown.push(child(path, key));
        }
        continue;
      }
      if (value[key] === null && !sub.nullable) {
        delete value[key];
        continue;
      }
      pruneValue(value[key], sub, child(path, key), unknown);
    }
    return;
  }
  const additional = schema.additionalProperties;
  if (isObject(additional)) {
    for (const key of Object.keys(value))
      pruneValue(value[key], additional as Schema, index(path, key), unknown);
  }
}

// ---------------------------------------------------------------------------------------
// Defaulting

const defaultsCache = new WeakMap<Schema, boolean>();

/** Whether any node under `schema` declares a default (memoized per schema object). */
function hasDefaults(schema: Schema, seen = new Set<Schema>()): boolean {
  const cached = defaultsCache.get(schema);
  if (cached !== undefined) return cached;
  if (seen.has(schema)) return false;
  seen.add(schema);
  let found = false;
  for (const sub of Object.values(schema.properties ?? {})) {
    if (sub.default !== undefined || hasDefaults(sub, seen)) found = true;
  }
  if (schema.items && hasDefaults(schema.items, seen)) found = true;
  if (isObject(schema.additionalProperties) && hasDefaults(schema.additionalProperties as Schema, seen))
    found = true;
  defaultsCache.set(schema, found);
  return found;
}

/** Fills absent fields that declare a `default`, at every level that exists. Mutates. */
export function applySchemaDefaults(value: unknown, schema: Schema): void {
  if (!hasDefaults(schema)) return;
  if (Array.isArray(value)) {
    if (schema.items) for (const item of value) applySchemaDefaults(item, schema.items);
    return;
  }
  if (!isObject(value)) return;
  if (schema.properties) {
    for (const [key, sub] of Object.entries(schema.properties)) {
      const current = value[key];
      if ((current === undefined || (current === null && !sub.nullable)) && sub.default !== undefined) {
        value[key] = cloneJson(sub.default);
      }
      if (value[key] !== undefined) applySchemaDefaults(value[key], sub);
    }
  }
  if (isObject(schema.additionalProperties)) {
    for (const item of Object.values(value)) applySchemaDefaults(item, schema.additionalProperties as Schema);
  }
}

// ---------------------------------------------------------------------------------------
// Validation

const patterns = new Map<string, RegExp>();
function pattern(p: string): RegExp | undefined {
  let re = patterns.get(p);
  if (re === undefined) {
    try {
      re = new RegExp(p, "u");
    } catch {
      try {
        re = new RegExp(p);
      } catch {
        return undefined;
      }
    }
    patterns.set(p, re);
  }
  return re;
}

function jsonType(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

function typeError(path: string, v: unknown, expected: string): FieldError {
  const actual = jsonType(v);
  return {
    type: "FieldValueTypeInvalid",
    field: path,
    value: actual,
    detail: `${path} in body must be of type ${expected}: ${JSON.stringify(actual)}`,
  };
}

const INT32 = [-2147483648, 2147483647] as const;

export interface ValidateOptions {
  /** Accept null anywhere (Go decoding turns it into the zero value). */
  nulls?: boolean;
}

/** Validates a whole object against its schema; `metadata` is the caller's business. */
export function validateObject(
  obj: Record<string, unknown>,
  schema: Schema,
  opts: ValidateOptions = {},
): FieldError[] {
  const errors: FieldError[] = [];
  const props = schema.properties ?? {};
  for (const req of schema.required ?? []) {
    if (obj[req] === undefined) errors.push({ type: "FieldValueRequired", field: req });
  }
  for (const [key, value] of Object.entries(obj)) {
    if (key === "apiVersion" || key === "kind" || key === "metadata") continue;
    const sub = props[key];
    if (sub) validateValue(value, sub, key, errors, opts);
  }
  return errors;
}

export function validateValue(
  value: unknown,
  schema: Schema,
  path: string,
  errors: FieldError[],
  opts: ValidateOptions = {},
): void {
  if (value === null) {
    if (opts.nulls) return;
    if (!schema.nullable && (schema.type !== undefined || schema["x-kubernetes-int-or-string"])) {
      errors.push(typeError(path, value, schema.type ?? "integer,string"));
    }
    return;
  }
  if (!checkType(value, schema, path, errors)) return;
  checkValueRules(value, schema, path, errors);
  if (Array.isArray(value)) validateArray(value, schema, path, errors, opts);
  else if (isObject(value)) validateMap(value, schema, path, errors, opts);
}

function checkType(value: unknown, schema: Schema, path: string, errors: FieldError[]): boolean {
  if (schema["x-kubernetes-int-or-string"]) {
    if (!(typeof value === "string" || (typeof value === "number" && Number.isInteger(value)))) {
      errors.push(typeError(path, value, "integer,string"));
      return false;
    }
    return true;
  }
  switch (schema.type) {
    case undefined:
      return true;
    case "string":
      if (typeof value !== "string") {
        errors.push(typeError(path, value, "string"));
        return false;
      }
      return true;
    case "integer":
      if (typeof value !== "number" || !Number.isInteger(value)) {
        errors.push(typeError(path, value, "integer"));
        return false;
      }
      if (schema.format === "int32" && (value < INT32[0] || value > INT32[1])) {
        errors.push({
          type: "FieldValueInvalid",
          field: path,
          value,
          detail: `${path} in body must be of type int32`,
        });
        return false;
      }
      return true;
    case "number":
      if (typeof value !== "number") {
        errors.push(typeError(path, value, "number"));
        return false;
      }
      return true;
    case "boolean":
      if (typeof value !== "boolean") {
        errors.push(typeError(path, value, "boolean"));
        return false;
      }
      return true;
    case "array":
      if (!Array.isArray(value)) {
        errors.push(typeError(path, value, "array"));
        return false;
      }
      return true;
    case "object":
      if (!isObject(value)) {
        errors.push(typeError(path, value, "object"));
        return false;
      }
      return true;
    default:
      return true;
  }
}

const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function checkValueRules(value: unknown, schema: Schema, path: string, errors: FieldError[]): void {
  if (schema.enum && !schema.enum.some((e) => deepEqual(e, value))) {
    errors.push({
      type: "FieldValueNotSupported",
      field: path,
      value,
      detail: `supported values: ${schema.enum.map((e) => JSON.stringify(e)).join(", ")}`,
    });
  }
  if (typeof value === "number") {
    if (schema.minimum !== undefined) {
      const bad = schema.exclusiveMinimum ? value <= schema.minimum : value < schema.minimum;
      if (bad) {
        const rel = schema.exclusiveMinimum ? "greater than" : "greater than or equal to";
        errors.push({
          type: "FieldValueInvalid",
          field: path,
          value,
          detail: `${path} in body should be ${rel} ${schema.minimum}`,
        });
      }
    }
    if (schema.maximum !== undefined) {
      const bad = schema.exclusiveMaximum ? value >= schema.maximum : value > schema.maximum;
      if (bad) {
        const rel = schema.exclusiveMaximum ? "less than" : "less than or equal to";
        errors.push({
          type: "FieldValueInvalid",
          field: path,
          value,
          detail: `${path} in body should be ${rel} ${schema.maximum}`,
        });
      }
    }
    if (
      schema.multipleOf !== undefined &&
      schema.multipleOf !== 0 &&
      !Number.isInteger(value / schema.multipleOf)
    ) {
      errors.push({
        type: "FieldValueInvalid",
        field: path,
        value,
        detail: `${path} in body should be a multiple of ${schema.multipleOf}`,
      });
    }
  }
  if (typeof value === "string") {
    if (schema.maxLength !== undefined && [...value].length > schema.maxLength) {
      errors.push({
        type: "FieldValueTooLong",
        field: path,
        value,
        detail: `may not be more than ${schema.maxLength} bytes`,
      });
    }
    if (schema.minLength !== undefined && [...value].length < schema.minLength) {
      errors.push({
        type: "FieldValueInvalid",
        field: path,
        value,
        detail: `${path} in body should be at least ${schema.minLength} chars long`,
      });
    }
    if (schema.pattern !== undefined) {
      const re = pattern(schema.pattern);
      if (re && !re.test(value)) {
        errors.push({
          type: "FieldValueInvalid",
          field: path,
          value,
          detail: `${path} in body should match '${schema.pattern}'`,
        });
      }
    }
    if (schema.format === "date-time" && !DATE_TIME.test(value)) {
      errors.push({
        type: "FieldValueInvalid",
        field: path,
        value,
        detail: `${path} in body must be of type date-time: ${JSON.stringify(value)}`,
      });
    }
    if (schema.format === "byte" && !/^[A-Za-z0-9+/]*={0,2}$/.test(value.replace(/\s/g, ""))) {
      errors.push({
        type: "FieldValueInvalid",
        field: path,
        value,
        detail: `${path} in body must be of type byte: ${JSON.stringify(value)}`,
      });
    }
  }
  checkCombinators(value, schema, path, errors);
}

/** Whether `value` validates against `sub` (null allowed: the enclosing schema said whether it may be). */
function passes(value: unknown, sub: Schema, path: string): boolean {
  const errs: FieldError[] = [];
  validateValue(value, { ...sub, nullable: true }, path, errs);
  return errs.length === 0;
}

function checkCombinators(value: unknown, schema: Schema, path: string, errors: FieldError[]): void {
  // No closures here: this runs for every value validated, and under tsx each closure made at
  // run time is also renamed (esbuild's keepNames), which showed in the scale bench's profile.
  if (schema.allOf) for (const sub of schema.allOf) validateValue(value, sub, path, errors);
  // Quantities carry `anyOf: [integer, string]` only to document the two forms.
  if (schema.anyOf && !schema["x-kubernetes-int-or-string"]) {
    let any = false;
    for (const sub of schema.anyOf) {
      if (!passes(value, sub, path)) continue;
      any = true;
      break;
    }
    if (!any)
      errors.push({
        type: "FieldValueInvalid",
        field: path,
        value,
        detail: "must validate at least one schema (anyOf)",
      });
  }
  if (schema.oneOf) {
    let matched = 0;
    for (const sub of schema.oneOf) if (passes(value, sub, path)) matched++;
    if (matched !== 1)
      errors.push({
        type: "FieldValueInvalid",
        field: path,
        value,
        detail: "must validate one and only one schema (oneOf)",
      });
  }
  if (schema.not && passes(value, schema.not, path)) {
    errors.push({
      type: "FieldValueInvalid",
      field: path,
      value,
      detail: "must not validate the schema (not)",
    });
  }
}

function validateArray(
  value: unknown[],
  schema: Schema,
  path: string,
  errors: FieldError[],
  opts: ValidateOptions,
): void {
  if (schema.maxItems !== undefined && value.length > schema.maxItems) {
    errors.push({
      type: "FieldValueTooMany",
      field: path,
      value: value.length,
      detail: `must have at most ${schema.maxItems} items`,
    });
  }
  if (schema.minItems !== undefined && value.length < schema.minItems) {
    errors.push({
      type: "FieldValueInvalid",
      field: path,
      value: value.length,
      detail: `${path} in body should have at least ${schema.minItems} items`,
    });
  }
  const listType = schema["x-kubernetes-list-type"];
  if (listType === "set" || schema.uniqueItems) {
    const seen = new Set<string>();
    value.forEach((item, i) => {
      const k = JSON.stringify(item);
      if (seen.has(k)) errors.push({ type: "FieldValueDuplicate", field: index(path, i), value: item });
      seen.add(k);
    });
  } else if (listType === "map") {
    const keys = schema["x-kubernetes-list-map-keys"] ?? [];
    const seen = new Set<string>();
    value.forEach((item, i) => {
      if (!isObject(item)) return;
      const identity = Object.fromEntries(keys.map((k) => [k, item[k]]));
      const k = JSON.stringify(identity);
      if (seen.has(k)) errors.push({ type: "FieldValueDuplicate", field: index(path, i), value: identity });
      seen.add(k);
    });
  }
  if (schema.items)
    for (let i = 0; i < value.length; i++)
      validateValue(value[i], schema.items, index(path, i), errors, opts);
}

function validateMap(
  value: Record<string, unknown>,
  schema: Schema,
  path: string,
  errors: FieldError[],
  opts: ValidateOptions,
): void {
  const count = Object.keys(value).length;
  if (schema.maxProperties !== undefined && count > schema.maxProperties) {
    errors.push({
      type: "FieldValueTooMany",
      field: path,
      value: count,
      detail: `must have at most ${schema.maxProperties} items`,
    });
  }
  if (schema.minProperties !== undefined && count < schema.minProperties) {
    errors.push({
      type: "FieldValueInvalid",
      field: path,
      value: count,
      detail: `${path} in body should have at least ${schema.minProperties} properties`,
    });
  }
  if (schema["x-kubernetes-embedded-resource"]) {
    if (!value.apiVersion)
      errors.push({
        type: "FieldValueRequired",
        field: child(path, "apiVersion"),
        detail: "must not be empty",
      });
    if (!value.kind)
      errors.push({ type: "FieldValueRequired", field: child(path, "kind"), detail: "must not be empty" });
  }
  for (const req of schema.required ?? []) {
    if (value[req] === undefined) errors.push({ type: "FieldValueRequired", field: child(path, req) });
  }
  const props = schema.properties;
  if (props) {
    for (const [key, v] of Object.entries(value)) {
      const sub = props[key];
      if (sub) validateValue(v, sub, child(path, key), errors, opts);
    }
  }
  const additional = schema.additionalProperties;
  if (isObject(additional)) {
    for (const [key, v] of Object.entries(value)) {
      if (props?.[key]) continue;
      validateValue(v, additional as Schema, index(path, key), errors, opts);
    }
  }
}
