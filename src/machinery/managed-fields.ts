/**
 * Field ownership for server-side apply: the field sets stored in `metadata.managedFields`
 * (`fieldsType: FieldsV1`) and the apply merge that reads and writes them.
 *
 * A field set is a trie of path elements, serialized exactly as structured-merge-diff does:
 * - `f:<name>` a struct field or map key;
 * - `k:<json>` an associative-list element, named by its key fields as compact JSON with
 *   sorted keys (`k:{"containerPort":80,"protocol":"TCP"}`);
 * - `v:<json>` a set element by value (`v:"example.com/finalizer"`);
 * - `i:<n>` a positional element (only read; we never produce it);
 * - `.` inside a node: the node itself is in the set as well as some of its children.
 *
 * How a schema shapes the set: a list is associative when `x-kubernetes-list-type: map`
 * (keys from `x-kubernetes-list-map-keys`) or, for built-in fields, when its patch strategy
 * is `merge` with a merge key; a set when `x-kubernetes-list-type: set` or a `merge` list of
 * scalars; otherwise atomic (one leaf). Maps with `x-kubernetes-map-type: atomic` are
 * leaves too. Values without a schema are deduced: objects granular, lists atomic.
 *
 * The server calls {@link applyFields} for apply requests and {@link updateFields} for every
 * other write, then stores the returned sets with {@link serializeFieldsV1}.
 */

import type { Schema } from "../api/schema.ts";
import { deepEqual } from "./equality.ts";
import { cloneJson, getMember, isJsonObject, type JsonObject, setMember } from "./merge-patch.ts";
import { declaresProperty, itemSchema, propertySchema } from "./strategic-merge-patch.ts";

/** A node of a field set. The root node stands for the object and is never a member. */
export interface FieldSet {
  /** True when the path leading to this node is itself in the set. */
  member: boolean;
  /** Child nodes by serialized path element (`f:spec`, `k:{"name":"nginx"}`, `v:"a"`). */
  children: Map<string, FieldSet>;
}

/** The JSON form stored in `managedFields[].fieldsV1`. */
export type FieldsV1 = { [element: string]: FieldsV1 };

/** A path from the object root: serialized path elements, e.g. `["f:spec", "f:replicas"]`. */
export type FieldPath = readonly string[];

/** Another manager's stake in the object: its identity (as the server keys entries) and set. */
export interface ManagerFields {
  manager: string;
  fields: FieldSet;
}

/** A `fieldsV1` document that is not a valid field set (the server answers 400). */
export class FieldsV1ParseError extends Error {
  readonly code = 400;
  constructor(message: string) {
    super(message);
    this.name = "FieldsV1ParseError";
  }
}

/** An applied configuration the schema cannot turn into a field set (the server answers 422). */
export class FieldSetError extends Error {
  readonly code = 422;
  constructor(message: string) {
    super(message);
    this.name = "FieldSetError";
  }
}

// ---------------------------------------------------------------------------------------------
// Path elements

/** `f:<name>`: a struct field or map key. */
export function fieldElement(name: string): string {
  return `f:${name}`;
}

/** `k:{...}`: the associative-list element with these key fields. */
export function keyElement(fields: JsonObject): string {
  return `k:${goJson(fields)}`;
}

/** `v:<json>`: the set element with this value. */
export function valueElement(value: unknown): string {
  return `v:${goJson(value)}`;
}

type ParsedElement =
  | { kind: 0; name: string }
  | { kind: 1; fields: Array<[string, unknown]> }
  | { kind: 2; value: unknown }
  | { kind: 3; index: number };

/**
 * Parses a serialized path element. Returns undefined for element types this version does not
 * know (structured-merge-diff drops those), throws for malformed elements.
 */
function parseElement(text: string): ParsedElement | undefined {
  if (text.length < 2) throw new FieldsV1ParseError(`key must be 2 characters long: ${JSON.stringify(text)}`);
  if (text[1] !== ":") throw new FieldsV1ParseError(`missing colon: ${text}`);
  const body = text.slice(2);
  switch (text[0]) {
    case "f":
      return { kind: 0, name: body };
    case "k": {
      const fields = parseJson(body, text);
      if (!isJsonObject(fields)) throw new FieldsV1ParseError(`key element is not a JSON object: ${text}`);
      return {
        kind: 1,
        fields: Object.keys(fields)
          .sort(compareStrings)
          .map((k) => [k, fields[k]]),
      };
    }
    case "v":
      return { kind: 2, value: parseJson(body, text) };
    case "i": {
      if (!/^[+-]?\d+$/.test(body)) throw new FieldsV1ParseError(`invalid index element: ${text}`);
      return { kind: 3, index: Number(body) };
    }
    default:
      return undefined;
  }
}

function parseJson(text: string, element: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new FieldsV1ParseError(`invalid JSON in path element: ${element}`);
  }
}

function formatElement(e: ParsedElement): string {
  switch (e.kind) {
    case 0:
      return fieldElement(e.name);
    case 1:
      return `k:{${e.fields.map(([k, v]) => `${goString(k)}:${goJson(v)}`).join(",")}}`;
    case 2:
      return valueElement(e.value);
    case 3:
      return `i:${e.index}`;
  }
}

/** structured-merge-diff's order of path elements: fields, keys, values, indices. */
function compareElements(a: ParsedElement, b: ParsedElement): number {
  if (a.kind !== b.kind) return a.kind - b.kind;
  switch (a.kind) {
    case 0:
      return compareStrings(a.name, (b as typeof a).name);
    case 1: {
      const other = (b as typeof a).fields;
      for (let i = 0; i < Math.max(a.fields.length, other.length); i++) {
        const x = a.fields[i];
        const y = other[i];
        if (!x) return -1;
        if (!y) return 1;
        const c = compareStrings(x[0], y[0]) || compareValues(x[1], y[1]);
        if (c !== 0) return c;
      }
      return 0;
    }
    case 2:
      return compareValues(a.value, (b as typeof a).value);
    case 3:
      return Math.sign(a.index - (b as typeof a).index);
  }
}

/** Rank of a JSON value's type in structured-merge-diff's total order. */
function valueRank(v: unknown): number {
  if (typeof v === "number") return 0;
  if (typeof v === "string") return 1;
  if (typeof v === "boolean") return 2;
  if (Array.isArray(v)) return 3;
  if (isJsonObject(v)) return 4;
  return 5;
}

/** Total order of JSON values: numbers, strings, booleans, lists, maps, null. */
function compareValues(a: unknown, b: unknown): number {
  const rank = valueRank(a) - valueRank(b);
  if (rank !== 0) return Math.sign(rank);
  if (typeof a === "number") return Math.sign(a - (b as number));
  if (typeof a === "string") return compareStrings(a, b as string);
  if (typeof a === "boolean") return a === b ? 0 : a ? 1 : -1;
  if (Array.isArray(a)) return compareArrays(a, b as unknown[]);
  if (isJsonObject(a)) return compareObjects(a, b as JsonObject);
  return 0;
}

function compareArrays(a: unknown[], b: unknown[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = compareValues(a[i], b[i]);
    if (c !== 0) return c;
  }
  return Math.sign(a.length - b.length);
}

function compareObjects(a: JsonObject, b: JsonObject): number {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort(compareStrings);
  for (const key of keys) {
    if (!Object.hasOwn(a, key)) return 1;
    if (!Object.hasOwn(b, key)) return -1;
    const c = compareValues(a[key], b[key]);
    if (c !== 0) return c;
  }
  return 0;
}

/** Go's string order: by code point (UTF-8 bytes), not by UTF-16 code unit. */
function compareStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xSurrogate = x >= 0xd800 && x <= 0xdfff;
    const ySurrogate = y >= 0xd800 && y <= 0xdfff;
    if (xSurrogate !== ySurrogate) return xSurrogate ? 1 : -1;
    return x < y ? -1 : 1;
  }
  return Math.sign(a.length - b.length);
}

/** Compact JSON as Go writes it: sorted object keys, `<`, `>`, `&` escaped. */
function goJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(goJson).join(",")}]`;
  if (isJsonObject(value)) {
    const keys = Object.keys(value).sort(compareStrings);
    return `{${keys.map((k) => `${goString(k)}:${goJson(value[k])}`).join(",")}}`;
  }
  if (typeof value === "string") return goString(value);
  return JSON.stringify(value) ?? "null";
}

function goString(text: string): string {
  return JSON.stringify(text).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** A path as structured-merge-diff prints it: `.spec.containers[name="nginx"].image`. */
export function formatPath(path: FieldPath): string {
  return path.map(displayElement).join("");
}

function displayElement(text: string): string {
  const e = parseElement(text);
  switch (e?.kind) {
    case 0:
      return `.${e.name}`;
    case 1:
      return `[${e.fields.map(([k, v]) => `${k}=${goDisplay(v)}`).join(",")}]`;
    case 2:
      return `[=${goDisplay(e.value)}]`;
    case 3:
      return `[${e.index}]`;
    default:
      return text;
  }
}

function goDisplay(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(goDisplay).join(",")}]`;
  if (isJsonObject(value))
    return Object.keys(value)
      .map((k) => `${k}=${goDisplay(value[k])}`)
      .join("");
  return String(value);
}

// ---------------------------------------------------------------------------------------------
// Sets

export function emptyFieldSet(): FieldSet {
  return { member: false, children: new Map() };
}

/** A set holding exactly these paths. */
export function fieldSetFromPaths(paths: Iterable<FieldPath>): FieldSet {
  const set = emptyFieldSet();
  for (const path of paths) insertPath(set, path);
  return set;
}

function insertPath(set: FieldSet, path: FieldPath): void {
  let node = set;
  for (const element of path) {
    let child = node.children.get(element);
    if (!child) {
      child = emptyFieldSet();
      node.children.set(element, child);
    }
    node = child;
  }
  if (path.length > 0) node.member = true;
}

/** True when `path` is in the set. */
export function fieldSetHas(set: FieldSet, path: FieldPath): boolean {
  let node: FieldSet | undefined = set;
  for (const element of path) {
    node = node.children.get(element);
    if (!node) return false;
  }
  return path.length > 0 && node.member;
}

/** True when the set holds no path. */
export function isFieldSetEmpty(set: FieldSet): boolean {
  return !set.member && set.children.size === 0;
}

/** Every path in the set, depth first in serialization order. */
export function fieldSetPaths(set: FieldSet): FieldPath[] {
  const out: FieldPath[] = [];
  const walk = (node: FieldSet, prefix: string[]) => {
    for (const [element, child] of sortedChildren(node)) {
      const path = [...prefix, element];
      if (child.member) out.push(path);
      walk(child, path);
    }
  };
  walk(set, []);
  return out;
}

function sortedChildren(node: FieldSet): Array<[string, FieldSet]> {
  const parsed = [...node.children].map(([element, child]) => ({
    element,
    child,
    parsed: parseElement(element),
  }));
  parsed.sort((a, b) =>
    a.parsed && b.parsed ? compareElements(a.parsed, b.parsed) : compareStrings(a.element, b.element),
  );
  return parsed.map(({ element, child }) => [element, child]);
}

function cloneSet(set: FieldSet): FieldSet {
  return { member: set.member, children: new Map([...set.children].map(([k, v]) => [k, cloneSet(v)])) };
}

/** Paths in either set. */
export function fieldSetUnion(a: FieldSet, b: FieldSet): FieldSet {
  const out = cloneSet(a);
  out.member = a.member || b.member;
  for (const [element, child] of b.children) {
    const mine = out.children.get(element);
    out.children.set(element, mine ? fieldSetUnion(mine, child) : cloneSet(child));
  }
  return out;
}

/**
 * Paths in `a` that are not in `b` (children of paths in `b` stay). Sets are never changed once
 * made, so what `b` leaves alone is shared rather than copied, and `a` itself comes back when
 * `b` takes nothing from it (most other managers' sets on most writes).
 */
export function fieldSetDifference(a: FieldSet, b: FieldSet): FieldSet {
  const member = a.member && !b.member;
  let children: Map<string, FieldSet> | undefined;
  for (const [element, child] of a.children) {
    const theirs = b.children.get(element);
    const rest = theirs ? fieldSetDifference(child, theirs) : child;
    const keep = !isFieldSetEmpty(rest);
    if (!children) {
      if (rest === child && keep) continue;
      // The first change: the children before it stay as they were.
      children = new Map();
      for (const [e, c] of a.children) {
        if (e === element) break;
        children.set(e, c);
      }
    }
    if (keep) children.set(element, rest);
  }
  if (!children && member === a.member) return a;
  return { member, children: children ?? a.children };
}

/** Paths in both sets. */
export function fieldSetIntersection(a: FieldSet, b: FieldSet): FieldSet {
  const out: FieldSet = { member: a.member && b.member, children: new Map() };
  for (const [element, child] of a.children) {
    const theirs = b.children.get(element);
    if (!theirs) continue;
    const both = fieldSetIntersection(child, theirs);
    if (!isFieldSetEmpty(both)) out.children.set(element, both);
  }
  return out;
}

/** Paths in `a` that are neither in `b` nor below a path in `b`. */
export function fieldSetRecursiveDifference(a: FieldSet, b: FieldSet): FieldSet {
  const out: FieldSet = { member: a.member && !b.member, children: new Map() };
  for (const [element, child] of a.children) {
    const theirs = b.children.get(element);
    if (theirs?.member) continue;
    const rest = theirs ? fieldSetRecursiveDifference(child, theirs) : cloneSet(child);
    if (!isFieldSetEmpty(rest)) out.children.set(element, rest);
  }
  return out;
}

/** Fields the server owns and never records in managedFields. */
const UNTRACKED = fieldSetFromPaths([
  ["f:apiVersion"],
  ["f:kind"],
  ["f:metadata"],
  ...[
    "name",
    "namespace",
    "creationTimestamp",
    "selfLink",
    "uid",
    "clusterName",
    "generation",
    "managedFields",
    "resourceVersion",
  ].map((name) => ["f:metadata", `f:${name}`]),
]);

/** Removes the fields Kubernetes never records as owned (apiVersion, kind, metadata.name...). */
export function stripUntrackedFields(set: FieldSet): FieldSet {
  return fieldSetDifference(set, UNTRACKED);
}

// ---------------------------------------------------------------------------------------------
// fieldsV1 (de)serialization

/** The `fieldsV1` JSON of a set, byte-for-byte what structured-merge-diff writes. */
export function serializeFieldsV1(set: FieldSet): FieldsV1 {
  return emit(set, false);
}

function emit(node: FieldSet, includeSelf: boolean): FieldsV1 {
  const out: FieldsV1 = {};
  if (includeSelf && node.children.size > 0) out["."] = {};
  for (const [element, child] of sortedChildren(node)) {
    setMember(out, element, child.children.size === 0 ? {} : emit(child, child.member));
  }
  return out;
}

/**
 * Reads a `fieldsV1` document. Elements are put in canonical form (sorted key fields, Go
 * escaping), so sets from any writer compare equal. Throws {@link FieldsV1ParseError}.
 */
export function parseFieldsV1(json: unknown): FieldSet {
  if (!isJsonObject(json)) throw new FieldsV1ParseError("fieldsV1 must be a JSON object");
  const set = readNode(json);
  set.member = false;
  return set;
}

function readNode(json: JsonObject): FieldSet {
  const node = emptyFieldSet();
  for (const key of Object.keys(json)) {
    const value = json[key];
    if (!isJsonObject(value))
      throw new FieldsV1ParseError(`value of ${JSON.stringify(key)} must be a JSON object`);
    if (key === ".") {
      node.member = true;
      continue;
    }
    const parsed = parseElement(key);
    if (!parsed) continue;
    const element = formatElement(parsed);
    const child = readNode(value);
    const existing = node.children.get(element);
    node.children.set(element, existing ? fieldSetUnion(existing, child) : child);
  }
  if (node.children.size === 0) node.member = true;
  return node;
}

// ---------------------------------------------------------------------------------------------
// Field sets of objects

type ListKind = { kind: "atomic" } | { kind: "set" } | { kind: "map"; keys: string[] };

function listKind(schema: Schema | undefined): ListKind {
  const mergeKey = schema?.["x-kubernetes-patch-merge-key"];
  switch (schema?.["x-kubernetes-list-type"]) {
    case "atomic":
      return { kind: "atomic" };
    case "set":
      return { kind: "set" };
    case "map": {
      const keys = schema["x-kubernetes-list-map-keys"] ?? (mergeKey ? [mergeKey] : []);
      return keys.length > 0 ? { kind: "map", keys } : { kind: "atomic" };
    }
  }
  const strategies = (schema?.["x-kubernetes-patch-strategy"] ?? "").split(",");
  if (!strategies.includes("merge")) return { kind: "atomic" };
  return mergeKey ? { kind: "map", keys: [mergeKey] } : { kind: "set" };
}

function isAtomicMap(schema: Schema | undefined): boolean {
  return schema?.["x-kubernetes-map-type"] === "atomic";
}

/**
 * The path element naming a list element, or a message saying why it has none. Missing key
 * fields take the schema default, as `protocol: TCP` does for ports.
 */
function listElement(item: unknown, list: ListKind, items: Schema | undefined): string | { error: string } {
  if (list.kind !== "map") return valueElement(item);
  if (!isJsonObject(item)) return { error: "associative list with keys has an element that is not a map" };
  const fields: JsonObject = {};
  for (const key of list.keys) {
    const value = getMember(item, key) ?? propertySchema(items, key)?.default;
    if (value === undefined) {
      return {
        error: `associative list with keys has an element that omits key field ${JSON.stringify(key)} (and doesn't have default value)`,
      };
    }
    setMember(fields, key, value);
  }
  return keyElement(fields);
}

/**
 * The field set of an object: every leaf, map key, list element and atomic value in it.
 * With `strict`, elements without their keys and duplicate keys throw {@link FieldSetError}
 * (an applied configuration must be well-formed); otherwise such elements are skipped.
 */
export function fieldSetOf(
  object: unknown,
  schema: Schema | undefined,
  options: { strict?: boolean } = {},
): FieldSet {
  const set = emptyFieldSet();
  if (isJsonObject(object)) collectMap(object, schema, set, [], options.strict ?? false);
  return set;
}

function collect(
  value: unknown,
  schema: Schema | undefined,
  node: FieldSet,
  path: FieldPath,
  strict: boolean,
): void {
  if (Array.isArray(value)) {
    const list = listKind(schema);
    if (list.kind === "atomic") node.member = true;
    else collectList(value, list, itemSchema(schema), node, path, strict);
  } else if (isJsonObject(value)) {
    if (isAtomicMap(schema)) node.member = true;
    else collectMap(value, schema, node, path, strict);
  } else {
    node.member = true;
  }
}

function collectMap(
  value: JsonObject,
  schema: Schema | undefined,
  node: FieldSet,
  path: FieldPath,
  strict: boolean,
) {
  for (const key of Object.keys(value)) {
    const child = value[key];
    const element = fieldElement(key);
    const childNode = emptyFieldSet();
    // The path only names an element in strict mode's errors: not built otherwise.
    collect(child, propertySchema(schema, key), childNode, strict ? [...path, element] : path, strict);
    const emptyMap = isJsonObject(child) && Object.keys(child).length === 0;
    if (child === null || emptyMap || !declaresProperty(schema, key)) childNode.member = true;
    if (!isFieldSetEmpty(childNode)) node.children.set(element, childNode);
  }
}

function collectList(
  value: unknown[],
  list: ListKind,
  items: Schema | undefined,
  node: FieldSet,
  path: FieldPath,
  strict: boolean,
) {
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  const elements = value.map((item) => {
    const element = listElement(item, list, items);
    if (typeof element !== "string") {
      if (strict) throw new FieldSetError(`${formatPath(path)}: ${element.error}`);
      return undefined;
    }
    if (seen.has(element)) {
      if (strict)
        throw new FieldSetError(`${formatPath(path)}: duplicate entries for key ${formatPath([element])}`);
      duplicates.add(element);
    }
    seen.add(element);
    return element;
  });
  value.forEach((item, i) => {
    const element = elements[i];
    if (element === undefined) return;
    if (duplicates.has(element)) {
      insertPath(node, [element]);
      return;
    }
    const childNode = emptyFieldSet();
    collect(item, items, childNode, strict ? [...path, element] : path, strict);
    childNode.member = true;
    node.children.set(element, childNode);
  });
}

// ---------------------------------------------------------------------------------------------
// Comparison

/** What a write changed, as three field sets (structured-merge-diff's Comparison). */
export interface FieldComparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/**
 * Compares two versions of an object. Leaves (scalars, atomic lists and maps, empty
 * containers) that differ are `modified`; paths present on one side only are `added` or
 * `removed` together with everything below them.
 */
export function compareFields(before: unknown, after: unknown, schema: Schema | undefined): FieldComparison {
  const out: FieldComparison = {
    added: emptyFieldSet(),
    modified: emptyFieldSet(),
    removed: emptyFieldSet(),
  };
  compareMaps(isJsonObject(before) ? before : {}, isJsonObject(after) ? after : {}, schema, [], out);
  return out;
}

/** Every path whose value differs between the two versions (added, modified or removed). */
export function fieldsChanged(before: unknown, after: unknown, schema: Schema | undefined): FieldSet {
  const { added, modified, removed } = compareFields(before, after, schema);
  return fieldSetUnion(fieldSetUnion(added, modified), removed);
}

function isLeaf(before: unknown, after: unknown, schema: Schema | undefined): boolean {
  const present = [before, after].filter((v) => v !== undefined);
  if (present.every(Array.isArray)) {
    return listKind(schema).kind === "atomic" || present.every((v) => (v as unknown[]).length === 0);
  }
  if (present.every(isJsonObject)) {
    return isAtomicMap(schema) || present.every((v) => Object.keys(v as JsonObject).length === 0);
  }
  return true;
}

function compareValue(
  before: unknown,
  after: unknown,
  schema: Schema | undefined,
  path: FieldPath,
  out: FieldComparison,
): void {
  // Most of an updated object is as it was (a status write leaves the spec alone): an equal
  // subtree has no changes, found without walking it path by path.
  if (before !== undefined && after !== undefined && (before === after || deepEqual(before, after))) return;
  if (isLeaf(before, after, schema)) {
    if (before === undefined) insertPath(out.added, path);
    else if (after === undefined) insertPath(out.removed, path);
    else if (!deepEqual(before, after)) insertPath(out.modified, path);
    return;
  }
  if (Array.isArray(before) || Array.isArray(after)) {
    compareLists((before as unknown[]) ?? [], (after as unknown[]) ?? [], schema, path, out);
  } else {
    compareMaps((before as JsonObject) ?? {}, (after as JsonObject) ?? {}, schema, path, out);
  }
  if (before === undefined) insertPath(out.added, path);
  else if (after === undefined) insertPath(out.removed, path);
}

function compareMaps(
  before: JsonObject,
  after: JsonObject,
  schema: Schema | undefined,
  path: FieldPath,
  out: FieldComparison,
): void {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  for (const key of keys) {
    compareValue(
      getMember(before, key),
      getMember(after, key),
      propertySchema(schema, key),
      [...path, fieldElement(key)],
      out,
    );
  }
}

function compareLists(
  before: unknown[],
  after: unknown[],
  schema: Schema | undefined,
  path: FieldPath,
  out: FieldComparison,
): void {
  const list = listKind(schema);
  const items = itemSchema(schema);
  const byElement = new Map<string, { before: unknown[]; after: unknown[] }>();
  const index = (values: unknown[], side: "before" | "after") => {
    for (const item of values) {
      const element = listElement(item, list, items);
      if (typeof element !== "string") continue;
      let entry = byElement.get(element);
      if (!entry) {
        entry = { before: [], after: [] };
        byElement.set(element, entry);
      }
      entry[side].push(item);
    }
  };
  index(before, "before");
  index(after, "after");
  for (const [element, entry] of byElement) {
    const itemPath = [...path, element];
    const [l, r] = [entry.before, entry.after];
    if (l.length <= 1 && r.length <= 1) {
      compareValue(l[0], r[0], items, itemPath, out);
    } else if (l.length >= 2 && r.length >= 2) {
      if (!deepEqual(l, r)) insertPath(out.modified, itemPath);
    } else if (l.length >= 2) {
      if (r.length === 1) compareValue(undefined, r[0], items, itemPath, out);
      insertPath(out.removed, itemPath);
    } else {
      if (l.length === 1) compareValue(l[0], undefined, items, itemPath, out);
      insertPath(out.added, itemPath);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Apply

/** A field the applier sets to a new value while another manager owns it. */
export interface ApplyConflict {
  /** The other manager, as given in {@link ApplyRequest.others}. */
  manager: string;
  /** The field, as Kubernetes prints it: `.spec.replicas`. */
  field: string;
  path: FieldPath;
}

export interface ApplyRequest {
  /** The stored object; undefined when the apply creates it. */
  live: unknown;
  /** The applied configuration (the request body). */
  config: unknown;
  schema: Schema | undefined;
  /** This manager's set from its previous Apply entry, if it has one. */
  previous?: FieldSet | undefined;
  /** Every other entry of managedFields: other appliers and all Update entries. */
  others: readonly ManagerFields[];
  /** Take over conflicting fields instead of failing. */
  force: boolean;
  /** Paths neither owned nor compared, e.g. `status` on the main resource. */
  ignored?: FieldSet | undefined;
}

export type ApplyResult =
  | { ok: false; conflicts: ApplyConflict[] }
  | {
      ok: true;
      /** The live object with the configuration merged in and pruned. */
      object: JsonObject;
      /** The applier's new Apply entry (untracked fields stripped). */
      fields: FieldSet;
      /** The other entries, minus the fields taken over or removed; empty entries dropped. */
      others: ManagerFields[];
      /** False when the object is unchanged (the server can skip the write). */
      changed: boolean;
    };

/**
 * Server-side apply. Merges the configuration into the live object (associative lists by key,
 * sets as unions, atomic values replaced), removes what this manager applied last time and
 * no longer applies unless someone else owns it, and works out the new ownership.
 *
 * Without `force`, fields the configuration changes while another manager owns them are
 * conflicts and nothing is applied. With `force` the applier takes them over. Fields set to
 * the value they already have are shared, never conflicts. Throws {@link FieldSetError} for a
 * configuration the schema cannot key (duplicate or keyless list elements).
 */
export function applyFields(request: ApplyRequest): ApplyResult {
  const { config, schema, ignored } = request;
  if (!isJsonObject(config)) throw new FieldSetError("the applied configuration must be an object");
  const live = isJsonObject(request.live) ? request.live : {};
  const withoutIgnored = (set: FieldSet) => (ignored ? fieldSetRecursiveDifference(set, ignored) : set);

  const applied = withoutIgnored(fieldSetOf(config, schema, { strict: true }));
  let merged = mergeMaps(cloneJson(live), config, schema);

  if (request.previous && !isFieldSetEmpty(request.previous)) {
    const owned = request.others.reduce((acc, other) => fieldSetUnion(acc, other.fields), applied);
    const prune = fieldSetDifference(
      namedFieldsAsMembers(request.previous, schema),
      namedFieldsAsMembers(owned, schema),
    );
    merged = (removeFields(merged, prune, schema) as JsonObject | undefined) ?? {};
  }

  const comparison = compareFields(live, merged, schema);
  const changes = withoutIgnored(fieldSetUnion(comparison.added, comparison.modified));
  const removed = withoutIgnored(comparison.removed);

  const conflicts: ApplyConflict[] = [];
  const taken = request.others.map((other) => fieldSetIntersection(other.fields, changes));
  request.others.forEach((other, i) => {
    for (const path of fieldSetPaths(taken[i]!)) {
      conflicts.push({ manager: other.manager, field: formatPath(path), path });
    }
  });
  if (conflicts.length > 0 && !request.force) return { ok: false, conflicts };

  const others = request.others
    .map((other, i) => ({
      manager: other.manager,
      fields: fieldSetDifference(fieldSetDifference(other.fields, taken[i]!), removed),
    }))
    .filter((other) => !isFieldSetEmpty(other.fields));
  const object = dropAppliedNulls(merged, config);
  return {
    ok: true,
    object,
    fields: stripUntrackedFields(applied),
    others,
    changed: !deepEqual(request.live, object),
  };
}

export interface UpdateRequest {
  /** The stored object; undefined on create. */
  live: unknown;
  /** The object about to be stored. */
  updated: unknown;
  schema: Schema | undefined;
  /** The writer's identity (its Update entry). */
  manager: string;
  /** Every entry of managedFields, the writer's own included if it has one. */
  managers: readonly ManagerFields[];
  ignored?: FieldSet | undefined;
}

/**
 * Ownership after a non-apply write (create, update, patch): the writer's entry gains every
 * field it added or changed, other entries lose those fields and the removed ones. Returns
 * all entries in their order (the writer's appended if new); empty entries are dropped.
 */
export function updateFields(request: UpdateRequest): ManagerFields[] {
  const { ignored } = request;
  const withoutIgnored = (set: FieldSet) => (ignored ? fieldSetRecursiveDifference(set, ignored) : set);
  const comparison = compareFields(request.live, request.updated, request.schema);
  const changes = withoutIgnored(fieldSetUnion(comparison.added, comparison.modified));
  const removed = withoutIgnored(comparison.removed);

  const out: ManagerFields[] = [];
  let wrote = false;
  for (const entry of request.managers) {
    let fields: FieldSet;
    if (entry.manager === request.manager) {
      wrote = true;
      fields = stripUntrackedFields(fieldSetUnion(fieldSetDifference(entry.fields, removed), changes));
    } else {
      fields = fieldSetDifference(fieldSetDifference(entry.fields, changes), removed);
    }
    if (!isFieldSetEmpty(fields)) out.push({ manager: entry.manager, fields });
  }
  if (!wrote) {
    const fields = stripUntrackedFields(changes);
    if (!isFieldSetEmpty(fields)) out.push({ manager: request.manager, fields });
  }
  return out;
}

/**
 * The message of the 409 Kubernetes returns for apply conflicts. `describe` renders a
 * manager as Kubernetes does (`"kubectl" using apps/v1`); by default it is just quoted.
 */
export function formatApplyConflicts(
  conflicts: readonly ApplyConflict[],
  describe: (manager: string) => string = (m) => JSON.stringify(m),
): string {
  const [only] = conflicts;
  if (conflicts.length === 1 && only) {
    return `Apply failed with 1 conflict: conflict with ${describe(only.manager)}: ${only.field}`;
  }
  const byManager = new Map<string, string[]>();
  for (const c of conflicts) byManager.set(c.manager, [...(byManager.get(c.manager) ?? []), c.field]);
  const lines: string[] = [];
  for (const manager of [...byManager.keys()].sort(compareStrings)) {
    lines.push(`conflicts with ${describe(manager)}:`);
    for (const field of byManager.get(manager) ?? []) lines.push(`- ${field}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join("\n")}`;
}

/** Named struct fields with owned children count as owned themselves when pruning. */
function namedFieldsAsMembers(set: FieldSet, schema: Schema | undefined): FieldSet {
  const out: FieldSet = { member: set.member, children: new Map() };
  for (const [element, child] of set.children) {
    const parsed = parseElement(element);
    const named = parsed?.kind === 0 && declaresProperty(schema, parsed.name);
    const childSchema = parsed?.kind === 0 ? propertySchema(schema, parsed.name) : itemSchema(schema);
    const converted = namedFieldsAsMembers(child, childSchema);
    if (named) converted.member = true;
    out.children.set(element, converted);
  }
  return out;
}

/** Merges an applied configuration into a live value (structured-merge-diff's merge). */
function mergeValue(live: unknown, config: unknown, schema: Schema | undefined): unknown {
  if (config === undefined) return live;
  if (live === undefined) return cloneJson(config);
  if (Array.isArray(live) && Array.isArray(config)) {
    const list = listKind(schema);
    if (list.kind === "atomic" || (live.length === 0 && config.length === 0)) return cloneJson(config);
    return mergeLists(live, config, list, itemSchema(schema));
  }
  if (isJsonObject(live) && isJsonObject(config)) {
    const bothEmpty = Object.keys(live).length === 0 && Object.keys(config).length === 0;
    if (isAtomicMap(schema) || bothEmpty) return cloneJson(config);
    return mergeMaps(live, config, schema);
  }
  return cloneJson(config);
}

function mergeMaps(live: JsonObject, config: JsonObject, schema: Schema | undefined): JsonObject {
  const out: JsonObject = {};
  for (const key of Object.keys(live)) setMember(out, key, live[key]);
  for (const key of Object.keys(config)) {
    setMember(out, key, mergeValue(getMember(live, key), config[key], propertySchema(schema, key)));
  }
  return out;
}

/**
 * Merges list elements by identity. Configuration order wins for the elements it names;
 * live-only elements stay where they were relative to them (structured-merge-diff's order).
 */
function mergeLists(
  live: unknown[],
  config: unknown[],
  list: ListKind,
  items: Schema | undefined,
): unknown[] {
  const name = (item: unknown) => {
    const element = listElement(item, list, items);
    return typeof element === "string" ? element : undefined;
  };
  const liveNames = live.map(name);
  const configNames = config.map(name);
  const liveByName = new Map<string, unknown>();
  const liveDuplicates = new Set<string>();
  liveNames.forEach((n, i) => {
    if (n === undefined) return;
    if (liveByName.has(n)) liveDuplicates.add(n);
    else liveByName.set(n, live[i]);
  });
  return mergedOrder(liveNames, configNames).map(({ from, at }) => {
    if (from === "live") return live[at];
    const n = configNames[at];
    // A key duplicated in the live list is taken from the configuration alone.
    const liveItem = n === undefined || liveDuplicates.has(n) ? undefined : liveByName.get(n);
    return mergeValue(liveItem, config[at], items);
  });
}

/**
 * The order of a merged list as structured-merge-diff produces it, as a sequence of
 * positions in the live and configuration lists (a shared element is taken once, from the
 * configuration). Walks both lists together: an element the two share at the heads is taken
 * once; a live element the configuration names further on waits for it; a live-only element
 * is taken where it stands; otherwise the next configuration element goes.
 */
function mergedOrder(
  liveNames: ReadonlyArray<string | undefined>,
  configNames: ReadonlyArray<string | undefined>,
): Array<{ from: "live" | "config"; at: number }> {
  const configured = new Set(configNames.filter((n) => n !== undefined));
  const livePresent = new Set(liveNames.filter((n) => n !== undefined));
  const shared = configNames.filter((n) => n !== undefined && livePresent.has(n));
  const inConfig = (n: string | undefined): n is string => n !== undefined && configured.has(n);
  const steps: Array<{ from: "live" | "config"; at: number }> = [];
  const emitted = new Set<string>();
  let nextShared = 0;
  let l = 0;
  let r = 0;
  const takeConfig = () => {
    const n = configNames[r];
    steps.push({ from: "config", at: r++ });
    if (n === undefined) return;
    emitted.add(n);
    if (shared[nextShared] === n) nextShared++;
  };

  while (l < liveNames.length || r < configNames.length) {
    const n = liveNames[l];
    const both = l < liveNames.length && r < configNames.length;
    if (both && n !== undefined && n === configNames[r]) {
      takeConfig();
      l++;
    } else if (both && inConfig(n) && nextShared < shared.length && shared[nextShared] !== n) {
      l++;
    } else if (l < liveNames.length && !inConfig(n)) {
      steps.push({ from: "live", at: l++ });
    } else {
      if (l < liveNames.length && inConfig(n) && emitted.has(n)) l++;
      if (r < configNames.length) takeConfig();
    }
  }
  return steps;
}

/**
 * Removes the paths of `set` from a value (structured-merge-diff's RemoveItems). Containers
 * left empty by the removal disappear; returns undefined when the value itself does.
 */
function removeFields(value: unknown, set: FieldSet, schema: Schema | undefined): unknown {
  if (Array.isArray(value)) return removeFromList(value, set, schema);
  if (isJsonObject(value)) return removeFromMap(value, set, schema);
  return value;
}

function removeFromList(value: unknown[], set: FieldSet, schema: Schema | undefined): unknown {
  const list = listKind(schema);
  if (value.length === 0 || list.kind === "atomic") return value;
  const items = itemSchema(schema);
  const out: unknown[] = [];
  for (const item of value) {
    const element = listElement(item, list, items);
    const node = typeof element === "string" ? set.children.get(element) : undefined;
    if (node?.member) continue;
    const kept = node ? removeFields(item, node, items) : item;
    if (kept !== undefined) out.push(kept);
  }
  return out.length > 0 ? out : undefined;
}

function removeFromMap(value: JsonObject, set: FieldSet, schema: Schema | undefined): unknown {
  if (Object.keys(value).length === 0 || isAtomicMap(schema)) return value;
  const out: JsonObject = {};
  for (const key of Object.keys(value)) {
    const node = set.children.get(fieldElement(key));
    if (node?.member) continue;
    const kept = node ? removeFields(value[key], node, propertySchema(schema, key)) : value[key];
    if (kept !== undefined) setMember(out, key, kept);
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * An explicit `null` in the configuration owns the field but stores nothing, as decoding into
 * the typed object would; only map members are affected, list elements keep their nulls.
 */
function dropAppliedNulls(object: JsonObject, config: JsonObject): JsonObject {
  for (const key of Object.keys(config)) {
    const applied = config[key];
    const current = getMember(object, key);
    if (applied === null && current === null) delete object[key];
    else if (isJsonObject(applied) && isJsonObject(current)) dropAppliedNulls(current, applied);
  }
  return object;
}
