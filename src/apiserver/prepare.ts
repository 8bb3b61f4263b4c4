/**
 * The write pipeline shared by create, update, patch and apply: decode checks, pruning of
 * unknown fields (per `fieldValidation`), defaulting, server-owned metadata, status
 * handling, generation, validation and admission. Every check runs before anything is
 * written, so a rejected request writes nothing.
 */
import type { Operation } from "../api/admission.ts";
import {
  apiVersionOf,
  isObject,
  type NewObject,
  objectMetaSchema,
  rfc3339,
  type StoredObject,
} from "../api/meta.ts";
import type { Schema } from "../api/schema.ts";
import { validateObjectMeta } from "../api/validation/index.ts";
import { deepEqual } from "../machinery/equality.ts";
import { badRequest, type FieldError, forbidden, invalid, notFound } from "../machinery/errors.ts";
import { MAX_JSON_DEPTH, nestedDeeperThan } from "../machinery/json-scan.ts";
import { cloneJson } from "../machinery/merge-patch.ts";
import { applySchemaDefaults, pruneObject, validateObject, validateValue } from "../machinery/structural.ts";
import type { RequestContext, ServerContext } from "./context.ts";
import { recordUpdate, sameIgnoringManagedTimes } from "./ownership.ts";
import { type ResourceType, storageKey } from "./resource-type.ts";

export type FieldValidation = "Strict" | "Warn" | "Ignore";

export function parseFieldValidation(value: string | null | undefined): FieldValidation {
  if (value === null || value === undefined || value === "") return "Warn";
  if (value === "Strict" || value === "Warn" || value === "Ignore") return value;
  throw badRequest(
    `fieldValidation: Unsupported value: ${JSON.stringify(value)}: supported values: "Ignore", "Strict", "Warn"`,
  );
}

/** The body's apiVersion/kind must be the endpoint's (or empty, then filled in). */
export function checkTypeMeta(rt: ResourceType, obj: Record<string, unknown>): void {
  const want = apiVersionOf(rt.group, rt.version);
  if (obj.apiVersion === undefined || obj.apiVersion === "") obj.apiVersion = want;
  if (obj.kind === undefined || obj.kind === "") obj.kind = rt.kind;
  if (obj.kind !== rt.kind) {
    throw badRequest(
      `the kind in the data (${String(obj.kind)}) does not match the expected kind (${rt.kind})`,
    );
  }
  if (obj.apiVersion !== want) {
    // Another served version of the same resource is fine: it is converted on the way to storage.
    throw badRequest(
      `the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${want})`,
    );
  }
  if (obj.metadata !== undefined && !isObject(obj.metadata)) {
    throw badRequest(`metadata: Invalid value: must be an object`);
  }
  obj.metadata ??= {};
}

/** Drops unknown fields and reacts as `fieldValidation` asks. */
export function pruneUnknown(
  rt: ResourceType,
  obj: StoredObject,
  mode: FieldValidation,
  ctx: RequestContext,
): void {
  const unknown = pruneObject(obj, rt.schema);
  if (unknown.length === 0 || mode === "Ignore") return;
  if (mode === "Strict") {
    throw badRequest(
      `${rt.kind} in version "${rt.version}" cannot be handled as a ${rt.kind}: strict decoding error: ${unknown.map((f) => `unknown field "${f}"`).join(", ")}`,
    );
  }
  for (const f of unknown) ctx.warnings.push(`unknown field "${f}"`);
}

/**
 * Keys repeated in a request body (see codec.ts's parseDocument), as `fieldValidation` asks:
 * warned of (Warn, the default), refused together with the unknown fields of `obj` (Strict),
 * or let be (Ignore). The last value of a repeated key is the one kept either way.
 */
export function reportDuplicateFields(
  rt: ResourceType,
  obj: Record<string, unknown>,
  duplicates: readonly string[],
  mode: FieldValidation,
  ctx: RequestContext,
): void {
  if (duplicates.length === 0 || mode === "Ignore") return;
  if (mode === "Warn") {
    ctx.warnings.push(...duplicates);
    return;
  }
  const unknown = pruneObject(cloneJson(obj), rt.schema).map((f) => `unknown field "${f}"`);
  throw badRequest(
    `${rt.kind} in version "${rt.version}" cannot be handled as a ${rt.kind}: strict decoding error: ${[...duplicates, ...unknown].join(", ")}`,
  );
}

/** The value and schema at a validation error's path (`spec.containers[0].ports[1].containerPort`). */
function atPath(obj: unknown, schema: Schema | undefined, path: string): { value: unknown; schema?: Schema } {
  let value = obj;
  let at = schema;
  for (const seg of path.match(/[^.[\]]+|\[\d+\]/g) ?? []) {
    if (seg.startsWith("[")) {
      value = Array.isArray(value) ? value[Number(seg.slice(1, -1))] : undefined;
      at = at?.items;
    } else {
      value = isObject(value) ? value[seg] : undefined;
      const extra = at?.additionalProperties;
      at = at?.properties?.[seg] ?? (typeof extra === "object" ? extra : undefined);
    }
  }
  return at ? { value, schema: at } : { value };
}

/** The Go type kube-apiserver would name for a schema (what `json: cannot unmarshal` reports). */
function goType(schema: Schema | undefined): string {
  if (schema?.["x-kubernetes-int-or-string"]) return "intstr.IntOrString";
  switch (schema?.type) {
    case "integer":
      return schema.format === "int32" ? "int32" : "int64";
    case "number":
      return "float64";
    case "boolean":
      return "bool";
    case "array":
      return "[]";
    case "object":
      return "map or struct";
    default:
      return "string";
  }
}

function goJsonKind(value: unknown): string {
  if (typeof value === "number") return `number ${value}`;
  if (Array.isArray(value)) return "array";
  if (value === null) return "null";
  return typeof value === "boolean" ? "bool" : typeof value;
}

/**
 * A built-in kind's body must decode into its Go type, as kube-apiserver decodes it before
 * anything else: a value of the wrong JSON type (a fraction or a string where an integer
 * belongs, an integer past int32 in an int32 field) is a 400, not a validation error.
 */
export function checkDecodable(rt: ResourceType, obj: Record<string, unknown>): void {
  if (!rt.builtin) return;
  for (const e of validateObject(obj, rt.schema, { nulls: true })) {
    const int32 = e.type === "FieldValueInvalid" && /must be of type int32$/.test(e.detail ?? "");
    if (e.type !== "FieldValueTypeInvalid" && !int32) continue;
    const { value, schema } = atPath(obj, rt.schema, e.field);
    throw badRequest(
      `${rt.kind} in version "${rt.version}" cannot be handled as a ${rt.kind}: json: cannot unmarshal ${goJsonKind(value)} into Go struct field ${e.field} of type ${goType(schema)}`,
    );
  }
}

function fail(rt: ResourceType, obj: StoredObject, errors: FieldError[]): never {
  throw invalid(
    { group: rt.group, kind: rt.kind },
    obj.metadata.name ?? obj.metadata.generateName ?? "",
    errors,
  );
}

/** Schema, metadata and kind-specific validation plus validating admission; throws 422 with every cause. */
async function validateAll(
  server: ServerContext,
  ctx: RequestContext,
  rt: ResourceType,
  obj: StoredObject,
  old: StoredObject | undefined,
  op: Operation,
  admit: boolean,
): Promise<void> {
  // Built-ins decode like Go: a null is the zero value, so schema checks let nulls through.
  const schemaErrors = validateObject(obj, rt.schema, { nulls: rt.builtin });
  const errors = rt.validate
    ? [...schemaErrors, ...rt.validate(obj, old)]
    : [
        ...validateObjectMeta(
          obj.metadata,
          { namespaced: rt.namespaced, nameRule: rt.nameRule, kubeFinalizers: false },
          old?.metadata,
        ),
        ...schemaErrors,
      ];
  if (errors.length > 0) fail(rt, obj, errors);
  if (!admit) return;
  for (const plugin of server.admission) {
    if (plugin.validate && plugin.handles(rt)) errors.push(...(await plugin.validate(obj, old, op, ctx)));
  }
  if (errors.length > 0) fail(rt, obj, errors);
}

async function mutate(
  server: ServerContext,
  ctx: RequestContext,
  rt: ResourceType,
  obj: StoredObject,
  old: StoredObject | undefined,
  op: Operation,
  admit: boolean,
  subresource?: string,
): Promise<void> {
  applySchemaDefaults(obj, rt.schema);
  rt.defaults?.(obj, old, subresource);
  if (!admit) return;
  for (const plugin of server.admission) {
    if (plugin.mutate && plugin.handles(rt)) await plugin.mutate(obj, old, op, ctx);
  }
}

/** Empty label/annotation maps and finalizer/owner lists are not kept, as Go's omitempty drops them. */
function dropEmptyMetadata(meta: StoredObject["metadata"]): void {
  if (meta.labels && Object.keys(meta.labels).length === 0) delete meta.labels;
  if (meta.annotations && Object.keys(meta.annotations).length === 0) delete meta.annotations;
  if (meta.finalizers && meta.finalizers.length === 0) delete meta.finalizers;
  if (meta.ownerReferences && meta.ownerReferences.length === 0) delete meta.ownerReferences;
}

/** What a kind's status looks like right after create. */
function resetStatusOnCreate(rt: ResourceType, obj: StoredObject): void {
  if (!rt.status) return;
  const key = `${rt.group}/${rt.kind}`;
  switch (key) {
    case "/Node":
      return;
    case "/Namespace":
      obj.status = { phase: "Active" };
      return;
    case "/PersistentVolume":
    case "/PersistentVolumeClaim":
      obj.status = { phase: "Pending" };
      return;
    case "/Pod":
      obj.status = { phase: "Pending", qosClass: podQosClass(obj) };
      return;
    default:
      delete obj.status;
  }
}

/** Guaranteed when every container's requests equal limits for cpu and memory; BestEffort when none set. */
function podQosClass(pod: StoredObject): string {
  const spec = isObject(pod.spec) ? pod.spec : {};
  const containers = [
    ...(Array.isArray(spec.containers) ? spec.containers : []),
    ...(Array.isArray(spec.initContainers) ? spec.initContainers : []),
  ].filter(isObject);
  let any = false;
  let guaranteed = containers.length > 0;
  for (const c of containers) {
    const res = isObject(c.resources) ? c.resources : {};
    const req = isObject(res.requests) ? res.requests : {};
    const lim = isObject(res.limits) ? res.limits : {};
    if (Object.keys(req).length > 0 || Object.keys(lim).length > 0) any = true;
    for (const r of ["cpu", "memory"]) {
      const l = lim[r];
      const q = req[r] ?? l;
      if (l === undefined || String(q) !== String(l)) guaranteed = false;
    }
  }
  if (!any) return "BestEffort";
  return guaranteed ? "Guaranteed" : "Burstable";
}

/** Rejects writes into namespaces that don't exist or are being deleted (NamespaceLifecycle). */
async function checkNamespace(server: ServerContext, rt: ResourceType, obj: StoredObject): Promise<void> {
  if (!rt.namespaced) return;
  const ns = obj.metadata.namespace!;
  let state = server.namespaces?.get(ns);
  if (state === undefined) {
    // Not seen by the cache (yet): ask the store, as the cache may lag a create made a moment ago.
    const nsType = server.registry.get("", "v1", "namespaces");
    if (!nsType) return;
    const { kv } = await server.store.get(storageKey(nsType, undefined, ns));
    if (!kv) throw notFound({ group: "", resource: "namespaces" }, ns);
    state = (JSON.parse(kv.value) as StoredObject).metadata.deletionTimestamp ? "terminating" : "active";
  }
  if (state === "terminating") {
    throw forbidden(
      { group: rt.group, resource: rt.plural },
      obj.metadata.name ?? "",
      `unable to create new content in namespace ${ns} because it is being terminated`,
    );
  }
}

/** ObjectMeta as Go decodes it, without managedFields (raw JSON to the decoder; the field manager judges them). */
const { managedFields: _managedFields, ...metaProperties } = objectMetaSchema.properties ?? {};
const DECODED_META: Schema = { ...objectMetaSchema, properties: metaProperties };

/**
 * `metadata` must have ObjectMeta's types, as kube-apiserver decodes it into ObjectMeta for
 * every kind, custom resources included: `labels: {a: 1}` or `finalizers: "x"` are a 400, not
 * stored for selectors and controllers to trip over. A null field is Go's zero value (dropped).
 */
function checkMetadataTypes(rt: ResourceType, obj: StoredObject): void {
  const meta = obj.metadata as unknown as Record<string, unknown>;
  for (const [k, v] of Object.entries(meta)) if (v === null) delete meta[k];
  const errors: FieldError[] = [];
  validateValue(meta, DECODED_META, "metadata", errors);
  for (const e of errors) {
    const dateTime = /must be of type date-time/.test(e.detail ?? "");
    if (e.type !== "FieldValueTypeInvalid" && !dateTime) continue;
    const { value, schema } = atPath({ metadata: meta }, { properties: { metadata: DECODED_META } }, e.field);
    // In-process callers may leave a key undefined: JSON would drop it, so do we.
    if (value === undefined) continue;
    throw badRequest(
      `${rt.kind} in version "${rt.version}" cannot be handled as a ${rt.kind}: json: cannot unmarshal ${goJsonKind(value)} into Go struct field ObjectMeta.${e.field} of type ${dateTime ? "metav1.Time" : goType(schema)}`,
    );
  }
}

/**
 * No object deeper than MAX_JSON_DEPTH is prepared or stored: request bodies are held to it
 * when decoded, and this holds what patches build (a JSON patch can add a deep value at a
 * deep path) before anything below walks the object recursively.
 */
function checkNesting(obj: unknown): void {
  if (nestedDeeperThan(obj)) {
    throw badRequest(`the object is nested too deeply: exceeded max depth of ${MAX_JSON_DEPTH}`);
  }
}

const GENERATE_NAME_MAX = 63 - 5;

export interface CreateOptions {
  namespace: string | undefined;
  fieldValidation: FieldValidation;
  /** The field manager recorded in managedFields. */
  manager: string;
  /** Server-side apply already set managedFields. */
  applied?: boolean;
}

/** Turns a request body into the object to store on create. Throws on any problem. */
export async function prepareCreate(
  server: ServerContext,
  ctx: RequestContext,
  rt: ResourceType,
  body: NewObject,
  opts: CreateOptions,
): Promise<StoredObject> {
  checkNesting(body);
  checkMetadataTypes(rt, body as StoredObject);
  // Stored from here on: uid is assigned below, and a name missing after generateName fails validation.
  const obj = body as StoredObject;
  const meta = obj.metadata;
  if (rt.namespaced) {
    if (meta.namespace && opts.namespace && meta.namespace !== opts.namespace) {
      throw badRequest(
        "the namespace of the provided object does not match the namespace sent on the request",
      );
    }
    const namespace = opts.namespace ?? meta.namespace;
    if (namespace) meta.namespace = namespace;
  } else {
    delete meta.namespace;
  }
  pruneUnknown(rt, obj, opts.fieldValidation, ctx);
  if (!meta.name && meta.generateName) {
    meta.name = meta.generateName.slice(0, GENERATE_NAME_MAX) + server.randomSuffix();
  }
  meta.uid = server.newUid();
  meta.creationTimestamp = rfc3339(server.clock.now());
  if (rt.generationFrom === "none") delete meta.generation;
  else meta.generation = 1;
  delete meta.resourceVersion;
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  delete meta.selfLink;
  resetStatusOnCreate(rt, obj);
  await mutate(server, ctx, rt, obj, undefined, "CREATE", true);
  dropEmptyMetadata(meta);
  if (!opts.applied)
    recordUpdate(rt, obj, undefined, {
      manager: opts.manager,
      subresource: undefined,
      now: server.clock.now(),
    });
  await validateAll(server, ctx, rt, obj, undefined, "CREATE", true);
  await checkNamespace(server, rt, obj);
  return obj;
}

export interface UpdateOptions {
  subresource: string | undefined;
  fieldValidation: FieldValidation;
  manager: string;
  applied?: boolean;
}

/**
 * Merges a client's new object with the stored one for an update of the main resource or
 * of `/status`: server-owned metadata is carried over, status or spec is kept as the
 * subresource says, generation follows spec changes.
 */
export async function prepareUpdate(
  server: ServerContext,
  ctx: RequestContext,
  rt: ResourceType,
  incoming: StoredObject,
  old: StoredObject,
  opts: UpdateOptions,
): Promise<StoredObject> {
  checkNesting(incoming);
  checkMetadataTypes(rt, incoming);
  pruneUnknown(rt, incoming, opts.fieldValidation, ctx);
  let obj: StoredObject;
  if (opts.subresource === "status") {
    obj = cloneJson(old);
    if (incoming.status === undefined) delete obj.status;
    else obj.status = incoming.status;
    if (incoming.metadata.managedFields) obj.metadata.managedFields = incoming.metadata.managedFields;
  } else {
    obj = incoming;
    if (rt.status) {
      if (old.status === undefined) delete obj.status;
      else obj.status = cloneJson(old.status);
    }
  }
  const meta = obj.metadata;
  const oldMeta = old.metadata;
  meta.name = oldMeta.name!;
  if (rt.namespaced) meta.namespace = oldMeta.namespace!;
  else delete meta.namespace;
  if (!meta.uid) meta.uid = oldMeta.uid!;
  meta.creationTimestamp = oldMeta.creationTimestamp ?? null;
  if (oldMeta.generation !== undefined) meta.generation = oldMeta.generation;
  else delete meta.generation;
  delete meta.selfLink;
  if (oldMeta.deletionTimestamp) meta.deletionTimestamp = oldMeta.deletionTimestamp;
  else delete meta.deletionTimestamp;
  if (oldMeta.deletionGracePeriodSeconds !== undefined)
    meta.deletionGracePeriodSeconds = oldMeta.deletionGracePeriodSeconds;
  else delete meta.deletionGracePeriodSeconds;
  const admit = opts.subresource !== "status";
  await mutate(server, ctx, rt, obj, old, "UPDATE", admit, opts.subresource);
  dropEmptyMetadata(meta);
  if (generationChanged(rt, obj, old)) meta.generation = (oldMeta.generation ?? 0) + 1;
  if (!opts.applied)
    recordUpdate(rt, obj, old, {
      manager: opts.manager,
      subresource: opts.subresource,
      now: server.clock.now(),
    });
  await validateAll(server, ctx, rt, obj, old, "UPDATE", admit);
  return obj;
}

function generationChanged(rt: ResourceType, obj: StoredObject, old: StoredObject): boolean {
  if (rt.generationFrom === "none") return false;
  if (rt.generationFrom === "spec") return !deepEqual(obj.spec, old.spec);
  for (const key of new Set([...Object.keys(obj), ...Object.keys(old)])) {
    if (key === "metadata" || key === "apiVersion" || key === "kind") continue;
    if (key === "status" && rt.status) continue;
    if (!deepEqual(obj[key], old[key])) return true;
  }
  return false;
}

/** Whether an update changed nothing but managedFields timestamps (then the write is skipped). */
export const unchanged = sameIgnoringManagedTimes;
