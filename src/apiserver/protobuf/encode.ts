/**
 * Encodes JSON objects of the built-in kinds as Kubernetes protobuf, mirroring what Go's
 * go-to-protobuf marshalling writes for the same Go object: non-pointer scalars and messages are
 * always written (zero values included), pointers only when set, map entries sorted by key,
 * fields in ascending number order. Unknown JSON fields are an error rather than silently lost.
 */

import { writeEnvelope } from "./envelope.ts";
import { builtinRegistry, type MessageRegistry } from "./registry.ts";
import type { ElementType, FieldDef, MessageDef, ScalarType, SpecialType } from "./schema.ts";
import { parseGoDuration, parseRfc3339 } from "./special-types.ts";
import {
  type ByteSink,
  WIRE_FIXED32,
  WIRE_FIXED64,
  WIRE_VARINT,
  writeFixed,
  writeLengthDelimited,
  writeTag,
  writeVarint,
} from "./wire.ts";

const utf8 = new TextEncoder();

/** Encodes a top-level object (with apiVersion and kind) into a `k8s\0`-framed runtime.Unknown. */
export function encodeProtobufObject(
  object: Record<string, unknown>,
  registry: MessageRegistry = builtinRegistry,
): Uint8Array {
  const { apiVersion, kind } = object;
  if (typeof apiVersion !== "string" || typeof kind !== "string") {
    throw new Error("object needs string apiVersion and kind to be encoded as protobuf");
  }
  const def = registry.kind(apiVersion, kind);
  if (!def) throw new Error(`no protobuf message for apiVersion ${apiVersion} kind ${kind}`);
  return writeEnvelope(apiVersion, kind, encodeProtobufMessage(def.name, object, registry));
}

/** Encodes a bare message by qualified name, e.g. "meta.v1.DeleteOptions". */
export function encodeProtobufMessage(
  messageName: string,
  value: unknown,
  registry: MessageRegistry = builtinRegistry,
): Uint8Array {
  const out: ByteSink = [];
  encodeMessage(registry, registry.message(messageName), value, messageName, out);
  return Uint8Array.from(out);
}

const knownKeysCache = new WeakMap<MessageDef, ReadonlySet<string>>();

/**
 * JSON keys a message accepts, including those of inlined (embedded) messages. Kinds also
 * accept `apiVersion` and `kind`: Go keeps them in TypeMeta, which has no protobuf field, so an
 * embedded object (a StatefulSet's volumeClaimTemplates) loses them on the wire as it does in Go.
 */
function knownKeys(registry: MessageRegistry, def: MessageDef): ReadonlySet<string> {
  const cached = knownKeysCache.get(def);
  if (cached) return cached;
  const keys = new Set<string>();
  if (registry.kinds.some((k) => k.message === def.name)) {
    keys.add("apiVersion");
    keys.add("kind");
  }
  for (const field of def.fields) {
    if (field.json !== "") keys.add(field.json);
    else if (field.type.kind === "message") {
      for (const k of knownKeys(registry, registry.message(field.type.name))) keys.add(k);
    }
  }
  knownKeysCache.set(def, keys);
  return keys;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function encodeMessage(
  registry: MessageRegistry,
  def: MessageDef,
  value: unknown,
  path: string,
  out: ByteSink,
): void {
  const ordered = [...def.fields].sort((a, b) => a.number - b.number);
  if (def.form === "array") {
    const only = ordered[0];
    if (!Array.isArray(value)) throw new Error(`${path}: expected an array`);
    if (only) encodeField(registry, only, value, path, out);
    return;
  }
  if (def.form === "union") {
    const chosen = ordered.find((f) => unionAccepts(registry, f, value));
    if (!chosen) throw new Error(`${path}: ${JSON.stringify(value)} fits none of ${def.name}'s forms`);
    encodeField(registry, chosen, value, path, out);
    return;
  }
  if (!isPlainObject(value)) throw new Error(`${path}: expected an object`);
  const known = knownKeys(registry, def);
  for (const key of Object.keys(value)) {
    if (!known.has(key)) throw new Error(`${path}: unknown field ${JSON.stringify(key)} for ${def.name}`);
  }
  for (const field of ordered) {
    if (field.json === "") {
      // An embedded struct: its fields sit in the same JSON object; Go always writes it.
      const nested: ByteSink = [];
      const inner = registry.message(field.type.name);
      const own = knownKeys(registry, inner);
      encodeMessage(registry, inner, pick(value, own), path, nested);
      writeLengthDelimited(out, field.number, nested);
      continue;
    }
    encodeField(registry, field, value[field.json], `${path}.${field.json}`, out);
  }
}

function pick(value: Record<string, unknown>, keys: ReadonlySet<string>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([k]) => keys.has(k)));
}

/** Which field of a union carries this JSON value: arrays, booleans and objects each have their own. */
function unionAccepts(registry: MessageRegistry, field: FieldDef, value: unknown): boolean {
  if (Array.isArray(value)) return field.cardinality === "repeated";
  if (field.cardinality === "repeated") return false;
  if (typeof value === "boolean") return field.type.kind === "scalar" && field.type.name === "bool";
  return (
    isPlainObject(value) &&
    field.type.kind === "message" &&
    registry.message(field.type.name).form === "object"
  );
}

function encodeField(
  registry: MessageRegistry,
  field: FieldDef,
  value: unknown,
  path: string,
  out: ByteSink,
): void {
  const absent = value === undefined || value === null;
  switch (field.cardinality) {
    case "repeated": {
      if (absent) return;
      if (!Array.isArray(value)) throw new Error(`${path}: expected an array`);
      value.forEach((item, i) => {
        encodeElement(registry, field.type, field.number, item, `${path}[${i}]`, out);
      });
      return;
    }
    case "map": {
      if (absent) return;
      if (!isPlainObject(value)) throw new Error(`${path}: expected an object`);
      for (const key of Object.keys(value).sort()) {
        const entry: ByteSink = [];
        writeLengthDelimited(entry, 1, utf8.encode(key));
        encodeElement(registry, field.type, 2, value[key], `${path}[${JSON.stringify(key)}]`, entry);
        writeLengthDelimited(out, field.number, entry);
      }
      return;
    }
    case "pointer":
      if (!absent) encodeElement(registry, field.type, field.number, value, path, out);
      return;
    case "value":
      // Go writes a nil []byte not at all, every other non-pointer field always.
      if (absent && field.type.kind === "scalar" && field.type.name === "bytes") return;
      encodeElement(registry, field.type, field.number, absent ? undefined : value, path, out);
      return;
  }
}

function encodeElement(
  registry: MessageRegistry,
  type: ElementType,
  number: number,
  value: unknown,
  path: string,
  out: ByteSink,
): void {
  switch (type.kind) {
    case "scalar":
      encodeScalar(type.name, number, value ?? zeroOf(type.name), path, out);
      return;
    case "special": {
      const nested: ByteSink = [];
      encodeSpecial(type.name, value, path, nested);
      writeLengthDelimited(out, number, nested);
      return;
    }
    case "message": {
      const def = registry.message(type.name);
      const nested: ByteSink = [];
      encodeMessage(registry, def, value ?? (def.form === "array" ? [] : {}), path, nested);
      writeLengthDelimited(out, number, nested);
      return;
    }
  }
}

function zeroOf(name: ScalarType): unknown {
  if (name === "string" || name === "bytes") return "";
  return name === "bool" ? false : 0;
}

const INT_RANGES: Record<string, readonly [bigint, bigint]> = {
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  uint32: [0n, 2n ** 32n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint64: [0n, 2n ** 64n - 1n],
};

function encodeScalar(name: ScalarType, number: number, value: unknown, path: string, out: ByteSink): void {
  switch (name) {
    case "string":
      if (typeof value !== "string") throw new Error(`${path}: expected a string`);
      writeLengthDelimited(out, number, utf8.encode(value));
      return;
    case "bytes":
      if (typeof value !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(value) || value.length % 4 !== 0) {
        throw new Error(`${path}: expected a base64 string`);
      }
      writeLengthDelimited(out, number, Buffer.from(value, "base64"));
      return;
    case "bool":
      if (typeof value !== "boolean") throw new Error(`${path}: expected a boolean`);
      writeTag(out, number, WIRE_VARINT);
      writeVarint(out, value ? 1 : 0);
      return;
    case "double":
    case "float": {
      if (typeof value !== "number") throw new Error(`${path}: expected a number`);
      const bytes = new Uint8Array(name === "double" ? 8 : 4);
      const view = new DataView(bytes.buffer);
      if (name === "double") view.setFloat64(0, value, true);
      else view.setFloat32(0, value, true);
      writeFixed(out, number, name === "double" ? WIRE_FIXED64 : WIRE_FIXED32, bytes);
      return;
    }
    default: {
      if (typeof value !== "number" || !Number.isInteger(value))
        throw new Error(`${path}: expected an integer`);
      const big = BigInt(value);
      const [min, max] = INT_RANGES[name] ?? [0n, 0n];
      if (big < min || big > max) throw new Error(`${path}: ${value} is out of range for ${name}`);
      writeTag(out, number, WIRE_VARINT);
      writeVarint(out, big);
    }
  }
}

function varintField(out: ByteSink, number: number, value: bigint | number): void {
  writeTag(out, number, WIRE_VARINT);
  writeVarint(out, value);
}

function encodeSpecial(name: SpecialType, value: unknown, path: string, out: ByteSink): void {
  switch (name) {
    case "time":
    case "microtime": {
      // The zero time is an empty message.
      if (value === undefined) return;
      if (typeof value !== "string") throw new Error(`${path}: expected an RFC 3339 string`);
      const ts = parseRfc3339(value);
      varintField(out, 1, ts.seconds);
      varintField(out, 2, ts.nanos);
      return;
    }
    case "duration": {
      if (value !== undefined && typeof value !== "string")
        throw new Error(`${path}: expected a duration string`);
      varintField(out, 1, value === undefined ? 0n : parseGoDuration(value));
      return;
    }
    case "quantity": {
      if (value !== undefined && typeof value !== "string" && typeof value !== "number") {
        throw new Error(`${path}: expected a quantity`);
      }
      writeLengthDelimited(out, 1, utf8.encode(value === undefined ? "0" : String(value)));
      return;
    }
    case "intstr": {
      const v = value ?? 0;
      if (typeof v === "number" && Number.isInteger(v)) {
        varintField(out, 1, 0);
        varintField(out, 2, v);
        writeLengthDelimited(out, 3, []);
      } else if (typeof v === "string") {
        varintField(out, 1, 1);
        varintField(out, 2, 0);
        writeLengthDelimited(out, 3, utf8.encode(v));
      } else {
        throw new Error(`${path}: expected an integer or a string`);
      }
      return;
    }
    case "json":
      if (value !== undefined) writeLengthDelimited(out, 1, utf8.encode(JSON.stringify(value)));
      return;
  }
}
