/**
 * Our format for the protobuf messages of the built-in kinds, and its parser.
 *
 * Kubernetes generates its protobuf messages from the Go types (go-to-protobuf, proto2). A message
 * alone does not say how the Go value renders as JSON, so each field here carries both halves:
 * the wire facts (field number, wire type) and the JSON facts (JSON name, pointer or not,
 * `omitempty`). One package of messages is one template string, one field per line:
 *
 * ```
 * DeploymentSpec                     message header: a name, optionally `@array` or `@union`
 *   replicas 1 *int32                <json name> <field number> <type> [omitempty]
 *   template 3 core.v1.PodTemplateSpec
 *   minReadySeconds 5 int32 omitempty
 * Volume
 *   ... 2 VolumeSource               `...` = Go embeds the struct and JSON inlines its fields
 * ```
 *
 * Types:
 * - scalars: `string bytes bool int32 int64 uint32 uint64 double float` (`bytes` is base64 in JSON);
 * - special messages with their own JSON form: `time` and `microtime` ({1 seconds, 2 nanos} as an
 *   RFC 3339 string), `duration` ({1 nanoseconds} as a Go duration string), `quantity` ({1 string}),
 *   `intstr` ({1 type, 2 intVal, 3 strVal} as a number or a string), `json` ({1 raw JSON bytes}
 *   as the parsed value: RawExtension, FieldsV1, apiextensions JSON);
 * - messages: `Name` in the same package or `pkg.vN.Name`.
 * Prefixes: `*T` a Go pointer (rendered whenever present on the wire, even when zero), `[]T` repeated,
 * `map[string]T` a map (repeated {1 key, 2 value} entries). Without a prefix the Go field is a value:
 * scalars render their zero value unless the line says `omitempty`; messages always render (`{}`).
 *
 * Header forms: `@array` is a Go named slice (`type ExtraValue []string`) wrapped in a message
 * with one repeated field; its JSON is that array. `@union` is a Go type with a custom JSON form
 * that is one of its fields (apiextensions `JSONSchemaPropsOr*`): the fields are listed in the
 * order Go's MarshalJSON prefers them and the first non-empty one is the JSON value.
 * Lines starting with `#` are comments.
 */

export interface PackageTable {
  /** Our package key, which qualifies message names: "core.v1" → "core.v1.Pod". */
  readonly package: string;
  /** The apiVersion under which the kinds below arrive in a `runtime.Unknown` envelope. */
  readonly apiVersion: string;
  /** Messages that are top-level kinds of `apiVersion`. */
  readonly kinds: readonly string[];
  /** Kinds registered in every group version (meta/v1 DeleteOptions): looked up by kind alone. */
  readonly sharedKinds?: readonly string[];
  readonly messages: string;
}

export type ScalarType =
  | "string"
  | "bytes"
  | "bool"
  | "int32"
  | "int64"
  | "uint32"
  | "uint64"
  | "double"
  | "float";
export type SpecialType = "time" | "microtime" | "duration" | "quantity" | "intstr" | "json";

export type ElementType =
  | { readonly kind: "scalar"; readonly name: ScalarType }
  | { readonly kind: "special"; readonly name: SpecialType }
  | { readonly kind: "message"; readonly name: string };

/** `value`: a Go non-pointer field; `pointer`: a Go pointer; `repeated`: a slice; `map`: a Go map. */
export type Cardinality = "value" | "pointer" | "repeated" | "map";

export interface FieldDef {
  /** JSON name; "" when Go embeds the struct and JSON inlines its fields into the parent. */
  readonly json: string;
  readonly number: number;
  readonly cardinality: Cardinality;
  readonly type: ElementType;
  /** Drop the zero value of a non-pointer scalar (Go `omitempty`). */
  readonly omitempty: boolean;
}

export type MessageForm = "object" | "array" | "union";

export interface MessageDef {
  /** Qualified name, e.g. "apps.v1.DeploymentSpec". */
  readonly name: string;
  readonly form: MessageForm;
  /** In Go struct order, which is also the order of keys in Go's JSON. */
  readonly fields: readonly FieldDef[];
  readonly byNumber: ReadonlyMap<number, FieldDef>;
}

const SCALARS: ReadonlySet<string> = new Set<ScalarType>([
  "string",
  "bytes",
  "bool",
  "int32",
  "int64",
  "uint32",
  "uint64",
  "double",
  "float",
]);
const SPECIALS: ReadonlySet<string> = new Set<SpecialType>([
  "time",
  "microtime",
  "duration",
  "quantity",
  "intstr",
  "json",
]);

const HEADER = /^([A-Z]\w*)(?: @(array|union))?$/;
const FIELD = /^ {2}(\S+) (\d+) (\S+)( omitempty)?$/;
const MAP_TYPE = /^map\[(\w+)\](\S+)$/;

function elementType(pkg: string, token: string, where: string): ElementType {
  if (SCALARS.has(token)) return { kind: "scalar", name: token as ScalarType };
  if (SPECIALS.has(token)) return { kind: "special", name: token as SpecialType };
  if (/^(?:\w+\.)*[A-Z]\w*$/.test(token)) {
    return { kind: "message", name: token.includes(".") ? token : `${pkg}.${token}` };
  }
  throw new Error(`${where}: unknown type ${JSON.stringify(token)}`);
}

function parseField(pkg: string, line: string, where: string): FieldDef {
  const m = FIELD.exec(line);
  if (!m) throw new Error(`${where}: cannot parse field line ${JSON.stringify(line)}`);
  const [, name = "", num = "", typeToken = "", omit] = m;
  const number = Number(num);
  if (!Number.isInteger(number) || number < 1 || number > 536_870_911) {
    throw new Error(`${where}: field number ${num} out of range`);
  }
  let cardinality: Cardinality = "value";
  let elementToken = typeToken;
  const map = MAP_TYPE.exec(typeToken);
  if (map) {
    if (map[1] !== "string") throw new Error(`${where}: only string map keys are supported`);
    cardinality = "map";
    elementToken = map[2] ?? "";
  } else if (typeToken.startsWith("[]")) {
    cardinality = "repeated";
    elementToken = typeToken.slice(2);
  } else if (typeToken.startsWith("*")) {
    cardinality = "pointer";
    elementToken = typeToken.slice(1);
  }
  const type = elementType(pkg, elementToken, `${where} field ${name}`);
  const omitempty = omit !== undefined;
  if (omitempty && !(cardinality === "value" && type.kind === "scalar")) {
    throw new Error(`${where} field ${name}: omitempty only matters for non-pointer scalars`);
  }
  const inline = name === "...";
  if (inline && (cardinality !== "value" || type.kind !== "message")) {
    throw new Error(`${where}: an inlined field must be a non-pointer message`);
  }
  return { json: inline ? "" : name, number, cardinality, type, omitempty };
}

/** Parses one package table into message definitions; references are checked by the registry. */
export function parsePackageTable(table: PackageTable): MessageDef[] {
  const out: MessageDef[] = [];
  let current: { name: string; form: MessageForm; fields: FieldDef[] } | undefined;
  const flush = (): void => {
    if (!current) return;
    const byNumber = new Map<number, FieldDef>();
    const jsonNames = new Set<string>();
    for (const f of current.fields) {
      if (byNumber.has(f.number)) throw new Error(`${current.name}: duplicate field number ${f.number}`);
      byNumber.set(f.number, f);
      if (f.json !== "" && jsonNames.has(f.json))
        throw new Error(`${current.name}: duplicate JSON name ${f.json}`);
      jsonNames.add(f.json);
    }
    if (current.form === "array") {
      const only = current.fields[0];
      if (current.fields.length !== 1 || only?.cardinality !== "repeated") {
        throw new Error(`${current.name}: an @array message has exactly one repeated field`);
      }
    }
    out.push({ name: current.name, form: current.form, fields: current.fields, byNumber });
  };
  const lines = table.messages.split("\n");
  for (const [index, line] of lines.entries()) {
    if (line.trim() === "" || line.startsWith("#")) continue;
    const where = `${table.package} line ${index}`;
    const header = HEADER.exec(line);
    if (header) {
      flush();
      const form: MessageForm = header[2] === "array" ? "array" : header[2] === "union" ? "union" : "object";
      current = { name: `${table.package}.${header[1] ?? ""}`, form, fields: [] };
      continue;
    }
    if (!current) throw new Error(`${where}: field before the first message header`);
    current.fields.push(parseField(table.package, line, `${current.name} (${where})`));
  }
  flush();
  return out;
}
