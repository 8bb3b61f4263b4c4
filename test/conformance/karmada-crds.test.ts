/**
 * Every field of every upstream Karmada CRD schema round-trips through our server unchanged,
 * and upstream's enum and required rules reject what upstream rejects. The upstream CRDs are
 * read from ../shared (test oracles only); our server serves its own definitions.
 */
import { readdirSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import type { Schema } from "../../src/api/schema.ts";
import { startTestApi, type TestApi } from "../support/api.ts";

const CRD_DIR = new URL("../../../shared/conformance/karmada/crds/", import.meta.url);

interface UpstreamCrd {
  spec: {
    group: string;
    names: { kind: string; plural: string };
    scope: "Namespaced" | "Cluster";
    versions: Array<{
      name: string;
      served: boolean;
      storage: boolean;
      schema: { openAPIV3Schema: Schema };
      subresources?: { status?: object };
    }>;
  };
}

function loadCrds(): UpstreamCrd[] {
  return readdirSync(CRD_DIR)
    .filter((f) => f.endsWith(".yaml"))
    .sort()
    .flatMap((f) =>
      parseAllDocuments(readFileSync(new URL(f, CRD_DIR), "utf8")).map((d) => d.toJS() as UpstreamCrd),
    )
    .filter((d) => d?.spec?.versions);
}

/** A value for `schema` that uses every field it declares (and satisfies its constraints). */
function sample(schema: Schema, path: string): unknown {
  if (schema["x-kubernetes-embedded-resource"]) {
    return {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "embedded", labels: { a: "b" } },
      data: { k: "v" },
    };
  }
  if (schema.enum && schema.enum.length > 0) return schema.enum[0];
  if (schema["x-kubernetes-int-or-string"]) return schema.pattern ? "1Gi" : "25%";
  switch (schema.type) {
    case "string":
      return stringSample(schema, path);
    case "integer":
      return Math.max(schema.minimum ?? 0, 1) + (schema.exclusiveMinimum ? 1 : 0);
    case "number":
      return 1.5;
    case "boolean":
      return true;
    case "array": {
      const items = schema.items ?? { type: "string" };
      const n = Math.max(1, schema.minItems ?? 0);
      if (schema["x-kubernetes-list-type"] === "set" || schema["x-kubernetes-list-type"] === "map")
        return [sample(items, `${path}[0]`)];
      return Array.from({ length: n }, (_, i) => sample(items, `${path}[${i}]`));
    }
    default: {
      if (schema.properties) {
        const out: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(schema.properties)) out[k] = sample(v, `${path}.${k}`);
        return out;
      }
      if (schema.additionalProperties && typeof schema.additionalProperties === "object") {
        return { key1: sample(schema.additionalProperties, `${path}[key1]`) };
      }
      if (schema["x-kubernetes-preserve-unknown-fields"]) return { anything: { nested: [1, "two"] } };
      return {};
    }
  }
}

function stringSample(schema: Schema, path: string): string {
  if (schema.format === "date-time") return "2026-01-02T03:04:05Z";
  if (schema.format === "byte") return "aGVsbG8=";
  const leaf = path.split(".").pop() ?? "";
  const candidates = [
    /url|endpoint/i.test(leaf) ? "https://example.com:443/path" : "value-1",
    "Reason",
    "1",
    "example.com",
    "a",
  ];
  let value = candidates.find((c) => !schema.pattern || new RegExp(schema.pattern).test(c));
  if (value === undefined) throw new Error(`no sample string for ${path} matches ${schema.pattern}`);
  if (schema.maxLength !== undefined) value = value.slice(0, schema.maxLength);
  if (schema.minLength !== undefined) value = value.padEnd(schema.minLength, "x");
  return value;
}

interface Rule {
  /** Dotted path of the field under the object root, as Kubernetes prints it. */
  field: string;
  kind: "enum" | "required";
  mutate(obj: Record<string, unknown>): void;
}

/** Enum and required rules reachable through the sample object (first array item of every list). */
function rules(schema: Schema, path: string[], out: Rule[]): Rule[] {
  const at = (obj: Record<string, unknown>): Record<string, unknown> | undefined => {
    let cur: unknown = obj;
    for (const p of path) {
      if (cur === undefined || cur === null) return undefined;
      cur = Array.isArray(cur) ? cur[Number(p)] : (cur as Record<string, unknown>)[p];
    }
    return cur as Record<string, unknown> | undefined;
  };
  const printed = (parts: string[]): string =>
    parts.map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : i === 0 ? p : `.${p}`)).join("");
  if (schema.properties) {
    for (const req of schema.required ?? []) {
      out.push({
        field: printed([...path, req]),
        kind: "required",
        mutate: (obj) => void delete at(obj)?.[req],
      });
    }
    for (const [k, v] of Object.entries(schema.properties)) {
      if (v.enum) {
        out.push({
          field: printed([...path, k]),
          kind: "enum",
          mutate: (obj) => {
            const parent = at(obj);
            if (parent) parent[k] = "NotAnUpstreamValue";
          },
        });
      }
      rules(v, [...path, k], out);
    }
  } else if (schema.type === "array" && schema.items) {
    if (schema.items.enum) {
      out.push({
        field: printed([...path, "0"]),
        kind: "enum",
        mutate: (obj) => {
          const list = at(obj) as unknown as unknown[] | undefined;
          if (list) list[0] = "NotAnUpstreamValue";
        },
      });
    }
    rules(schema.items, [...path, "0"], out);
  }
  return out;
}

const crds = loadCrds();

describe("upstream Karmada CRD schemas through our server", () => {
  let api: TestApi;
  beforeAll(async () => {
    // Schema-level behaviour only: the webhook-equivalent admission rules are tested on their own.
    api = await startTestApi({ admission: [] });
    await api.call("POST", "/api/v1/namespaces", {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "rt" },
    });
  });
  afterAll(async () => {
    await api.close();
  });

  it("covers every upstream CRD", () => {
    expect(crds.length).toBe(19);
  });

  for (const crd of crds) {
    const { group, names, scope } = crd.spec;
    for (const version of crd.spec.versions.filter((v) => v.served)) {
      const schema = version.schema.openAPIV3Schema;
      const base = `/apis/${group}/${version.name}${scope === "Namespaced" ? "/namespaces/rt" : ""}/${names.plural}`;
      const label = `${names.kind} ${group}/${version.name}`;

      it(`${label}: every field round-trips unchanged`, async () => {
        const name = `all-fields-${version.name}`;
        const obj = sample(schema, "") as Record<string, unknown>;
        obj.apiVersion = `${group}/${version.name}`;
        obj.kind = names.kind;
        obj.metadata = { name, labels: { app: "x" }, annotations: { note: "y" } };
        const created = await api.call("POST", `${base}?fieldValidation=Strict`, obj);
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        const status = obj.status;
        const hasStatusSubresource = version.subresources?.status !== undefined;
        let got = (await api.call("GET", `${base}/${name}`)).body;
        if (status !== undefined && hasStatusSubresource) {
          const updated = await api.call("PUT", `${base}/${name}/status?fieldValidation=Strict`, {
            ...got,
            status,
          });
          expect(updated.status, JSON.stringify(updated.body)).toBe(200);
          got = (await api.call("GET", `${base}/${name}`)).body;
        }
        for (const [k, v] of Object.entries(obj)) {
          if (k === "metadata") continue;
          expect(got[k], `${label}: ${k}`).toEqual(v);
        }
        expect(Object.keys(got).sort()).toEqual(Object.keys(obj).sort());
        expect(got.metadata).toMatchObject({ name, labels: { app: "x" }, annotations: { note: "y" } });
      });

      const all = rules(schema, [], []).filter(
        (r) => r.field !== "metadata" && !r.field.startsWith("status"),
      );
      it(`${label}: rejects what upstream's enum and required rules reject (${all.length} rules)`, async () => {
        const failures: string[] = [];
        let i = 0;
        for (const rule of all) {
          const obj = sample(schema, "") as Record<string, unknown>;
          delete obj.status;
          obj.apiVersion = `${group}/${version.name}`;
          obj.kind = names.kind;
          obj.metadata = { name: `rule-${version.name}-${i++}` };
          rule.mutate(obj);
          const r = await api.call("POST", base, obj);
          const want =
            rule.kind === "required"
              ? `${rule.field}: Required value`
              : `${rule.field}: Unsupported value: "NotAnUpstreamValue"`;
          if (r.status !== 422 || !String(r.body.message).includes(want)) {
            failures.push(`${rule.kind} ${rule.field}: got ${r.status} ${String(r.body.message ?? "")}`);
          }
        }
        expect(failures).toEqual([]);
      });
    }
  }
});
