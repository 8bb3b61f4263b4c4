/**
 * The apply side of Kubernetes strategic merge patch (`application/strategic-merge-patch+json`),
 * driven by the patch metadata in our schemas: `x-kubernetes-patch-strategy` and
 * `x-kubernetes-patch-merge-key` on a property's schema.
 *
 * The base rule is JSON merge patch. On top of it:
 * - a list whose strategy is `merge` merges: lists of objects by their merge key (matching
 *   elements merge recursively, others are added), lists of scalars as a union;
 * - other lists, and fields the schema does not know, are replaced;
 * - directives: `$patch` (`replace`/`delete`/`merge` in a map, `replace`/`delete` elements in
 *   a merge list), `$retainKeys`, `$setElementOrder/<list>`, `$deleteFromPrimitiveList/<list>`.
 *   Any other `$` key is an error, and no directive is ever left in the result.
 *
 * Element order follows apimachinery exactly, because kubectl sends `$setElementOrder` on
 * every patch that touches a merge list and users see the order: patched elements take the
 * order the patch (or `$setElementOrder`) gives, elements only in the live list keep their
 * place relative to the patched ones, and new elements are placed before live ones they do
 * not have an order with.
 *
 * Deliberate differences from apimachinery (all on inputs kubectl never produces):
 * - `$patch: merge` in a map means "merge" instead of an error;
 * - a map with `$patch: replace`, or a list, whose field is absent from the original is set
 *   from the patch (apimachinery drops a `$patch: replace` map in that case);
 * - values taken from the patch wholesale (new fields, new list elements, replaced lists)
 *   are cleaned of directives and nulls (apimachinery leaves some directives in new list
 *   elements);
 * - `$deleteFromPrimitiveList` applies after the merge of the same list, never before.
 */

import type { Schema } from "../api/schema.ts";
import { cloneJson, getMember, isJsonObject, type JsonObject, setMember } from "./merge-patch.ts";

/** A patch that cannot be applied. `code` is the HTTP status the API server answers with. */
export class StrategicMergePatchError extends Error {
  readonly code: 400 | 422;
  constructor(message: string, code: 400 | 422 = 400) {
    super(message);
    this.name = "StrategicMergePatchError";
    this.code = code;
  }
}

const PATCH = "$patch";
const RETAIN_KEYS = "$retainKeys";
const SET_ELEMENT_ORDER = "$setElementOrder";
const DELETE_FROM_PRIMITIVE_LIST = "$deleteFromPrimitiveList";

/** Returned by a merge when the field must not exist in the result. */
const ABSENT = Symbol("absent");
type Merged<T> = T | typeof ABSENT;

/**
 * Applies a strategic merge patch to `original` (an object; `null`/`undefined` mean `{}`)
 * and returns the result. Neither input is modified. `schema` describes the top-level
 * object; without it the patch behaves as a JSON merge patch plus directives.
 * Throws {@link StrategicMergePatchError}.
 */
export function applyStrategicMergePatch(
  original: unknown,
  patch: unknown,
  schema: Schema | undefined,
): unknown {
  if (!isJsonObject(patch)) throw new StrategicMergePatchError("invalid JSON document");
  if (original !== undefined && original !== null && !isJsonObject(original)) {
    throw new StrategicMergePatchError("invalid JSON document");
  }
  const merged = mergeObject(original ? cloneJson(original) : {}, patch, schema, "");
  return merged === ABSENT ? {} : merged;
}

// ---------------------------------------------------------------------------------------------
// Schema navigation (shared with server-side apply in managed-fields.ts)

/** The schema's own subschemas plus those of `allOf` members (how `$ref` wrappers are rendered). */
function variants(schema: Schema): Schema[] {
  return schema.allOf ? [schema, ...schema.allOf] : [schema];
}

/** The schema of member `key` of an object: a declared property, else `additionalProperties`. */
export function propertySchema(schema: Schema | undefined, key: string): Schema | undefined {
  if (!schema) return undefined;
  for (const s of variants(schema)) {
    if (s.properties && Object.hasOwn(s.properties, key)) return s.properties[key];
  }
  for (const s of variants(schema)) {
    if (typeof s.additionalProperties === "object") return s.additionalProperties;
  }
  return undefined;
}

/** The schema of a list's elements. */
export function itemSchema(schema: Schema | undefined): Schema | undefined {
  if (!schema) return undefined;
  for (const s of variants(schema)) if (s.items) return s.items;
  return undefined;
}

/** True when `key` is a declared property (a struct field), not a map key. */
export function declaresProperty(schema: Schema | undefined, key: string): boolean {
  return !!schema && variants(schema).some((s) => !!s.properties && Object.hasOwn(s.properties, key));
}

// ---------------------------------------------------------------------------------------------
// Patch metadata

interface PatchMeta {
  /** `merge`, `replace` or "" (none); `retainKeys` is split off. */
  strategy: string;
  mergeKey: string;
}

function patchMeta(schema: Schema | undefined): PatchMeta {
  const raw = schema?.["x-kubernetes-patch-strategy"] ?? "";
  const parts = raw
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p !== "" && p !== "retainKeys");
  if (parts.length > 1) throw new StrategicMergePatchError(`unexpected patch strategy: ${raw}`);
  return { strategy: parts[0] ?? "", mergeKey: schema?.["x-kubernetes-patch-merge-key"] ?? "" };
}

// ---------------------------------------------------------------------------------------------
// Maps

interface Directives {
  /** List field name → its `$setElementOrder` list. */
  order: Map<string, unknown[]>;
  /** List field name → values to delete from it. */
  deletions: Map<string, unknown[]>;
  /** Everything else: plain fields. */
  fields: string[];
}

/**
 * Merges `patch` into `original` (modified in place when it is an object) and returns it,
 * or ABSENT when the map must disappear.
 */
function mergeObject(
  original: JsonObject | undefined,
  patch: JsonObject,
  schema: Schema | undefined,
  path: string,
): Merged<JsonObject> {
  const directive = getMember(patch, PATCH);
  if (directive !== undefined) {
    if (directive === "delete") return original ? {} : ABSENT;
    if (directive === "replace") {
      const { [PATCH]: _, ...rest } = patch;
      return mergeObject(undefined, rest, schema, path);
    }
    if (directive !== "merge") {
      throw new StrategicMergePatchError(`unknown patch type: ${String(directive)} in map: ${goMap(patch)}`);
    }
  }
  const result = original ?? {};
  const directives = readDirectives(patch, schema);
  applyRetainKeys(result, patch);

  for (const key of directives.fields) {
    const value = patch[key];
    const fieldSchema = propertySchema(schema, key);
    const order = directives.order.get(key);
    if (order) {
      directives.order.delete(key);
      const merged = mergeOrderedList(getMember(result, key), value, order, fieldSchema, `${path}.${key}`);
      if (merged === ABSENT) delete result[key];
      else setMember(result, key, merged);
      continue;
    }
    if (value === null) {
      delete result[key];
      continue;
    }
    const merged = mergeField(getMember(result, key), value, fieldSchema, `${path}.${key}`);
    if (merged === ABSENT) delete result[key];
    else setMember(result, key, merged);
  }
  // `$setElementOrder` alone reorders the live list.
  for (const [key, order] of directives.order) {
    const fieldSchema = propertySchema(schema, key);
    const merged = mergeOrderedList(getMember(result, key), undefined, order, fieldSchema, `${path}.${key}`);
    if (merged !== ABSENT) setMember(result, key, merged);
  }
  for (const [key, values] of directives.deletions) {
    const current = getMember(result, key);
    if (current === undefined) continue;
    if (!Array.isArray(current)) throw new StrategicMergePatchError("invalid patch format of primitive list");
    const drop = new Set(values.filter((v) => v === null || typeof v !== "object"));
    setMember(
      result,
      key,
      current.filter((item) => !((item === null || typeof item !== "object") && drop.has(item))),
    );
  }
  return result;
}

function readDirectives(patch: JsonObject, schema: Schema | undefined): Directives {
  const directives: Directives = { order: new Map(), deletions: new Map(), fields: [] };
  for (const key of Object.keys(patch)) {
    if (!key.startsWith("$") || declaresProperty(schema, key)) {
      directives.fields.push(key);
      continue;
    }
    if (key === PATCH || key === RETAIN_KEYS) continue;
    const value = patch[key];
    const slash = key.indexOf("/");
    const prefix = slash < 0 ? key : key.slice(0, slash);
    const field = key.slice(slash + 1);
    if (prefix === SET_ELEMENT_ORDER) {
      if (slash < 0 || !Array.isArray(value)) {
        throw new StrategicMergePatchError("invalid patch format of setElementOrder list");
      }
      directives.order.set(field, value);
    } else if (prefix === DELETE_FROM_PRIMITIVE_LIST) {
      if (slash < 0 || !Array.isArray(value)) {
        throw new StrategicMergePatchError("invalid patch format of primitive list");
      }
      directives.deletions.set(field, value);
    } else {
      throw new StrategicMergePatchError(`unknown strategic merge patch directive ${JSON.stringify(key)}`);
    }
  }
  // A list named by `$setElementOrder` is merged where its own key is; absent from the patch,
  // it is only reordered (after the loop in mergeObject).
  return directives;
}

/** `$retainKeys`: clear every member of the original the list does not name. */
function applyRetainKeys(original: JsonObject, patch: JsonObject): void {
  const retain = getMember(patch, RETAIN_KEYS);
  if (retain === undefined) return;
  if (!Array.isArray(retain)) throw new StrategicMergePatchError("invalid patch format of retainKeys");
  const kept = new Set(retain.filter((k): k is string => typeof k === "string"));
  for (const key of Object.keys(patch)) {
    if (key === RETAIN_KEYS || key === PATCH || patch[key] === null) continue;
    if (key.startsWith(`${SET_ELEMENT_ORDER}/`) || key.startsWith(`${DELETE_FROM_PRIMITIVE_LIST}/`)) continue;
    if (!kept.has(key)) throw new StrategicMergePatchError("invalid patch format of retainKeys");
  }
  for (const key of Object.keys(original)) if (!kept.has(key)) delete original[key];
}

/** Merges one non-null patch value into the original value of a field. */
function mergeField(
  original: unknown,
  patch: unknown,
  schema: Schema | undefined,
  path: string,
): Merged<unknown> {
  if (original === undefined) return materialize(patch, schema, path);
  if (isJsonObject(original) && isJsonObject(patch)) {
    if (patchMeta(schema).strategy === "replace") return materialize(patch, schema, path);
    return mergeObject(original, patch, schema, path);
  }
  if (Array.isArray(original) && Array.isArray(patch)) {
    const meta = patchMeta(schema);
    if (meta.strategy !== "merge") return materialize(patch, schema, path);
    return mergeList(original, patch, schema, meta.mergeKey, path);
  }
  return materialize(patch, schema, path);
}

/**
 * A value taken from the patch as a whole, with its directives carried out against nothing:
 * nulls and `$patch: delete` maps vanish, directive keys disappear.
 */
function materialize(patch: unknown, schema: Schema | undefined, path: string): Merged<unknown> {
  if (patch === null) return ABSENT;
  if (isJsonObject(patch)) return mergeObject(undefined, patch, schema, path);
  if (Array.isArray(patch)) return materializeList(patch, schema, path);
  return patch;
}

function materializeList(patch: unknown[], schema: Schema | undefined, path: string): unknown[] {
  const items = itemSchema(schema);
  const out: unknown[] = [];
  for (const item of patch) {
    // `{"$patch": "replace"}` and deletions mean nothing in a list that did not exist.
    if (isJsonObject(item) && Object.hasOwn(item, PATCH)) continue;
    if (item === null) {
      out.push(null);
      continue;
    }
    const value = materialize(item, items, path);
    if (value !== ABSENT) out.push(value);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Lists

/** How list elements are identified: by merge key (lists of objects) or by value. */
interface Identity {
  mergeKey: string;
  id(item: unknown): unknown;
}

function identity(mergeKey: string, objects: boolean): Identity {
  if (!objects) return { mergeKey: "", id: (item) => item };
  return { mergeKey, id: (item) => (isJsonObject(item) ? getMember(item, mergeKey) : undefined) };
}

/** Element kind of the lists together: objects, scalars, or an error for mixes and nesting. */
function elementsAreObjects(lists: unknown[][], path: string): boolean | undefined {
  let objects: boolean | undefined;
  for (const list of lists) {
    for (const item of list) {
      if (Array.isArray(item)) throw new StrategicMergePatchError("lists of lists are not supported", 422);
      const isObject = isJsonObject(item);
      if (objects === undefined) objects = isObject;
      else if (objects !== isObject) {
        throw new StrategicMergePatchError(`list element types are not identical in ${path || "."}`);
      }
    }
  }
  return objects;
}

function sameScalar(a: unknown, b: unknown): boolean {
  return a === b && (a === null || typeof a !== "object");
}

/** Identities are scalars (a merge key's value, or the element itself); anything else matches nothing. */
function scalarId(item: unknown, ident: Identity): unknown {
  const id = ident.id(item);
  return id === undefined || (id !== null && typeof id === "object") ? undefined : id;
}

/**
 * Position of each element's identity in `list` (the first, as a search from the start finds
 * it), or -1. Built once per list: searching per element made long lists quadratic, and a
 * 20000-element `$setElementOrder` held the event loop for minutes.
 */
function positionsById(list: readonly unknown[], ident: Identity): (item: unknown) => number {
  const at = new Map<unknown, number>();
  list.forEach((other, i) => {
    const id = scalarId(other, ident);
    if (id !== undefined && !at.has(id)) at.set(id, i);
  });
  return (item) => {
    const id = scalarId(item, ident);
    return id === undefined ? -1 : (at.get(id) ?? -1);
  };
}

function requireMergeKey(item: unknown, ident: Identity): void {
  if (!isJsonObject(item)) {
    throw new StrategicMergePatchError("expected a map[string]interface {}, but received a scalar");
  }
  if (!Object.hasOwn(item, ident.mergeKey)) {
    throw new StrategicMergePatchError(
      `map: ${goMap(item)} does not contain declared merge key: ${ident.mergeKey}`,
    );
  }
}

/** A `merge` list: the original list with the patch merged in, in apimachinery's order. */
function mergeList(
  original: unknown[],
  patch: unknown[],
  schema: Schema | undefined,
  mergeKey: string,
  path: string,
): unknown[] {
  if (original.length === 0 && patch.length === 0) return original;
  const objects = elementsAreObjects([original, patch], path) ?? false;
  if (!objects) return mergeScalarList(original, patch);
  if (!mergeKey)
    throw new StrategicMergePatchError(`cannot merge lists without merge key for ${path || "."}`);
  const ident = identity(mergeKey, true);
  const items = itemSchema(schema);

  const { elements, live, replace } = splitPatchList(patch as JsonObject[], original, ident);
  if (replace) return materializeList(elements, schema, path);

  const merged = [...live];
  // Where each identity sits in `merged`, kept as elements are appended (a merge keeps the key).
  const index = new Map<unknown, number>();
  merged.forEach((item, i) => {
    const id = scalarId(item, ident);
    if (id !== undefined && !index.has(id)) index.set(id, i);
  });
  for (const element of elements) {
    const id = scalarId(element, ident);
    const at = id === undefined ? -1 : (index.get(id) ?? -1);
    if (at >= 0) {
      const target = merged[at];
      if (!isJsonObject(target)) throw new StrategicMergePatchError(`value for key ${at} is not a map`);
      const value = mergeObject(target, element, items, path);
      merged[at] = value === ABSENT ? {} : value;
    } else {
      const value = mergeObject(undefined, element, items, path);
      if (value !== ABSENT) {
        merged.push(value);
        const added = scalarId(value, ident);
        if (added !== undefined && !index.has(added)) index.set(added, merged.length - 1);
      }
    }
  }
  return orderLikeApimachinery(merged, elements, live, ident);
}

/**
 * Separates the `$patch` elements of a merge list from the elements to merge: deletions are
 * carried out on the live list, `{"$patch": "replace"}` is reported.
 */
function splitPatchList(
  patch: JsonObject[],
  original: unknown[],
  ident: Identity,
): { elements: JsonObject[]; live: unknown[]; replace: boolean } {
  const deleted = new Set<unknown>();
  const elements: JsonObject[] = [];
  let replace = false;
  for (const element of patch) {
    const directive = getMember(element, PATCH);
    if (directive === undefined) {
      requireMergeKey(element, ident);
      elements.push(element);
    } else if (directive === "delete") {
      requireMergeKey(element, ident);
      const id = scalarId(element, ident);
      if (id !== undefined) deleted.add(id);
    } else if (directive === "replace") {
      replace = true;
    } else if (directive === "merge") {
      throw new StrategicMergePatchError("merging lists cannot yet be specified in the patch");
    } else {
      throw new StrategicMergePatchError(
        `unknown patch type: ${String(directive)} in map: ${goMap(element)}`,
      );
    }
  }
  const live = deleted.size === 0 ? original : original.filter((item) => !deleted.has(scalarId(item, ident)));
  return { elements, live, replace };
}

function mergeScalarList(original: unknown[], patch: unknown[]): unknown[] {
  const union: unknown[] = [];
  const seen = new Set<unknown>();
  for (const item of [...original, ...patch]) {
    if (!seen.has(item)) {
      seen.add(item);
      union.push(item);
    }
  }
  return orderLikeApimachinery(union, patch, original, identity("", false));
}

/**
 * The list named by a `$setElementOrder/<field>` directive: merged as its strategy says, then
 * put in the directive's order, live-only elements slotted back by their old positions.
 */
function mergeOrderedList(
  original: unknown,
  patch: unknown,
  order: unknown[],
  schema: Schema | undefined,
  path: string,
): Merged<unknown> {
  if (patch === null) return ABSENT;
  const meta = patchMeta(schema);
  const originalList = Array.isArray(original) ? original : undefined;
  const patchList = Array.isArray(patch) ? patch : undefined;
  let merged: Merged<unknown>;
  if (patch === undefined) merged = original === undefined ? ABSENT : original;
  else merged = mergeField(original, patch, schema, path);
  if (!Array.isArray(merged)) return merged;

  const objects = elementsAreObjects([originalList ?? [], patchList ?? []], path);
  if (objects === undefined) return merged;
  if (objects && !meta.mergeKey) {
    throw new StrategicMergePatchError("invalid patch format of setElementOrder list");
  }
  const ident = identity(meta.mergeKey, objects);
  if (objects) for (const entry of order) requireMergeKey(entry, ident);
  if (patchList && order.length > 0) checkPatchFollowsOrder(patchList, order, ident);
  return orderLikeApimachinery(merged, order, originalList ?? [], ident);
}

/** The patch's own elements must appear in `$setElementOrder` and in the same relative order. */
function checkPatchFollowsOrder(patch: unknown[], order: unknown[], ident: Identity): void {
  let at = 0;
  for (const element of patch) {
    if (isJsonObject(element) && Object.hasOwn(element, PATCH)) continue;
    const id = ident.id(element);
    while (at < order.length && !sameScalar(ident.id(order[at]), id)) at++;
    if (at === order.length) {
      throw new StrategicMergePatchError(
        `The order in patch list:\n${goValue(patch)}\n doesn't match ${SET_ELEMENT_ORDER} list:\n${goValue(order)}\n`,
      );
    }
    at++;
  }
}

/**
 * Orders a merged list the way apimachinery's `normalizeElementOrder` does.
 *
 * `wanted` lists the identities the caller put in order (the patch list, or the
 * `$setElementOrder` list); `live` is the list before the patch. Elements of `merged` named
 * in `wanted` take that order; the others keep their live order. The two sequences are then
 * interleaved: a live-only element goes first only when both it and the next wanted element
 * were in the live list and it came before that element there — so an element new to the
 * list is placed ahead of the live-only elements that follow it.
 */
function orderLikeApimachinery(
  merged: unknown[],
  wanted: readonly unknown[],
  live: readonly unknown[],
  ident: Identity,
): unknown[] {
  const inWanted = positionsById(wanted, ident);
  const inLive = positionsById(live, ident);
  const chosen: unknown[] = [];
  const rest: unknown[] = [];
  for (const item of merged) (inWanted(item) >= 0 ? chosen : rest).push(item);
  chosen.sort((a, b) => inWanted(a) - inWanted(b));
  rest.sort((a, b) => inLive(a) - inLive(b));

  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < rest.length && j < chosen.length) {
    const restAt = inLive(rest[i]);
    const chosenAt = inLive(chosen[j]);
    if (restAt >= 0 && chosenAt >= 0 && restAt < chosenAt) out.push(rest[i++]);
    else out.push(chosen[j++]);
  }
  return out.concat(rest.slice(i), chosen.slice(j));
}

// ---------------------------------------------------------------------------------------------
// Go-flavoured renderings for error messages

function goValue(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(goValue).join(" ")}]`;
  if (isJsonObject(value)) return goMap(value);
  if (value === null) return "<nil>";
  return String(value);
}

function goMap(map: JsonObject): string {
  const keys = Object.keys(map).sort();
  return `map[${keys.map((k) => `${k}:${goValue(map[k])}`).join(" ")}]`;
}
