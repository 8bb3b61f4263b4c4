import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { CustomResourceDefinition, Schema } from "../schema.ts";
import { karmadaCrds, karmadaNativeKinds } from "./index.ts";

// Upstream's generated CRDs, used only here as the oracle; the product never reads them.
const UPSTREAM_DIR = new URL("../../../../shared/conformance/karmada/crds/", import.meta.url);

interface UpstreamCrd {
  metadata: { name: string; annotations?: Record<string, string> };
  spec: CustomResourceDefinition["spec"];
}

function loadUpstream(): Array<{ file: string; crd: UpstreamCrd }> {
  return readdirSync(UPSTREAM_DIR)
    .filter((file) => file.endsWith(".yaml"))
    .sort()
    .map((file) => ({ file, crd: parse(readFileSync(new URL(file, UPSTREAM_DIR), "utf8")) as UpstreamCrd }));
}

/** Drops every `description` (ours are our own words); a property named "description" is an object and stays. */
function withoutDescriptions(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDescriptions);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      if (key === "description" && typeof inner === "string") continue;
      out[key] = withoutDescriptions(inner);
    }
    return out;
  }
  return value;
}

/** What the API server fills in on create: `listKind` defaults to `<kind>List` (the MCS CRDs omit it). */
function withServerDefaults(spec: CustomResourceDefinition["spec"]): CustomResourceDefinition["spec"] {
  return { ...spec, names: { ...spec.names, listKind: spec.names.listKind ?? `${spec.names.kind}List` } };
}

/**
 * Where we differ from upstream on purpose: every `purgeMode` enum also accepts v1.12's names
 * `Immediately` and `Graciously` (issue E: seed manifests use them; upstream dropped them from
 * the enums in v1.19), stored as given and treated as `Directly` and `Gracefully`.
 */
function withOurDeviations(value: unknown, key = ""): unknown {
  if (Array.isArray(value)) return value.map((v) => withOurDeviations(v));
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [k, inner] of Object.entries(value)) out[k] = withOurDeviations(inner, k);
  const e = (out as { enum?: unknown[] }).enum;
  if (key === "purgeMode" && Array.isArray(e) && e.includes("Directly"))
    out.enum = [...e, "Immediately", "Graciously"];
  return out;
}

const upstream = loadUpstream();
const all = [...karmadaCrds, ...karmadaNativeKinds];

describe("Karmada CRDs equal upstream", () => {
  it("finds the upstream oracle", () => {
    expect(upstream).toHaveLength(19);
  });

  it("defines exactly the upstream CRDs, each once", () => {
    const ours = karmadaCrds.map((c) => c.metadata.name).sort();
    expect(new Set(ours).size).toBe(ours.length);
    expect(ours).toEqual(upstream.map((u) => u.crd.metadata.name).sort());
  });

  it.each(upstream)("$file", ({ crd: theirs }) => {
    const ours = karmadaCrds.find((c) => c.metadata.name === theirs.metadata.name);
    if (ours === undefined) throw new Error(`no definition for ${theirs.metadata.name}`);
    expect(withoutDescriptions(ours.spec)).toStrictEqual(
      withOurDeviations(withoutDescriptions(withServerDefaults(theirs.spec))),
    );
  });
});

// ---- well-formedness -----------------------------------------------------------------------

/** Everything that makes a schema non-structural or self-contradictory, as `path: problem`. */
function schemaProblems(schema: Schema, path: string): string[] {
  const problems: string[] = [];
  const untyped =
    schema["x-kubernetes-int-or-string"] === true || schema["x-kubernetes-preserve-unknown-fields"] === true;
  if (schema.type === undefined && !untyped) problems.push(`${path}: no type`);
  if (schema["x-kubernetes-int-or-string"] === true && schema.type !== undefined) {
    problems.push(`${path}: int-or-string with a type`);
  }
  for (const name of schema.required ?? []) {
    if (schema.properties?.[name] === undefined) problems.push(`${path}: required ${name} is not a property`);
  }
  if (schema.properties !== undefined && schema.type !== "object")
    problems.push(`${path}: properties on non-object`);
  if (schema.items !== undefined && schema.type !== "array") problems.push(`${path}: items on non-array`);
  if (schema.type === "array" && schema.items === undefined) problems.push(`${path}: array without items`);
  if (schema["x-kubernetes-list-type"] === "map") {
    for (const key of schema["x-kubernetes-list-map-keys"] ?? []) {
      if (!schema.items?.required?.includes(key))
        problems.push(`${path}: list-map key ${key} is not required`);
    }
  }
  if (schema.enum !== undefined && schema.default !== undefined && !schema.enum.includes(schema.default)) {
    problems.push(`${path}: default outside the enum`);
  }
  for (const [name, inner] of Object.entries(schema.properties ?? {})) {
    problems.push(...schemaProblems(inner, `${path}.${name}`));
  }
  if (schema.items !== undefined) problems.push(...schemaProblems(schema.items, `${path}[]`));
  if (typeof schema.additionalProperties === "object") {
    problems.push(...schemaProblems(schema.additionalProperties, `${path}{}`));
  }
  return problems;
}

/** Whether a printer-column JSONPath (`.a.b[...].c`) names a field the schema has. */
function columnResolves(root: Schema, jsonPath: string): boolean {
  const segments = jsonPath
    .replace(/\[[^\]]*\]/g, "[]")
    .slice(1)
    .split(".");
  if (segments[0] === "metadata") return true;
  let node: Schema | undefined = root;
  for (const segment of segments) {
    if (node === undefined) return false;
    if (node["x-kubernetes-preserve-unknown-fields"] === true) return true;
    const name = segment.replace("[]", "");
    node = node.properties?.[name];
    if (segment.endsWith("[]")) node = node?.items;
  }
  return node !== undefined;
}

describe.each(all.map((c) => ({ name: c.metadata.name, crd: c })))("$name is well-formed", ({ crd }) => {
  it.each(crd.spec.versions.map((v) => ({ version: v.name, v })))("$version", ({ v }) => {
    const root = v.schema.openAPIV3Schema;
    expect(schemaProblems(root, "")).toEqual([]);
    expect(root.properties?.metadata).toStrictEqual({ type: "object" });
    expect(root.description).toBeTruthy();
    for (const column of v.additionalPrinterColumns ?? []) {
      expect(columnResolves(root, column.jsonPath), column.jsonPath).toBe(true);
    }
  });
});

describe("natively served kinds", () => {
  it("are Cluster and ResourceRegistry, cluster-scoped, with structural schemas", () => {
    expect(karmadaNativeKinds.map((c) => c.metadata.name)).toEqual([
      "clusters.cluster.karmada.io",
      "resourceregistries.search.karmada.io",
    ]);
    for (const kind of karmadaNativeKinds) {
      expect(kind.spec.scope).toBe("Cluster");
      for (const v of kind.spec.versions)
        expect(schemaProblems(v.schema.openAPIV3Schema, kind.metadata.name)).toEqual([]);
    }
  });

  it("carries Cluster's validation markers", () => {
    const spec = karmadaNativeKinds[0]?.spec.versions[0]?.schema.openAPIV3Schema.properties?.spec;
    expect(spec?.required).toEqual(["syncMode"]);
    expect(spec?.properties?.syncMode?.enum).toEqual(["Push", "Pull"]);
    expect(spec?.properties?.id?.maxLength).toBe(128000);
    expect(spec?.properties?.secretRef?.required).toEqual(["name", "namespace"]);
  });
});

// ---- status subresource and printer columns, as upstream declares them ---------------------

const AGE = "AGE .metadata.creationTimestamp";
const SCHEDULED = [
  'SCHEDULED .status.conditions[?(@.type=="Scheduled")].status',
  'FULLYAPPLIED .status.conditions[?(@.type=="FullyApplied")].status',
  AGE,
];

/** Per `<plural>.<group>/<version>`: whether `/status` is a subresource, and the printer columns. */
const declared: Record<string, { status: boolean; columns: string[] }> = {
  "propagationpolicies.policy.karmada.io/v1alpha1": {
    status: false,
    columns: ["CONFLICT-RESOLUTION .spec.conflictResolution", "PRIORITY .spec.priority", AGE],
  },
  "clusterpropagationpolicies.policy.karmada.io/v1alpha1": {
    status: false,
    columns: ["CONFLICT-RESOLUTION .spec.conflictResolution", "PRIORITY .spec.priority", AGE],
  },
  "overridepolicies.policy.karmada.io/v1alpha1": { status: false, columns: [] },
  "clusteroverridepolicies.policy.karmada.io/v1alpha1": { status: false, columns: [] },
  "clustertaintpolicies.policy.karmada.io/v1alpha1": { status: false, columns: [] },
  "federatedresourcequotas.policy.karmada.io/v1alpha1": {
    status: true,
    columns: ["OVERALL .status.overall", "OVERALL_USED .status.overallUsed"],
  },
  "works.work.karmada.io/v1alpha1": {
    status: true,
    columns: [
      "WORKLOAD-KIND .spec.workload.manifests[*].kind",
      'APPLIED .status.conditions[?(@.type=="Applied")].status',
      AGE,
    ],
  },
  "resourcebindings.work.karmada.io/v1alpha1": { status: true, columns: [] },
  "resourcebindings.work.karmada.io/v1alpha2": { status: true, columns: SCHEDULED },
  "clusterresourcebindings.work.karmada.io/v1alpha1": { status: true, columns: [] },
  "clusterresourcebindings.work.karmada.io/v1alpha2": { status: true, columns: SCHEDULED },
  "resourceinterpretercustomizations.config.karmada.io/v1alpha1": {
    status: false,
    columns: ["TARGET-API-VERSION .spec.target.apiVersion", "TARGET-KIND .spec.target.kind", AGE],
  },
  "resourceinterpreterwebhookconfigurations.config.karmada.io/v1alpha1": { status: false, columns: [] },
  "workloadrebalancers.apps.karmada.io/v1alpha1": { status: true, columns: [] },
  "federatedhpas.autoscaling.karmada.io/v1alpha1": {
    status: true,
    columns: [
      "REFERENCE-KIND .spec.scaleTargetRef.kind",
      "REFERENCE-NAME .spec.scaleTargetRef.name",
      "MINPODS .spec.minReplicas",
      "MAXPODS .spec.maxReplicas",
      "REPLICAS .status.currentReplicas",
      AGE,
    ],
  },
  "cronfederatedhpas.autoscaling.karmada.io/v1alpha1": {
    status: true,
    columns: ["REFERENCE-KIND .spec.scaleTargetRef.kind", "REFERENCE-NAME .spec.scaleTargetRef.name", AGE],
  },
  "multiclusteringresses.networking.karmada.io/v1alpha1": { status: true, columns: [] },
  "multiclusterservices.networking.karmada.io/v1alpha1": { status: true, columns: [] },
  "remedies.remedy.karmada.io/v1alpha1": { status: false, columns: [] },
  "serviceexports.multicluster.x-k8s.io/v1alpha1": {
    status: true,
    columns: ["Age .metadata.creationTimestamp"],
  },
  "serviceimports.multicluster.x-k8s.io/v1alpha1": {
    status: true,
    columns: ["Type .spec.type", "IP .spec.ips", "Age .metadata.creationTimestamp"],
  },
  // Upstream's table convertor for clusters (pkg/printers/internalversion); Name comes first on its own.
  "clusters.cluster.karmada.io/v1alpha1": {
    status: true,
    columns: [
      "Version .status.kubernetesVersion",
      "Mode .spec.syncMode",
      'Ready .status.conditions[?(@.type=="Ready")].status',
      "Age .metadata.creationTimestamp",
      "Zones .spec.zones",
      "Region .spec.region",
      "Provider .spec.provider",
      "API-Endpoint .spec.apiEndpoint",
      "Proxy-URL .spec.proxyURL",
    ],
  },
  "resourceregistries.search.karmada.io/v1alpha1": { status: true, columns: [] },
};

describe("status subresource and printer columns", () => {
  const versions = all.flatMap((c) =>
    c.spec.versions.map((v) => ({ key: `${c.metadata.name}/${v.name}`, v })),
  );

  it("cover every kind and version", () => {
    expect(versions.map((v) => v.key).sort()).toEqual(Object.keys(declared).sort());
  });

  it.each(versions)("$key", ({ key, v }) => {
    expect(v.subresources?.status !== undefined).toBe(declared[key]?.status);
    expect((v.additionalPrinterColumns ?? []).map((c) => `${c.name} ${c.jsonPath}`)).toEqual(
      declared[key]?.columns,
    );
  });

  it("shows Cluster's wide columns only with -o wide", () => {
    const columns = karmadaNativeKinds[0]?.spec.versions[0]?.additionalPrinterColumns ?? [];
    expect(columns.filter((c) => c.priority === 1).map((c) => c.name)).toEqual([
      "Zones",
      "Region",
      "Provider",
      "API-Endpoint",
      "Proxy-URL",
    ]);
  });
});
