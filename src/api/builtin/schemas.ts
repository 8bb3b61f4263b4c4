/**
 * Schemas of the built-in Kubernetes kinds, derived at run time from the model classes of
 * `@kubernetes/client-node` 1.1.2 (generated from Kubernetes v1.32.0) plus our own tables for
 * what the models lose: Quantity fields, list and map semantics (SSA), strategic-merge-patch
 * strategies and merge keys. See docs/adr/0003-builtin-schemas.md.
 *
 * The result is an object graph, not a document: a nested model is one shared JS object
 * wherever it appears (the Container schema under a Pod, a Deployment and a Job is the same
 * object), so walking it needs no `$ref` resolution and building every kind costs one pass.
 */

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { type Schema, s } from "../schema.ts";
import { builtinKinds } from "./kinds.ts";

type GroupVersionKind = { group: string; version: string; kind: string };

/**
 * The schema of a `@kubernetes/client-node` model (`V1Deployment`, `V1Container`, ...),
 * built on first use and memoized: the same model always yields the same object.
 * Kinds and their lists carry `x-kubernetes-group-version-kind`.
 */
export function builtinSchema(model: string): Schema {
  const known = built.get(model);
  if (known) return known;
  // A nested model's Kubernetes package is learned from the kind that reaches it, so build
  // the kinds first: a model's name then never depends on the order schemas are asked for.
  if (!rootKinds().has(model)) buildAllKinds();
  return modelSchema(model, undefined);
}

/**
 * The OpenAPI component name of a named model node, e.g. `io.k8s.api.apps.v1.Deployment` or
 * `io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta`; `undefined` for inline schemas (strings,
 * maps, arrays, Quantity, IntOrString, ...). The last dot-segment is always the Go type name.
 */
export function schemaName(schema: Schema): string | undefined {
  return names.get(variants.get(schema) ?? schema);
}

/**
 * The shared model node a per-field variant was copied from. A few fields refine the model
 * they hold (`DeploymentSpec.strategy` has patch strategy `retainKeys`, `PersistentVolumeSpec.claimRef`
 * is a granular map although ObjectReference is atomic): such a field holds a shallow copy of
 * the model node with the extra keys. An OpenAPI writer renders it as a `$ref` to the base plus
 * those keys.
 */
export function variantBase(schema: Schema): Schema | undefined {
  return variants.get(schema);
}

/**
 * The named model nodes reachable from `root` (itself included), each once, as
 * `[name, schema]` in depth-first order: the `components.schemas` of an OpenAPI document.
 */
export function* namedSchemas(root: Schema): Generator<[string, Schema]> {
  const seen = new Set<Schema>();
  const stack: Schema[] = [root];
  while (stack.length > 0) {
    const next = stack.pop()!;
    const node = variants.get(next) ?? next;
    if (seen.has(node)) continue;
    seen.add(node);
    const name = names.get(node);
    if (name !== undefined) yield [name, node];
    const children: Schema[] = [];
    for (const child of Object.values(node.properties ?? {})) children.push(child);
    if (node.items) children.push(node.items);
    if (typeof node.additionalProperties === "object") children.push(node.additionalProperties);
    for (const list of [node.allOf, node.anyOf, node.oneOf]) if (list) children.push(...list);
    if (node.not) children.push(node.not);
    stack.push(...children.reverse());
  }
}

// ---------------------------------------------------------------------------------------
// Our tables: what client-node's models do not say. Keys are model class names and JSON
// field names. Checked field by field against the v1.32 OpenAPI in schemas.test.ts.

type FieldTraits = Pick<
  Schema,
  | "x-kubernetes-list-type"
  | "x-kubernetes-list-map-keys"
  | "x-kubernetes-map-type"
  | "x-kubernetes-patch-strategy"
  | "x-kubernetes-patch-merge-key"
>;

/**
 * A list of objects identified by `keys` (SSA `map` list) that strategic merge patch merges
 * item by item on the first key, the common shape (`containers` by `name`, `conditions` by `type`).
 */
function keyedList(...keys: [string, ...string[]]): FieldTraits {
  return {
    "x-kubernetes-list-type": "map",
    "x-kubernetes-list-map-keys": keys,
    "x-kubernetes-patch-strategy": "merge",
    "x-kubernetes-patch-merge-key": keys[0],
  };
}

/** A keyed list whose items also honour `$retainKeys` (union members such as volume sources). */
function keyedRetainList(key: string): FieldTraits {
  return { ...keyedList(key), "x-kubernetes-patch-strategy": "merge,retainKeys" };
}

/** A `map` list for SSA that strategic merge patch still replaces whole (no patch tags in Go). */
function mapList(...keys: string[]): FieldTraits {
  return { "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": keys };
}

/** Atomic for SSA, merged by `key` for strategic merge patch (tags that predate list types). */
function atomicMergedBy(key: string): FieldTraits {
  return {
    "x-kubernetes-list-type": "atomic",
    "x-kubernetes-patch-strategy": "merge",
    "x-kubernetes-patch-merge-key": key,
  };
}

const SET: FieldTraits = { "x-kubernetes-list-type": "set" };
/** A set of scalars that strategic merge patch unions (`finalizers`). */
const MERGED_SET: FieldTraits = { "x-kubernetes-list-type": "set", "x-kubernetes-patch-strategy": "merge" };
/** `[]byte` fields Go marks `+listType=atomic` although JSON carries them as base64 strings. */
const ATOMIC_BYTES: FieldTraits = { "x-kubernetes-list-type": "atomic" };
const ATOMIC_MAP: FieldTraits = { "x-kubernetes-map-type": "atomic" };
const CONDITIONS = { conditions: keyedList("type") };

/**
 * Field traits by model. Arrays not listed here are `atomic` lists with no patch strategy,
 * as Kubernetes treats every untagged list.
 */
const fieldTraits: Record<string, Record<string, FieldTraits>> = {
  V1ObjectMeta: { finalizers: MERGED_SET, ownerReferences: keyedList("uid") },

  V1PodSpec: {
    containers: keyedList("name"),
    ephemeralContainers: keyedList("name"),
    hostAliases: keyedList("ip"),
    imagePullSecrets: keyedList("name"),
    initContainers: keyedList("name"),
    nodeSelector: ATOMIC_MAP,
    resourceClaims: keyedRetainList("name"),
    schedulingGates: keyedList("name"),
    topologySpreadConstraints: keyedList("topologyKey", "whenUnsatisfiable"),
    volumes: keyedRetainList("name"),
  },
  V1Container: containerTraits(),
  V1EphemeralContainer: containerTraits(),
  V1ResourceRequirements: { claims: mapList("name") },
  V1PodStatus: {
    ...CONDITIONS,
    hostIPs: atomicMergedBy("ip"),
    podIPs: keyedList("ip"),
    resourceClaimStatuses: keyedRetainList("name"),
  },
  V1ContainerStatus: {
    allocatedResourcesStatus: keyedList("name"),
    volumeMounts: keyedList("mountPath"),
  },
  V1ResourceStatus: { resources: mapList("resourceID") },

  V1ServiceSpec: { ports: keyedList("port", "protocol"), selector: ATOMIC_MAP },
  V1ServiceStatus: CONDITIONS,
  V1ServiceAccount: { secrets: keyedList("name") },
  V1NamespaceStatus: CONDITIONS,
  V1NodeSpec: { podCIDRs: MERGED_SET },
  V1NodeStatus: { ...CONDITIONS, addresses: keyedList("type") },
  V1PersistentVolumeSpec: { claimRef: { "x-kubernetes-map-type": "granular" } },
  V1PersistentVolumeClaimStatus: {
    ...CONDITIONS,
    allocatedResourceStatuses: { "x-kubernetes-map-type": "granular" },
  },
  V1ReplicationControllerSpec: { selector: ATOMIC_MAP },
  V1ReplicationControllerStatus: CONDITIONS,

  V1DeploymentSpec: { strategy: { "x-kubernetes-patch-strategy": "retainKeys" } },
  V1DeploymentStatus: CONDITIONS,
  V1ReplicaSetStatus: CONDITIONS,
  V1StatefulSetStatus: CONDITIONS,
  V1DaemonSetStatus: CONDITIONS,
  V1JobStatus: { conditions: atomicMergedBy("type") },
  V1UncountedTerminatedPods: { failed: SET, succeeded: SET },
  V1PodFailurePolicyOnExitCodesRequirement: { values: SET },
  V2HorizontalPodAutoscalerStatus: CONDITIONS,
  V1PodDisruptionBudgetSpec: { selector: { "x-kubernetes-patch-strategy": "replace" } },
  V1PodDisruptionBudgetStatus: CONDITIONS,
  V1Endpoint: { addresses: SET },

  V1CertificateSigningRequestSpec: { request: ATOMIC_BYTES },
  V1CertificateSigningRequestStatus: { certificate: ATOMIC_BYTES, conditions: mapList("type") },
  V1CustomResourceDefinitionStatus: { conditions: mapList("type") },
  V1APIServiceSpec: { caBundle: ATOMIC_BYTES },
  V1APIServiceStatus: CONDITIONS,
};

function containerTraits(): Record<string, FieldTraits> {
  return {
    env: keyedList("name"),
    ports: keyedList("containerPort", "protocol"),
    volumeDevices: keyedList("devicePath"),
    volumeMounts: keyedList("mountPath"),
  };
}

/**
 * `resource.Quantity` fields (or maps of them); client-node types them as plain strings.
 */
const quantityFields: Record<string, readonly string[]> = {
  V1ResourceRequirements: ["limits", "requests"],
  V1VolumeResourceRequirements: ["limits", "requests"],
  V1ContainerStatus: ["allocatedResources"],
  V1PodSpec: ["overhead"],
  V1EmptyDirVolumeSource: ["sizeLimit"],
  V1ResourceFieldSelector: ["divisor"],
  V1LimitRangeItem: ["default", "defaultRequest", "max", "maxLimitRequestRatio", "min"],
  V1ResourceQuotaSpec: ["hard"],
  V1ResourceQuotaStatus: ["hard", "used"],
  V1NodeStatus: ["allocatable", "capacity"],
  V1PersistentVolumeSpec: ["capacity"],
  V1PersistentVolumeClaimStatus: ["allocatedResources", "capacity"],
  V2MetricTarget: ["averageValue", "value"],
  V2MetricValueStatus: ["averageValue", "value"],
};

/** Go structs marked `+structType=atomic`: SSA replaces them whole. */
const atomicStructs = new Set([
  "V1LabelSelector",
  "V1OwnerReference",
  "V1ObjectReference",
  "V1LocalObjectReference",
  "V1TypedLocalObjectReference",
  "V1SecretReference",
  "V1ConfigMapKeySelector",
  "V1SecretKeySelector",
  "V1ObjectFieldSelector",
  "V1ResourceFieldSelector",
  "V1NodeSelector",
  "V1NodeSelectorTerm",
  "V1TopologySelectorTerm",
  "V1ScopeSelector",
  "V1EndpointAddress",
  "CoreV1EndpointPort",
  "DiscoveryV1EndpointPort",
  "V1CrossVersionObjectReference",
  "V1ServiceBackendPort",
  "V1RoleRef",
  "RbacV1Subject",
]);

// ---------------------------------------------------------------------------------------
// Kubernetes definition names. client-node names a model `<Prefix?>V<version><Type>`; the Go
// package is not in the name, so it is inherited from the model that references it, except
// for the types below, which live outside the package of the kinds that use them.

const META = "io.k8s.apimachinery.pkg.apis.meta";
const CORE = "io.k8s.api.core";

const homePackage: Record<string, string> = {
  V1ObjectMeta: META,
  V1ListMeta: META,
  V1LabelSelector: META,
  V1LabelSelectorRequirement: META,
  V1ManagedFieldsEntry: META,
  V1OwnerReference: META,
  V1Condition: META,
  V1DeleteOptions: META,
  V1Preconditions: META,
  V1Status: META,
  V1StatusDetails: META,
  V1StatusCause: META,
  V1FieldSelectorRequirement: META,
  V1PodTemplateSpec: CORE,
  V1ObjectReference: CORE,
  V1TypedLocalObjectReference: CORE,
  V1TopologySelectorTerm: CORE,
  V1EventSource: CORE,
};

/** The Go package (without version) that an API group's types live in. */
function groupPackage(group: string): string {
  if (group === "apiextensions.k8s.io") return "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions";
  if (group === "apiregistration.k8s.io") return "io.k8s.kube-aggregator.pkg.apis.apiregistration";
  return `io.k8s.api.${group === "" ? "core" : group.split(".")[0]}`;
}

const MODEL_NAME = /^([A-Z][a-z]+)?V(\d+(?:alpha\d+|beta\d+)?)([A-Z]\w*)$/;

/** Kubernetes' definition name of a model, given the package of the model that reaches it. */
function definitionName(model: string, inherited: string | undefined): { name: string; pkg?: string } {
  const parts = MODEL_NAME.exec(model);
  if (!parts) return { name: model };
  const prefix = parts[1];
  const version = parts[2]!;
  const type = parts[3]!;
  let pkg = homePackage[model] ?? rootKinds().get(model)?.pkg ?? inherited;
  // Colliding type names get the group as a prefix: `CoreV1Event`, `RbacV1Subject`.
  if (prefix) pkg = prefix === "Core" ? CORE : groupPackage(`${prefix.toLowerCase()}.k8s.io`);
  if (pkg === undefined) return { name: type };
  return { name: `${pkg}.v${version}.${type}`, pkg };
}

// ---------------------------------------------------------------------------------------
// Reading the generated models. Each model is a standalone ES module whose static
// `attributeTypeMap` is a JSON literal; its `.d.ts` carries the descriptions and marks
// optional fields with `?`. Reading both as text keeps this synchronous, lazy (one model at a
// time, only the models reached) and independent of `require(esm)` support in Node.

interface Attribute {
  /** The TypeScript property name (`_default` for JSON `default`). */
  name: string;
  /** The JSON field name. */
  baseName: string;
  /** `string`, `number`, `Date`, `Array<X>`, `{ [key: string]: X; }`, a model name, ... */
  type: string;
  format: string;
}

interface ModelDocs {
  description: string | undefined;
  /** By TypeScript property name. */
  fields: Map<string, { description: string | undefined; optional: boolean }>;
}

let modelsDirectory: string | undefined;

function modelsDir(): string {
  if (modelsDirectory === undefined) {
    const entry = createRequire(import.meta.url).resolve("@kubernetes/client-node");
    modelsDirectory = `${join(dirname(entry), "gen", "models")}/`;
  }
  return modelsDirectory;
}

function readModelFile(model: string, extension: ".js" | ".d.ts"): string {
  if (!/^\w+$/.test(model)) throw new Error(`not a client-node model name: ${JSON.stringify(model)}`);
  try {
    return readFileSync(modelsDir() + model + extension, "utf8");
  } catch (error) {
    throw new Error(`unknown @kubernetes/client-node model ${model}`, { cause: error });
  }
}

/** The model's static `attributeTypeMap`. */
export function modelAttributes(model: string): Attribute[] {
  const source = readModelFile(model, ".js");
  const marker = `${model}.attributeTypeMap = `;
  const start = source.indexOf(marker);
  const end = source.indexOf("];", start);
  if (start < 0 || end < 0) throw new Error(`no attributeTypeMap in @kubernetes/client-node model ${model}`);
  return JSON.parse(source.slice(start + marker.length, end + 1)) as Attribute[];
}

/** A doc comment, or the start of a field or of the class declaration. */
const DECLARATION = /\/\*\*([\s\S]*?)\*\/|^[ \t]*'([^']+)'(\?)?:|^export declare class/gm;

/** Descriptions and optionality from the model's `.d.ts`, one regular-expression pass. */
function modelDocs(model: string): ModelDocs {
  const docs: ModelDocs = { description: undefined, fields: new Map() };
  // A comment describes the declaration that follows it; a field without one gets none.
  let pending: string | undefined;
  for (const match of readModelFile(model, ".d.ts").matchAll(DECLARATION)) {
    const [, comment, field, optional] = match;
    if (comment !== undefined) {
      pending = unescapeDoc(comment);
      continue;
    }
    if (field !== undefined) docs.fields.set(field, { description: pending, optional: optional === "?" });
    else docs.description = pending;
    pending = undefined;
  }
  return docs;
}

/**
 * The generator escapes quotes and backslashes inside doc comments, and writes `*_/` for a
 * star followed by a slash so that the comment does not end early.
 */
function unescapeDoc(comment: string): string | undefined {
  let text = comment.replace(/^[ \t]*\* ?/gm, "").trim();
  if (text.includes("\\")) text = text.replace(/\\(.)/g, "$1");
  if (text.includes("*_/")) text = text.replaceAll("*_/", "*/");
  return text === "" ? undefined : text;
}

// ---------------------------------------------------------------------------------------
// Building the graph.

const built = new Map<string, Schema>();
const names = new WeakMap<Schema, string>();
const variants = new WeakMap<Schema, Schema>();

interface Root {
  pkg: string;
  gvks: GroupVersionKind[];
  /** A `<Kind>List`: its `items` is a plain array, outside SSA's list semantics. */
  list: boolean;
}

let roots: Map<string, Root> | undefined;

/** Models served as kinds (with their lists and subresource bodies), by model name. */
function rootKinds(): Map<string, Root> {
  if (roots) return roots;
  const table = new Map<string, Root>();
  const add = (model: string, gvk: GroupVersionKind, list = false) => {
    const root = table.get(model) ?? { pkg: groupPackage(gvk.group), gvks: [], list };
    if (!root.gvks.some((g) => g.group === gvk.group && g.version === gvk.version && g.kind === gvk.kind)) {
      root.gvks.push(gvk);
    }
    table.set(model, root);
  };
  for (const k of builtinKinds) {
    add(k.model, { group: k.group, version: k.version, kind: k.kind });
    if (k.verbs.includes("list")) {
      add(`${k.model}List`, { group: k.group, version: k.version, kind: k.listKind }, true);
    }
    for (const sub of k.subresources) {
      if (sub.model) add(sub.model, { group: sub.group, version: sub.version, kind: sub.kind });
    }
  }
  roots = table;
  return table;
}

let allBuilt = false;

function buildAllKinds(): void {
  if (allBuilt) return;
  allBuilt = true;
  for (const model of rootKinds().keys()) modelSchema(model, undefined);
}

function modelSchema(model: string, inheritedPackage: string | undefined): Schema {
  const known = built.get(model);
  if (known) return known;

  const attributes = modelAttributes(model);
  const docs = modelDocs(model);
  const { name, pkg } = definitionName(model, inheritedPackage);

  // Every key of the node is set before the fields are built, so that a field that reaches
  // back to this model (or a variant copied from it) sees the finished shape.
  const properties: Record<string, Schema> = {};
  const node: Schema = { type: "object" };
  if (docs.description !== undefined) node.description = docs.description;
  node.properties = properties;
  const required = attributes
    .filter((a) => docs.fields.get(a.name)?.optional === false)
    .map((a) => a.baseName);
  if (required.length > 0) node.required = required;
  if (atomicStructs.has(model)) node["x-kubernetes-map-type"] = "atomic";
  const root = rootKinds().get(model);
  if (root) node["x-kubernetes-group-version-kind"] = root.gvks.map((gvk) => ({ ...gvk }));
  built.set(model, node);
  names.set(node, name);

  for (const attribute of attributes) {
    properties[attribute.baseName] = fieldSchema(model, attribute, docs, pkg);
  }
  return node;
}

function fieldSchema(owner: string, attribute: Attribute, docs: ModelDocs, pkg: string | undefined): Schema {
  const quantity = quantityFields[owner]?.includes(attribute.baseName) ?? false;
  const schema = typeSchema(attribute.type, attribute.format, quantity, pkg);
  const traits = fieldTraits[owner]?.[attribute.baseName];
  if (names.has(schema)) {
    // A shared model node: its description is the type's (client-node drops field
    // descriptions on model-typed fields), and field-specific traits need a copy.
    if (!traits) return schema;
    const variant = withTraits({ ...schema }, traits);
    variants.set(variant, schema);
    return variant;
  }
  const description = docs.fields.get(attribute.name)?.description;
  const result: Schema = description === undefined ? schema : { description, ...schema };
  if (schema.type === "array" && !traits?.["x-kubernetes-list-type"] && !rootKinds().get(owner)?.list) {
    result["x-kubernetes-list-type"] = "atomic";
  }
  return traits ? withTraits(result, traits) : result;
}

/** `schema` with the field's traits; list keys are copied so that no two fields share an array. */
function withTraits(schema: Schema, traits: FieldTraits): Schema {
  Object.assign(schema, traits);
  const keys = traits["x-kubernetes-list-map-keys"];
  if (keys) schema["x-kubernetes-list-map-keys"] = [...keys];
  return schema;
}

/** The schema of a client-node attribute type; model types yield their shared node. */
function typeSchema(type: string, format: string, quantity: boolean, pkg: string | undefined): Schema {
  const list = /^Array<(.+)>$/.exec(type);
  if (list) return s.array(typeSchema(list[1]!, format, quantity, pkg));
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map) return s.map(typeSchema(map[1]!, format, quantity, pkg));
  switch (type) {
    case "string":
      if (quantity) return s.quantity();
      return format === "" ? s.string() : s.string({ format });
    case "number":
      if (format === "int32" || format === "int64") return s.integer({ format });
      return format === "" ? s.number() : s.number({ format });
    case "boolean":
      return s.boolean();
    case "Date":
    case "V1MicroTime":
      return s.time();
    case "IntOrString":
      return s.intOrString();
    case "any":
      // RawExtension, FieldsV1, an empty struct: kept as sent.
      return s.preserve();
    case "V1JSONSchemaProps": {
      // The Go type recurses without bound; a CRD's schema is checked by the structural-schema
      // rules and must never be pruned, so the graph stops here.
      const description = modelDocs(type).description;
      return description === undefined ? s.preserve() : s.preserve({ description });
    }
    default:
      return modelSchema(type, pkg);
  }
}
