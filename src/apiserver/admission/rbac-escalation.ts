/**
 * RBAC's privilege-escalation prevention, as kube-apiserver's RBAC storage does it: nobody
 * writes a Role or ClusterRole granting more than they hold themselves unless they may
 * `escalate`, and nobody binds a role whose rules they do not hold unless they may `bind`
 * it. `system:masters` is exempt. Only a change to what is granted (rules, aggregation,
 * roleRef, subjects) is checked; other updates (labels, owners, finalizers) are not.
 */
import { isObject, type StoredObject } from "../../api/meta.ts";
import { deepEqual } from "../../machinery/equality.ts";
import { forbidden, notFound } from "../../machinery/errors.ts";
import { type Authorizer, EVERYTHING, isMaster } from "../authz/authorizer.ts";
import type { RbacIndex } from "../authz/rbac.ts";
import { compactMissingRules, type PolicyRule, rulesOf, uncoveredRules } from "../authz/rules.ts";
import type { AdmissionPlugin, RequestContext } from "../context.ts";

const GROUP = "rbac.authorization.k8s.io";

const forbiddenOn = (plural: string, name: string, message: string) =>
  forbidden({ group: GROUP, resource: plural }, name, message);

function escalationMessage(ctx: RequestContext, missing: PolicyRule[], errors: string[]): string {
  const groups = `[${ctx.user.groups.map((g) => JSON.stringify(g)).join(" ")}]`;
  let text = `user ${JSON.stringify(ctx.user.name)} (groups=${groups}) is attempting to grant RBAC permissions not currently held:\n${compactMissingRules(missing).join("\n")}`;
  if (errors.length > 0) text += `; resolution errors: [${errors.join(" ")}]`;
  return text;
}

const same = (a: unknown, b: unknown) => deepEqual(a ?? null, b ?? null);

export function rbacEscalationAdmission(authorizer: Authorizer, index: RbacIndex): AdmissionPlugin {
  const allowed = (ctx: RequestContext, verb: string, resource: string, namespace: string, name: string) =>
    authorizer.authorize({
      kind: "resource",
      user: ctx.user,
      verb,
      apiGroup: GROUP,
      apiVersion: "*",
      resource,
      subresource: "",
      namespace,
      name,
    }).allowed;

  const checkRole = (
    obj: StoredObject,
    old: StoredObject | undefined,
    ctx: RequestContext,
    plural: string,
  ) => {
    if (old && same(old.rules, obj.rules) && same(old.aggregationRule, obj.aggregationRule)) return;
    const namespace = obj.metadata.namespace ?? "";
    const name = obj.metadata.name ?? "";
    if (allowed(ctx, "escalate", plural, namespace, name)) return;
    const { rules: held, errors } = authorizer.rulesFor(ctx.user, namespace);
    const aggregates = isObject(obj.aggregationRule) || (old !== undefined && isObject(old.aggregationRule));
    if (aggregates) {
      if (uncoveredRules(held, EVERYTHING).length > 0) {
        throw forbiddenOn(plural, name, "must have cluster-admin privileges to use the aggregationRule");
      }
      return;
    }
    const missing = uncoveredRules(held, rulesOf(obj));
    if (missing.length > 0) throw forbiddenOn(plural, name, escalationMessage(ctx, missing, errors));
  };

  const checkBinding = (
    obj: StoredObject,
    old: StoredObject | undefined,
    ctx: RequestContext,
    plural: string,
  ) => {
    if (old && same(old.roleRef, obj.roleRef) && same(old.subjects, obj.subjects)) return;
    const ref = isObject(obj.roleRef) ? obj.roleRef : {};
    const kind = ref.kind === "Role" ? "Role" : "ClusterRole";
    const roleName = String(ref.name ?? "");
    const namespace = obj.metadata.namespace ?? "";
    const roleResource = kind === "Role" ? "roles" : "clusterroles";
    if (allowed(ctx, "bind", roleResource, namespace, roleName)) return;
    const roleRules = index.roleRules(kind, namespace, roleName);
    if (!roleRules) throw notFound({ group: GROUP, resource: roleResource }, roleName);
    const { rules: held, errors } = authorizer.rulesFor(ctx.user, namespace);
    const missing = uncoveredRules(held, roleRules);
    if (missing.length > 0)
      throw forbiddenOn(plural, obj.metadata.name ?? "", escalationMessage(ctx, missing, errors));
  };

  return {
    name: "RBACEscalation",
    handles: (rt) => rt.group === GROUP,
    validate(obj, old, op, ctx) {
      if (op === "DELETE" || isMaster(ctx.user)) return [];
      switch (obj.kind) {
        case "Role":
          checkRole(obj, old, ctx, "roles");
          break;
        case "ClusterRole":
          checkRole(obj, old, ctx, "clusterroles");
          break;
        case "RoleBinding":
          checkBinding(obj, old, ctx, "rolebindings");
          break;
        case "ClusterRoleBinding":
          checkBinding(obj, old, ctx, "clusterrolebindings");
          break;
      }
      return [];
    },
  };
}
