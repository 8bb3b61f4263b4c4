/**
 * managedFields bookkeeping on every write: who owns which fields. Non-apply writes move the
 * fields they set into the writer's Update entry; server-side apply merges a manager's
 * configuration, detects conflicts with other owners, prunes what it stopped applying, and
 * records an Apply entry. Field sets come from `src/machinery/managed-fields.ts`.
 */
import {
  apiVersionOf,
  type ManagedFieldsEntry,
  objectMetaSchema,
  rfc3339,
  type StoredObject,
} from "../api/meta.ts";
import type { Schema } from "../api/schema.ts";
import { deepEqual } from "../machinery/equality.ts";
import { type ApiError, badRequest, conflict, type StatusCause } from "../machinery/errors.ts";
import {
  type ApplyConflict,
  applyFields,
  compareFields,
  emptyFieldSet,
  type FieldSet,
  FieldSetError,
  fieldSetDifference,
  fieldSetFromPaths,
  fieldSetHas,
  fieldSetOf,
  formatApplyConflicts,
  type ManagerFields,
  parseFieldsV1,
  serializeFieldsV1,
  stripUntrackedFields,
  updateFields,
} from "../machinery/managed-fields.ts";
import { type ResourceType, resourceRef } from "./resource-type.ts";

/** The schema field sets are computed against: the kind's schema with ObjectMeta's list semantics. */
const trackedSchemas = new WeakMap<Schema, Schema>();
function trackedSchema(rt: ResourceType): Schema {
  let s = trackedSchemas.get(rt.schema);
  if (!s) {
    s = { ...rt.schema, properties: { ...rt.schema.properties, metadata: objectMetaSchema } };
    trackedSchemas.set(rt.schema, s);
  }
  return s;
}

interface EntryKey {
  manager: string;
  operation: "Apply" | "Update";
  apiVersion: string;
  subresource: string;
}

/** Entries are identified by manager, operation, subresource, and for Update also apiVersion. */
function identity(k: EntryKey): string {
  return JSON.stringify([
    k.manager,
    k.operation,
    k.operation === "Update" ? k.apiVersion : "",
    k.subresource,
  ]);
}

function keyOf(e: ManagedFieldsEntry): EntryKey {
  return {
    manager: e.manager ?? "",
    operation: e.operation === "Apply" ? "Apply" : "Update",
    apiVersion: e.apiVersion ?? "",
    subresource: e.subresource ?? "",
  };
}

interface Decoded {
  key: EntryKey;
  id: string;
  fields: FieldSet;
  time: string | undefined;
  /** The entry it was read from, reused as it is when neither its fields nor its time changed. */
  raw?: ManagedFieldsEntry;
}

/** `stored`: the entries are the stored object's (ours, in canonical form), kept to be reused. */
function decodeEntries(entries: ManagedFieldsEntry[] | undefined, stored = false): Decoded[] {
  const out: Decoded[] = [];
  for (const e of entries ?? []) {
    if (!e || typeof e !== "object") continue;
    let fields: FieldSet;
    try {
      fields = e.fieldsV1 ? parseFieldsV1(e.fieldsV1) : emptyFieldSet();
    } catch (err) {
      throw badRequest(`metadata.managedFields: Invalid value: ${(err as Error).message}`);
    }
    const key = keyOf(e);
    out.push({ key, id: identity(key), fields, time: e.time, ...(stored ? { raw: e } : {}) });
  }
  return out;
}

function encodeEntries(decoded: Decoded[]): ManagedFieldsEntry[] {
  return decoded.map((d) => {
    if (d.raw) return { ...d.raw };
    const e: ManagedFieldsEntry = {
      manager: d.key.manager,
      operation: d.key.operation,
      apiVersion: d.key.apiVersion,
    };
    if (d.time) e.time = d.time;
    e.fieldsType = "FieldsV1";
    e.fieldsV1 = serializeFieldsV1(d.fields) as Record<string, unknown>;
    if (d.key.subresource) e.subresource = d.key.subresource;
    return e;
  });
}

const ignoredCache = new WeakMap<ResourceType, Map<string, FieldSet | undefined>>();

/** Fields a write through this endpoint neither owns nor compares. */
function ignoredFor(rt: ResourceType, subresource: string | undefined): FieldSet | undefined {
  const perType = ignoredCache.get(rt) ?? new Map<string, FieldSet | undefined>();
  ignoredCache.set(rt, perType);
  const key = subresource ?? "";
  if (!perType.has(key)) perType.set(key, computeIgnored(rt, subresource));
  return perType.get(key);
}

function computeIgnored(rt: ResourceType, subresource: string | undefined): FieldSet | undefined {
  if (!rt.status) return undefined;
  if (subresource === "status") {
    const paths = Object.keys(rt.schema.properties ?? {})
      .filter((p) => p !== "status" && p !== "apiVersion" && p !== "kind")
      .map((p) => [`f:${p}`]);
    return fieldSetFromPaths(paths);
  }
  return fieldSetFromPaths([["f:status"]]);
}

/** Which entries a write starts from: the client's if it changed them (kubectl's apply migration), else the stored ones. */
function baseEntries(
  incoming: StoredObject,
  old: StoredObject | undefined,
): ManagedFieldsEntry[] | undefined {
  const sent = incoming.metadata.managedFields;
  if (old && sent !== undefined && sent.length > 0 && !deepEqual(sent, old.metadata.managedFields))
    return sent;
  return old?.metadata.managedFields;
}

export interface WriteIdentity {
  manager: string;
  subresource: string | undefined;
  now: number;
}

/** Records a non-apply write (create, update, patch) in `obj.metadata.managedFields`. */
export function recordUpdate(
  rt: ResourceType,
  obj: StoredObject,
  old: StoredObject | undefined,
  who: WriteIdentity,
): void {
  const key: EntryKey = {
    manager: who.manager,
    operation: "Update",
    apiVersion: apiVersionOf(rt.group, rt.version),
    subresource: who.subresource ?? "",
  };
  const id = identity(key);
  if (!old) {
    // A create: the writer owns everything it sent (and what defaulting added).
    const { managedFields: _, ...metadata } = obj.metadata;
    const fields = stripUntrackedFields(fieldSetOf({ ...obj, metadata }, trackedSchema(rt)));
    setEntries(obj, [{ key, id, fields, time: rfc3339(who.now) }]);
    return;
  }
  const base = baseEntries(obj, old);
  const entries = decodeEntries(base, base === old.metadata.managedFields);
  const managers: ManagerFields[] = entries.map((e) => ({ manager: e.id, fields: e.fields }));
  const strip = (o: StoredObject | undefined): StoredObject | undefined => {
    if (!o) return undefined;
    const { managedFields: _, ...metadata } = o.metadata;
    return { ...o, metadata };
  };
  const result = updateFields({
    live: strip(old),
    updated: strip(obj),
    schema: trackedSchema(rt),
    manager: id,
    managers,
    ignored: ignoredFor(rt, who.subresource),
  });
  const time = rfc3339(who.now);
  const byId = new Map(entries.map((e) => [e.id, e]));
  const next: Decoded[] = result.map((m) => {
    const before = byId.get(m.manager);
    if (m.manager === id) {
      const changed =
        !before ||
        (m.fields !== before.fields &&
          !deepEqual(before.raw?.fieldsV1 ?? serializeFieldsV1(before.fields), serializeFieldsV1(m.fields)));
      if (!changed && before.raw) return before;
      return { key, id, fields: m.fields, time: changed ? time : before?.time };
    }
    // Another manager's entry: unchanged unless this write took fields from it.
    if (m.fields === before!.fields) return before!;
    const { raw: _, ...rest } = before!;
    return { ...rest, fields: m.fields };
  });
  setEntries(obj, capUpdateEntries(next));
}

function setEntries(obj: StoredObject, decoded: Decoded[]): void {
  if (decoded.length === 0) delete obj.metadata.managedFields;
  else obj.metadata.managedFields = encodeEntries(decoded);
}

/** Kubernetes keeps at most 10 Update entries; older ones merge into `ancient-changes`. */
function capUpdateEntries(entries: Decoded[]): Decoded[] {
  const updates = entries.filter((e) => e.key.operation === "Update");
  if (updates.length <= 10) return entries;
  const sorted = [...updates].sort((a, b) => (a.time ?? "").localeCompare(b.time ?? ""));
  const excess = sorted.slice(0, updates.length - 9);
  const drop = new Set(excess.map((e) => e.id));
  let fields = emptyFieldSet();
  for (const e of excess) fields = mergeSets(fields, e.fields);
  const ancientKey: EntryKey = {
    manager: "ancient-changes",
    operation: "Update",
    apiVersion: excess[0]!.key.apiVersion,
    subresource: "",
  };
  return [
    ...entries.filter((e) => !drop.has(e.id)),
    { key: ancientKey, id: identity(ancientKey), fields, time: excess.at(-1)?.time },
  ];
}

function mergeSets(a: FieldSet, b: FieldSet): FieldSet {
  const out: FieldSet = { member: a.member || b.member, children: new Map(a.children) };
  for (const [k, v] of b.children)
    out.children.set(k, out.children.has(k) ? mergeSets(out.children.get(k)!, v) : v);
  return out;
}

export interface ApplyOutcome {
  object: StoredObject;
}

/**
 * Server-side apply of `config` by `manager` onto `live` (undefined: create). Returns the
 * merged object with its managedFields, or throws 409 listing conflicts (unless `force`).
 */
export function applyConfig(
  rt: ResourceType,
  live: StoredObject | undefined,
  config: StoredObject,
  manager: string,
  force: boolean,
  subresource: string | undefined,
  now: number,
): StoredObject {
  const entries = decodeEntries(live?.metadata.managedFields);
  const key: EntryKey = {
    manager,
    operation: "Apply",
    apiVersion: apiVersionOf(rt.group, rt.version),
    subresource: subresource ?? "",
  };
  const id = identity(key);
  const previous = entries.find((e) => e.id === id);
  const strippedConfig: StoredObject = { ...config, metadata: { ...config.metadata } };
  delete strippedConfig.metadata.managedFields;
  delete strippedConfig.metadata.resourceVersion;
  const strippedLive = live ? { ...live, metadata: { ...live.metadata } } : undefined;
  if (strippedLive) delete strippedLive.metadata.managedFields;
  let result: ReturnType<typeof applyFields>;
  try {
    result = applyFields({
      live: strippedLive,
      config: strippedConfig,
      schema: trackedSchema(rt),
      previous: previous?.fields,
      others: entries.filter((e) => e.id !== id).map((e) => ({ manager: e.id, fields: e.fields })),
      force,
      ignored: ignoredFor(rt, subresource),
    });
  } catch (err) {
    if (err instanceof FieldSetError) throw badRequest(err.message);
    throw err;
  }
  if (!result.ok) {
    const remaining =
      manager === "kubectl"
        ? conflictsNotExplainedByLastApplied(rt, strippedLive, result.conflicts)
        : result.conflicts;
    if (remaining.length > 0) throw applyConflict(rt, config.metadata.name ?? "", remaining);
    // Every conflict is a field kubectl's client-side apply set to the value it still has:
    // kubectl moving from client-side to server-side apply takes those fields over.
    return applyConfig(rt, live, config, manager, true, subresource, now);
  }
  const byId = new Map(entries.map((e) => [e.id, e]));
  const others: Decoded[] = result.others.map((m) => ({ ...byId.get(m.manager)!, fields: m.fields }));
  const mine: Decoded = { key, id, fields: result.fields, time: rfc3339(now) };
  if (
    previous &&
    deepEqual(serializeFieldsV1(previous.fields), serializeFieldsV1(result.fields)) &&
    !result.changed
  ) {
    mine.time = previous.time;
  }
  const object = result.object as StoredObject;
  object.metadata = { ...object.metadata };
  if (live?.metadata.resourceVersion) object.metadata.resourceVersion = live.metadata.resourceVersion;
  // Keep the applier's entry where it was; a new one goes last.
  const ordered: Decoded[] = [];
  let placed = false;
  for (const e of entries) {
    if (e.id === id) {
      ordered.push(mine);
      placed = true;
    } else {
      const o = others.find((x) => x.id === e.id);
      if (o) ordered.push(o);
    }
  }
  if (!placed) ordered.push(mine);
  setEntries(
    object,
    ordered.filter((e) => e === mine || e.fields.children.size > 0),
  );
  return object;
}

const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

/**
 * The conflicts left once fields recorded in the live object's last-applied annotation (and
 * still holding those values) are taken out: what upstream's last-applied manager does for
 * `kubectl apply --server-side` after client-side applies.
 */
function conflictsNotExplainedByLastApplied(
  rt: ResourceType,
  live: StoredObject | undefined,
  conflicts: readonly ApplyConflict[],
): readonly ApplyConflict[] {
  const text = live?.metadata.annotations?.[LAST_APPLIED];
  if (!live || !text) return conflicts;
  let lastApplied: unknown;
  try {
    lastApplied = JSON.parse(text);
  } catch {
    return conflicts;
  }
  if (
    !lastApplied ||
    typeof lastApplied !== "object" ||
    (lastApplied as StoredObject).apiVersion !== live.apiVersion
  ) {
    return conflicts;
  }
  const schema = trackedSchema(rt);
  const diff = compareFields(lastApplied, live, schema);
  const allowed = fieldSetDifference(
    fieldSetDifference(fieldSetDifference(fieldSetOf(lastApplied, schema), diff.modified), diff.added),
    diff.removed,
  );
  return conflicts.filter((c) => !fieldSetHas(allowed, c.path));
}

function describeManager(id: string): string {
  const [manager, operation, apiVersion, subresource] = JSON.parse(id) as [string, string, string, string];
  const sub = subresource ? ` with subresource ${JSON.stringify(subresource)}` : "";
  const version = operation === "Update" && apiVersion ? ` using ${apiVersion}` : "";
  return `${JSON.stringify(manager)}${sub}${version}`;
}

function applyConflict(rt: ResourceType, name: string, conflicts: readonly ApplyConflict[]): ApiError {
  const message = formatApplyConflicts(conflicts, describeManager);
  const err = conflict(resourceRef(rt), name, "");
  err.status.message = message;
  const causes: StatusCause[] = conflicts.map((c) => ({
    reason: "FieldManagerConflict",
    message: `conflict with ${describeManager(c.manager)}`,
    field: c.field,
  }));
  err.status.details = { ...err.status.details, causes };
  return err;
}

/** JSON equality without serializing: a key whose value is undefined counts as absent, as in JSON. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i] ?? null, b[i] ?? null)) return false;
    return true;
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  let count = 0;
  for (const k in ao) {
    if (ao[k] === undefined) continue;
    count++;
    if (!sameJson(ao[k], bo[k])) return false;
  }
  for (const k in bo) if (bo[k] !== undefined) count--;
  return count === 0;
}

/** Whether two objects differ only in managedFields timestamps (such writes are skipped). */
export function sameIgnoringManagedTimes(a: StoredObject, b: StoredObject): boolean {
  const { metadata: am, ...aRest } = a;
  const { metadata: bm, ...bRest } = b;
  if (!sameJson(aRest, bRest)) return false;
  const { resourceVersion: _ar, managedFields: af, ...aMeta } = am;
  const { resourceVersion: _br, managedFields: bf, ...bMeta } = bm;
  if (!sameJson(aMeta, bMeta)) return false;
  if (af === undefined || bf === undefined) return af === bf;
  if (af.length !== bf.length) return false;
  return af.every((entry, i) => {
    const { time: _at, ...x } = entry;
    const { time: _bt, ...y } = bf[i]!;
    return sameJson(x, y);
  });
}
