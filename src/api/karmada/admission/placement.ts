/**
 * The checks PropagationPolicy and OverridePolicy share: cluster affinities (field selectors
 * only know provider, region and zone), placements, and resource selectors that must stay in
 * the policy's namespace.
 */

import type { FieldError } from "../../../machinery/errors.ts";
import { child, index, invalid, notSupported } from "../../validation/field.ts";
import { arr, type Obj, obj, objs, str, strs } from "../../validation/json.ts";
import { isLabelKey } from "./formats.ts";

const FIELD_SELECTOR_KEYS = ["provider", "region", "zone"];

/** The first problem of a cluster field selector, as upstream reports only one. */
export function fieldSelectorError(fieldSelector: unknown): string | undefined {
  for (const expr of objs(obj(fieldSelector)?.matchExpressions)) {
    const key = str(expr.key) ?? "";
    if (!FIELD_SELECTOR_KEYS.includes(key)) {
      return `unsupported key ${JSON.stringify(key)}, must be provider, region, or zone`;
    }
    const op = str(expr.operator) ?? "";
    if (op !== "In" && op !== "NotIn")
      return `unsupported operator ${JSON.stringify(op)}, must be In or NotIn`;
  }
  return undefined;
}

/** ClusterAffinity, or the fields of a term or overflow group that embeds one. */
export function validateClusterAffinity(affinity: Obj | undefined, path: string): FieldError[] {
  if (!affinity) return [];
  const why = fieldSelectorError(affinity.fieldSelector);
  return why ? [invalid(child(path, "fieldSelector"), affinity.fieldSelector ?? null, why)] : [];
}

function isEmptyClusterAffinity(affinity: Obj): boolean {
  return (
    affinity.labelSelector == null &&
    affinity.fieldSelector == null &&
    strs(affinity.clusterNames).length === 0 &&
    strs(affinity.exclude).length === 0
  );
}

/** Overflow groups need Divided scheduling that packs (Aggregated) or weighs by live capacity. */
function overflowSchedulingAllowed(replicaScheduling: Obj | undefined): boolean {
  if (replicaScheduling?.replicaSchedulingType !== "Divided") return false;
  switch (replicaScheduling.replicaDivisionPreference) {
    case "Aggregated":
      return true;
    case "Weighted":
      return !!str(obj(replicaScheduling.weightPreference)?.dynamicWeight);
    default:
      return false;
  }
}

function validateOverflowAffinities(term: Obj, path: string): FieldError[] {
  const overflows = arr(term.overflowAffinities);
  if (overflows === undefined) return [];
  const errs: FieldError[] = [];
  const overflowPath = child(path, "overflowAffinities");
  if (isEmptyClusterAffinity(term)) {
    errs.push(
      invalid(
        overflowPath,
        overflows,
        "overflowAffinities can only be used together with the inline ClusterAffinity",
      ),
    );
  }
  const names = new Set([str(term.affinityName) ?? ""]);
  objs(overflows).forEach((overflow, i) => {
    const p = index(overflowPath, i);
    const name = str(overflow.affinityName) ?? "";
    for (const m of isLabelKey(name)) errs.push(invalid(child(p, "affinityName"), name, m));
    if (names.has(name)) {
      errs.push(
        invalid(
          child(p, "affinityName"),
          name,
          "overflow affinity name must be unique and must not duplicate the primary group's affinityName",
        ),
      );
    } else {
      names.add(name);
    }
    errs.push(...validateClusterAffinity(overflow, p));
  });
  return errs;
}

function validateClusterAffinities(terms: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  const list = objs(terms);
  list.forEach((term, i) => {
    const p = index(path, i);
    const name = str(term.affinityName) ?? "";
    for (const m of isLabelKey(name)) errs.push(invalid(p, name, m));
    if (seen.has(name))
      errs.push(invalid(path, list, "each affinity term in a policy must have a unique name"));
    else seen.add(name);
    errs.push(...validateClusterAffinity(term, p));
    errs.push(...validateOverflowAffinities(term, p));
  });
  return errs;
}

/** At most one constraint per spreadByField, and a `cluster` one whenever any field is used. */
function validateSpreadConstraints(constraints: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const list = objs(constraints);
  // Upstream reports a repeated field once, at its second occurrence.
  const occurrences = new Map<string, number>();
  list.forEach((c, i) => {
    const p = index(path, i);
    const byField = str(c.spreadByField) ?? "";
    const minGroups = typeof c.minGroups === "number" ? c.minGroups : 0;
    const maxGroups = typeof c.maxGroups === "number" ? c.maxGroups : 0;
    if (byField && str(c.spreadByLabel))
      errs.push(invalid(p, c, "spreadByLabel should not co-exist with spreadByField"));
    if (minGroups < 0) errs.push(invalid(p, c, "minGroups lower than 0 is not allowed"));
    if (maxGroups < 0) errs.push(invalid(p, c, "maxGroups lower than 0 is not allowed"));
    if (maxGroups > 0 && maxGroups < minGroups)
      errs.push(invalid(p, c, "maxGroups lower than minGroups is not allowed"));
    if (byField) {
      const n = (occurrences.get(byField) ?? 0) + 1;
      occurrences.set(byField, n);
      if (n === 2) errs.push(invalid(path, list, `multiple ${byField} spread constraints are not allowed`));
    }
  });
  if (occurrences.size > 0 && !occurrences.has("cluster")) {
    errs.push(
      invalid(
        path,
        list,
        "the cluster spread constraint must be enabled in one of the constraints in case of SpreadByField is enabled",
      ),
    );
  }
  return errs;
}

function validateWorkloadAffinity(workloadAffinity: Obj | undefined, path: string): FieldError[] {
  if (!workloadAffinity) return [];
  const errs: FieldError[] = [];
  const affinity = obj(workloadAffinity.affinity);
  const antiAffinity = obj(workloadAffinity.antiAffinity);
  for (const [name, term] of [
    ["affinity", affinity],
    ["antiAffinity", antiAffinity],
  ] as const) {
    if (!term) continue;
    const key = str(term.groupByLabelKey) ?? "";
    for (const m of isLabelKey(key)) errs.push(invalid(child(path, name, "groupByLabelKey"), key, m));
  }
  if (
    affinity &&
    antiAffinity &&
    (str(affinity.groupByLabelKey) ?? "") === (str(antiAffinity.groupByLabelKey) ?? "")
  ) {
    errs.push(
      invalid(path, workloadAffinity, "affinity and antiAffinity must not use the same groupByLabelKey"),
    );
  }
  return errs;
}

/** Lt and Gt compare node values; clusters have no such semantics, so only the classic operators pass. */
function validateClusterTolerations(tolerations: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  objs(tolerations).forEach((t, i) => {
    if (t.operator === "Lt" || t.operator === "Gt") {
      errs.push(notSupported(child(index(path, i), "operator"), t.operator, ["", "Exists", "Equal"]));
    }
  });
  return errs;
}

export function validatePlacement(placement: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (placement.clusterAffinity != null && placement.clusterAffinities != null) {
    errs.push(invalid(path, placement, "clusterAffinities cannot co-exist with clusterAffinity"));
  }
  const overflowAllowed = overflowSchedulingAllowed(obj(placement.replicaScheduling));
  objs(placement.clusterAffinities).forEach((term, i) => {
    if (term.overflowAffinities != null && !overflowAllowed) {
      errs.push(
        invalid(
          child(index(child(path, "clusterAffinities"), i), "overflowAffinities"),
          term.overflowAffinities,
          "overflowAffinities can only be used together with dynamic weight or aggregated scheduling",
        ),
      );
    }
  });
  errs.push(...validateClusterAffinity(obj(placement.clusterAffinity), child(path, "clusterAffinity")));
  errs.push(...validateClusterAffinities(placement.clusterAffinities, child(path, "clusterAffinities")));
  errs.push(...validateSpreadConstraints(placement.spreadConstraints, child(path, "spreadConstraints")));
  errs.push(...validateWorkloadAffinity(obj(placement.workloadAffinity), child(path, "workloadAffinity")));
  errs.push(...validateClusterTolerations(placement.clusterTolerations, child(path, "clusterTolerations")));
  return errs;
}

/** Namespaced policies select only in their own namespace (a cluster-wide policy has none to check). */
export function validateSelectorNamespaces(
  selectors: unknown,
  policyNamespace: string,
  path: string,
): FieldError[] {
  if (!policyNamespace) return [];
  const errs: FieldError[] = [];
  objs(selectors).forEach((sel, i) => {
    const ns = str(sel.namespace) ?? "";
    if (ns !== policyNamespace) {
      errs.push(
        invalid(
          child(index(path, i), "namespace"),
          ns,
          "namespace of resource selector must be the same as the namespace of the policy",
        ),
      );
    }
  });
  return errs;
}

/** Fills an empty selector namespace with the policy's own, as the PP and OP mutating webhooks do. */
export function defaultSelectorNamespaces(selectors: unknown, namespace: string): void {
  for (const sel of arr(selectors) ?? []) {
    const s = obj(sel);
    if (s && !str(s.namespace)) s.namespace = namespace;
  }
}
