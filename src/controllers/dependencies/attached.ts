/**
 * The attached binding (pure): the ResourceBinding a dependency object gets, named after the
 * object and owned by it, whose `spec.requiredBy` keeps one snapshot (name and scheduled
 * clusters) per independent binding requiring it, each also marked by a depended-by label.
 * Merging adds or refreshes one binding's snapshot; releasing takes one out, and tells when
 * nothing requires the attached binding any more.
 */
import type { NewObject, StoredObject } from "../../api/meta.ts";
import type { Binding, NewBinding } from "../../karmada/bindings.ts";
import {
  bindingName,
  bindingReferenceKey,
  DEPENDED_BY_LABEL_PREFIX,
  FINALIZER,
  LABEL,
} from "../../karmada/names.ts";
import type { BindingSpec } from "../../karmada/types.ts";
import { cloneJson } from "../../machinery/merge-patch.ts";
import { applyStrategy, generatedByDependencies, policyConflictMessage } from "./strategy.ts";
export type BindingSnapshot = NonNullable<BindingSpec["requiredBy"]>[number];

/** `resourcebinding.karmada.io/depended-by-<key>` of a depending binding. */
export function dependedByLabelKey(namespace: string, name: string): string {
  return DEPENDED_BY_LABEL_PREFIX + bindingReferenceKey(name, namespace);
}

/** The attached binding a dependency object gets from one independent binding (upstream's buildAttachedBinding). */
export function buildAttachedBinding(independent: Binding, object: StoredObject): NewBinding {
  const ns = independent.metadata.namespace!;
  const snapshot: BindingSnapshot = {
    namespace: ns,
    name: independent.metadata.name,
    ...(independent.spec.clusters?.length ? { clusters: cloneJson(independent.spec.clusters) } : {}),
  };
  return {
    apiVersion: "work.karmada.io/v1alpha2",
    kind: "ResourceBinding",
    metadata: {
      name: bindingName(object.kind, object.metadata.name),
      namespace: ns,
      labels: {
        [dependedByLabelKey(ns, independent.metadata.name)]:
          independent.metadata.labels?.[LABEL.rbPermanentId] ?? "",
      },
      ownerReferences: [
        {
          apiVersion: object.apiVersion,
          kind: object.kind,
          name: object.metadata.name,
          uid: object.metadata.uid,
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
        name: object.metadata.name,
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

/** Whether a snapshot is the one of binding `namespace/name`. */
export const sameBinding = (s: BindingSnapshot, namespace: string | undefined, name: string): boolean =>
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

export interface AttachedUpdate {
  binding: NewBinding;
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
  desired: NewBinding,
  referencing: (s: BindingSnapshot) => Binding,
): AttachedUpdate {
  const next = cloneJson(existing ?? desired);
  const requiredBy = mergeBindingSnapshot(existing?.spec.requiredBy ?? [], desired.spec.requiredBy ?? []);
  let conflict: string | undefined;
  if (generatedByDependencies(next)) {
    const flags = applyStrategy(next, requiredBy.map(referencing));
    conflict = policyConflictMessage(flags.crConflicted, flags.preserveConflicted);
  }
  if (requiredBy.length > 0) next.spec.requiredBy = requiredBy;
  else delete next.spec.requiredBy;
  next.metadata.labels = { ...next.metadata.labels, ...desired.metadata.labels };
  next.spec.resource = cloneJson(desired.spec.resource);
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
  const next = cloneJson(attached);
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
