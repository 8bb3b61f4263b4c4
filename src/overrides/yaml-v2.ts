/**
 * sigs.k8s.io/yaml's YAMLToJSON and JSONToYAML as the fieldOverrider uses them, both built on
 * go-yaml v2: YAML is read with YAML 1.1 scalar resolution into Go values (integers stay
 * integers, timestamps stay strings, non-string keys become strings), written as Go JSON
 * (sorted keys); JSON is read back the same way and written as go-yaml v2 YAML.
 *
 * The `yaml` package parses the syntax; what the scalars mean is decided here, as go-yaml v2
 * decides it, because the YAML 1.1 schema of the `yaml` package differs in the details.
 */
import { type Document, isAlias, isMap, isScalar, isSeq, type Node, parseAllDocuments } from "yaml";
import { marshalGoJson, rawArrayItems, rawObjectMembers } from "./go-json.ts";
import { emitYamlV2, type YamlValue } from "./yaml-v2-emit.ts";
import { formatGoFloat, resolveScalar, TAG, type YamlScalar, YamlV2Error } from "./yaml-v2-resolve.ts";

export { YamlV2Error } from "./yaml-v2-resolve.ts";

/** A cap on decoded nodes, standing in for go-yaml's alias-expansion limit. */
const MAX_DECODED_NODES = 1_000_000;

interface Decoder {
  doc: Document;
  active: Set<Node>;
  count: number;
}

function decodeScalar(node: Node & { value: unknown; type?: string; tag?: string }): YamlScalar {
  const text = String(node.value ?? "");
  const implicit = node.type === "PLAIN";
  if (!node.tag && !implicit) return text;
  const resolved = resolveScalar(node.tag ?? "", text);
  if (resolved.tag === TAG.binary) {
    // Go's base64 decoder skips line breaks, and nothing else.
    const base64 = text.replace(/[\r\n]/g, "");
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64) || base64.length % 4 !== 0) {
      throw new YamlV2Error("!!binary value contains invalid base64 data");
    }
    return Buffer.from(base64, "base64").toString("utf8");
  }
  // A timestamp decodes into an interface{} as its text.
  return resolved.tag === TAG.timestamp ? text : resolved.value;
}

/** How sigs.k8s.io/yaml turns a decoded map key into a JSON member name. */
function keyString(key: YamlValue, value: YamlValue): string {
  if (typeof key === "string") return key;
  if (typeof key === "bigint") return key.toString();
  if (typeof key === "boolean") return String(key);
  if (typeof key === "number") {
    const s = formatGoFloat(key, 32);
    return ({ "+Inf": ".inf", "-Inf": "-.inf", NaN: ".nan" } as Record<string, string>)[s] ?? s;
  }
  if (key === null) {
    throw new YamlV2Error(`unsupported map key of type: <nil>, key: <nil>, value: ${marshalGoJson(value)}`);
  }
  throw new YamlV2Error(`invalid map key: ${marshalGoJson(key)}`);
}

function resolveAlias(d: Decoder, node: Node): Node {
  if (!isAlias(node)) return node;
  const target = node.resolve(d.doc);
  if (!target) throw new YamlV2Error(`unknown anchor '${node.source}' referenced`);
  return target;
}

function mergeInto(d: Decoder, target: Map<string, YamlValue>, source: Node | null): void {
  const wantMap = () => new YamlV2Error("map merge requires map or sequence of maps as the value");
  if (source === null) throw wantMap();
  if (isMap(resolveAlias(d, source))) {
    decodeMapInto(d, target, source);
    return;
  }
  if (!isSeq(source)) throw wantMap();
  // Earlier maps take precedence, so they are merged last.
  for (const item of [...source.items].reverse()) {
    if (!isMap(resolveAlias(d, item as Node))) throw wantMap();
    decodeMapInto(d, target, item as Node);
  }
}

function decodeMapInto(d: Decoder, target: Map<string, YamlValue>, node: Node): void {
  const map = resolveAlias(d, node);
  if (!isMap(map)) return;
  withNode(d, node, () => {
    for (const pair of map.items) {
      const keyNode = pair.key as Node | null;
      const valueNode = pair.value as Node | null;
      if (
        keyNode &&
        isScalar(keyNode) &&
        keyNode.value === "<<" &&
        ((keyNode.type === "PLAIN" && !keyNode.tag) || keyNode.tag === TAG.merge)
      ) {
        mergeInto(d, target, valueNode);
        continue;
      }
      const key = keyNode ? decode(d, keyNode) : null;
      const value = valueNode ? decode(d, valueNode) : null;
      target.set(keyString(key, value), value);
    }
  });
}

/** Decodes a node, guarding against an alias that contains itself. */
function withNode<T>(d: Decoder, node: Node, f: () => T): T {
  if (d.active.has(node)) {
    throw new YamlV2Error(`anchor '${isAlias(node) ? node.source : ""}' value contains itself`);
  }
  if (++d.count > MAX_DECODED_NODES) throw new YamlV2Error("document contains excessive aliasing");
  d.active.add(node);
  try {
    return f();
  } finally {
    d.active.delete(node);
  }
}

function decode(d: Decoder, node: Node): YamlValue {
  if (isAlias(node)) return withNode(d, node, () => decode(d, resolveAlias(d, node)));
  if (isMap(node)) {
    const map = new Map<string, YamlValue>();
    decodeMapInto(d, map, node);
    return map;
  }
  if (isSeq(node)) {
    return withNode(d, node, () =>
      node.items.map((item) => (item === null ? null : decode(d, item as Node))),
    );
  }
  if (isScalar(node)) return withNode(d, node, () => decodeScalar(node));
  throw new YamlV2Error("unsupported node");
}

/** go-yaml v2's reader refuses input with characters outside YAML's printable set. */
function assertReadable(text: string): void {
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    const ok =
      c === 0x09 ||
      c === 0x0a ||
      c === 0x0d ||
      (c >= 0x20 && c <= 0x7e) ||
      c === 0x85 ||
      (c >= 0xa0 && c <= 0xd7ff) ||
      (c >= 0xe000 && c <= 0xfffd) ||
      c >= 0x10000;
    if (!ok) throw new YamlV2Error("control characters are not allowed");
  }
}

/** go-yaml v2's Unmarshal into an interface{}: the first document only, null when there is none. */
export function decodeYamlV2(text: string): YamlValue {
  assertReadable(text);
  const docs = parseAllDocuments(text, {
    version: "1.1",
    schema: "failsafe",
    uniqueKeys: false,
    merge: false,
    prettyErrors: false,
  });
  const doc = Array.isArray(docs) ? docs[0] : undefined;
  if (!doc) return null;
  const error = doc.errors[0];
  if (error) {
    const line = text.slice(0, error.pos[0]).split("\n").length;
    throw new YamlV2Error(`line ${line}: ${error.message.split("\n")[0]}`);
  }
  const root = doc.contents as Node | null;
  return root === null ? null : decode({ doc, active: new Set(), count: 0 }, root);
}

/** sigs.k8s.io/yaml's YAMLToJSON. */
export function yamlToJson(text: string): string {
  return marshalGoJson(decodeYamlV2(text));
}

/** A run of blanks inside a double-quoted YAML scalar: breaks fold, spaces next to them go. */
function foldBlanks(run: string): string {
  const breaks = [...run].filter((c) => c !== " ").map((c) => (c === "\u0085" ? "\n" : c));
  if (breaks.length === 0) return run;
  const [leading, ...trailing] = breaks;
  if (leading === "\n") return trailing.length > 0 ? trailing.join("") : " ";
  return leading + trailing.join("");
}

/**
 * A JSON string literal read as a YAML double-quoted scalar. They differ only in raw line
 * break characters Go leaves unescaped (NEL): YAML folds them, with the spaces around them.
 */
function jsonStringAsYaml(token: string): string {
  const body = token.slice(1, -1);
  const segment = (from: number, to?: number) => JSON.parse(`"${body.slice(from, to)}"`) as string;
  let out = "";
  let last = 0;
  for (const m of body.matchAll(/[ \u0085\u2028\u2029]+/g)) {
    out += segment(last, m.index) + foldBlanks(m[0]);
    last = m.index + m[0].length;
  }
  return out + segment(last);
}

/** Reads (valid) JSON text the way go-yaml v2 reads it: numbers resolved as YAML scalars. */
function jsonToYamlValue(raw: string): YamlValue {
  const text = raw.trim();
  const first = text[0];
  if (first === "{") {
    const map = new Map<string, YamlValue>();
    for (const m of rawObjectMembers(text)) {
      // In a flow mapping a key must be a "simple key": on one line, at most 1024 characters.
      const lines = m.keyRaw.match(/[\u0085\u2028\u2029]/g)?.length ?? 0;
      if (lines > 0 || [...m.keyRaw].length > 1024) {
        throw new YamlV2Error(`${lines > 0 ? `line ${lines}: ` : ""}did not find expected ',' or '}'`);
      }
      map.set(jsonStringAsYaml(m.keyRaw), jsonToYamlValue(m.raw));
    }
    return map;
  }
  if (first === "[") return rawArrayItems(text).map(jsonToYamlValue);
  if (first === '"') return jsonStringAsYaml(text);
  return resolveScalar("", text).value;
}

/** sigs.k8s.io/yaml's JSONToYAML. */
export function jsonToYaml(json: string): string {
  assertReadable(json);
  return emitYamlV2(jsonToYamlValue(json));
}
