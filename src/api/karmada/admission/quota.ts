/**
 * FederatedResourceQuota: a name short enough to be a label value, valid resource lists in
 * spec and status, cluster names that could exist, and static assignments that fit in the
 * overall quota.
 */

import type { FieldError } from "../../../machinery/errors.ts";
import {
  compareQuantities,
  formatQuantity,
  parseQuantity,
  type Quantity,
  sumQuantities,
} from "../../../machinery/quantity.ts";
import type { StoredObject } from "../../meta.ts";
import { child, index, invalid, key } from "../../validation/field.ts";
import { byteLength, type Obj, obj, objs, str } from "../../validation/json.ts";
import { clusterNameErrors } from "./cluster.ts";
import { validateQuotaResourceList } from "./resource-names.ts";

function validateClusterName(name: string, path: string): FieldError[] {
  const msgs = clusterNameErrors(name);
  return msgs.length > 0 ? [invalid(path, name, msgs.join(","))] : [];
}

function validateOverallAndAssignments(spec: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const overall = obj(spec.overall) ?? {};
  const assignments = objs(spec.staticAssignments);
  for (const [name, value] of Object.entries(overall)) {
    const limit = parseQuantity(value);
    if (!limit) continue;
    const assigned = sumQuantities(
      assignments.flatMap((a) => {
        const q = parseQuantity(obj(a.hard)?.[name]);
        return q ? [q] : [];
      }),
    );
    if (compareQuantities(limit, assigned) < 0) {
      errs.push(
        invalid(key("spec.overall", name), formatQuantity(limit), "overall is less than assignments"),
      );
    }
  }
  assignments.forEach((a, i) => {
    for (const name of Object.keys(obj(a.hard) ?? {})) {
      if (!(name in overall)) {
        errs.push(
          invalid(
            key(child(index("spec.staticAssignments", i), "hard"), name),
            name,
            "assignment resourceName is not exist in overall",
          ),
        );
      }
    }
  });
  return errs;
}

export function validateFederatedResourceQuota(quota: StoredObject, _old?: StoredObject): FieldError[] {
  const errs: FieldError[] = [];
  // The name ends up in label values, so it must fit in one.
  const name = quota.metadata.name ?? "";
  if (byteLength(name) > 63) errs.push(invalid("metadata.name", name, "must be no more than 63 characters"));
  const spec = obj(quota.spec) ?? {};
  errs.push(...validateQuotaResourceList(spec.overall, "spec.overall"));
  objs(spec.staticAssignments).forEach((a, i) => {
    const p = index("spec.staticAssignments", i);
    errs.push(...validateClusterName(str(a.clusterName) ?? "", child(p, "clusterName")));
    errs.push(...validateQuotaResourceList(a.hard, child(p, "hard")));
  });
  errs.push(...validateOverallAndAssignments(spec));
  const status = obj(quota.status) ?? {};
  errs.push(...validateQuotaResourceList(status.overall, "status.overall"));
  errs.push(...validateQuotaResourceList(status.overallUsed, "status.overallUsed"));
  objs(status.aggregatedStatus).forEach((s, i) => {
    const p = index("status.aggregatedStatus", i);
    errs.push(...validateClusterName(str(s.clusterName) ?? "", child(p, "clusterName")));
    errs.push(...validateQuotaResourceList(s.hard, child(p, "hard")));
    errs.push(...validateQuotaResourceList(s.used, child(p, "used")));
  });
  return errs;
}
