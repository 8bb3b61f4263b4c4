/**
 * The oracle test: our built-in kinds and schemas against the Kubernetes v1.32.0 OpenAPI v2
 * document (a test-only file outside the project). Every difference fails, except the
 * intentional ones listed in `INTENTIONAL`, each with its reason.
 */

import { readFileSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { QUANTITY_PATTERN, type Schema } from "../schema.ts";
import { type BuiltinKind, builtinKinds } from "./kinds.ts";
import { builtinSchema, modelAttributes, namedSchemas, schemaName, variantBase } from "./schemas.ts";

interface SwaggerSchema {
  $ref?: string;
  type?: string;
  format?: string;
  description?: string;
  properties?: Record<string, SwaggerSchema>;
  additionalProperties?: SwaggerSchema;
  items?: SwaggerSchema;
  required?: string[];
  "x-kubernetes-group-version-kind"?: GVK[];
  [extension: `x-${string}`]: unknown;
}

interface SwaggerOperation {
  "x-kubernetes-action"?: string;
  "x-kubernetes-group-version-kind"?: GVK;
}

interface GVK {
  group: string;
  version: string;
  kind: string;
}

const swagger = JSON.parse(
  readFileSync(
    new URL("../../../../shared/conformance/kubernetes/swagger-v1.32.json", import.meta.url),
    "utf8",
  ),
) as {
  definitions: Record<string, SwaggerSchema>;
  paths: Record<string, Record<string, SwaggerOperation | unknown[]>>;
};
const definitions = swagger.definitions;

const META = "io.k8s.apimachinery.pkg.apis.meta.v1";
const JSON_SCHEMA_PROPS = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps";

/**
 * Where we differ from the v1.32 OpenAPI on purpose, each with its reason.
 *
 * Besides these, the walk treats some differences of form as equal, because they are choices
 * of representation, not of content:
 * - Scalar definitions (`Time`, `MicroTime`, `Quantity`, `IntOrString`, `FieldsV1`, the empty
 *   struct `CustomResourceSubresourceStatus`) are `$ref`s in the swagger but inline schemas in
 *   ours. An inline schema can carry the description of the field that uses it. The walk
 *   compares their shape and format, not a name.
 * - `Quantity` is `{type: string}` in the swagger. Ours is int-or-string with `QUANTITY_PATTERN`,
 *   because the API server also accepts a JSON number there. Both are classified `quantity`.
 *   `IntOrString` (`format: int-or-string`) is `x-kubernetes-int-or-string` in ours.
 * - Free-form values (`FieldsV1`, `RawExtension`, empty structs) are
 *   `x-kubernetes-preserve-unknown-fields` objects in ours.
 * - `x-kubernetes-unions` (on AppArmorProfile and SeccompProfile) is not carried: `Schema` has no
 *   such key and nothing in the server reads it.
 * - Descriptions: see the last test.
 */
const INTENTIONAL = {
  /**
   * A CRD's `openAPIV3Schema` (Go `JSONSchemaProps`) recurses without bound. We keep it as an
   * object with `x-kubernetes-preserve-unknown-fields: true` instead of an infinite graph: a CRD's
   * schema is checked by the structural-schema rules, not by this graph, and must never be pruned.
   */
  jsonSchemaProps: JSON_SCHEMA_PROPS,
  /**
   * `DeleteOptions` (inside `Eviction`) lists the 61 group versions that accept it as a DELETE
   * body. We only put GVKs on the kinds we serve; DeleteOptions is a request option, not a kind.
   */
  deleteOptionsGvks: `${META}.DeleteOptions`,
  /**
   * `pods/resize` is in the v1.32 document because it is generated with alpha APIs, but needs
   * the InPlacePodVerticalScaling feature gate, off by default in v1.32: a v1.32 cluster does not
   * serve it, and neither do we.
   */
  notServedSubresources: ["api/v1 pods/resize"],
};

// ---------------------------------------------------------------------------------------
// Kinds against the swagger's definitions and paths.

const refName = (ref: string) => ref.slice(ref.lastIndexOf("/") + 1);

function definitionFor(gvk: GVK): string[] {
  return Object.entries(definitions)
    .filter(([name, def]) => {
      if (name === `${META}.DeleteOptions` || name === `${META}.WatchEvent`) return false;
      return def["x-kubernetes-group-version-kind"]?.some(
        (g) => g.group === gvk.group && g.version === gvk.version && g.kind === gvk.kind,
      );
    })
    .map(([name]) => name);
}

interface PathResource {
  namespaced: boolean;
  verbs: Set<string>;
  gvks: Set<string>;
}

const CONNECT_VERBS: Record<string, string> = {
  get: "get",
  post: "create",
  put: "update",
  patch: "patch",
  delete: "delete",
};

const ACTION_VERBS: Record<string, string> = {
  get: "get",
  list: "list",
  watch: "watch",
  watchlist: "watch",
  post: "create",
  put: "update",
  patch: "patch",
  delete: "delete",
  deletecollection: "deletecollection",
};

/** `api/v1 pods`, `apis/apps/v1 deployments/scale`, ... from the swagger paths. */
function pathResources(): Map<string, PathResource> {
  const pattern =
    /^\/(api\/v1|apis\/[^/]+\/[^/]+)\/(watch\/)?(namespaces\/\{namespace\}\/)?([a-z0-9]+)(\/\{name\})?(\/[a-z]+)?$/;
  const result = new Map<string, PathResource>();
  for (const [path, item] of Object.entries(swagger.paths)) {
    const match = pattern.exec(path);
    if (!match) continue;
    const key = `${match[1]} ${match[4]}${match[6] ?? ""}`;
    const entry = result.get(key) ?? { namespaced: false, verbs: new Set(), gvks: new Set() };
    result.set(key, entry);
    if (match[3]) entry.namespaced = true;
    for (const [method, operation] of Object.entries(item)) {
      if (method === "parameters" || Array.isArray(operation)) continue;
      const op = operation as SwaggerOperation;
      const action = op["x-kubernetes-action"] ?? "";
      const verb = action === "connect" ? CONNECT_VERBS[method] : ACTION_VERBS[action];
      if (verb) entry.verbs.add(verb);
      else if (method !== "head" && method !== "options") entry.verbs.add(`?${method}:${action}`);
      const gvk = op["x-kubernetes-group-version-kind"];
      if (gvk) entry.gvks.add(gvkString(gvk));
    }
  }
  return result;
}

const gvkString = (gvk: GVK) => `${gvk.group}/${gvk.version}/${gvk.kind}`;
const groupVersionPath = (k: { group: string; version: string }) =>
  k.group === "" ? `api/${k.version}` : `apis/${k.group}/${k.version}`;
const sorted = (values: Iterable<string>) => [...values].sort();

describe("builtinKinds against the v1.32 OpenAPI paths", () => {
  const resources = pathResources();

  it.each(builtinKinds.map((k) => [`${k.group || "core"}/${k.version} ${k.plural}`, k] as const))(
    "%s: kind, scope, verbs and subresources",
    (_, k: BuiltinKind) => {
      const gv = groupVersionPath(k);
      const main = resources.get(`${gv} ${k.plural}`);
      expect(main, "resource path").toBeDefined();
      expect(sorted(main!.gvks)).toEqual([gvkString(k)]);
      expect(k.namespaced).toBe(main!.namespaced);
      expect(sorted(k.verbs)).toEqual(sorted(main!.verbs));
      expect(k.listKind).toBe(`${k.kind}List`);
      expect(k.singular).toBe(k.kind.toLowerCase());

      const theirs = [...resources.keys()]
        .filter((key) => key.startsWith(`${gv} ${k.plural}/`))
        .filter((key) => !INTENTIONAL.notServedSubresources.includes(key))
        .map((key) => key.slice(key.indexOf("/", gv.length + 1) + 1));
      expect(sorted(k.subresources.map((sub) => sub.name))).toEqual(sorted(theirs));
      for (const sub of k.subresources) {
        const path = resources.get(`${gv} ${k.plural}/${sub.name}`)!;
        expect(sorted(path.gvks), sub.name).toEqual([gvkString(sub)]);
        expect(sorted(sub.verbs), sub.name).toEqual(sorted(path.verbs));
        expect(path.namespaced, sub.name).toBe(k.namespaced);
      }
    },
  );

  it("every kind, list and subresource body maps to the swagger definition of its GVK", () => {
    const problems: string[] = [];
    const expectModel = (model: string, gvk: GVK) => {
      const wanted = definitionFor(gvk);
      const ours = schemaName(builtinSchema(model));
      if (wanted.length !== 1 || wanted[0] !== ours) {
        problems.push(`${model} ${gvkString(gvk)}: ours ${ours}, swagger ${wanted.join(",")}`);
      }
    };
    for (const k of builtinKinds) {
      expectModel(k.model, k);
      if (k.verbs.includes("list")) expectModel(`${k.model}List`, { ...k, kind: k.listKind });
      for (const sub of k.subresources) if (sub.model) expectModel(sub.model, sub);
    }
    expect(problems).toEqual([]);
  });

  it("has the short names and categories of `kubectl api-resources` on v1.32", () => {
    // Not in the OpenAPI document: as a v1.32 kube-apiserver reports them in discovery.
    const shortNames = Object.fromEntries(
      builtinKinds
        .filter((k) => k.shortNames.length > 0)
        .map((k) => [`${k.group}/${k.plural}`, k.shortNames]),
    );
    expect(shortNames).toEqual({
      "/configmaps": ["cm"],
      "/endpoints": ["ep"],
      "/events": ["ev"],
      "/limitranges": ["limits"],
      "/namespaces": ["ns"],
      "/nodes": ["no"],
      "/persistentvolumeclaims": ["pvc"],
      "/persistentvolumes": ["pv"],
      "/pods": ["po"],
      "/replicationcontrollers": ["rc"],
      "/resourcequotas": ["quota"],
      "/serviceaccounts": ["sa"],
      "/services": ["svc"],
      "apps/daemonsets": ["ds"],
      "apps/deployments": ["deploy"],
      "apps/replicasets": ["rs"],
      "apps/statefulsets": ["sts"],
      "events.k8s.io/events": ["ev"],
      "autoscaling/horizontalpodautoscalers": ["hpa"],
      "batch/cronjobs": ["cj"],
      "certificates.k8s.io/certificatesigningrequests": ["csr"],
      "networking.k8s.io/ingresses": ["ing"],
      "policy/poddisruptionbudgets": ["pdb"],
      "storage.k8s.io/storageclasses": ["sc"],
      "apiextensions.k8s.io/customresourcedefinitions": ["crd", "crds"],
      "scheduling.k8s.io/priorityclasses": ["pc"],
    });
    const inCategory = (category: string) =>
      [...new Set(builtinKinds.filter((k) => k.categories.includes(category)).map((k) => k.plural))].sort();
    expect(inCategory("all")).toEqual([
      "cronjobs",
      "daemonsets",
      "deployments",
      "horizontalpodautoscalers",
      "jobs",
      "pods",
      "replicasets",
      "replicationcontrollers",
      "services",
      "statefulsets",
    ]);
    expect(inCategory("api-extensions")).toEqual(["apiservices", "customresourcedefinitions"]);
    expect(builtinKinds.every((k) => k.categories.every((c) => c === "all" || c === "api-extensions"))).toBe(
      true,
    );
  });

  it("says which resources share storage", () => {
    const shared = builtinKinds
      .filter((k) => k.storage)
      .map((k) => [`${k.group}/${k.version}/${k.plural}`, k.storage]);
    expect(shared).toEqual([
      ["events.k8s.io/v1/events", { group: "", version: "v1", resource: "events" }],
      [
        "autoscaling/v1/horizontalpodautoscalers",
        { group: "autoscaling", version: "v2", resource: "horizontalpodautoscalers" },
      ],
    ]);
  });

  it("lists the kinds in Kubernetes' discovery order", () => {
    // kube-apiserver's group priorities for the groups we serve, highest first.
    const groupOrder = [
      "",
      "apiregistration.k8s.io",
      "apps",
      "events.k8s.io",
      "authentication.k8s.io",
      "authorization.k8s.io",
      "autoscaling",
      "batch",
      "certificates.k8s.io",
      "networking.k8s.io",
      "policy",
      "rbac.authorization.k8s.io",
      "storage.k8s.io",
      "apiextensions.k8s.io",
      "scheduling.k8s.io",
      "coordination.k8s.io",
      "discovery.k8s.io",
    ];
    const versionOrder = ["v2", "v1"];
    const rank = (k: BuiltinKind) => [groupOrder.indexOf(k.group), versionOrder.indexOf(k.version)] as const;
    for (const k of builtinKinds) expect(groupOrder, k.group).toContain(k.group);
    const expected = [...builtinKinds].sort((a, b) => {
      const [ga, va] = rank(a);
      const [gb, vb] = rank(b);
      return ga - gb || va - vb || (a.plural < b.plural ? -1 : a.plural > b.plural ? 1 : 0);
    });
    expect(builtinKinds.map((k) => `${k.group}/${k.version}/${k.plural}`)).toEqual(
      expected.map((k) => `${k.group}/${k.version}/${k.plural}`),
    );
  });
});

// ---------------------------------------------------------------------------------------
// Schemas against the swagger's definitions, side by side.

type Shape =
  | "object"
  | "map"
  | "array"
  | "free-form"
  | "quantity"
  | "int-or-string"
  | "string"
  | "integer"
  | "number"
  | "boolean";

const COMPARED_EXTENSIONS = [
  "x-kubernetes-patch-strategy",
  "x-kubernetes-patch-merge-key",
  "x-kubernetes-list-type",
  "x-kubernetes-list-map-keys",
  "x-kubernetes-map-type",
] as const;

function ourShape(schema: Schema): Shape | string {
  if (schema["x-kubernetes-int-or-string"]) {
    return schema.pattern === QUANTITY_PATTERN ? "quantity" : "int-or-string";
  }
  if (schema["x-kubernetes-preserve-unknown-fields"] && !schema.properties) return "free-form";
  if (schema.type === "object") {
    if (schema.properties) return "object";
    if (schema.additionalProperties) return "map";
    return "free-form";
  }
  return schema.type ?? "untyped";
}

function swaggerShape(schema: SwaggerSchema): Shape | string {
  if (schema.format === "int-or-string") return "int-or-string";
  if (schema.type === "object" || schema.type === undefined) {
    if (schema.properties) return "object";
    if (schema.additionalProperties) return "map";
    return "free-form";
  }
  return schema.type;
}

const gvkList = (gvks: GVK[] | undefined) => (gvks ? JSON.stringify(sorted(gvks.map(gvkString))) : "none");

/** A property schema with its `$ref` resolved; property-level extensions win. */
function resolve(schema: SwaggerSchema): { schema: SwaggerSchema; ref?: string } {
  if (!schema.$ref) return { schema };
  const ref = refName(schema.$ref);
  const target = definitions[ref];
  if (!target) throw new Error(`dangling $ref ${schema.$ref}`);
  const { $ref: _, description: __, ...siblings } = schema;
  return { schema: { ...target, ...siblings }, ref };
}

interface Walk {
  problems: string[];
  /** Named definitions already compared: each is walked once. */
  done: Set<string>;
}

const QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity";

function compare(ours: Schema, theirs: SwaggerSchema, path: string, walk: Walk): void {
  const { schema: def, ref } = resolve(theirs);
  const report = (problems: string[]) => {
    for (const problem of problems) walk.problems.push(`${path}: ${problem}`);
  };
  const shape = ourShape(ours);
  if (ref === INTENTIONAL.jsonSchemaProps) {
    if (shape !== "free-form") report(["JSONSchemaProps should be a preserve-unknown-fields object"]);
    return;
  }
  const theirShape = ref === QUANTITY ? "quantity" : swaggerShape(def);
  if (shape !== theirShape) {
    report([`shape ${shape}, swagger ${theirShape}`]);
    return;
  }
  report(fieldDifferences(ours, def, shape));
  if (ref !== undefined && shape === "object") {
    const name = schemaName(ours);
    if (name !== ref) report([`name ${name}, swagger ${ref}`]);
    if (walk.done.has(ref)) return;
    walk.done.add(ref);
  }
  report(nodeDifferences(ours, def, ref));
  if (shape === "object") {
    for (const [field, mine] of Object.entries(ours.properties ?? {})) {
      const theirField = def.properties?.[field];
      if (theirField) compare(mine, theirField, `${path}.${field}`, walk);
    }
  } else if (shape === "map") {
    compare(ours.additionalProperties as Schema, def.additionalProperties!, `${path}{}`, walk);
  } else if (shape === "array") {
    compare(ours.items!, def.items!, `${path}[]`, walk);
  }
}

/** What may differ at each place a schema is used: format and list/map/patch semantics. */
function fieldDifferences(ours: Schema, def: SwaggerSchema, shape: string): string[] {
  const problems: string[] = [];
  if ((ours.format ?? "") !== (def.format ?? "") && shape !== "int-or-string") {
    problems.push(`format ${ours.format}, swagger ${def.format}`);
  }
  for (const key of COMPARED_EXTENSIONS) {
    if (JSON.stringify(ours[key]) !== JSON.stringify(def[key])) {
      problems.push(`${key} ${JSON.stringify(ours[key])}, swagger ${JSON.stringify(def[key])}`);
    }
  }
  return problems;
}

/** What belongs to the type: GVKs, required fields, the set of field names. */
function nodeDifferences(ours: Schema, def: SwaggerSchema, ref: string | undefined): string[] {
  const problems: string[] = [];
  const ourGvks = gvkList(ours["x-kubernetes-group-version-kind"]);
  const theirGvks = gvkList(def["x-kubernetes-group-version-kind"]);
  if (ourGvks !== theirGvks && ref !== INTENTIONAL.deleteOptionsGvks) {
    problems.push(`x-kubernetes-group-version-kind ${ourGvks}, swagger ${theirGvks}`);
  }
  if (JSON.stringify(sorted(ours.required ?? [])) !== JSON.stringify(sorted(def.required ?? []))) {
    problems.push(`required ${ours.required}, swagger ${def.required}`);
  }
  const ourFields = Object.keys(ours.properties ?? {});
  const theirFields = Object.keys(def.properties ?? {});
  const missing = theirFields.filter((f) => !ourFields.includes(f));
  const extra = ourFields.filter((f) => !theirFields.includes(f));
  if (missing.length > 0) problems.push(`missing fields ${missing}`);
  if (extra.length > 0) problems.push(`extra fields ${extra}`);
  return problems;
}

/** The struct definitions the swagger reaches from `roots`, not entering JSONSchemaProps. */
function swaggerClosure(roots: string[]): Set<string> {
  const result = new Set<string>();
  const visit = (schema: SwaggerSchema | undefined) => {
    if (!schema) return;
    if (schema.$ref) {
      const name = refName(schema.$ref);
      if (result.has(name) || name === JSON_SCHEMA_PROPS || !definitions[name]!.properties) return;
      result.add(name);
      for (const field of Object.values(definitions[name]!.properties ?? {})) visit(field);
    }
    visit(schema.items);
    visit(schema.additionalProperties);
  };
  for (const root of roots) visit({ $ref: `#/definitions/${root}` });
  return result;
}

/** Every model we build: kinds, their lists, and subresource bodies, by model name. */
function rootModels(): Array<[string, string]> {
  const result: Array<[string, string]> = [];
  for (const k of builtinKinds) {
    result.push([k.model, definitionFor(k)[0]!]);
    if (k.verbs.includes("list")) {
      result.push([`${k.model}List`, definitionFor({ ...k, kind: k.listKind })[0]!]);
    }
    for (const sub of k.subresources) if (sub.model) result.push([sub.model, definitionFor(sub)[0]!]);
  }
  return result;
}

describe("builtinSchema against the v1.32 OpenAPI definitions", () => {
  it("matches every field's name, shape, format, required, list/map/patch semantics and name", () => {
    const walk: Walk = { problems: [], done: new Set() };
    for (const [model, definition] of rootModels()) {
      compare(builtinSchema(model), { $ref: `#/definitions/${definition}` }, model, walk);
    }
    expect(walk.problems).toEqual([]);
    // Every struct the swagger reaches from our kinds was compared (JSONSchemaProps aside).
    const closure = swaggerClosure(rootModels().map(([, definition]) => definition));
    expect(sorted(walk.done)).toEqual(sorted(closure));
    expect(closure.size).toBeGreaterThan(300);
  });

  it("names every model the same whichever kind reaches it first", async () => {
    // A nested model's package is inherited from the model that reaches it; a fresh module per
    // root shows that no name depends on the order in which kinds are built.
    for (const [model] of rootModels()) {
      const expected = [...namedSchemas(builtinSchema(model))].map(([name]) => name);
      vi.resetModules();
      const fresh = (await import("./schemas.ts")) as typeof import("./schemas.ts");
      expect(
        [...fresh.namedSchemas(fresh.builtinSchema(model))].map(([name]) => name),
        model,
      ).toEqual(expected);
    }
  });

  it("shares one node per model and names it", () => {
    const pod = builtinSchema("V1Pod");
    const deployment = builtinSchema("V1Deployment");
    const podSpec = pod.properties?.spec;
    expect(deployment.properties?.spec?.properties?.template?.properties?.spec).toBe(podSpec);
    expect(builtinSchema("V1PodSpec")).toBe(podSpec);
    expect(podSpec?.properties?.containers?.items).toBe(builtinSchema("V1Container"));
    expect(schemaName(builtinSchema("V1Container"))).toBe("io.k8s.api.core.v1.Container");
    expect(schemaName(pod.properties!.metadata!)).toBe(`${META}.ObjectMeta`);
  });

  it("copies a model node for a field that refines it, keeping the name", () => {
    const strategy = builtinSchema("V1DeploymentSpec").properties!.strategy!;
    expect(strategy["x-kubernetes-patch-strategy"]).toBe("retainKeys");
    expect(variantBase(strategy)).toBe(builtinSchema("V1DeploymentStrategy"));
    expect(builtinSchema("V1DeploymentStrategy")["x-kubernetes-patch-strategy"]).toBeUndefined();
    expect(schemaName(strategy)).toBe("io.k8s.api.apps.v1.DeploymentStrategy");
  });

  it("enumerates the named nodes under a root once each, root first", () => {
    const named = [...namedSchemas(builtinSchema("V1Deployment"))];
    const names = named.map(([name]) => name);
    expect(names[0]).toBe("io.k8s.api.apps.v1.Deployment");
    expect(new Set(names).size).toBe(names.length);
    expect(names).toContain("io.k8s.api.core.v1.Container");
    expect(names).toContain("io.k8s.api.apps.v1.DeploymentStrategy");
    for (const [name, schema] of named) {
      expect(schemaName(schema)).toBe(name);
      expect(variantBase(schema)).toBeUndefined();
    }
  });

  it("keeps CRD schemas and free-form fields as preserved objects, and the graph finite", () => {
    const validation = builtinSchema("V1CustomResourceValidation");
    expect(validation.properties?.openAPIV3Schema).toMatchObject({
      type: "object",
      "x-kubernetes-preserve-unknown-fields": true,
    });
    const managed = builtinSchema("V1ManagedFieldsEntry").properties?.fieldsV1;
    expect(managed).toMatchObject({ type: "object", "x-kubernetes-preserve-unknown-fields": true });
    for (const k of builtinKinds) expect(() => JSON.stringify(builtinSchema(k.model))).not.toThrow();
  });

  it("reads each model's attributeTypeMap exactly as the client-node class declares it", async () => {
    const models = new Set<string>();
    const visit = (model: string) => {
      if (models.has(model)) return;
      models.add(model);
      for (const attribute of modelAttributes(model)) {
        const inner = attribute.type
          .replace(/^Array<(.+)>$/, "$1")
          .replace(/^\{ \[key: string\]: (.+); \}$/, "$1");
        if (/^(Core|Events|Discovery|Rbac|Authentication|Apiextensions|Apiregistration)?V\d/.test(inner)) {
          if (inner !== "V1MicroTime" && inner !== "V1JSONSchemaProps") visit(inner);
        }
      }
    };
    for (const [model] of rootModels()) visit(model);
    expect(models.size).toBeGreaterThan(300);
    for (const model of models) {
      const module = (await import(`@kubernetes/client-node/dist/gen/models/${model}.js`)) as Record<
        string,
        { attributeTypeMap: unknown }
      >;
      expect(modelAttributes(model), model).toEqual(module[model]?.attributeTypeMap);
    }
  });

  it("carries the descriptions the models keep", () => {
    const check: DescriptionCheck = { problems: [], done: new Set() };
    for (const [model, definition] of rootModels())
      checkDescriptions(builtinSchema(model), definition, check);
    expect(check.problems).toEqual([]);
    expect(check.done.size).toBeGreaterThan(300);
  });
});

// ---------------------------------------------------------------------------------------
// Descriptions. client-node keeps a description on fields of scalar, list and map types. On a
// field holding a model (or a CRD's JSONSchemaProps) it keeps none, so our shared node carries
// the type's description; on IntOrString and MicroTime fields it repeats the type's description
// instead of the field's. Its generator also turns every newline and tab into a space.

interface DescriptionCheck {
  problems: string[];
  done: Set<string>;
}

const flat = (text: string | undefined) => text?.replace(/[\n\t]/g, " ");

const TYPE_DESCRIBED = new Set([
  JSON_SCHEMA_PROPS,
  "io.k8s.apimachinery.pkg.util.intstr.IntOrString",
  `${META}.MicroTime`,
]);

function checkDescriptions(ours: Schema, definition: string, check: DescriptionCheck): void {
  if (check.done.has(definition)) return;
  check.done.add(definition);
  const def = definitions[definition]!;
  if (ours.description !== flat(def.description)) check.problems.push(`${definition}: type description`);
  for (const [field, theirs] of Object.entries(def.properties ?? {})) {
    const mine = ours.properties?.[field];
    if (mine) checkFieldDescription(mine, theirs, `${definition}.${field}`, check);
  }
}

function checkFieldDescription(
  mine: Schema,
  theirs: SwaggerSchema,
  path: string,
  check: DescriptionCheck,
): void {
  const direct = theirs.$ref ? refName(theirs.$ref) : undefined;
  if (direct && TYPE_DESCRIBED.has(direct)) {
    if (mine.description !== flat(definitions[direct]!.description)) check.problems.push(path);
    return;
  }
  if (direct && definitions[direct]!.properties) {
    checkDescriptions(variantBase(mine) ?? mine, direct, check);
    return;
  }
  if (mine.description !== flat(theirs.description)) check.problems.push(path);
  const nested = theirs.items?.$ref ?? theirs.additionalProperties?.$ref;
  const inner = (mine.items ?? mine.additionalProperties) as Schema | undefined;
  if (nested && inner && definitions[refName(nested)]!.properties)
    checkDescriptions(inner, refName(nested), check);
}
