/**
 * ResourceBinding and ClusterResourceBinding: a permanent id stamped on create, and the
 * ResourceBinding checks of its validating webhook (the dependencies annotation must decode,
 * component names must be present and unique). Quota enforcement is `quota-enforcement.ts`.
 */

import type { FieldError } from "../../../machinery/errors.ts";
import type { StoredObject } from "../../meta.ts";
import { child, index, invalid } from "../../validation/field.ts";
import { isObj, obj, objs, str } from "../../validation/json.ts";
import { type AdmissionFeatures, DEFAULT_FEATURES, type MutationContext } from "./context.ts";

export const RESOURCE_BINDING_PERMANENT_ID = "resourcebinding.karmada.io/permanent-id";
export const CLUSTER_RESOURCE_BINDING_PERMANENT_ID = "clusterresourcebinding.karmada.io/permanent-id";
export const DEPENDENCIES_ANNOTATION = "resourcebinding.karmada.io/dependencies";

/** Sets `label` to a fresh id unless it already has a value. */
export function ensurePermanentId(obj: StoredObject, label: string, ctx: MutationContext): void {
  if (obj.metadata.labels?.[label]) return;
  obj.metadata.labels = { ...obj.metadata.labels, [label]: ctx.newUid() };
}

/** Upstream mutates bindings on CREATE only. */
export function mutateResourceBinding(
  rb: StoredObject,
  old: StoredObject | undefined,
  ctx: MutationContext,
): void {
  if (old === undefined) ensurePermanentId(rb, RESOURCE_BINDING_PERMANENT_ID, ctx);
}

export function mutateClusterResourceBinding(
  crb: StoredObject,
  old: StoredObject | undefined,
  ctx: MutationContext,
): void {
  if (old === undefined) ensurePermanentId(crb, CLUSTER_RESOURCE_BINDING_PERMANENT_ID, ctx);
}

const isNullOr = (v: unknown, check: (x: unknown) => boolean): boolean =>
  v === null || v === undefined || check(v);
const isString = (v: unknown): boolean => typeof v === "string";
const isStringList = (v: unknown): boolean => Array.isArray(v) && v.every((x) => isNullOr(x, isString));

function isLabelSelectorShape(v: unknown): boolean {
  if (!isObj(v)) return false;
  const labels = v.matchLabels;
  if (!isNullOr(labels, (m) => isObj(m) && Object.values(m).every((x) => isNullOr(x, isString))))
    return false;
  return isNullOr(
    v.matchExpressions,
    (list) =>
      Array.isArray(list) &&
      list.every((e) =>
        isNullOr(
          e,
          (x) =>
            isObj(x) &&
            isNullOr(x.key, isString) &&
            isNullOr(x.operator, isString) &&
            isNullOr(x.values, isStringList),
        ),
      ),
  );
}

function isDependencyShape(v: unknown): boolean {
  if (!isObj(v)) return false;
  return (
    ["apiVersion", "kind", "namespace", "name"].every((f) => isNullOr(v[f], isString)) &&
    isNullOr(v.labelSelector, isLabelSelectorShape)
  );
}

/** Whether Go could decode the text into `[]DependentObjectReference`. */
export function decodesAsDependencies(text: string): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return false;
  }
  return isNullOr(parsed, (list) => Array.isArray(list) && list.every((e) => isNullOr(e, isDependencyShape)));
}

function validateComponents(components: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  objs(components).forEach((c, i) => {
    const name = str(c.name) ?? "";
    const p = child(index(path, i), "name");
    if (!name) errs.push(invalid(p, name, "component names must be non-empty"));
    else if (seen.has(name)) errs.push(invalid(p, name, "component names must be unique"));
    else seen.add(name);
  });
  return errs;
}

export function validateResourceBinding(
  rb: StoredObject,
  _old?: StoredObject,
  features: AdmissionFeatures = DEFAULT_FEATURES,
): FieldError[] {
  const dependencies = rb.metadata.annotations?.[DEPENDENCIES_ANNOTATION];
  if (dependencies !== undefined && !decodesAsDependencies(dependencies)) {
    // Upstream stops at the first failing check.
    return [
      invalid(
        child("metadata.annotations", DEPENDENCIES_ANNOTATION),
        dependencies,
        "annotation value must be a valid JSON",
      ),
    ];
  }
  if (features.MultiplePodTemplatesScheduling)
    return validateComponents(obj(rb.spec)?.components, "spec.components");
  return [];
}
