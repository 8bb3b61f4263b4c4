/**
 * OverridePolicy and ClusterOverridePolicy. Only the OverridePolicy has a mutating webhook
 * (selector namespaces); both share the spec rules.
 */

import type { FieldError } from "../../../machinery/errors.ts";
import type { StoredObject } from "../../meta.ts";
import { child, index, invalid, required } from "../../validation/field.ts";
import { arr, type Obj, obj, objs, str } from "../../validation/json.ts";
import type { MutationContext } from "./context.ts";
import { jsonPointerError, validateAnnotationMap, validateLabelMap } from "./formats.ts";
import {
  defaultSelectorNamespaces,
  validateClusterAffinity,
  validateSelectorNamespaces,
} from "./placement.ts";

export function mutateOverridePolicy(
  policy: StoredObject,
  _old: StoredObject | undefined,
  _ctx: MutationContext,
): void {
  defaultSelectorNamespaces(obj(policy.spec)?.resourceSelectors, policy.metadata.namespace ?? "");
}

/** The legacy `overriders` count as set when any list but fieldOverrider is non-empty (upstream ignores that one). */
function hasLegacyOverriders(overriders: Obj | undefined): boolean {
  if (!overriders) return false;
  return [
    "plaintext",
    "imageOverrider",
    "commandOverrider",
    "argsOverrider",
    "labelsOverrider",
    "annotationsOverrider",
  ].some((k) => (arr(overriders[k])?.length ?? 0) > 0);
}

function validatePatchOperations(ops: Obj[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  ops.forEach((op, i) => {
    const p = index(path, i);
    const subPath = str(op.subPath) ?? "";
    const why = jsonPointerError(subPath);
    if (why) errs.push(invalid(child(p, "subPath"), subPath, why));
    const hasValue = op.value !== undefined;
    if ((op.operator === "add" || op.operator === "replace") && !hasValue) {
      errs.push(invalid(child(p, "value"), null, "value is required for add or replace operation"));
    }
    if (op.operator === "remove" && hasValue) {
      errs.push(invalid(child(p, "value"), op.value, "value is not allowed for remove operation"));
    }
  });
  return errs;
}

function validateFieldOverrider(fo: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const json = objs(fo.json);
  const yaml = objs(fo.yaml);
  if (json.length > 0 && yaml.length > 0) {
    errs.push(invalid(path, fo, "FieldOverrider has both YAML and JSON set. Only one is allowed"));
  }
  if (json.length === 0 && yaml.length === 0)
    errs.push(required(path, "FieldOverrider must have either JSON or YAML set"));
  const fieldPath = str(fo.fieldPath) ?? "";
  const why = jsonPointerError(fieldPath);
  if (why) errs.push(invalid(child(path, "fieldPath"), fieldPath, why));
  errs.push(...validatePatchOperations(json, child(path, "json")));
  errs.push(...validatePatchOperations(yaml, child(path, "yaml")));
  return errs;
}

function validateRule(rule: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const overriders = obj(rule.overriders) ?? {};
  const op = child(path, "overriders");
  objs(overriders.annotationsOverrider).forEach((o, i) => {
    errs.push(...validateAnnotationMap(o.value, child(index(child(op, "annotationsOverrider"), i), "value")));
  });
  objs(overriders.labelsOverrider).forEach((o, i) => {
    errs.push(...validateLabelMap(o.value, child(index(child(op, "labelsOverrider"), i), "value")));
  });
  objs(overriders.imageOverrider).forEach((o, i) => {
    const predicate = obj(o.predicate);
    if (!predicate) return;
    const p = str(predicate.path) ?? "";
    const why = jsonPointerError(p);
    if (why) errs.push(invalid(child(index(child(op, "imageOverrider"), i), "predicate", "path"), p, why));
  });
  objs(overriders.fieldOverrider).forEach((fo, i) => {
    errs.push(...validateFieldOverrider(fo, index(child(op, "fieldOverrider"), i)));
  });
  errs.push(...validateClusterAffinity(obj(rule.targetCluster), child(path, "targetCluster")));
  return errs;
}

/** The spec rules of both kinds; `policyNamespace` is empty for a ClusterOverridePolicy. */
export function validateOverrideSpec(spec: Obj, policyNamespace: string): FieldError[] {
  const errs: FieldError[] = [];
  const targetCluster = obj(spec.targetCluster);
  const rulesSet = spec.overrideRules != null;
  if (targetCluster) errs.push(...validateClusterAffinity(targetCluster, "spec.targetCluster"));
  if (targetCluster && rulesSet) {
    errs.push(invalid("spec.targetCluster", targetCluster, "overrideRules and targetCluster can't co-exist"));
  }
  if (hasLegacyOverriders(obj(spec.overriders)) && rulesSet) {
    errs.push(invalid("spec.overriders", spec.overriders, "overrideRules and overriders can't co-exist"));
  }
  objs(spec.overrideRules).forEach((rule, i) => {
    errs.push(...validateRule(rule, index("spec.overrideRules", i)));
  });
  errs.push(...validateSelectorNamespaces(spec.resourceSelectors, policyNamespace, "spec.resourceSelectors"));
  return errs;
}

export function validateOverridePolicy(policy: StoredObject, _old?: StoredObject): FieldError[] {
  return validateOverrideSpec(obj(policy.spec) ?? {}, policy.metadata.namespace ?? "");
}

export function validateClusterOverridePolicy(policy: StoredObject, _old?: StoredObject): FieldError[] {
  return validateOverrideSpec(obj(policy.spec) ?? {}, "");
}
