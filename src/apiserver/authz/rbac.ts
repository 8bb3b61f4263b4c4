/**
 * The RBAC authorizer's index: every Role, ClusterRole, RoleBinding and ClusterRoleBinding,
 * with bindings indexed by subject (and RoleBindings by namespace first), so that a request
 * looks up only the bindings naming its user or one of its groups in its namespace and
 * cluster-wide, never every binding. The index is fed from the store (a list, then a watch
 * per kind) by `followRbac`, and is read synchronously.
 */
import type { NewObject, StoredObject } from "../../api/meta.ts";
import { serviceAccountUsername } from "../authn/service-account.ts";
import type { ServerContext, UserInfo } from "../context.ts";
import { followKeys } from "../controllers/follow.ts";
import { type Attributes, type Decision, type PolicyRule, ruleAllows, rulesOf } from "./rules.ts";

export const RBAC_GROUP = "rbac.authorization.k8s.io";

interface Binding {
  /** `RoleBinding "name/namespace"` or `ClusterRoleBinding "name"`, for reasons. */
  describe: string;
  namespace: string | undefined;
  roleRef: { kind: "Role" | "ClusterRole"; name: string };
  subjectKeys: string[];
  /** Subject key → how the subject is shown in a reason (`User "x"`). */
  subjectNames: Map<string, string>;
}

const userKey = (name: string) => `u:${name}`;
const groupKey = (name: string) => `g:${name}`;

/** The subject keys a user matches: its name and each of its groups. */
function keysOf(user: UserInfo): string[] {
  return [userKey(user.name), ...user.groups.map(groupKey)];
}

function addTo<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  let set = map.get(key);
  if (!set) {
    set = new Set();
    map.set(key, set);
  }
  set.add(value);
}

function removeFrom<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(value);
  if (set.size === 0) map.delete(key);
}

/**
 * A binding subject's index key and how a reason names it; a ServiceAccount without a namespace
 * is in the binding's. Unknown kinds, and a namespace-less ServiceAccount in a cluster binding,
 * bind nobody.
 */
function parseSubject(s: unknown, namespace: string | undefined): { key: string; shown: string } | undefined {
  if (typeof s !== "object" || s === null) return undefined;
  const { kind, name, namespace: ns } = s as { kind?: unknown; name?: unknown; namespace?: unknown };
  if (typeof name !== "string") return undefined;
  if (kind === "User") return { key: userKey(name), shown: `User "${name}"` };
  if (kind === "Group") return { key: groupKey(name), shown: `Group "${name}"` };
  if (kind !== "ServiceAccount") return undefined;
  const saNamespace = typeof ns === "string" && ns !== "" ? ns : namespace;
  if (!saNamespace) return undefined;
  return {
    key: userKey(serviceAccountUsername(saNamespace, name)),
    shown: `ServiceAccount "${name}/${saNamespace}"`,
  };
}

function parseBinding(obj: NewObject, namespace: string | undefined): Binding | undefined {
  const ref = obj.roleRef as { kind?: unknown; name?: unknown } | undefined;
  if (!ref || (ref.kind !== "Role" && ref.kind !== "ClusterRole") || typeof ref.name !== "string")
    return undefined;
  const subjectKeys: string[] = [];
  const subjectNames = new Map<string, string>();
  for (const s of Array.isArray(obj.subjects) ? obj.subjects : []) {
    const subject = parseSubject(s, namespace);
    if (!subject) continue;
    subjectKeys.push(subject.key);
    if (!subjectNames.has(subject.key)) subjectNames.set(subject.key, subject.shown);
  }
  const name = obj.metadata.name ?? "";
  return {
    describe: namespace ? `RoleBinding "${name}/${namespace}"` : `ClusterRoleBinding "${name}"`,
    namespace,
    roleRef: { kind: ref.kind, name: ref.name },
    subjectKeys,
    subjectNames,
  };
}

/** Why nothing was allowed, as kube-apiserver's RBAC says it: the missing roles, once each. */
function resolutionReason(errors: readonly string[]): string {
  const unique = [...new Set(errors)];
  if (unique.length === 0) return "";
  return unique.length === 1 ? `RBAC: ${unique[0]}` : `RBAC: [${unique.join(", ")}]`;
}

export class RbacIndex {
  #roles = new Map<string, PolicyRule[]>();
  #clusterRoles = new Map<string, PolicyRule[]>();
  #bindings = new Map<string, Binding>();
  #clusterBindings = new Map<string, Binding>();
  /** subject key → ClusterRoleBinding names. */
  #clusterBySubject = new Map<string, Set<string>>();
  /** namespace → subject key → RoleBinding keys (`ns/name`). */
  #bySubjectIn = new Map<string, Map<string, Set<string>>>();

  /** Sets (or, with `obj` undefined, removes) a Role; `key` is `namespace/name`. */
  setRole(key: string, obj: NewObject | undefined): void {
    if (obj) this.#roles.set(key, rulesOf(obj));
    else this.#roles.delete(key);
  }

  setClusterRole(name: string, obj: NewObject | undefined): void {
    if (obj) this.#clusterRoles.set(name, rulesOf(obj));
    else this.#clusterRoles.delete(name);
  }

  setRoleBinding(key: string, obj: NewObject | undefined): void {
    const namespace = key.slice(0, key.indexOf("/"));
    const old = this.#bindings.get(key);
    if (old) {
      const bySubject = this.#bySubjectIn.get(namespace);
      for (const k of old.subjectKeys) if (bySubject) removeFrom(bySubject, k, key);
      if (bySubject?.size === 0) this.#bySubjectIn.delete(namespace);
      this.#bindings.delete(key);
    }
    const binding = obj ? parseBinding(obj, namespace) : undefined;
    if (!binding) return;
    this.#bindings.set(key, binding);
    let bySubject = this.#bySubjectIn.get(namespace);
    if (!bySubject) {
      bySubject = new Map();
      this.#bySubjectIn.set(namespace, bySubject);
    }
    for (const k of binding.subjectKeys) addTo(bySubject, k, key);
  }

  setClusterRoleBinding(name: string, obj: NewObject | undefined): void {
    const old = this.#clusterBindings.get(name);
    if (old) {
      for (const k of old.subjectKeys) removeFrom(this.#clusterBySubject, k, name);
      this.#clusterBindings.delete(name);
    }
    const binding = obj ? parseBinding(obj, undefined) : undefined;
    if (!binding) return;
    this.#clusterBindings.set(name, binding);
    for (const k of binding.subjectKeys) addTo(this.#clusterBySubject, k, name);
  }

  /** The rules a binding grants, or an error naming the missing role. */
  #rulesOf(b: Binding): PolicyRule[] | string {
    if (b.roleRef.kind === "ClusterRole") {
      return (
        this.#clusterRoles.get(b.roleRef.name) ?? `clusterrole.${RBAC_GROUP} "${b.roleRef.name}" not found`
      );
    }
    return (
      this.#roles.get(`${b.namespace}/${b.roleRef.name}`) ??
      `role.${RBAC_GROUP} "${b.roleRef.name}" not found`
    );
  }

  /**
   * Every binding that applies to the user in `namespace` ("" for cluster-wide only), once
   * each, ClusterRoleBindings first, with the first of its subjects that is the user (what an
   * allow reason names).
   */
  *#bindingsFor(user: UserInfo, namespace: string): Generator<{ binding: Binding; key: string }> {
    const keys = keysOf(user);
    const mine = new Set(keys);
    const first = (b: Binding) => b.subjectKeys.find((k) => mine.has(k))!;
    const seen = new Set<string>();
    for (const key of keys) {
      for (const name of this.#clusterBySubject.get(key) ?? []) {
        if (seen.has(name)) continue;
        seen.add(name);
        const binding = this.#clusterBindings.get(name)!;
        yield { binding, key: first(binding) };
      }
    }
    if (!namespace) return;
    const bySubject = this.#bySubjectIn.get(namespace);
    if (!bySubject) return;
    for (const key of keys) {
      for (const k of bySubject.get(key) ?? []) {
        if (seen.has(k)) continue;
        seen.add(k);
        const binding = this.#bindings.get(k)!;
        yield { binding, key: first(binding) };
      }
    }
  }

  authorize(a: Attributes): Decision {
    const namespace = a.kind === "resource" ? a.namespace : "";
    const errors: string[] = [];
    for (const { binding, key } of this.#bindingsFor(a.user, namespace)) {
      const rules = this.#rulesOf(binding);
      if (typeof rules === "string") {
        errors.push(rules);
        continue;
      }
      if (rules.some((r) => ruleAllows(r, a))) {
        return {
          allowed: true,
          reason: `RBAC: allowed by ${binding.describe} of ${binding.roleRef.kind} "${binding.roleRef.name}" to ${binding.subjectNames.get(key)}`,
        };
      }
    }
    return { allowed: false, reason: resolutionReason(errors) };
  }

  /** Every rule the user holds in `namespace` (cluster-wide ones included); `errors` names missing roles. */
  rulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] } {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    for (const { binding } of this.#bindingsFor(user, namespace)) {
      const r = this.#rulesOf(binding);
      if (typeof r === "string") errors.push(r);
      else rules.push(...r);
    }
    return { rules, errors };
  }

  /** The rules of a role a binding refers to (for the escalation check), or undefined. */
  roleRules(
    kind: "Role" | "ClusterRole",
    namespace: string | undefined,
    name: string,
  ): PolicyRule[] | undefined {
    return kind === "ClusterRole" ? this.#clusterRoles.get(name) : this.#roles.get(`${namespace}/${name}`);
  }

  /** Sizes, for tests and the bench. */
  get size(): { roles: number; clusterRoles: number; bindings: number; clusterBindings: number } {
    return {
      roles: this.#roles.size,
      clusterRoles: this.#clusterRoles.size,
      bindings: this.#bindings.size,
      clusterBindings: this.#clusterBindings.size,
    };
  }
}

export type RbacResource = "roles" | "clusterroles" | "rolebindings" | "clusterrolebindings";
export const RBAC_RESOURCES: readonly RbacResource[] = [
  "roles",
  "clusterroles",
  "rolebindings",
  "clusterrolebindings",
];

/**
 * Keeps `index` current from the store: every Role, ClusterRole and binding now and on every
 * change; what vanished while a watch was down is dropped when the kind is listed again.
 * Resolves once all four kinds are in the index.
 */
export async function followRbac(
  server: ServerContext,
  index: RbacIndex,
  prefixOf: (resource: RbacResource) => string,
): Promise<() => void> {
  const setters: Record<RbacResource, (key: string, obj: NewObject | undefined) => void> = {
    roles: (k, o) => index.setRole(k, o),
    clusterroles: (k, o) => index.setClusterRole(k, o),
    rolebindings: (k, o) => index.setRoleBinding(k, o),
    clusterrolebindings: (k, o) => index.setClusterRoleBinding(k, o),
  };
  const followings = RBAC_RESOURCES.map((resource) => {
    const set = setters[resource];
    const known = new Set<string>();
    return followKeys(
      server,
      prefixOf(resource),
      `rbac-${resource}`,
      (key, value) => {
        if (value === undefined) known.delete(key);
        else known.add(key);
        set(key, value === undefined ? undefined : (JSON.parse(value) as StoredObject));
      },
      (listed) => {
        for (const key of known) {
          if (listed.has(key)) continue;
          known.delete(key);
          set(key, undefined);
        }
      },
    );
  });
  await Promise.all(followings.map((f) => f.synced));
  return () => {
    for (const f of followings) f.stop();
  };
}
