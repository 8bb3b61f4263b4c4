/**
 * JSON patch (RFC 6902), the `application/json-patch+json` body of a PATCH, with the
 * semantics of evanphx/json-patch v4, the library the Kubernetes API server applies it with.
 *
 * Where v4 departs from the RFC we follow v4, because clients are written against real
 * clusters:
 * - `replace` of a missing member of an existing object adds it (the RFC says fail);
 *   `replace` under a missing parent or at a missing array index fails.
 * - `copy` from a missing member of an existing object copies `null`.
 * - `test` treats a missing member and a `null` member alike.
 * - negative array indices count from the end (`/list/-1` is the last element; `add` at
 *   `-1` appends).
 * - `add`, `remove` and `move` at the document root (`""`) fail; `replace` and `test` work.
 * Error messages are v4's, since the server returns them verbatim in a 422.
 *
 * Stricter than v4 on purpose: the patch document's shape is validated up front (v4 turns a
 * missing `op` into a 422 "Unexpected kind" and a missing `value` into `null`), and a path
 * that does not start with `/` is a missing path (v4 reads `a/b` as `/b`).
 */

import { deepEqual } from "./equality.ts";
import { cloneJson, getMember, isJsonObject, type JsonObject, setMember } from "./merge-patch.ts";

/** The API server refuses JSON patches with more operations than this (413). */
export const MAX_JSON_PATCH_OPERATIONS = 10000;

/**
 * How much `copy` operations may add to a document in all, in characters of JSON: kube-apiserver's
 * `JSONPatchMaxCopyBytes` default (the request body limit). Without it, 10000 copies of a large
 * value grow the document without bound from a small request (a 600 KB patch held the API
 * server's event loop for minutes).
 */
export const MAX_JSON_PATCH_COPY_BYTES = 3 * 1024 * 1024;

export type JsonPatchOperation =
  | { op: "add" | "replace" | "test"; path: string; value: unknown }
  | { op: "remove"; path: string }
  | { op: "move" | "copy"; from: string; path: string };

/** The patch document is not a well-formed JSON patch: the server answers 400 BadRequest. */
export class JsonPatchDecodeError extends Error {
  readonly code = 400;
  constructor(message: string) {
    super(message);
    this.name = "JsonPatchDecodeError";
  }
}

/** More than {@link MAX_JSON_PATCH_OPERATIONS} operations: the server answers 413. */
export class JsonPatchTooLargeError extends Error {
  readonly code = 413;
  constructor(count: number) {
    super(`The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${count}`);
    this.name = "JsonPatchTooLargeError";
  }
}

/** An operation does not apply to the document: the server answers 422 with this message. */
export class JsonPatchApplyError extends Error {
  readonly code = 422;
  constructor(message: string) {
    super(message);
    this.name = "JsonPatchApplyError";
  }
}

const MISSING = ": missing value";
const INVALID_INDEX = ": invalid index referenced";

/**
 * Checks the shape of a decoded patch body and returns its operations.
 * Throws {@link JsonPatchDecodeError} or {@link JsonPatchTooLargeError}.
 */
export function decodeJsonPatch(patch: unknown): JsonPatchOperation[] {
  if (!Array.isArray(patch)) {
    throw new JsonPatchDecodeError(
      `json: cannot unmarshal ${goJsonKind(patch)} into Go value of type jsonpatch.Patch`,
    );
  }
  if (patch.length > MAX_JSON_PATCH_OPERATIONS) throw new JsonPatchTooLargeError(patch.length);
  return patch.map((raw, i) => decodeOperation(raw, i));
}

function decodeOperation(raw: unknown, index: number): JsonPatchOperation {
  if (!isJsonObject(raw)) {
    throw new JsonPatchDecodeError(
      `json: cannot unmarshal ${goJsonKind(raw)} into Go value of type jsonpatch.Operation`,
    );
  }
  const bad = (what: string) => new JsonPatchDecodeError(`invalid JSON patch operation ${index}: ${what}`);
  const op = getMember(raw, "op");
  const path = getMember(raw, "path");
  if (typeof op !== "string") throw bad(`"op" must be a string`);
  if (typeof path !== "string") throw bad(`"path" must be a string`);
  switch (op) {
    case "add":
    case "replace":
    case "test":
      if (!Object.hasOwn(raw, "value")) throw bad(`"${op}" needs a "value"`);
      return { op, path, value: raw.value };
    case "remove":
      return { op, path };
    case "move":
    case "copy": {
      const from = getMember(raw, "from");
      if (typeof from !== "string") throw bad(`"${op}" needs a string "from"`);
      return { op, from, path };
    }
    default:
      throw bad(`unknown "op" ${JSON.stringify(op)}; expected add, remove, replace, move, copy or test`);
  }
}

/**
 * Decodes and applies a JSON patch to a deep copy of `document` and returns the copy.
 * Throws {@link JsonPatchDecodeError}, {@link JsonPatchTooLargeError} or
 * {@link JsonPatchApplyError}.
 */
export function applyJsonPatch(
  document: unknown,
  patch: unknown,
  maxCopyBytes = MAX_JSON_PATCH_COPY_BYTES,
): unknown {
  const operations = decodeJsonPatch(patch);
  let doc = cloneJson(document);
  const copies = { bytes: 0, limit: maxCopyBytes };
  for (const operation of operations) doc = applyOperation(doc, operation, copies);
  return doc;
}

/** The running total of what `copy` operations added, against its limit. */
interface CopyBudget {
  bytes: number;
  limit: number;
}

type Container = JsonObject | unknown[];

function applyOperation(doc: unknown, operation: JsonPatchOperation, copies: CopyBudget): unknown {
  switch (operation.op) {
    case "add":
      return add(doc, operation.path, operation.value);
    case "remove":
      return remove(doc, operation.path);
    case "replace":
      return replace(doc, operation.path, operation.value);
    case "move":
      return move(doc, operation.from, operation.path);
    case "copy":
      return copy(doc, operation.from, operation.path, copies);
    case "test":
      return test(doc, operation.path, operation.value);
  }
}

function add(doc: unknown, path: string, value: unknown): unknown {
  const target = locate(doc, path);
  if (!target)
    throw new JsonPatchApplyError(`add operation does not apply: doc is missing path: "${path}"${MISSING}`);
  insert(target, cloneJson(value), (err) => `error in add for path: '${path}': ${err}`);
  return doc;
}

function remove(doc: unknown, path: string): unknown {
  const target = locate(doc, path);
  if (!target) {
    throw new JsonPatchApplyError(
      `remove operation does not apply: doc is missing path: "${path}"${MISSING}`,
    );
  }
  extract(target, (err) => `error in remove for path: '${path}': ${err}`);
  return doc;
}

function replace(doc: unknown, path: string, value: unknown): unknown {
  if (path === "") {
    if (typeof value !== "object" || value === null) {
      throw new JsonPatchApplyError("replace operation value must be object or array");
    }
    return cloneJson(value);
  }
  const target = locate(doc, path);
  if (!target) {
    throw new JsonPatchApplyError(`replace operation does not apply: doc is missing path: ${path}${MISSING}`);
  }
  if (Array.isArray(target.container)) {
    const index = existingIndex(target.container, target.key);
    if (typeof index === "string") {
      throw new JsonPatchApplyError(
        `replace operation does not apply: doc is missing key: ${path}${MISSING}`,
      );
    }
    target.container[index] = cloneJson(value);
  } else {
    // v4 only checks that the parent exists: replacing a missing member adds it.
    setMember(target.container, target.key, cloneJson(value));
  }
  return doc;
}

function move(doc: unknown, from: string, path: string): unknown {
  const source = locate(doc, from);
  if (!source) {
    throw new JsonPatchApplyError(
      `move operation does not apply: doc is missing from path: ${from}${MISSING}`,
    );
  }
  const value = extract(source, (err) => `error in move for path: '${source.key}': ${err}`);
  const target = locate(doc, path);
  if (!target) {
    throw new JsonPatchApplyError(
      `move operation does not apply: doc is missing destination path: ${path}${MISSING}`,
    );
  }
  insert(target, value, (err) => `error in move for path: '${path}': ${err}`);
  return doc;
}

function copy(doc: unknown, from: string, path: string, copies: CopyBudget): unknown {
  const source = locate(doc, from);
  if (!source) {
    throw new JsonPatchApplyError(
      `copy operation does not apply: doc is missing from path: ${from}${MISSING}`,
    );
  }
  const value = read(source, (err) => `error in copy for from: '${from}': ${err}`);
  const target = locate(doc, path);
  if (!target) {
    throw new JsonPatchApplyError(
      `copy operation does not apply: doc is missing destination path: ${path}${MISSING}`,
    );
  }
  // Measured before copying, as evanphx/json-patch does (its message, too).
  copies.bytes += JSON.stringify(value ?? null).length;
  if (copies.bytes > copies.limit) {
    throw new JsonPatchApplyError(
      `Unable to complete the copy, the accumulated size increase of copy is ${copies.bytes}, exceeding the limit ${copies.limit}`,
    );
  }
  insert(target, cloneJson(value ?? null), (err) => `error while adding value during copy: ${err}`);
  return doc;
}

function test(doc: unknown, path: string, value: unknown): unknown {
  if (path === "") {
    if (!deepEqual(doc, value)) throw new JsonPatchApplyError(`testing value ${path} failed: test failed`);
    return doc;
  }
  const target = locate(doc, path);
  if (!target) {
    throw new JsonPatchApplyError(`test operation does not apply: is missing path: ${path}${MISSING}`);
  }
  const actual = read(target, (err) => `error in test for path: '${path}': ${err}`);
  const same = actual === undefined || actual === null ? value === null : deepEqual(actual, value);
  if (!same) throw new JsonPatchApplyError(`testing value ${path} failed: test failed`);
  return doc;
}

interface Location {
  container: Container;
  /** The last reference token, unescaped. */
  key: string;
}

/** Finds the container of the value `path` points at, or undefined when a parent is missing. */
function locate(doc: unknown, path: string): Location | undefined {
  if (!path.startsWith("/")) return undefined;
  const tokens = path.slice(1).split("/").map(unescapeToken);
  const key = tokens.pop()!;
  let node = doc;
  for (const token of tokens) {
    node = Array.isArray(node) ? node[arrayIndex(node.length, token) ?? -1] : childOf(node, token);
    if (node === null || typeof node !== "object") return undefined;
  }
  return node !== null && typeof node === "object" ? { container: node as Container, key } : undefined;
}

function childOf(node: unknown, token: string): unknown {
  return isJsonObject(node) ? getMember(node, token) : undefined;
}

function unescapeToken(token: string): string {
  return token.replace(/~[01]/g, (sequence) => (sequence === "~1" ? "/" : "~"));
}

/** The index `token` names in an array of `length` (negative counts from the end), if valid. */
function arrayIndex(length: number, token: string): number | undefined {
  const index = parseIndex(token);
  if (typeof index === "string") return undefined;
  const resolved = index < 0 ? index + length : index;
  return resolved >= 0 && resolved < length ? resolved : undefined;
}

/** Go's strconv.Atoi, returning its error text on failure. */
function parseIndex(token: string): number | string {
  if (!/^[+-]?\d+$/.test(token)) return `strconv.Atoi: parsing ${JSON.stringify(token)}: invalid syntax`;
  const index = Number(token);
  if (!Number.isSafeInteger(index))
    return `strconv.Atoi: parsing ${JSON.stringify(token)}: value out of range`;
  return index;
}

/** The index of an existing element, or the error text v4 reports. */
function existingIndex(list: unknown[], token: string): number | string {
  const index = parseIndex(token);
  if (typeof index === "string") return index;
  const resolved = index < 0 ? index + list.length : index;
  if (resolved < 0 || resolved >= list.length)
    return `Unable to access invalid index: ${index}${INVALID_INDEX}`;
  return resolved;
}

function read(at: Location, wrap: (err: string) => string): unknown {
  if (!Array.isArray(at.container)) return getMember(at.container, at.key);
  const index = existingIndex(at.container, at.key);
  if (typeof index === "string") throw new JsonPatchApplyError(wrap(index));
  return at.container[index];
}

function insert(at: Location, value: unknown, wrap: (err: string) => string): void {
  const { container, key } = at;
  if (!Array.isArray(container)) {
    setMember(container, key, value);
    return;
  }
  if (key === "-") {
    container.push(value);
    return;
  }
  const index = parseIndex(key);
  if (typeof index === "string") {
    throw new JsonPatchApplyError(wrap(`value was not a proper array index: '${key}': ${index}`));
  }
  const size = container.length + 1;
  if (index >= size || index < -size) {
    throw new JsonPatchApplyError(wrap(`Unable to access invalid index: ${index}${INVALID_INDEX}`));
  }
  container.splice(index < 0 ? index + size : index, 0, value);
}

function extract(at: Location, wrap: (err: string) => string): unknown {
  const { container, key } = at;
  if (!Array.isArray(container)) {
    if (!Object.hasOwn(container, key)) {
      throw new JsonPatchApplyError(wrap(`Unable to remove nonexistent key: ${key}${MISSING}`));
    }
    const value = container[key];
    delete container[key];
    return value;
  }
  const index = existingIndex(container, key);
  if (typeof index === "string") throw new JsonPatchApplyError(wrap(index));
  return container.splice(index, 1)[0];
}

/** How Go's encoding/json names a JSON value's kind in unmarshal errors. */
function goJsonKind(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "object") return "object";
  return typeof value;
}
