/**
 * Request bodies in (JSON, YAML, Kubernetes protobuf) and objects out (JSON, Table,
 * PartialObjectMetadata), plus the list envelope.
 */
import { parse as parseYaml } from "yaml";
import { isObject, type StoredObject } from "../api/meta.ts";
import { badRequest, unsupportedMediaType } from "../machinery/errors.ts";
import { bodyFormat, mediaTypeOf } from "./negotiation.ts";
import { decodeProtobufObject, ProtobufDecodeError } from "./protobuf/decode.ts";
import type { ResourceType } from "./resource-type.ts";

const OBJECT_TYPES = ["application/json", "application/yaml", "application/vnd.kubernetes.protobuf"];

/** Parses JSON or YAML text into a JSON object; 400 with the parser's reason otherwise. */
export function parseDocument(text: string, format: "json" | "yaml"): unknown {
  if (format === "json") {
    try {
      return JSON.parse(text);
    } catch (e) {
      throw badRequest(`couldn't get version/kind; json parse error: ${(e as Error).message}`);
    }
  }
  try {
    return parseYaml(text, { uniqueKeys: false, maxAliasCount: 100 });
  } catch (e) {
    throw badRequest(`error converting YAML to JSON: ${(e as Error).message}`);
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
    value = parseDocument(body.toString("utf8"), format);
  }
  if (!isObject(value)) throw badRequest("the request body must be a JSON object");
  return value as StoredObject;
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
  const value = parseDocument(body.toString("utf8"), format);
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
