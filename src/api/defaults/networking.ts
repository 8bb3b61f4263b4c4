/** Defaults of `networking.k8s.io/v1` (kubernetes `pkg/apis/networking/v1/defaults.go`). */

import { ensureObj, type Obj, obj, objs, setDefault } from "../validation/json.ts";

export function defaultIngressClass(ic: Obj): void {
  const params = obj(obj(ic.spec)?.parameters);
  if (params) setDefault(params, "scope", "Cluster");
}

export function defaultNetworkPolicy(np: Obj): void {
  const spec = ensureObj(np, "spec");
  for (const list of ["ingress", "egress"]) {
    for (const rule of objs(spec[list])) for (const p of objs(rule.ports)) setDefault(p, "protocol", "TCP");
  }
  if (!Array.isArray(spec.policyTypes) || spec.policyTypes.length === 0) {
    spec.policyTypes =
      Array.isArray(spec.egress) && spec.egress.length > 0 ? ["Ingress", "Egress"] : ["Ingress"];
  }
}
