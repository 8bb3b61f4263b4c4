/**
 * ClusterTaintPolicy: NoExecute taints evict workloads, so they are refused unless the
 * operator allowed them (karmada-webhook's `--allow-no-execute-taint-policy`, default false);
 * a key and effect may appear once.
 */

import type { FieldError } from "../../../machinery/errors.ts";
import type { StoredObject } from "../../meta.ts";
import { duplicate, forbidden, index } from "../../validation/field.ts";
import { obj, objs, str } from "../../validation/json.ts";

export interface ClusterTaintPolicyOptions {
  allowNoExecuteTaintPolicy: boolean;
}

export function validateClusterTaintPolicy(
  policy: StoredObject,
  _old?: StoredObject,
  opts: ClusterTaintPolicyOptions = { allowNoExecuteTaintPolicy: false },
): FieldError[] {
  const errs: FieldError[] = [];
  const taints = objs(obj(policy.spec)?.taints);
  taints.forEach((t, i) => {
    const p = index("spec.taints", i);
    const key = str(t.key) ?? "";
    const effect = str(t.effect) ?? "";
    if (!opts.allowNoExecuteTaintPolicy && effect === "NoExecute") {
      errs.push(
        forbidden(
          p,
          "Configuring taint with NoExecute effect is not allowed, this capability must be explicitly enabled by administrators through command-line flags",
        ),
      );
    }
    const repeated = taints
      .slice(i + 1)
      .some((o) => (str(o.key) ?? "") === key && (str(o.effect) ?? "") === effect);
    if (repeated) {
      errs.push(
        duplicate(p, `Duplicate taint with the same key(${key}) and effect(${effect}) is not allowed`),
      );
    }
  });
  return errs;
}
