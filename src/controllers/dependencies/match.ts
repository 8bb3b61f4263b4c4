/**
 * Which objects are a binding's dependencies (pure): those a reference names, or whose labels
 * its selector matches. An attached binding whose object none of them names or selects any
 * more is an orphan, to be released.
 */
import type { DependentObjectReference } from "../../interpreter/types.ts";
import type { BindingSpec } from "../../karmada/types.ts";
import { fromLabelSelector, type LabelSelector, matches, type Selector } from "../../machinery/labels.ts";

/** Upstream's `LabelSelectorAsSelector`: an absent selector selects nothing, an empty one everything. */
export function selectorOf(dep: DependentObjectReference): Selector | undefined {
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
