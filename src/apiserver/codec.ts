/**
 * Request bodies in (JSON, YAML, Kubernetes protobuf) and objects out (JSON, Table,
 * PartialObjectMetadata), plus the list envelope.
 */
import { isMap, isScalar, isSeq, LineCounter, parseDocument as parseYaml } from "yaml";
import { isObject, type StoredObject } from "../api/meta.ts";
import { badRequest, unsupportedMediaType } from "../machinery/errors.ts";
import { JsonDecodeLimitError, MAX_JSON_DEPTH, nestedDeeperThan, scanJson } from "../machinery/json-scan.ts";
import { bodyFormat, mediaTypeOf } from "./negotiation.ts";
import { decodeProtobufObject, ProtobufDecodeError } from "./protobuf/decode.ts";
import type { ResourceType } from "./resource-type.ts";

const OBJECT_TYPES = ["application/json", "application/yaml", "application/vnd.kubernetes.protobuf"];

/**
 * Parses JSON or YAML text into a JSON value; 400 with the parser's reason otherwise, and
 * 400 for what kube-apiserver's decoders refuse or JavaScript would quietly alter (nesting
 * past MAX_JSON_DEPTH, numbers past the float range, integers past 2^53). Keys repeated in one
 * mapping are kept last-wins, as Go decodes them, and reported into `duplicates` in
 * kube-apiserver's words (`duplicate field "x"` for JSON, `line N: key "x" already set in map`
 * for YAML) for the caller to warn of or refuse (fieldValidation).
 */
export function parseDocument(text: string, format: "json" | "yaml", duplicates?: string[]): unknown {
  if (format === "json") {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      throw badRequest(`couldn't get version/kind; json parse error: ${(e as Error).message}`);
    }
    try {
      const scan = scanJson(text);
      for (const key of scan.duplicates) duplicates?.push(`duplicate field ${JSON.stringify(key)}`);
    } catch (e) {
      if (e instanceof JsonDecodeLimitError) {
        throw badRequest(`couldn't get version/kind; json parse error: ${e.message}`);
      }
      throw e;
    }
    return value;
  }
  try {
    return parseYamlDocument(text, duplicates);
  } catch (e) {
    if (e instanceof JsonDecodeLimitError) throw badRequest(`error converting YAML to JSON: ${e.message}`);
    // The parser recurses per level: a document nested deeply enough to exhaust the stack is refused as too deep.
    if (e instanceof RangeError || /Maximum call stack size exceeded/.test(String((e as Error).message))) {
      throw badRequest(
        "error converting YAML to JSON: the document is nested too deeply for the YAML parser",
      );
    }
    throw badRequest(`error converting YAML to JSON: ${(e as Error).message}`);
  }
}

/** YAML to a JSON value: syntax errors thrown, duplicate keys reported, integers checked for exactness. */
function parseYamlDocument(text: string, duplicates: string[] | undefined): unknown {
  const lines = new LineCounter();
  const doc = parseYaml(text, { uniqueKeys: false, intAsBigInt: true, lineCounter: lines });
  const error = doc.errors[0];
  if (error) throw error;
  // Duplicate keys, found by walking the node tree without recursion.
  const pending: unknown[] = [doc.contents];
  while (pending.length > 0) {
    const node = pending.pop();
    if (isMap(node)) {
      const seen = new Set<string>();
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : undefined;
        if (key !== undefined) {
          if (seen.has(key) && pair.key && isScalar(pair.key) && pair.key.range) {
            const { line } = lines.linePos(pair.key.range[0]);
            duplicates?.push(`line ${line}: key ${JSON.stringify(key)} already set in map`);
          }
          seen.add(key);
        }
        pending.push(pair.value);
      }
    } else if (isSeq(node)) {
      for (const item of node.items) pending.push(item);
    }
  }
  const value = exactNumbers(doc.toJS({ maxAliasCount: 100 }));
  if (nestedDeeperThan(value)) {
    throw new JsonDecodeLimitError(
      `the document is nested too deeply: exceeded max depth of ${MAX_JSON_DEPTH}`,
    );
  }
  return value;
}

/** Integers come from the YAML parser as bigints: numbers where exact, 400 where not; no infinities. */
function exactNumbers(value: unknown): unknown {
  const pending: unknown[] = [value];
  const fix = (v: unknown): unknown => {
    if (typeof v === "bigint") {
      const n = Number(v);
      if (!Number.isSafeInteger(n)) {
        throw new JsonDecodeLimitError(
          `the integer ${v} cannot be stored exactly: integers beyond ±9007199254740991 are not supported`,
        );
      }
      return n;
    }
    if (typeof v === "number" && !Number.isFinite(v)) {
      throw new JsonDecodeLimitError(`the number ${v} is not a finite number`);
    }
    if (v !== null && typeof v === "object") pending.push(v);
    return v;
  };
  const root = fix(value);
  while (pending.length > 0) {
    const container = pending.pop() as Record<string, unknown> | unknown[];
    if (Array.isArray(container)) {
      for (let i = 0; i < container.length; i++) container[i] = fix(container[i]);
    } else {
      for (const k of Object.keys(container)) container[k] = fix(container[k]);
    }
  }
  return root;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * A body's text. JSON's invalid UTF-8 becomes U+FFFD, as Go's JSON decoder does; YAML's is a
 * 400, as Go's YAML parser refuses it.
 */
export function bodyText(body: Buffer, format: "json" | "yaml"): string {
  if (format === "json") return body.toString("utf8");
  try {
    return strictUtf8.decode(body);
  } catch {
    throw badRequest("error converting YAML to JSON: yaml: invalid UTF-8 in the document");
  }
}

/** Protobuf bodies of kinds we have no message for are 415; malformed ones 400. */
function decodeProtobuf(body: Buffer, contentType: string | undefined): Record<string, unknown> {
  try {
    return decodeProtobufObject(body).object;
  } catch (e) {
    if (e instanceof ProtobufDecodeError && e.reason === "UnsupportedKind") {
      throw unsupportedMediaType(mediaTypeOf(contentType), ["application/json", "application/yaml"]);
    }
    throw badRequest(`the body of the request could not be decoded as protobuf: ${(e as Error).message}`);
  }
}

/** Decodes a create/update body into an object of `rt`'s kind (type meta is checked later). */
export function decodeObjectBody(
  rt: ResourceType | undefined,
  contentType: string | undefined,
  body: Buffer,
  duplicates?: string[],
): StoredObject {
  const format = bodyFormat(contentType);
  if (format === undefined || (format === "protobuf" && rt !== undefined && !rt.builtin)) {
    const accepted = rt && !rt.builtin ? OBJECT_TYPES.slice(0, 2) : OBJECT_TYPES;
    throw unsupportedMediaType(mediaTypeOf(contentType), accepted);
  }
  let value: unknown;
  if (format === "protobuf") {
    value = decodeProtobuf(body, contentType);
  } else {
    if (body.length === 0) throw badRequest("the request body is empty");
    value = parseDocument(bodyText(body, format), format, duplicates);
  }
  if (!isObject(value)) throw badRequest("the request body must be a JSON object");
  return value as StoredObject;
}

/**
 * A create/update request's body as an object of `rt`'s kind, with the keys it repeats (for
 * `reportDuplicateFields`, once the request's fieldValidation is known).
 */
export function decodeRequestBody(
  rt: ResourceType,
  req: { headers: Record<string, string | undefined>; body?: Buffer | undefined },
): { body: StoredObject; duplicates: string[] } {
  const duplicates: string[] = [];
  const body = decodeObjectBody(rt, req.headers["content-type"], req.body ?? Buffer.alloc(0), duplicates);
  return { body, duplicates };
}

/** DeleteOptions from a DELETE body (JSON or protobuf) merged with query parameters. */
export function decodeOptionsBody(
  contentType: string | undefined,
  body: Buffer | undefined,
): Record<string, unknown> {
  if (!body || body.length === 0) return {};
  const format = bodyFormat(contentType);
  if (format === "protobuf") return decodeProtobuf(body, contentType);
  if (format === undefined) throw unsupportedMediaType(mediaTypeOf(contentType), OBJECT_TYPES);
  const value = parseDocument(bodyText(body, format), format);
  if (!isObject(value)) throw badRequest("the request body must be a JSON object");
  return value;
}

export function listEnvelope(
  rt: ResourceType,
  items: StoredObject[],
  meta: { resourceVersion: string; continue?: string; remainingItemCount?: number },
): Record<string, unknown> {
  const metadata: Record<string, unknown> = { resourceVersion: meta.resourceVersion };
  if (meta.continue) metadata.continue = meta.continue;
  if (meta.remainingItemCount !== undefined) metadata.remainingItemCount = meta.remainingItemCount;
  return {
    kind: rt.listKind,
    apiVersion: rt.group ? `${rt.group}/${rt.version}` : rt.version,
    metadata,
    items,
  };
}

export function partialMetadata(obj: StoredObject): Record<string, unknown> {
  return { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: obj.metadata };
}
