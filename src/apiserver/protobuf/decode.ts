/**
 * Decodes Kubernetes protobuf bodies into the JSON that Kubernetes' own JSON encoding would
 * produce for the same Go object, driven by our message tables (schema.ts).
 *
 * The Go side of the rules, per field:
 * - a pointer renders whenever it is on the wire, even when zero (`replicas: 0` stays);
 * - a non-pointer scalar always renders, zero included, unless its JSON tag says omitempty
 *   (go-to-protobuf writes empty strings and zeros for these, so wire presence means nothing);
 * - a non-pointer message always renders, `{}` when empty, except that a zero Time/MicroTime,
 *   which Go renders as `null`, is left out;
 * - empty repeated fields and maps are left out (Go renders nil slices as null or omits them);
 * - fields the table does not know are skipped, as Go's generated unmarshal does.
 */

import { hasProtobufMagic, PROTOBUF_MEDIA_TYPE, readEnvelope } from "./envelope.ts";
import { builtinRegistry, type MessageRegistry } from "./registry.ts";
import type { ElementType, FieldDef, MessageDef, ScalarType, SpecialType } from "./schema.ts";
import {
  formatGoDuration,
  formatMicroTime,
  formatTime,
  isGoZeroTime,
  type Timestamp,
} from "./special-types.ts";
import {
  readFields,
  readVarint,
  WIRE_FIXED32,
  WIRE_FIXED64,
  WIRE_LENGTH_DELIMITED,
  WIRE_VARINT,
  type WireField,
} from "./wire.ts";

export type ProtobufDecodeReason = "UnsupportedKind" | "Malformed";

/** `UnsupportedKind` maps to 415 Unsupported Media Type, `Malformed` to 400 Bad Request. */
export class ProtobufDecodeError extends Error {
  readonly reason: ProtobufDecodeReason;
  constructor(reason: ProtobufDecodeReason, message: string) {
    super(message);
    this.name = "ProtobufDecodeError";
    this.reason = reason;
  }
}

export interface DecodedObject {
  apiVersion: string;
  kind: string;
  object: Record<string, unknown>;
}

const utf8 = new TextDecoder();

/** Decodes a `k8s\0`-framed runtime.Unknown body, as kubectl and client-go send it. */
export function decodeProtobufObject(
  body: Uint8Array,
  registry: MessageRegistry = builtinRegistry,
): DecodedObject {
  if (!hasProtobufMagic(body)) {
    throw new ProtobufDecodeError("Malformed", 'protobuf body does not start with the magic bytes "k8s\\0"');
  }
  const envelope = guard("envelope", () => readEnvelope(body));
  const { apiVersion, kind } = envelope;
  if (envelope.contentEncoding !== "") {
    throw new ProtobufDecodeError(
      "Malformed",
      `unsupported protobuf contentEncoding ${JSON.stringify(envelope.contentEncoding)}`,
    );
  }
  if (envelope.contentType !== "" && envelope.contentType !== PROTOBUF_MEDIA_TYPE) {
    throw new ProtobufDecodeError(
      "Malformed",
      `unsupported protobuf contentType ${JSON.stringify(envelope.contentType)}`,
    );
  }
  if (kind === "") throw new ProtobufDecodeError("Malformed", "protobuf envelope has no kind");
  const def = registry.kind(apiVersion, kind);
  if (!def) {
    throw new ProtobufDecodeError(
      "UnsupportedKind",
      `no protobuf decoding for apiVersion ${JSON.stringify(apiVersion)} kind ${JSON.stringify(kind)}; send JSON instead`,
    );
  }
  // guard also turns a stack overflow from absurdly deep nesting into a Malformed error.
  const rendered = guard(kind, () => decodeObjectForm(registry, def, envelope.raw, kind));
  return { apiVersion, kind, object: { apiVersion, kind, ...rendered } };
}

/** Decodes a bare message (no magic, no envelope) by qualified name, e.g. "meta.v1.DeleteOptions". */
export function decodeProtobufMessage(
  messageName: string,
  bytes: Uint8Array,
  registry: MessageRegistry = builtinRegistry,
): Record<string, unknown> {
  let def: MessageDef;
  try {
    def = registry.message(messageName);
  } catch {
    throw new ProtobufDecodeError(
      "UnsupportedKind",
      `no protobuf message named ${JSON.stringify(messageName)}`,
    );
  }
  return guard(messageName, () => decodeObjectForm(registry, def, bytes, messageName));
}

function decodeObjectForm(
  registry: MessageRegistry,
  def: MessageDef,
  bytes: Uint8Array,
  path: string,
): Record<string, unknown> {
  if (def.form !== "object") {
    throw new ProtobufDecodeError(
      "UnsupportedKind",
      `${def.name} renders as a JSON ${def.form}, not an object`,
    );
  }
  return decodeMessage(registry, def, bytes, path) as Record<string, unknown>;
}

/** Runs `fn`, turning any failure into a Malformed error that names where it happened. */
function guard<T>(path: string, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (error instanceof ProtobufDecodeError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw new ProtobufDecodeError("Malformed", `invalid protobuf at ${path}: ${message}`);
  }
}

/** Returns the JSON value of a message, or undefined when Go would render null. */
function decodeMessage(registry: MessageRegistry, def: MessageDef, bytes: Uint8Array, path: string): unknown {
  const occurrences = new Map<number, WireField[]>();
  for (const field of guard(path, () => readFields(bytes))) {
    if (!def.byNumber.has(field.number)) continue;
    const list = occurrences.get(field.number);
    if (list) list.push(field);
    else occurrences.set(field.number, [field]);
  }
  const render = (field: FieldDef): unknown =>
    decodeField(registry, field, occurrences.get(field.number) ?? [], `${path}.${field.json || "(inline)"}`);
  if (def.form === "array") {
    const only = def.fields[0];
    return only ? (render(only) ?? []) : [];
  }
  if (def.form === "union") {
    for (const field of def.fields) {
      const value = render(field);
      if (value !== undefined && !(Array.isArray(value) && value.length === 0)) return value;
    }
    return undefined;
  }
  const out: Record<string, unknown> = {};
  for (const field of def.fields) {
    const value = render(field);
    if (value === undefined) continue;
    if (field.json === "") Object.assign(out, value);
    else out[field.json] = value;
  }
  return out;
}

function decodeField(registry: MessageRegistry, field: FieldDef, occ: WireField[], path: string): unknown {
  switch (field.cardinality) {
    case "repeated":
      return decodeRepeated(registry, field.type, occ, path);
    case "map":
      return decodeMap(registry, field.type, occ, path);
    case "pointer": {
      const wire = lastOrMerged(field.type, occ);
      return wire ? decodeElement(registry, field.type, wire, path) : undefined;
    }
    case "value":
      return decodeValueField(registry, field, lastOrMerged(field.type, occ), path);
  }
}

function decodeRepeated(
  registry: MessageRegistry,
  type: ElementType,
  occ: WireField[],
  path: string,
): unknown {
  const items: unknown[] = [];
  for (const wire of occ) {
    if (type.kind === "scalar" && isPackable(type.name) && wire.wireType === WIRE_LENGTH_DELIMITED) {
      items.push(...unpack(type.name, wire.bytes, path));
      continue;
    }
    items.push(decodeElement(registry, type, wire, `${path}[${items.length}]`) ?? null);
  }
  return items.length > 0 ? items : undefined;
}

/** Map entries are {1 key, 2 value} messages; a missing value is the zero value, as in Go. */
function decodeMap(registry: MessageRegistry, type: ElementType, occ: WireField[], path: string): unknown {
  const entries: [string, unknown][] = [];
  for (const wire of occ) {
    const entry = expectBytes(wire, path);
    let key = "";
    let value: WireField | undefined;
    for (const part of guard(path, () => readFields(entry))) {
      if (part.number === 1) key = utf8.decode(expectBytes(part, `${path} key`));
      if (part.number === 2) value = part;
    }
    const at = `${path}[${JSON.stringify(key)}]`;
    const rendered = value ? decodeElement(registry, type, value, at) : zeroElement(registry, type, at);
    entries.push([key, rendered ?? null]);
  }
  if (entries.length === 0) return undefined;
  // Go's encoding/json writes map keys sorted; a repeated key keeps its last value.
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries);
}

function decodeValueField(
  registry: MessageRegistry,
  field: FieldDef,
  wire: WireField | undefined,
  path: string,
): unknown {
  if (field.type.kind === "scalar" && field.type.name === "bytes") {
    // A nil []byte renders null; go-to-protobuf only writes non-nil ones.
    if (!wire) return undefined;
    const value = decodeElement(registry, field.type, wire, path);
    return field.omitempty && value === "" ? undefined : value;
  }
  const value = wire
    ? decodeElement(registry, field.type, wire, path)
    : zeroElement(registry, field.type, path);
  return field.omitempty && isZeroScalar(value) ? undefined : value;
}

/** Scalars: the last occurrence wins. Messages: occurrences merge, which equals decoding their concatenation. */
function lastOrMerged(type: ElementType, occ: WireField[]): WireField | undefined {
  if (occ.length <= 1 || type.kind === "scalar") return occ.at(-1);
  const parts = occ.map((w) => (w.wireType === WIRE_VARINT ? new Uint8Array(0) : w.bytes));
  const merged = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    merged.set(p, offset);
    offset += p.length;
  }
  return { number: occ[0]?.number ?? 0, wireType: WIRE_LENGTH_DELIMITED, bytes: merged };
}

function isZeroScalar(value: unknown): boolean {
  return value === "" || value === 0 || value === false;
}

function zeroElement(registry: MessageRegistry, type: ElementType, path: string): unknown {
  switch (type.kind) {
    case "scalar":
      return zeroScalar(type.name);
    case "special":
      return decodeSpecial(registry, type.name, new Uint8Array(0), path);
    case "message":
      return decodeMessage(registry, registry.message(type.name), new Uint8Array(0), path);
  }
}

function zeroScalar(name: ScalarType): unknown {
  switch (name) {
    case "string":
    case "bytes":
      return "";
    case "bool":
      return false;
    default:
      return 0;
  }
}

function decodeElement(registry: MessageRegistry, type: ElementType, wire: WireField, path: string): unknown {
  switch (type.kind) {
    case "scalar":
      return decodeScalar(type.name, wire, path);
    case "special":
      return decodeSpecial(registry, type.name, expectBytes(wire, path), path);
    case "message":
      return decodeMessage(registry, registry.message(type.name), expectBytes(wire, path), path);
  }
}

function expectBytes(wire: WireField, path: string): Uint8Array {
  if (wire.wireType !== WIRE_LENGTH_DELIMITED) {
    throw new ProtobufDecodeError(
      "Malformed",
      `invalid protobuf at ${path}: expected a length-delimited field, got wire type ${wire.wireType}`,
    );
  }
  return wire.bytes;
}

function isPackable(name: ScalarType): boolean {
  return name !== "string" && name !== "bytes";
}

function wireTypeOf(name: ScalarType): number {
  switch (name) {
    case "string":
    case "bytes":
      return WIRE_LENGTH_DELIMITED;
    case "double":
      return WIRE_FIXED64;
    case "float":
      return WIRE_FIXED32;
    default:
      return WIRE_VARINT;
  }
}

function decodeScalar(name: ScalarType, wire: WireField, path: string): unknown {
  if (wire.wireType !== wireTypeOf(name)) {
    throw new ProtobufDecodeError(
      "Malformed",
      `invalid protobuf at ${path}: ${name} sent with wire type ${wire.wireType}`,
    );
  }
  if (wire.wireType === WIRE_VARINT) return varintValue(name, wire.varint);
  const view = new DataView(wire.bytes.buffer, wire.bytes.byteOffset, wire.bytes.byteLength);
  switch (name) {
    case "string":
      return utf8.decode(wire.bytes);
    case "bytes":
      return Buffer.from(wire.bytes).toString("base64");
    case "double":
      return finite(view.getFloat64(0, true), path);
    case "float":
      return finite(view.getFloat32(0, true), path);
    default:
      throw new ProtobufDecodeError("Malformed", `invalid protobuf at ${path}: unexpected ${name}`);
  }
}

function finite(value: number, path: string): number {
  // Go's encoding/json refuses NaN and infinities.
  if (!Number.isFinite(value))
    throw new ProtobufDecodeError("Malformed", `invalid protobuf at ${path}: ${value} has no JSON form`);
  return value;
}

function varintValue(name: ScalarType, raw: bigint): number | boolean {
  switch (name) {
    case "bool":
      return raw !== 0n;
    case "int32":
      return Number(BigInt.asIntN(32, raw));
    case "uint32":
      return Number(BigInt.asUintN(32, raw));
    case "uint64":
      return Number(raw);
    default:
      return Number(BigInt.asIntN(64, raw));
  }
}

function unpack(name: ScalarType, bytes: Uint8Array, path: string): unknown[] {
  const out: unknown[] = [];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let pos = 0;
  const size = name === "double" ? 8 : name === "float" ? 4 : 0;
  while (pos < bytes.length) {
    if (size > 0) {
      if (pos + size > bytes.length)
        throw new ProtobufDecodeError("Malformed", `invalid protobuf at ${path}: truncated packed ${name}`);
      out.push(finite(size === 8 ? view.getFloat64(pos, true) : view.getFloat32(pos, true), path));
      pos += size;
      continue;
    }
    const [raw, next] = guard(path, () => readVarint(bytes, pos));
    out.push(varintValue(name, raw));
    pos = next;
  }
  return out;
}

/** Reads the varint and length-delimited fields of a small special message by number. */
function specialFields(bytes: Uint8Array, path: string): Map<number, WireField> {
  const byNumber = new Map<number, WireField>();
  for (const f of guard(path, () => readFields(bytes))) byNumber.set(f.number, f);
  return byNumber;
}

function varintField(fields: Map<number, WireField>, number: number, path: string): bigint {
  const f = fields.get(number);
  if (!f) return 0n;
  if (f.wireType !== WIRE_VARINT)
    throw new ProtobufDecodeError(
      "Malformed",
      `invalid protobuf at ${path}: field ${number} is not a varint`,
    );
  return f.varint;
}

function bytesField(fields: Map<number, WireField>, number: number, path: string): Uint8Array {
  const f = fields.get(number);
  return f ? expectBytes(f, path) : new Uint8Array(0);
}

function decodeSpecial(
  registry: MessageRegistry,
  name: SpecialType,
  bytes: Uint8Array,
  path: string,
): unknown {
  const fields = specialFields(bytes, path);
  switch (name) {
    case "time":
    case "microtime": {
      // Go decodes an empty Time message as the zero time, which renders as null.
      if (bytes.length === 0) return undefined;
      const ts: Timestamp = {
        seconds: BigInt.asIntN(64, varintField(fields, 1, path)),
        nanos: Number(BigInt.asIntN(32, varintField(fields, 2, path))),
      };
      if (isGoZeroTime(ts)) return undefined;
      return guard(path, () => (name === "time" ? formatTime(ts) : formatMicroTime(ts)));
    }
    case "duration":
      return formatGoDuration(BigInt.asIntN(64, varintField(fields, 1, path)));
    case "quantity": {
      const text = utf8.decode(bytesField(fields, 1, path));
      // The zero Quantity renders as "0".
      return text === "" ? "0" : text;
    }
    case "intstr": {
      const type = varintField(fields, 1, path);
      if (type === 1n) return utf8.decode(bytesField(fields, 3, path));
      return Number(BigInt.asIntN(32, varintField(fields, 2, path)));
    }
    case "json": {
      const raw = bytesField(fields, 1, path);
      if (raw.length === 0) return undefined;
      if (hasProtobufMagic(raw)) return decodeProtobufObject(raw, registry).object;
      const parsed: unknown = guard(path, () => JSON.parse(utf8.decode(raw)));
      return parsed === null ? undefined : parsed;
    }
  }
}
