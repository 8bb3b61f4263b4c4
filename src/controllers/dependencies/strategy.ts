/**
 * The strategy of an attached binding that exists only for its dependents (pure): its
 * `conflictResolution` and `preserveResourcesOnDeletion` follow every binding requiring it
 * (any Overwrite wins, any true wins), and a disagreement is reported as upstream words it.
 * An attached binding a policy claims keeps its own strategy.
 */
import type { NewObject } from "../../api/meta.ts";
import type { Binding, NewBinding } from "../../karmada/bindings.ts";
import { LABEL } from "../../karmada/names.ts";
import type { BindingSpec } from "../../karmada/types.ts";

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
export function generatedByDependencies(b: NewObject & { spec?: Partial<BindingSpec> }): boolean {
  const labels = b.metadata.labels ?? {};
  return (
    b.spec?.placement === undefined &&
    !labels[LABEL.ppPermanentId] &&
    !labels[LABEL.cppPermanentId] &&
    !labels[LABEL.managedBy]
  );
}

/** Sets (or clears) the strategy fields of a dependency-generated binding from the bindings requiring it. */
export function applyStrategy(
  b: NewBinding,
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
