/**
 * JSON patch with the semantics and output of evanphx/json-patch v5 (default options), the
 * library Karmada applies every overrider with. It differs from the v4 engine the API server
 * uses (src/machinery/json-patch.ts), which is why overrides do not share it:
 * - `replace` of a missing object member fails ("doc is missing key");
 * - a path that does not start with `/` loses its first segment (`a/b/c` acts as `/b/c`);
 * - the document is patched as text: values the patch does not reach keep their exact source
 *   text (number spellings, escapes, big integers) and members keep their order, new members
 *   go last; the result is compact, HTML-escaped JSON. This is what the fieldOverrider's JSON
 *   output shows.
 * Only the operators an OverridePolicy can carry (add, remove, replace) are supported.
 */

import {
  compactGoJson,
  firstJsonChar,
  isValidJson,
  marshalGoJson,
  quoteGoJsonString,
  rawArrayItems,
  rawObjectMembers,
} from "./go-json.ts";

export interface PatchOperation {
  op: string;
  path: string;
  /** Marshalled the way Go marshals a decoded API value (sorted keys); absent means null. */
  value?: unknown;
}

/** A patch does not apply; the message is the library's. */
export class JsonPatchV5Error extends Error {
  constructor(message: string) {
    super(message);
    this.name = "JsonPatchV5Error";
  }
}

const MISSING = "missing value";
const INVALID_INDEX = "invalid index referenced";
const LAZY_MAP = "map[string]*jsonpatch.lazyNode";

/** A value not yet looked into: its source text. */
interface RawNode {
  kind: "raw";
  text: string;
}
/** An object the patch walked through: members in their original order. */
interface ObjectNode {
  kind: "object";
  keys: string[];
  members: Map<string, Node>;
}
interface ArrayNode {
  kind: "array";
  items: Node[];
}
/** `null` stands for a JSON null member, which the library treats like a missing one. */
type Node = RawNode | ObjectNode | ArrayNode | null;
type Container = ObjectNode | ArrayNode;

function raw(text: string): RawNode {
  return { kind: "raw", text };
}

function objectFrom(text: string): ObjectNode | undefined {
  if (firstJsonChar(text) !== "{") return undefined;
  const node: ObjectNode = { kind: "object", keys: [], members: new Map() };
  for (const m of rawObjectMembers(text)) {
    if (!node.members.has(m.key)) node.keys.push(m.key);
    node.members.set(m.key, m.raw === "null" ? null : raw(m.raw));
  }
  return node;
}

function arrayFrom(text: string): ArrayNode | undefined {
  if (firstJsonChar(text) !== "[") return undefined;
  return { kind: "array", items: rawArrayItems(text).map((t) => (t === "null" ? null : raw(t))) };
}

/** Go's strconv.Atoi, or its error text. */
function atoi(token: string): number | string {
  if (!/^[+-]?\d+$/.test(token)) return `strconv.Atoi: parsing ${JSON.stringify(token)}: invalid syntax`;
  const n = Number(token);
  if (!Number.isSafeInteger(n)) return `strconv.Atoi: parsing ${JSON.stringify(token)}: value out of range`;
  return n;
}

function decodeToken(token: string): string {
  return token.replace(/~[01]/g, (s) => (s === "~1" ? "/" : "~"));
}

/** The child a path segment names, or an error text. */
function child(container: Container, key: string): { node: Node } | { error: string } {
  if (container.kind === "object") {
    if (!container.members.has(key)) return { error: `unable to get nonexistent key: ${key}: ${MISSING}` };
    return { node: container.members.get(key)! };
  }
  const idx = atoi(key);
  if (typeof idx === "string") return { error: idx };
  const resolved = idx < 0 ? idx + container.items.length : idx;
  if (idx < -container.items.length || resolved >= container.items.length) {
    return { error: `Unable to access invalid index: ${idx}: ${INVALID_INDEX}` };
  }
  return { node: container.items[resolved]! };
}

/** Turns a child into a container in place (the library's lazy decoding), if it is one. */
function descend(parent: Container, key: string, node: Node): Container | undefined {
  if (node === null) return undefined;
  if (node.kind !== "raw") return node;
  const container = firstJsonChar(node.text) === "[" ? arrayFrom(node.text) : objectFrom(node.text);
  if (!container) return undefined;
  if (parent.kind === "object") parent.members.set(key, container);
  else {
    const idx = Number(key);
    parent.items[idx < 0 ? idx + parent.items.length : idx] = container;
  }
  return container;
}

/** The container holding the value `path` points at, and the last (decoded) token. */
function findContainer(doc: Container, path: string): { container: Container; key: string } | undefined {
  const split = path.split("/");
  if (split.length < 2) return path === "" ? { container: doc, key: "" } : undefined;
  let container: Container = doc;
  for (const part of split.slice(1, -1)) {
    const key = decodeToken(part);
    const found = child(container, key);
    if ("error" in found) return undefined;
    const next = descend(container, key, found.node);
    if (!next) return undefined;
    container = next;
  }
  return { container, key: decodeToken(split[split.length - 1]!) };
}

function addTo(container: Container, key: string, value: Node): string | undefined {
  if (container.kind === "object") {
    if (!container.members.has(key)) container.keys.push(key);
    container.members.set(key, value);
    return undefined;
  }
  if (key === "-") {
    container.items.push(value);
    return undefined;
  }
  const idx = atoi(key);
  if (typeof idx === "string") return `value was not a proper array index: '${key}': ${idx}`;
  const size = container.items.length + 1;
  if (idx >= size || idx < -size) return `Unable to access invalid index: ${idx}: ${INVALID_INDEX}`;
  container.items.splice(idx < 0 ? idx + size : idx, 0, value);
  return undefined;
}

function removeFrom(container: Container, key: string): string | undefined {
  if (container.kind === "object") {
    if (!container.members.has(key)) return `unable to remove nonexistent key: ${key}: ${MISSING}`;
    container.members.delete(key);
    container.keys.splice(container.keys.indexOf(key), 1);
    return undefined;
  }
  const idx = atoi(key);
  if (typeof idx === "string") return idx;
  const length = container.items.length;
  if (idx >= length || idx < -length) return `Unable to access invalid index: ${idx}: ${INVALID_INDEX}`;
  container.items.splice(idx < 0 ? idx + length : idx, 1);
  return undefined;
}

/** Replaces an existing child; the missing-key check is done by the caller. */
function replaceIn(container: Container, key: string, value: Node): void {
  if (container.kind === "object") {
    if (!container.members.has(key)) container.keys.push(key);
    container.members.set(key, value);
    return;
  }
  const idx = Number(key);
  container.items[idx < 0 ? idx + container.items.length : idx] = value;
}

function exists(container: Container, key: string): boolean {
  // The library looks an empty key up as the object itself, so it always "exists".
  if (container.kind === "object" && key === "") return true;
  return !("error" in child(container, key));
}

function rootFrom(text: string): Container | undefined {
  return text.startsWith("[") ? arrayFrom(text) : objectFrom(text);
}

function fail(message: string): never {
  throw new JsonPatchV5Error(message);
}

function addOperation(doc: Container, path: string, valueText: string): Container {
  if (path === "") {
    const root = rootFrom(valueText);
    if (root) return root;
    // A null document decodes to an object without members, which nothing can be done to.
    if (valueText === "null") fail("invalid value, expected object");
    return fail(`json: cannot unmarshal ${jsonKind(valueText)} into Go value of type ${LAZY_MAP}`);
  }
  const at = findContainer(doc, path);
  if (!at) fail(`add operation does not apply: doc is missing path: "${path}": ${MISSING}`);
  const err = addTo(at.container, at.key, raw(valueText));
  if (err) fail(`error in add for path: '${path}': ${err}`);
  return doc;
}

function removeOperation(doc: Container, path: string): Container {
  const at = findContainer(doc, path);
  if (!at) fail(`remove operation does not apply: doc is missing path: "${path}": ${MISSING}`);
  const err = removeFrom(at.container, at.key);
  if (err) fail(`error in remove for path: '${path}': ${err}`);
  return doc;
}

function replaceOperation(doc: Container, path: string, valueText: string): Container {
  if (path === "") {
    const first = firstJsonChar(valueText);
    const root = first === "{" ? objectFrom(valueText) : first === "[" ? arrayFrom(valueText) : undefined;
    // The library formats a nil error here.
    return root ?? fail("replace operation value must be object or array: %!w(<nil>)");
  }
  const at = findContainer(doc, path);
  if (!at) fail(`replace operation does not apply: doc is missing path: ${path}: ${MISSING}`);
  if (!exists(at.container, at.key))
    fail(`replace operation does not apply: doc is missing key: ${path}: ${MISSING}`);
  replaceIn(at.container, at.key, raw(valueText));
  return doc;
}

const OPERATIONS: Record<string, (doc: Container, path: string, valueText: string) => Container> = {
  add: addOperation,
  remove: removeOperation,
  replace: replaceOperation,
};

function operationText(operation: PatchOperation, valueText: string): string {
  return `{"op":${quoteGoJsonString(operation.op)},"path":${quoteGoJsonString(operation.path)},"value":${valueText}}`;
}

function jsonKind(text: string): string {
  const c = firstJsonChar(text);
  if (c === '"') return "string";
  if (c === "t" || c === "f") return "bool";
  if (c === "n") return "null";
  if (c === "[") return "array";
  if (c === "{") return "object";
  return "number";
}

function serialize(node: Node): string {
  if (node === null) return "null";
  switch (node.kind) {
    case "raw":
      return compactGoJson(node.text);
    case "object":
      return `{${node.keys.map((k) => `${quoteGoJsonString(k, true)}:${serialize(node.members.get(k)!)}`).join(",")}}`;
    case "array":
      return `[${node.items.map(serialize).join(",")}]`;
  }
}

/**
 * Applies `patch` to the JSON `document` text and returns the patched text, as
 * `jsonpatch.DecodePatch(...).Apply(document)` does. An empty document is returned as is.
 */
export function applyJsonPatchV5(document: string, patch: readonly PatchOperation[]): string {
  const valueTexts = patch.map((p) => marshalGoJson(p.value ?? null));
  // The patch is decoded, and so checked, before the document is looked at.
  patch.forEach((operation, i) => {
    if (!Object.hasOwn(OPERATIONS, operation.op)) {
      fail(`invalid operation ${operationText(operation, valueTexts[i]!)}: unsupported operation`);
    }
  });
  if (document.length === 0) return document;
  if (!isValidJson(document)) fail("invalid state detected");
  let doc = rootFrom(document);
  if (!doc) {
    if (document.trim() === "null") fail("invalid value, expected object");
    fail(`json: cannot unmarshal ${jsonKind(document)} into Go value of type ${LAZY_MAP}`);
  }
  patch.forEach((operation, i) => {
    doc = OPERATIONS[operation.op]!(doc!, operation.path, valueTexts[i]!);
  });
  return serialize(doc);
}

/**
 * Applies `patch` to a decoded object: the object is marshalled as Go marshals an
 * unstructured object, patched, and decoded again. The input is not modified.
 */
export function applyJsonPatchToObject<T>(object: T, patch: readonly PatchOperation[]): T {
  return JSON.parse(applyJsonPatchV5(marshalGoJson(object), patch)) as T;
}
