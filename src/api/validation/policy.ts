/** Spec validation of `policy/v1` PodDisruptionBudget. */

import type { FieldError } from "../../machinery/errors.ts";
import { isNotMoreThan100Percent, validateIntOrPercent } from "./apps.ts";
import { invalid, notSupported } from "./field.ts";
import { type Obj, obj } from "./json.ts";
import { validateLabelSelector } from "./selectors.ts";

const EVICTION_POLICIES = ["AlwaysAllow", "IfHealthyBudget"];

export function validatePodDisruptionBudget(pdb: Obj): FieldError[] {
  const s = obj(pdb.spec) ?? {};
  const errs: FieldError[] = [];
  if (s.minAvailable != null && s.maxUnavailable != null) {
    errs.push(invalid("spec", s, "minAvailable and maxUnavailable cannot be both set"));
  }
  for (const f of ["minAvailable", "maxUnavailable"]) {
    if (s[f] == null) continue;
    errs.push(...validateIntOrPercent(s[f], `spec.${f}`));
    errs.push(...isNotMoreThan100Percent(s[f], `spec.${f}`));
  }
  errs.push(...validateLabelSelector(s.selector, "spec.selector"));
  const policy = s.unhealthyPodEvictionPolicy;
  if (policy != null && !EVICTION_POLICIES.includes(String(policy))) {
    errs.push(notSupported("spec.unhealthyPodEvictionPolicy", policy, EVICTION_POLICIES));
  }
  return errs;
}
