/**
 * Generators for hostile API input: objects mutated at a path, nasty values (numbers past
 * 2^53, non-integers, lone surrogates, long strings), bodies as JSON, YAML or protobuf with
 * byte-level damage (invalid UTF-8, duplicate keys, truncation, number literals Go rejects),
 * and the budget (`FUZZ_RUNS`, `FUZZ_SEED`) every fuzz file runs with.
 */
import fc from "fast-check";
import { stringify as toYaml } from "yaml";
import type { Schema } from "../../src/api/schema.ts";
import { encodeProtobufObject } from "../../src/apiserver/protobuf/encode.ts";

/** The seed and the runs per property: fixed by default, larger by `FUZZ_RUNS` / `FUZZ_SEED`. */
export function fuzzBudget(defaultRuns: number): { seed: number; numRuns: number } {
  const runs = Number(process.env.FUZZ_RUNS);
  const seed = Number(process.env.FUZZ_SEED);
  return {
    seed: Number.isInteger(seed) && process.env.FUZZ_SEED ? seed : 20260429,
    numRuns: Number.isInteger(runs) && runs > 0 ? runs : defaultRuns,
  };
}

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type Path = (string | number)[];

/** Every path to a value in `v` (objects' keys and arrays' indices), the root included. */
export function pathsOf(v: unknown, prefix: Path = [], out: Path[] = []): Path[] {
  out.push(prefix);
  if (Array.isArray(v)) {
    for (const [i, x] of v.entries()) pathsOf(x, [...prefix, i], out);
  } else if (v !== null && typeof v === "object")
    for (const [k, x] of Object.entries(v)) pathsOf(x, [...prefix, k], out);
  return out;
}

/** A copy of `obj` with `value` at `path` (`undefined` deletes it), containers made as needed. */
export function setPath(obj: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return value;
  const root = structuredClone(obj) as Record<string | number, unknown>;
  let cur: Record<string | number, unknown> = root;
  for (let i = 0; i < path.length - 1; i++) {
    const k = path[i]!;
    const next = cur[k];
    if (next === null || typeof next !== "object") cur[k] = typeof path[i + 1] === "number" ? [] : {};
    cur = cur[k] as Record<string | number, unknown>;
  }
  const last = path[path.length - 1]!;
  if (value === undefined) {
    if (Array.isArray(cur) && typeof last === "number") cur.splice(last, 1);
    else delete cur[last];
  } else cur[last] = value;
  return root;
}

/** Numbers that sit on an edge: int32/int64/2^53 bounds, fractions, tiny and huge magnitudes. */
export const edgeNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(
    0,
    -1,
    1.5,
    -0.5,
    2 ** 31 - 1,
    2 ** 31,
    -(2 ** 31) - 1,
    2 ** 53,
    2 ** 53 + 2,
    -(2 ** 53) - 2,
    2 ** 63,
    1e308,
    5e-324,
    Number.MAX_SAFE_INTEGER,
  ),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** Strings that break naive code: empty, control characters, lone surrogates, long, path-like. */
export const edgeString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "",
    " ",
    "\u0000",
    "\ud800",
    "\udfff x",
    "💥".repeat(10),
    "a".repeat(300),
    "../../etc/passwd",
    "__proto__",
    "constructor",
    "a/b",
    "-",
    "~1",
    "$(echo)",
    "1e400",
    "9223372036854775808",
    "true",
    "null",
  ),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.string({ minLength: 1000, maxLength: 70_000, unit: fc.constantFrom("x", "y") }),
);

/** Any JSON value, nasty leaves included, a few levels deep. */
export const nastyValue: fc.Arbitrary<Json> = fc.letrec<{ v: Json }>((tie) => ({
  v: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    edgeNumber,
    edgeString,
    fc.array(tie("v"), { maxLength: 4 }),
    fc.dictionary(fc.oneof(edgeString, fc.constantFrom("name", "value", "key", "spec", "status")), tie("v"), {
      maxKeys: 4,
    }),
  ),
})).v;

/** One change to an object: a value put at an existing or new path, or a path removed. */
export interface Mutation {
  path: Path;
  value: Json | undefined;
}

/** Label and annotation keys: valid, prefixed, too long, empty, with odd characters. */
const metaKey = fc.oneof(
  fc.constantFrom(
    "app",
    "example.com/role",
    "a/b/c",
    "/x",
    "x/",
    "kubernetes.io/metadata.name",
    "propagationpolicy.karmada.io/name",
    "resourcebinding.karmada.io/permanent-id",
    "work.karmada.io/permanent-id",
    `${"p".repeat(254)}.io/x`,
    "k".repeat(64),
  ),
  edgeString,
);

/** What every kind's metadata takes, right and wrong: the machinery every write goes through. */
const metadataMutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ path: metaKey.map((k) => ["metadata", "labels", k]), value: fc.oneof(edgeString, nastyValue) }),
  fc.record({
    path: metaKey.map((k) => ["metadata", "annotations", k]),
    value: fc.oneof(edgeString, nastyValue),
  }),
  fc.record({
    path: fc.constantFrom<Path>(
      ["metadata", "finalizers"],
      ["metadata", "ownerReferences"],
      ["metadata", "managedFields"],
      ["metadata", "resourceVersion"],
      ["metadata", "generateName"],
      ["metadata", "deletionTimestamp"],
      ["metadata", "deletionGracePeriodSeconds"],
      ["metadata", "creationTimestamp"],
      ["metadata", "namespace"],
      ["metadata", "uid"],
      ["metadata", "generation"],
      ["metadata", "selfLink"],
      ["metadata", "name"],
      ["metadata"],
      ["apiVersion"],
      ["kind"],
    ),
    value: fc.oneof(
      nastyValue,
      fc.constantFrom<Json>(
        ["example.com/finalizer", "kubernetes"],
        ["karmada.io/binding-controller"],
        [{ apiVersion: "v1", kind: "Pod", name: "p", uid: "u", controller: true }],
        [
          { apiVersion: "v1", kind: "Pod", name: "p", uid: "u", controller: true },
          { apiVersion: "v1", kind: "Pod", name: "q", uid: "v", controller: true },
        ],
        [
          {
            manager: "m",
            operation: "Apply",
            apiVersion: "v1",
            fieldsType: "FieldsV1",
            fieldsV1: { "f:x": {} },
          },
        ],
        [{ manager: "m", operation: "Update", fieldsV1: "garbage" }],
        "2026-01-01T00:00:00Z",
        "yesterday",
        "1",
        "999999999999",
        "-1",
      ),
    ),
  }),
);

export function mutationOf(base: unknown): fc.Arbitrary<Mutation> {
  const paths = pathsOf(base).filter((p) => p.length > 0);
  const existing = fc.constantFrom(...paths);
  const fresh = fc.tuple(existing, fc.oneof(edgeString, fc.nat(3))).map(([p, k]) => [...p, k]);
  return fc.oneof(
    {
      weight: 3,
      arbitrary: fc.record({
        path: fc.oneof({ weight: 3, arbitrary: existing }, { weight: 1, arbitrary: fresh }),
        value: fc.oneof(
          { weight: 5, arbitrary: nastyValue },
          { weight: 1, arbitrary: fc.constant(undefined) },
        ),
      }),
    },
    { weight: 1, arbitrary: metadataMutation },
  );
}

export function mutate(base: unknown, mutations: readonly Mutation[]): unknown {
  let out = base;
  for (const m of mutations) {
    try {
      out = setPath(out, m.path, m.value);
    } catch {
      // A path through a primitive set by an earlier mutation: skip it.
    }
  }
  return out;
}

/** Damage done to the bytes of an encoded body. */
export type ByteDamage =
  | { kind: "none" }
  | { kind: "truncate"; at: number }
  | { kind: "flip"; at: number; byte: number }
  | { kind: "insert"; at: number; bytes: number[] }
  | { kind: "invalid-utf8"; at: number; bytes: number[] };

export const byteDamage: fc.Arbitrary<ByteDamage> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ kind: "none" } as const) },
  fc.record({ kind: fc.constant("truncate" as const), at: fc.double({ min: 0, max: 1, noNaN: true }) }),
  fc.record({
    kind: fc.constant("flip" as const),
    at: fc.double({ min: 0, max: 1, noNaN: true }),
    byte: fc.integer({ min: 0, max: 255 }),
  }),
  fc.record({
    kind: fc.constant("insert" as const),
    at: fc.double({ min: 0, max: 1, noNaN: true }),
    bytes: fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 8 }),
  }),
  fc.record({
    kind: fc.constant("invalid-utf8" as const),
    at: fc.double({ min: 0, max: 1, noNaN: true }),
    bytes: fc
      .constantFrom([0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0x80])
      .map((b) => [...b]),
  }),
);

export function damage(body: Buffer, d: ByteDamage): Buffer {
  if (d.kind === "none" || body.length === 0) return body;
  const at = Math.min(body.length - 1, Math.floor(d.at * body.length));
  switch (d.kind) {
    case "truncate":
      return body.subarray(0, at);
    case "flip": {
      const out = Buffer.from(body);
      out[at] = d.byte;
      return out;
    }
    case "insert":
    case "invalid-utf8":
      return Buffer.concat([body.subarray(0, at), Buffer.from(d.bytes), body.subarray(at)]);
  }
}

/** Changes to JSON text no JSON.stringify makes: a repeated key, a number literal JS cannot hold. */
export type TextTwist =
  | { kind: "none" }
  | { kind: "duplicate-key"; key: string; value: Json }
  | { kind: "big-number"; literal: string };

export const textTwist: fc.Arbitrary<TextTwist> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: "none" } as const) },
  fc.record({
    kind: fc.constant("duplicate-key" as const),
    key: fc.constantFrom("apiVersion", "kind", "metadata", "spec", "name", "replicas", "data", "labels"),
    value: nastyValue,
  }),
  fc.record({
    kind: fc.constant("big-number" as const),
    literal: fc.constantFrom(
      "9007199254740993",
      "-9007199254740993",
      "9223372036854775807",
      "9223372036854775808",
      "18446744073709551616",
      "1e400",
      "-1e400",
      "1.0",
      "2.5e0",
      "1E2",
      "0.0000000000000000000001",
      "123456789012345678901234567890",
    ),
  }),
);

/** Applies a text twist to JSON text: inside the first object holding `key`, or at a number. */
export function twist(text: string, t: TextTwist): string {
  switch (t.kind) {
    case "none":
      return text;
    case "duplicate-key": {
      const needle = `"${t.key}":`;
      const i = text.indexOf(needle);
      const extra = `${needle}${JSON.stringify(t.value)},`;
      return i < 0 ? text.replace("{", `{${extra}`) : text.slice(0, i) + extra + text.slice(i);
    }
    case "big-number": {
      const m = /(:)(-?\d+(?:\.\d+)?)([,}\]])/.exec(text);
      if (!m) return text.replace("{", `{"big":${t.literal},`);
      return text.slice(0, m.index + 1) + t.literal + text.slice(m.index + 1 + m[2]!.length);
    }
  }
}

export type Format = "json" | "yaml" | "protobuf";

export const CONTENT_TYPES: Record<Format, string> = {
  json: "application/json",
  yaml: "application/yaml",
  protobuf: "application/vnd.kubernetes.protobuf",
};

/** Encodes an object in `format`; undefined when protobuf cannot carry it (then skip the run). */
export function encodeBody(obj: unknown, format: Format): Buffer | undefined {
  switch (format) {
    case "json":
      return Buffer.from(JSON.stringify(obj) ?? "null");
    case "yaml":
      return Buffer.from(toYaml(obj ?? null));
    case "protobuf":
      try {
        return Buffer.from(encodeProtobufObject(obj as Record<string, unknown>));
      } catch {
        return undefined;
      }
  }
}

/** A JSON document nested `depth` levels deep at `spec.deep` of an object. */
export function deeplyNested(depth: number, open = "[", close = "]"): string {
  return open.repeat(depth) + close.repeat(depth);
}

/** A value shaped by an OpenAPI schema, mostly right (enums, formats, nesting), sometimes not. */
export function schemaValue(schema: Schema | undefined, depth = 0): fc.Arbitrary<Json> {
  if (!schema || depth > 4) return nastyValue;
  const right = rightValue(schema, depth);
  return fc.oneof({ weight: 6, arbitrary: right }, { weight: 1, arbitrary: nastyValue });
}

function rightValue(schema: Schema, depth: number): fc.Arbitrary<Json> {
  if (schema.enum && schema.enum.length > 0) return fc.constantFrom(...(schema.enum as Json[]));
  if (schema["x-kubernetes-int-or-string"]) {
    return fc.oneof(fc.integer({ min: -5, max: 100 }), fc.constantFrom("50%", "1", "http", "", "101%"));
  }
  switch (schema.type) {
    case "string":
      switch (schema.format) {
        case "date-time":
          return fc.constantFrom("2026-01-01T00:00:00Z", "2026-13-01T00:00:00Z", "now");
        case "byte":
          return fc.constantFrom("aGVsbG8=", "not base64!", "");
        case "int-or-string":
          return fc.constantFrom("1", "50%");
        default:
          return fc.oneof(
            fc.constantFrom(
              "a",
              "nginx",
              "app",
              "member1",
              "TCP",
              "Always",
              "10m",
              "1Gi",
              "0.5",
              "*",
              "/spec/replicas",
            ),
            edgeString,
          );
      }
    case "integer":
      return fc.oneof(fc.integer({ min: -3, max: 1000 }), edgeNumber.filter(Number.isInteger));
    case "number":
      return edgeNumber;
    case "boolean":
      return fc.boolean();
    case "array":
      return fc.array(schemaValue(schema.items, depth + 1), { maxLength: 3 });
    default: {
      const props = Object.entries(schema.properties ?? {});
      if (props.length === 0) {
        const extra = schema.additionalProperties;
        return fc.dictionary(
          fc.oneof(fc.constantFrom("a", "cpu", "memory", "app"), edgeString),
          typeof extra === "object" ? schemaValue(extra, depth + 1) : nastyValue,
          { maxKeys: 3 },
        );
      }
      // Required properties always (or most objects stop at the first check), a few others.
      const required = props.filter(([k]) => schema.required?.includes(k));
      const optional = props.filter(([k]) => !schema.required?.includes(k));
      const picked = fc
        .subarray(optional, { maxLength: Math.min(3, optional.length) })
        .map((ps) => [...required, ...ps]);
      return picked.chain((ps) =>
        fc.record(
          Object.fromEntries(ps.map(([k, s]) => [k, schemaValue(s, depth + 1)])) as Record<
            string,
            fc.Arbitrary<Json>
          >,
        ),
      );
    }
  }
}

/** Paths into a schema (objects' properties and arrays' items as index 0), a few levels deep. */
export function schemaPaths(schema: Schema, maxDepth = 6): { path: Path; schema: Schema }[] {
  const out: { path: Path; schema: Schema }[] = [];
  const walk = (s: Schema, path: Path): void => {
    if (path.length > 0) out.push({ path, schema: s });
    if (path.length >= maxDepth) return;
    for (const [k, sub] of Object.entries(s.properties ?? {})) {
      if (path.length === 0 && (k === "apiVersion" || k === "kind" || k === "metadata")) continue;
      walk(sub, [...path, k]);
    }
    if (s.items) walk(s.items, [...path, 0]);
  };
  walk(schema, []);
  return out;
}

/** Mutations that put schema-shaped (mostly valid) values at paths the kind's schema knows. */
export function schemaMutationOf(schema: Schema): fc.Arbitrary<Mutation> {
  const paths = schemaPaths(schema);
  if (paths.length === 0) return mutationOf({});
  return fc
    .constantFrom(...paths)
    .chain(({ path, schema: s }) => schemaValue(s).map((value) => ({ path, value })));
}
