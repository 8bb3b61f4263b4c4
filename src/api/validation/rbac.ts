/** Validation of `rbac.authorization.k8s.io/v1` (kubernetes `pkg/apis/rbac/validation`). */

import { deepEqual } from "../../machinery/equality.ts";
import type { FieldError } from "../../machinery/errors.ts";
import { child, index, invalid, notSupported, required } from "./field.ts";
import { type Obj, obj, objs, str, strs } from "./json.ts";
import { isDNS1123Subdomain, isValidPathSegmentName } from "./names.ts";
import { compileSelector, validateLabelSelector } from "./selectors.ts";

const RBAC_GROUP = "rbac.authorization.k8s.io";

function validatePolicyRule(rule: Obj, namespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (strs(rule.verbs).length === 0)
    errs.push(required(child(path, "verbs"), "verbs must contain at least one value"));
  const urls = strs(rule.nonResourceURLs);
  if (urls.length > 0) {
    if (namespaced)
      errs.push(
        invalid(child(path, "nonResourceURLs"), urls, "namespaced rules cannot apply to non-resource URLs"),
      );
    if (
      strs(rule.apiGroups).length > 0 ||
      strs(rule.resources).length > 0 ||
      strs(rule.resourceNames).length > 0
    ) {
      errs.push(
        invalid(
          child(path, "nonResourceURLs"),
          urls,
          "rules cannot apply to both regular resources and non-resource URLs",
        ),
      );
    }
    return errs;
  }
  if (strs(rule.apiGroups).length === 0) {
    errs.push(required(child(path, "apiGroups"), "resource rules must supply at least one api group"));
  }
  if (strs(rule.resources).length === 0) {
    errs.push(required(child(path, "resources"), "resource rules must supply at least one resource"));
  }
  return errs;
}

export function validateRole(role: Obj, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  objs(role.rules).forEach((r, i) => {
    errs.push(...validatePolicyRule(r, namespaced, index("rules", i)));
  });
  const aggregation = obj(role.aggregationRule);
  if (!namespaced && aggregation) {
    const selectors = objs(aggregation.clusterRoleSelectors);
    if (selectors.length === 0) {
      errs.push(
        required(
          "aggregationRule.clusterRoleSelectors",
          "at least one clusterRoleSelector required if aggregationRule is non-nil",
        ),
      );
    }
    selectors.forEach((sel, i) => {
      const p = index("aggregationRule.clusterRoleSelectors", i);
      errs.push(...validateLabelSelector(sel, p));
      if (compileSelector(sel).kind === "invalid") errs.push(invalid(p, sel, "invalid label selector."));
    });
  }
  return errs;
}

function validateSubject(subject: Obj, namespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(subject.name) ?? "";
  const apiGroup = str(subject.apiGroup) ?? "";
  if (!name) errs.push(required(child(path, "name")));
  switch (subject.kind) {
    case "ServiceAccount":
      if (name) for (const m of isDNS1123Subdomain(name)) errs.push(invalid(child(path, "name"), name, m));
      if (apiGroup) errs.push(notSupported(child(path, "apiGroup"), apiGroup, [""]));
      if (!namespaced && !str(subject.namespace)) errs.push(required(child(path, "namespace")));
      break;
    case "User":
    case "Group":
      if (apiGroup !== RBAC_GROUP) errs.push(notSupported(child(path, "apiGroup"), apiGroup, [RBAC_GROUP]));
      break;
    default:
      errs.push(
        notSupported(child(path, "kind"), str(subject.kind) ?? "", ["ServiceAccount", "User", "Group"]),
      );
  }
  return errs;
}

export function validateBinding(binding: Obj, namespaced: boolean, old?: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const roleRef = obj(binding.roleRef) ?? {};
  const apiGroup = str(roleRef.apiGroup) ?? "";
  if (apiGroup !== RBAC_GROUP) errs.push(notSupported("roleRef.apiGroup", apiGroup, [RBAC_GROUP]));
  const kinds = namespaced ? ["Role", "ClusterRole"] : ["ClusterRole"];
  const kind = str(roleRef.kind) ?? "";
  if (!kinds.includes(kind)) errs.push(notSupported("roleRef.kind", kind, kinds));
  const name = str(roleRef.name) ?? "";
  if (!name) errs.push(required("roleRef.name"));
  else for (const m of isValidPathSegmentName(name)) errs.push(invalid("roleRef.name", name, m));
  objs(binding.subjects).forEach((s, i) => {
    errs.push(...validateSubject(s, namespaced, index("subjects", i)));
  });
  if (old && !deepEqual(roleRef, obj(old.roleRef) ?? {}))
    errs.push(invalid("roleRef", roleRef, "cannot change roleRef"));
  return errs;
}
