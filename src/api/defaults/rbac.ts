/** Defaults of `rbac.authorization.k8s.io/v1` (kubernetes `pkg/apis/rbac/v1/defaults.go`). */

import { ensureObj, type Obj, objs, setDefaultString } from "../validation/json.ts";

export const RBAC_GROUP = "rbac.authorization.k8s.io";

/** RoleBinding and ClusterRoleBinding: roleRef and User/Group subjects live in the RBAC group. */
export function defaultBinding(binding: Obj): void {
  setDefaultString(ensureObj(binding, "roleRef"), "apiGroup", RBAC_GROUP);
  for (const s of objs(binding.subjects)) {
    if (s.kind === "User" || s.kind === "Group") setDefaultString(s, "apiGroup", RBAC_GROUP);
  }
}
