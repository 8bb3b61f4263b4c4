/**
 * The dependencies distributor (upstream's pkg/dependenciesdistributor, feature gate
 * PropagateDeps): a ResourceBinding with `spec.propagateDeps` (the "independent" binding)
 * gets its template's dependencies from the interpreter (ConfigMaps, Secrets,
 * ServiceAccounts, PVCs the pod template names, or objects picked by a label selector),
 * records them in its `resourcebinding.karmada.io/dependencies` annotation, and keeps one
 * "attached" ResourceBinding per dependency object whose `spec.requiredBy` carries the
 * independent binding's name and scheduled clusters. The binding controller sends the
 * dependency wherever any binding requiring it is scheduled (plus its own placement when a
 * policy claims it too); the scheduler leaves attached bindings alone (no claim label).
 *
 * Informers for the dependency kinds start on demand; a change of a dependency object
 * re-syncs the independent bindings whose annotation names or selects it, so the attached
 * binding's `spec.resource.resourceVersion` follows the object (and the Works with it).
 *
 * Unlike upstream, an attached binding nobody requires any more and no policy claims is
 * deleted (upstream keeps it, empty, until the dependency object itself is deleted).
 */
import type { StoredObject } from "../api/meta.ts";
import type { ResourceRef } from "../client/client.ts";
import type { Interpreter } from "../interpreter/index.ts";
import type { DependentObjectReference } from "../interpreter/types.ts";
import {
  ANNOTATION,
  bindingName,
  bindingReferenceKey,
  DEPENDED_BY_LABEL_PREFIX,
  FINALIZER,
  LABEL,
} from "../karmada/names.ts";
import { KARMADA } from "../karmada/resources.ts";
import type { BindingSpec } from "../karmada/types.ts";
import { isAlreadyExists, isConflict, isNotFound } from "../machinery/errors.ts";
import {
  fromLabelSelector,
  type LabelSelector,
  matches,
  type Selector,
  selectorToString,
} from "../machinery/labels.ts";
import { jsonEqual } from "../machinery/merge-patch.ts";
import type { Controller, ReconcileResult } from "../runtime/controller.ts";
import { type Informer, splitKey } from "../runtime/informer.ts";
import type { ControllerContext } from "./context.ts";

export const DEPENDENCIES_DISTRIBUTOR = "dependencies-distributor";

export type Binding = StoredObject & { spec: BindingSpec };
export type BindingSnapshot = NonNullable<BindingSpec["requiredBy"]>[number];

/** RBs by the attached-binding labels they carry: `<namespace>|<label key>=<value>`. */
const DEPENDED_BY_INDEX = "dependedBy";
/** RBs by the dependencies their annotation records: `<apiVersion>|<kind>|<namespace>|<name>` (name empty: a selector). */
const DEPENDENCY_INDEX = "dependencies";

// ---- pure parts ---------------------------------------------------------------------------

/** `resourcebinding.karmada.io/depended-by-<key>` of a depending binding. */
export function dependedByLabelKey(namespace: string, name: string): string {
  return DEPENDED_BY_LABEL_PREFIX + bindingReferenceKey(name, namespace);
}

/** A label selector in the field order Go's `metav1.LabelSelector` marshals, empty parts left out. */
function selectorJson(sel: DependentObjectReference["labelSelector"]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (sel?.matchLabels && Object.keys(sel.matchLabels).length > 0) {
    out.matchLabels = Object.fromEntries(
      Object.entries(sel.matchLabels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    );
  }
  if (sel?.matchExpressions && sel.matchExpressions.length > 0) {
    out.matchExpressions = (sel.matchExpressions as LabelSelector["matchExpressions"] & object).map((e) => ({
      key: e.key,
      operator: e.operator,
      ...(e.values?.length ? { values: e.values } : {}),
    }));
  }
  return out;
}

/**
 * The annotation value: the dependencies as upstream's `json.Marshal` writes them (field
 * order apiVersion, kind, namespace, name, labelSelector; empty fields omitted; no
 * dependencies is `null`, as a nil slice marshals).
 */
export function dependenciesAnnotation(deps: readonly DependentObjectReference[]): string {
  if (deps.length === 0) return "null";
  return JSON.stringify(
    deps.map((d) => ({
      apiVersion: d.apiVersion,
      kind: d.kind,
      ...(d.namespace ? { namespace: d.namespace } : {}),
      ...(d.name ? { name: d.name } : {}),
      ...(d.labelSelector ? { labelSelector: selectorJson(d.labelSelector) } : {}),
    })),
  );
}

/** The dependencies an independent binding recorded; throws when the annotation is not valid JSON. */
export function recordedDependencies(binding: StoredObject): DependentObjectReference[] {
  const text = binding.metadata.annotations?.[ANNOTATION.dependencies];
  if (text === undefined) return [];
  const parsed = JSON.parse(text) as unknown;
  return Array.isArray(parsed)
    ? (parsed.filter((d) => d && typeof d === "object") as DependentObjectReference[])
    : [];
}

/** Upstream's `LabelSelectorAsSelector`: an absent selector selects nothing, an empty one everything. */
function selectorOf(dep: DependentObjectReference): Selector | undefined {
  return dep.labelSelector ? fromLabelSelector(dep.labelSelector as LabelSelector) : undefined;
}

export interface ObjectIdentity {
  apiVersion: string;
  kind: string;
  namespace?: string | undefined;
  name: string;
  labels?: Record<string, string> | undefined;
}

/** Whether an object is one of the dependencies (by name, or by a selector matching its labels). Throws on an invalid selector. */
export function matchesDependencies(obj: ObjectIdentity, deps: readonly DependentObjectReference[]): boolean {
  for (const d of deps) {
    if (
      d.apiVersion !== obj.apiVersion ||
      d.kind !== obj.kind ||
      (d.namespace ?? "") !== (obj.namespace ?? "")
    )
      continue;
    if (d.name) {
      if (d.name === obj.name) return true;
      continue;
    }
    const selector = selectorOf(d);
    if (selector && matches(selector, obj.labels ?? {})) return true;
  }
  return false;
}

/**
 * Whether an attached binding's resource is no longer among the dependencies. `labels` are
 * the resource's current labels (undefined: the object is gone), needed for selected ones.
 */
export function isOrphanAttached(
  resource: BindingSpec["resource"],
  deps: readonly DependentObjectReference[],
  labels: Record<string, string> | undefined,
): boolean {
  for (const d of deps) {
    if (d.apiVersion !== resource.apiVersion || d.kind !== resource.kind) continue;
    if ((d.namespace ?? "") !== (resource.namespace ?? "")) continue;
    if (d.name) {
      if (d.name === resource.name) return false;
      continue;
    }
    const selector = selectorOf(d);
    if (selector && labels !== undefined && matches(selector, labels)) return false;
  }
  return true;
}

/** Whether a dependency (of `kind` in `namespace`) could select objects by labels: then orphan checks need the labels. */
export function needsLabels(
  resource: BindingSpec["resource"],
  deps: readonly DependentObjectReference[],
): boolean {
  return deps.some(
    (d) =>
      !d.name &&
      d.apiVersion === resource.apiVersion &&
      d.kind === resource.kind &&
      (d.namespace ?? "") === (resource.namespace ?? ""),
  );
}

/** The attached binding a dependency object gets from one independent binding (upstream's buildAttachedBinding). */
export function buildAttachedBinding(independent: Binding, object: StoredObject): Binding {
  const ns = independent.metadata.namespace!;
  const snapshot: BindingSnapshot = {
    namespace: ns,
    name: independent.metadata.name!,
    ...(independent.spec.clusters?.length ? { clusters: structuredClone(independent.spec.clusters) } : {}),
  };
  return {
    apiVersion: "work.karmada.io/v1alpha2",
    kind: "ResourceBinding",
    metadata: {
      name: bindingName(object.kind, object.metadata.name!),
      namespace: ns,
      labels: {
        [dependedByLabelKey(ns, independent.metadata.name!)]:
          independent.metadata.labels?.[LABEL.rbPermanentId] ?? "",
      },
      ownerReferences: [
        {
          apiVersion: object.apiVersion,
          kind: object.kind,
          name: object.metadata.name!,
          uid: object.metadata.uid!,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
      finalizers: [FINALIZER.binding],
    },
    spec: {
      resource: {
        apiVersion: object.apiVersion,
        kind: object.kind,
        ...(object.metadata.namespace ? { namespace: object.metadata.namespace } : {}),
        name: object.metadata.name!,
        ...(object.metadata.uid ? { uid: object.metadata.uid } : {}),
        ...(object.metadata.resourceVersion ? { resourceVersion: object.metadata.resourceVersion } : {}),
      },
      requiredBy: [snapshot],
      ...(independent.spec.conflictResolution
        ? { conflictResolution: independent.spec.conflictResolution }
        : {}),
      ...(independent.spec.preserveResourcesOnDeletion !== undefined
        ? { preserveResourcesOnDeletion: independent.spec.preserveResourcesOnDeletion }
        : {}),
    },
  };
}

const sameBinding = (s: BindingSnapshot, namespace: string | undefined, name: string): boolean =>
  (s.namespace ?? "") === (namespace ?? "") && s.name === name;

/** Existing snapshots with the fresh ones' clusters taken over, new ones appended (upstream's mergeBindingSnapshot). */
export function mergeBindingSnapshot(
  existing: readonly BindingSnapshot[],
  fresh: readonly BindingSnapshot[],
): BindingSnapshot[] {
  const out = existing.map((s) => ({ ...s }));
  for (const f of fresh) {
    let found = false;
    for (const [i, s] of out.entries()) {
      if (!sameBinding(s, f.namespace, f.name)) continue;
      const { clusters: _old, ...rest } = s;
      out[i] = { ...rest, ...(f.clusters?.length ? { clusters: f.clusters } : {}) };
      found = true;
    }
    if (!found) out.push(f);
  }
  return out;
}

export function deleteBindingFromSnapshot(
  namespace: string | undefined,
  name: string,
  existing: readonly BindingSnapshot[],
): BindingSnapshot[] {
  return existing.filter((s) => !sameBinding(s, namespace, name));
}

/** Any Overwrite wins; an unset value counts as Abort. */
export function resolveConflictResolution(rbs: readonly Binding[]): {
  conflicted: boolean;
  effective: "Overwrite" | "Abort";
} {
  const overwrite = rbs.some((b) => b.spec.conflictResolution === "Overwrite");
  const abort = rbs.some((b) => b.spec.conflictResolution !== "Overwrite");
  return { conflicted: overwrite && abort, effective: overwrite ? "Overwrite" : "Abort" };
}

/** Any true wins; unset counts as false. */
export function resolvePreserveOnDeletion(rbs: readonly Binding[]): {
  conflicted: boolean;
  effective: boolean;
} {
  const yes = rbs.some((b) => b.spec.preserveResourcesOnDeletion === true);
  const no = rbs.some((b) => b.spec.preserveResourcesOnDeletion !== true);
  return { conflicted: yes && no, effective: yes };
}

/** The warning upstream records on an attached binding whose dependents disagree, or undefined. */
export function policyConflictMessage(
  crConflicted: boolean,
  preserveConflicted: boolean,
): string | undefined {
  const reasons = [
    ...(crConflicted ? ["ConflictResolution conflicted (Overwrite vs Abort)"] : []),
    ...(preserveConflicted ? ["PreserveResourcesOnDeletion conflicted (true vs false)"] : []),
  ];
  return reasons.length > 0 ? `Dependency policy conflict detected: ${reasons.join("; ")}.` : undefined;
}

/**
 * Whether the binding exists only because something depends on it: no placement (upstream's
 * test) and, since our detector leaves `placement` out when a policy has none, no claim either.
 */
export function generatedByDependencies(b: StoredObject & { spec?: Partial<BindingSpec> }): boolean {
  const labels = b.metadata.labels ?? {};
  return (
    b.spec?.placement === undefined &&
    !labels[LABEL.ppPermanentId] &&
    !labels[LABEL.cppPermanentId] &&
    !labels[LABEL.managedBy]
  );
}

/** Sets (or clears) the strategy fields of a dependency-generated binding from the bindings requiring it. */
function applyStrategy(
  b: Binding,
  referencing: readonly Binding[],
): { crConflicted: boolean; preserveConflicted: boolean } {
  if (referencing.length === 0) {
    delete b.spec.conflictResolution;
    delete b.spec.preserveResourcesOnDeletion;
    return { crConflicted: false, preserveConflicted: false };
  }
  const cr = resolveConflictResolution(referencing);
  const preserve = resolvePreserveOnDeletion(referencing);
  b.spec.conflictResolution = cr.effective;
  b.spec.preserveResourcesOnDeletion = preserve.effective;
  return { crConflicted: cr.conflicted, preserveConflicted: preserve.conflicted };
}

export interface AttachedUpdate {
  binding: Binding;
  /** The warning to record on the attached binding, when the bindings requiring it disagree. */
  conflict?: string;
}

/**
 * What an attached binding becomes when `desired` (from buildAttachedBinding) is merged into
 * `existing` (absent: it is created): requiredBy merged, labels merged, resource replaced;
 * a dependency-generated binding takes its strategy from every binding requiring it
 * (`referencing` resolves a snapshot; it throws when that binding cannot be read).
 */
export function mergeAttachedBinding(
  existing: Binding | undefined,
  desired: Binding,
  referencing: (s: BindingSnapshot) => Binding,
): AttachedUpdate {
  const next = structuredClone(existing ?? desired);
  const requiredBy = mergeBindingSnapshot(existing?.spec.requiredBy ?? [], desired.spec.requiredBy ?? []);
  let conflict: string | undefined;
  if (generatedByDependencies(next)) {
    const flags = applyStrategy(next, requiredBy.map(referencing));
    conflict = policyConflictMessage(flags.crConflicted, flags.preserveConflicted);
  }
  if (requiredBy.length > 0) next.spec.requiredBy = requiredBy;
  else delete next.spec.requiredBy;
  next.metadata.labels = { ...next.metadata.labels, ...desired.metadata.labels };
  next.spec.resource = structuredClone(desired.spec.resource);
  return conflict ? { binding: next, conflict } : { binding: next };
}

/**
 * What an attached binding becomes when the binding `namespace/name` no longer requires it:
 * its label and snapshot go, the strategy is recomputed from the rest; `remove` when nothing
 * requires it any more and no policy claims it.
 */
export function releaseAttachedBinding(
  attached: Binding,
  namespace: string,
  name: string,
  referencing: (s: BindingSnapshot) => Binding,
): { binding: Binding; remove: boolean } {
  const next = structuredClone(attached);
  const labels = { ...next.metadata.labels };
  delete labels[dependedByLabelKey(namespace, name)];
  next.metadata.labels = labels;
  const requiredBy = deleteBindingFromSnapshot(namespace, name, next.spec.requiredBy ?? []);
  if (requiredBy.length > 0) next.spec.requiredBy = requiredBy;
  else delete next.spec.requiredBy;
  const generated = generatedByDependencies(next);
  if (generated) applyStrategy(next, requiredBy.map(referencing));
  return { binding: next, remove: generated && requiredBy.length === 0 };
}

/** Go's `%+v` of the dependency list, as upstream's GetDependenciesSucceed message prints it. */
export function formatDependencies(deps: readonly DependentObjectReference[]): string {
  const selector = (sel: DependentObjectReference["labelSelector"]): string => {
    if (!sel) return "nil";
    const labels = Object.entries(sel.matchLabels ?? {})
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => `${k}: ${v},`)
      .join("");
    const exprs = ((sel.matchExpressions ?? []) as NonNullable<LabelSelector["matchExpressions"]>)
      .map(
        (e) =>
          `LabelSelectorRequirement{Key:${e.key},Operator:${e.operator},Values:[${(e.values ?? []).join(" ")}],}`,
      )
      .join(",");
    return `&LabelSelector{MatchLabels:map[string]string{${labels}},MatchExpressions:[]LabelSelectorRequirement{${exprs}},}`;
  };
  return `[${deps
    .map(
      (d) =>
        `{APIVersion:${d.apiVersion} Kind:${d.kind} Namespace:${d.namespace ?? ""} Name:${d.name ?? ""} LabelSelector:${selector(d.labelSelector)}}`,
    )
    .join(" ")}]`;
}

/** Index values of the dependencies a binding recorded. */
function dependencyIndexValues(b: StoredObject): string[] {
  try {
    return recordedDependencies(b).map(
      (d) => `${d.apiVersion}|${d.kind}|${d.namespace ?? ""}|${d.name ?? ""}`,
    );
  } catch {
    return [];
  }
}

function dependedByIndexValues(b: StoredObject): string[] {
  return Object.entries(b.metadata.labels ?? {})
    .filter(([k]) => k.startsWith(DEPENDED_BY_LABEL_PREFIX))
    .map(([k, v]) => `${b.metadata.namespace ?? ""}|${k}=${v}`);
}

/** An update of a dependency object worth a re-sync: more than status and bookkeeping changed. */
function specificationChanged(old: StoredObject, obj: StoredObject): boolean {
  const strip = (o: StoredObject) => {
    const { status: _s, ...rest } = o;
    const { managedFields: _m, resourceVersion: _r, ...meta } = o.metadata;
    return { ...rest, metadata: meta };
  };
  return !jsonEqual(strip(old), strip(obj));
}

// ---- the controller -----------------------------------------------------------------------

interface Kind {
  ref: ResourceRef;
  informer: Informer;
}

export function dependenciesDistributor(ctx: ControllerContext, interpreter: Interpreter): Controller {
  const events = ctx.recorder(DEPENDENCIES_DISTRIBUTOR);
  const rbs = ctx.informers.informer(KARMADA.resourceBindings, {
    indexers: { [DEPENDED_BY_INDEX]: dependedByIndexValues, [DEPENDENCY_INDEX]: dependencyIndexValues },
  });
  const kinds = new Map<string, Promise<Kind>>();
  const removers: Array<() => void> = [];
  let enqueue: (key: string) => void = () => {};

  /** Enqueues the independent bindings whose recorded dependencies name or select `obj`. */
  function enqueueDependents(apiVersion: string, kind: string, obj: StoredObject): void {
    const ns = obj.metadata.namespace ?? "";
    const candidates = [
      ...rbs.byIndex(DEPENDENCY_INDEX, `${apiVersion}|${kind}|${ns}|${obj.metadata.name}`),
      ...rbs.byIndex(DEPENDENCY_INDEX, `${apiVersion}|${kind}|${ns}|`),
    ];
    const identity: ObjectIdentity = {
      apiVersion,
      kind,
      namespace: obj.metadata.namespace,
      name: obj.metadata.name!,
      labels: obj.metadata.labels,
    };
    for (const b of new Set(candidates)) {
      if (b.metadata.deletionTimestamp) continue;
      try {
        if (matchesDependencies(identity, recordedDependencies(b)))
          enqueue(`${b.metadata.namespace}/${b.metadata.name}`);
      } catch (err) {
        ctx.log.warn("dependencies distributor: unreadable dependencies", {
          namespace: b.metadata.namespace,
          name: b.metadata.name,
          err: (err as Error).message,
        });
      }
    }
  }

  /** The informer of a dependency kind, started (and watched) on first use. */
  function kindOf(apiVersion: string, kind: string): Promise<Kind> {
    const key = `${apiVersion}|${kind}`;
    let p = kinds.get(key);
    if (!p) {
      p = ctx.client.resourceFor(apiVersion, kind).then((ref) => {
        const informer = ctx.informers.informer(ref);
        removers.push(
          informer.addHandler({
            onAdd: (obj) => enqueueDependents(apiVersion, kind, obj),
            onUpdate: (old, obj) => {
              if (!specificationChanged(old, obj)) return;
              if (!jsonEqual(old.metadata.labels, obj.metadata.labels))
                enqueueDependents(apiVersion, kind, old);
              enqueueDependents(apiVersion, kind, obj);
            },
            onDelete: (obj) => enqueueDependents(apiVersion, kind, obj),
          }),
        );
        return { ref, informer };
      });
      // An unknown kind is looked up again next time (a CRD may be installed later).
      p.catch(() => kinds.delete(key));
      kinds.set(key, p);
    }
    return p;
  }

  async function getObject(
    k: Kind,
    namespace: string | undefined,
    name: string,
  ): Promise<StoredObject | undefined> {
    const ns = k.ref.namespaced ? namespace || undefined : undefined;
    const cached = k.informer.hasSynced() ? k.informer.get(ns, name) : undefined;
    if (cached) return cached;
    // A miss may only mean the cache is behind (the object was just created): ask the server.
    try {
      return await ctx.client.get(k.ref, ns, name);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  async function listObjects(
    k: Kind,
    namespace: string | undefined,
    selector: Selector,
  ): Promise<StoredObject[]> {
    const ns = k.ref.namespaced ? namespace || undefined : undefined;
    if (k.informer.hasSynced())
      return k.informer.list(ns).filter((o) => matches(selector, o.metadata.labels ?? {}));
    const list = await ctx.client.list(k.ref, ns, { labelSelector: selectorToString(selector) });
    return list.items.map((o) => ({
      ...o,
      apiVersion: o.apiVersion ?? list.apiVersion,
      kind: o.kind ?? k.ref.kind!,
    }));
  }

  async function templateOf(b: Binding): Promise<StoredObject | undefined> {
    const r = b.spec.resource;
    try {
      const ref = await ctx.client.resourceFor(r.apiVersion, r.kind);
      return await ctx.client.get(ref, r.namespace, r.name);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** Upstream's resolveResourceBindingFromSnapshots: the bindings requiring an attached one. */
  function referencingResolver(independent: Binding): (s: BindingSnapshot) => Binding {
    return (s) => {
      if (sameBinding(s, independent.metadata.namespace, independent.metadata.name!)) return independent;
      const b = rbs.get(s.namespace || undefined, s.name) as Binding | undefined;
      if (!b)
        throw new Error(`resourcebindings.work.karmada.io "${s.name}" not found (required by snapshot)`);
      return b;
    };
  }

  function attachedOf(b: Binding): Binding[] {
    const ns = b.metadata.namespace!;
    const id = b.metadata.labels?.[LABEL.rbPermanentId] ?? "";
    return rbs.byIndex(
      DEPENDED_BY_INDEX,
      `${ns}|${dependedByLabelKey(ns, b.metadata.name!)}=${id}`,
    ) as Binding[];
  }

  /** Takes `independent` out of each attached binding; deletes those nothing requires and no policy claims. */
  async function release(independent: Binding, attached: readonly Binding[]): Promise<void> {
    const errors: string[] = [];
    const resolve = referencingResolver(independent);
    for (const a of attached) {
      if (a.metadata.deletionTimestamp) continue;
      try {
        const { binding, remove } = releaseAttachedBinding(
          a,
          independent.metadata.namespace!,
          independent.metadata.name!,
          resolve,
        );
        if (remove) {
          await ctx.client.delete(KARMADA.resourceBindings, a.metadata.namespace, a.metadata.name!, {
            preconditions: { resourceVersion: a.metadata.resourceVersion! },
          });
        } else if (!jsonEqual(binding, a)) {
          await ctx.client.update(KARMADA.resourceBindings, binding);
        }
      } catch (err) {
        if (!isNotFound(err))
          errors.push(`binding(${a.metadata.namespace}/${a.metadata.name}): ${(err as Error).message}`);
      }
    }
    if (errors.length > 0) throw new Error(errors.join("; "));
  }

  /** Creates or updates one attached binding; "wait" while an old one is still being deleted. */
  async function ensureAttached(
    independent: Binding,
    desired: Binding,
    written: Map<string, Binding>,
  ): Promise<"wait" | undefined> {
    const ns = desired.metadata.namespace!;
    const name = desired.metadata.name!;
    const resolve = referencingResolver(independent);
    let existing = written.get(name) ?? (rbs.get(ns, name) as Binding | undefined);
    if (!existing) {
      const { binding } = mergeAttachedBinding(undefined, desired, resolve);
      try {
        written.set(name, (await ctx.client.create(KARMADA.resourceBindings, binding)) as Binding);
        return undefined;
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
        existing = (await ctx.client.get(KARMADA.resourceBindings, ns, name)) as Binding;
      }
    }
    if (existing.metadata.deletionTimestamp) return "wait";
    const owner = existing.metadata.ownerReferences?.find((o) => o.controller);
    if (owner && owner.uid !== desired.metadata.ownerReferences![0]!.uid) {
      throw new Error(
        `failed to update resourceBinding(${ns}/${name}) due to different owner reference UID, will try again later after binding is garbage collected`,
      );
    }
    const { binding, conflict } = mergeAttachedBinding(existing, desired, resolve);
    if (conflict) events.event(existing, "Warning", "DependencyPolicyConflict", conflict);
    if (!jsonEqual(binding, existing))
      written.set(name, (await ctx.client.update(KARMADA.resourceBindings, binding)) as Binding);
    return undefined;
  }

  /** The dependency objects one reference names or selects (none when a named one does not exist). */
  async function objectsOf(dep: DependentObjectReference): Promise<StoredObject[]> {
    const k = await kindOf(dep.apiVersion, dep.kind);
    if (dep.name) {
      const o = await getObject(k, dep.namespace, dep.name);
      return o ? [o] : [];
    }
    const selector = selectorOf(dep);
    if (!selector)
      throw new Error(
        "the Name and LabelSelector in the DependentObjectReference cannot be empty at the same time",
      );
    return listObjects(k, dep.namespace, selector);
  }

  /** The attached bindings of `independent` none of `deps` names or selects any more. */
  async function orphansOf(
    independent: Binding,
    deps: readonly DependentObjectReference[],
  ): Promise<Binding[]> {
    const out: Binding[] = [];
    for (const a of attachedOf(independent)) {
      const r = a.spec.resource;
      let labels: Record<string, string> | undefined;
      if (needsLabels(r, deps)) {
        const o = await getObject(await kindOf(r.apiVersion, r.kind), r.namespace, r.name);
        labels = o ? (o.metadata.labels ?? {}) : undefined;
      }
      if (isOrphanAttached(r, deps, labels)) out.push(a);
    }
    return out;
  }

  /**
   * Records the dependencies (and the finalizer) on the independent binding; returns it as
   * stored. Other controllers write the binding too while it is young, so a conflict reads
   * the binding afresh and tries again (upstream's RetryOnConflict).
   */
  async function recordDependencies(
    binding: Binding,
    deps: readonly DependentObjectReference[],
  ): Promise<Binding> {
    const value = dependenciesAnnotation(deps);
    let b = binding;
    for (let attempt = 0; ; attempt++) {
      const finalizers = b.metadata.finalizers ?? [];
      const recorded = b.metadata.annotations?.[ANNOTATION.dependencies] === value;
      if (recorded && finalizers.includes(FINALIZER.dependenciesDistributor)) return b;
      const next = structuredClone(b);
      next.metadata.annotations = { ...next.metadata.annotations, [ANNOTATION.dependencies]: value };
      if (!finalizers.includes(FINALIZER.dependenciesDistributor))
        next.metadata.finalizers = [...finalizers, FINALIZER.dependenciesDistributor];
      try {
        return (await ctx.client.update(KARMADA.resourceBindings, next)) as Binding;
      } catch (err) {
        if (!isConflict(err) || attempt >= 4) throw err;
        b = (await ctx.client.get(
          KARMADA.resourceBindings,
          b.metadata.namespace,
          b.metadata.name!,
        )) as Binding;
        // Deleted or no longer propagating meanwhile: the next reconcile takes the cleanup path.
        if (b.metadata.deletionTimestamp || !b.spec.propagateDeps) throw err;
      }
    }
  }

  async function removeFinalizer(b: Binding): Promise<void> {
    const finalizers = b.metadata.finalizers ?? [];
    if (!finalizers.includes(FINALIZER.dependenciesDistributor)) return;
    await ctx.client.patch(KARMADA.resourceBindings, b.metadata.namespace, b.metadata.name!, "json", [
      { op: "test", path: "/metadata/resourceVersion", value: b.metadata.resourceVersion },
      {
        op: "replace",
        path: "/metadata/finalizers",
        value: finalizers.filter((f) => f !== FINALIZER.dependenciesDistributor),
      },
    ]);
  }

  /** Upstream's syncScheduleResultToAttachedBindings. */
  async function syncAttached(
    b: Binding,
    deps: readonly DependentObjectReference[],
  ): Promise<ReconcileResult> {
    await release(b, await orphansOf(b, deps));
    const errors: string[] = [];
    const written = new Map<string, Binding>();
    let wait = false;
    for (const dep of deps) {
      try {
        for (const obj of await objectsOf(dep)) {
          if ((await ensureAttached(b, buildAttachedBinding(b, obj), written)) === "wait") wait = true;
        }
      } catch (err) {
        errors.push((err as Error).message);
      }
    }
    if (errors.length > 0) throw new Error(errors.join("; "));
    // An attached binding of the same name is still being deleted: create it anew once it is gone.
    return wait ? { requeueAfterMs: 1_000 } : undefined;
  }

  async function reconcile(key: string): Promise<ReconcileResult> {
    const { namespace, name } = splitKey(key);
    if (!namespace) return undefined;
    const binding = rbs.get(namespace, name) as Binding | undefined;
    if (!binding) return undefined;

    // propagateDeps turned off, or the binding going away: its attached bindings let go of it.
    if (!binding.spec.propagateDeps || binding.metadata.deletionTimestamp) {
      await release(binding, attachedOf(binding));
      await removeFinalizer(binding);
      return undefined;
    }

    // Gone template: the binding follows it (owner reference); its deletion brings it back here.
    const template = await templateOf(binding);
    if (!template) return undefined;
    let deps: DependentObjectReference[] | undefined;
    try {
      deps = await interpreter.getDependencies(template);
    } catch (err) {
      events.event(template, "Warning", "GetDependenciesFailed", (err as Error).message);
      throw err;
    }
    if (deps === undefined) return undefined;
    events.event(
      template,
      "Normal",
      "GetDependenciesSucceed",
      `Get dependencies(${formatDependencies(deps)}) succeed.`,
    );

    const current = await recordDependencies(binding, deps);
    try {
      const result = await syncAttached(current, deps);
      events.event(
        current,
        "Normal",
        "SyncScheduleResultToDependenciesSucceed",
        "Sync schedule results to dependencies succeed.",
      );
      return result;
    } catch (err) {
      events.event(current, "Warning", "SyncScheduleResultToDependenciesFailed", (err as Error).message);
      throw err;
    }
  }

  return {
    name: DEPENDENCIES_DISTRIBUTOR,
    for: rbs,
    workers: 2,
    // Upstream reacts to generation changes of bindings that propagate (or propagated) dependencies.
    updateFilter: (old, obj) =>
      (old.metadata.generation !== obj.metadata.generation ||
        old.metadata.deletionTimestamp !== obj.metadata.deletionTimestamp) &&
      !!(
        (old.spec as Partial<BindingSpec> | undefined)?.propagateDeps ||
        (obj.spec as Partial<BindingSpec> | undefined)?.propagateDeps
      ),
    start(add) {
      enqueue = add;
    },
    stop() {
      for (const r of removers) r();
    },
    reconcile: (_rctx, key) => reconcile(key),
  };
}
