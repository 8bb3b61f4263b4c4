import { describe, expect, it } from "vitest";
import type { StoredObject } from "../../api/meta.ts";
import type { UserInfo } from "../context.ts";
import {
  alwaysAllow,
  forbiddenError,
  forbiddenMessage,
  MASTERS_GROUP,
  rbacAuthorizer,
} from "./authorizer.ts";
import { RbacIndex } from "./rbac.ts";
import type { Attributes, PolicyRule } from "./rules.ts";

const RBAC = "rbac.authorization.k8s.io/v1";

function role(namespace: string, name: string, rules: PolicyRule[]): StoredObject {
  return { apiVersion: RBAC, kind: "Role", metadata: { name, namespace, uid: `uid-role-${name}` }, rules };
}

function clusterRole(name: string, rules: PolicyRule[]): StoredObject {
  return { apiVersion: RBAC, kind: "ClusterRole", metadata: { name, uid: `uid-clusterrole-${name}` }, rules };
}

interface Subject {
  kind: string;
  name: string;
  namespace?: string;
}

function roleBinding(
  namespace: string,
  name: string,
  roleRef: { kind: "Role" | "ClusterRole"; name: string },
  subjects: Subject[],
): StoredObject {
  return {
    apiVersion: RBAC,
    kind: "RoleBinding",
    metadata: { name, namespace, uid: `uid-rolebinding-${name}` },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", ...roleRef },
    subjects,
  };
}

function clusterRoleBinding(name: string, roleName: string, subjects: Subject[]): StoredObject {
  return {
    apiVersion: RBAC,
    kind: "ClusterRoleBinding",
    metadata: { name, uid: `uid-clusterrolebinding-${name}` },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: roleName },
    subjects,
  };
}

const alice: UserInfo = { name: "alice", groups: ["system:authenticated"] };
const dev: UserInfo = { name: "dave", groups: ["devs", "system:authenticated"] };
const sa = (namespace: string, name: string): UserInfo => ({
  name: `system:serviceaccount:${namespace}:${name}`,
  groups: ["system:serviceaccounts", `system:serviceaccounts:${namespace}`, "system:authenticated"],
});

function request(
  user: UserInfo,
  verb: string,
  resource: string,
  namespace: string,
  more: { apiGroup?: string; subresource?: string; name?: string } = {},
): Attributes {
  return {
    kind: "resource",
    user,
    verb,
    apiGroup: more.apiGroup ?? "",
    resource,
    subresource: more.subresource ?? "",
    namespace,
    name: more.name ?? "",
  };
}

const GET_PODS: PolicyRule[] = [{ verbs: ["get", "list"], apiGroups: [""], resources: ["pods"] }];
const LIST_NODES: PolicyRule[] = [{ verbs: ["list"], apiGroups: [""], resources: ["nodes"] }];
const HEALTH: PolicyRule[] = [{ verbs: ["get"], nonResourceURLs: ["/healthz"] }];

describe("RbacIndex", () => {
  it("a RoleBinding to a Role grants only in its namespace", () => {
    const index = new RbacIndex();
    index.setRole("ns1/reader", role("ns1", "reader", GET_PODS));
    index.setRoleBinding(
      "ns1/rb",
      roleBinding("ns1", "rb", { kind: "Role", name: "reader" }, [{ kind: "User", name: "alice" }]),
    );
    expect(index.authorize(request(alice, "get", "pods", "ns1", { name: "p" }))).toEqual({
      allowed: true,
      reason: 'RBAC: allowed by RoleBinding "rb/ns1" of Role "reader" to User "alice"',
    });
    expect(index.authorize(request(alice, "get", "pods", "ns2", { name: "p" }))).toEqual({
      allowed: false,
      reason: "",
    });
    // Namespace-wide list across all namespaces is cluster scope: not granted.
    expect(index.authorize(request(alice, "list", "pods", "")).allowed).toBe(false);
    expect(index.authorize(request(alice, "delete", "pods", "ns1", { name: "p" })).allowed).toBe(false);
    expect(index.authorize(request(dev, "get", "pods", "ns1", { name: "p" })).allowed).toBe(false);
  });

  it("a Role of another namespace with the same name is not used", () => {
    const index = new RbacIndex();
    index.setRole("ns2/reader", role("ns2", "reader", GET_PODS));
    index.setRoleBinding(
      "ns1/rb",
      roleBinding("ns1", "rb", { kind: "Role", name: "reader" }, [{ kind: "User", name: "alice" }]),
    );
    expect(index.authorize(request(alice, "get", "pods", "ns1")).allowed).toBe(false);
    expect(index.authorize(request(alice, "get", "pods", "ns2")).allowed).toBe(false);
  });

  it("a RoleBinding to a ClusterRole grants its rules only in the binding's namespace", () => {
    const index = new RbacIndex();
    index.setClusterRole("view", clusterRole("view", [...GET_PODS, ...LIST_NODES, ...HEALTH]));
    index.setRoleBinding(
      "ns1/viewers",
      roleBinding("ns1", "viewers", { kind: "ClusterRole", name: "view" }, [{ kind: "User", name: "alice" }]),
    );
    expect(index.authorize(request(alice, "list", "pods", "ns1"))).toEqual({
      allowed: true,
      reason: 'RBAC: allowed by RoleBinding "viewers/ns1" of ClusterRole "view" to User "alice"',
    });
    expect(index.authorize(request(alice, "list", "pods", "ns2")).allowed).toBe(false);
    // Cluster-scoped resources and non-resource URLs are never granted by a RoleBinding.
    expect(index.authorize(request(alice, "list", "nodes", "")).allowed).toBe(false);
    expect(index.authorize({ kind: "nonresource", user: alice, verb: "get", path: "/healthz" }).allowed).toBe(
      false,
    );
  });

  it("a ClusterRoleBinding grants everywhere, cluster scope and URLs included", () => {
    const index = new RbacIndex();
    index.setClusterRole("ops", clusterRole("ops", [...GET_PODS, ...LIST_NODES, ...HEALTH]));
    index.setClusterRoleBinding("ops", clusterRoleBinding("ops", "ops", [{ kind: "Group", name: "devs" }]));
    const reason = 'RBAC: allowed by ClusterRoleBinding "ops" of ClusterRole "ops" to Group "devs"';
    expect(index.authorize(request(dev, "get", "pods", "ns1"))).toEqual({ allowed: true, reason });
    expect(index.authorize(request(dev, "get", "pods", "anywhere"))).toEqual({ allowed: true, reason });
    expect(index.authorize(request(dev, "list", "pods", ""))).toEqual({ allowed: true, reason });
    expect(index.authorize(request(dev, "list", "nodes", ""))).toEqual({ allowed: true, reason });
    expect(index.authorize({ kind: "nonresource", user: dev, verb: "get", path: "/healthz" })).toEqual({
      allowed: true,
      reason,
    });
    expect(index.authorize({ kind: "nonresource", user: dev, verb: "get", path: "/metrics" }).allowed).toBe(
      false,
    );
    expect(index.authorize(request(alice, "get", "pods", "ns1")).allowed).toBe(false);
  });

  it("a ClusterRoleBinding is reported before a RoleBinding that also allows", () => {
    const index = new RbacIndex();
    index.setClusterRole("view", clusterRole("view", GET_PODS));
    index.setRoleBinding(
      "ns1/rb",
      roleBinding("ns1", "rb", { kind: "ClusterRole", name: "view" }, [{ kind: "User", name: "alice" }]),
    );
    index.setClusterRoleBinding("crb", clusterRoleBinding("crb", "view", [{ kind: "User", name: "alice" }]));
    expect(index.authorize(request(alice, "get", "pods", "ns1")).reason).toBe(
      'RBAC: allowed by ClusterRoleBinding "crb" of ClusterRole "view" to User "alice"',
    );
  });

  describe("ServiceAccount subjects", () => {
    it("in a RoleBinding, without a namespace, means the binding's namespace", () => {
      const index = new RbacIndex();
      index.setRole("ns1/reader", role("ns1", "reader", GET_PODS));
      index.setRoleBinding(
        "ns1/rb",
        roleBinding("ns1", "rb", { kind: "Role", name: "reader" }, [{ kind: "ServiceAccount", name: "bot" }]),
      );
      expect(index.authorize(request(sa("ns1", "bot"), "get", "pods", "ns1"))).toEqual({
        allowed: true,
        reason: 'RBAC: allowed by RoleBinding "rb/ns1" of Role "reader" to ServiceAccount "bot/ns1"',
      });
      expect(index.authorize(request(sa("ns2", "bot"), "get", "pods", "ns1")).allowed).toBe(false);
    });

    it("in a RoleBinding, with a namespace, means that namespace", () => {
      const index = new RbacIndex();
      index.setRole("ns1/reader", role("ns1", "reader", GET_PODS));
      index.setRoleBinding(
        "ns1/rb",
        roleBinding("ns1", "rb", { kind: "Role", name: "reader" }, [
          { kind: "ServiceAccount", name: "bot", namespace: "tools" },
        ]),
      );
      expect(index.authorize(request(sa("tools", "bot"), "get", "pods", "ns1"))).toEqual({
        allowed: true,
        reason: 'RBAC: allowed by RoleBinding "rb/ns1" of Role "reader" to ServiceAccount "bot/tools"',
      });
      expect(index.authorize(request(sa("ns1", "bot"), "get", "pods", "ns1")).allowed).toBe(false);
    });

    it("in a ClusterRoleBinding, with a namespace", () => {
      const index = new RbacIndex();
      index.setClusterRole("nodes", clusterRole("nodes", LIST_NODES));
      index.setClusterRoleBinding(
        "crb",
        clusterRoleBinding("crb", "nodes", [
          { kind: "ServiceAccount", name: "kube-dns", namespace: "kube-system" },
        ]),
      );
      expect(index.authorize(request(sa("kube-system", "kube-dns"), "list", "nodes", ""))).toEqual({
        allowed: true,
        reason:
          'RBAC: allowed by ClusterRoleBinding "crb" of ClusterRole "nodes" to ServiceAccount "kube-dns/kube-system"',
      });
    });

    it("in a ClusterRoleBinding, without a namespace, never matches", () => {
      const index = new RbacIndex();
      index.setClusterRole("nodes", clusterRole("nodes", LIST_NODES));
      index.setClusterRoleBinding(
        "crb",
        clusterRoleBinding("crb", "nodes", [{ kind: "ServiceAccount", name: "kube-dns" }]),
      );
      for (const ns of ["default", "kube-system", ""]) {
        expect(index.authorize(request(sa(ns, "kube-dns"), "list", "nodes", "")).allowed).toBe(false);
      }
      expect(index.authorize(request({ name: "kube-dns", groups: [] }, "list", "nodes", "")).allowed).toBe(
        false,
      );
    });

    it("matches only the user name, not a User subject of the same short name", () => {
      const index = new RbacIndex();
      index.setClusterRole("nodes", clusterRole("nodes", LIST_NODES));
      index.setClusterRoleBinding("crb", clusterRoleBinding("crb", "nodes", [{ kind: "User", name: "bot" }]));
      expect(index.authorize(request(sa("ns1", "bot"), "list", "nodes", "")).allowed).toBe(false);
    });
  });

  it("Group subjects match any of the user's groups; unknown subject kinds never match", () => {
    const index = new RbacIndex();
    index.setClusterRole("nodes", clusterRole("nodes", LIST_NODES));
    index.setClusterRoleBinding(
      "crb",
      clusterRoleBinding("crb", "nodes", [
        { kind: "Team", name: "alice" },
        { kind: "Group", name: "system:serviceaccounts:ns1" },
      ]),
    );
    expect(index.authorize(request(sa("ns1", "any"), "list", "nodes", ""))).toEqual({
      allowed: true,
      reason:
        'RBAC: allowed by ClusterRoleBinding "crb" of ClusterRole "nodes" to Group "system:serviceaccounts:ns1"',
    });
    expect(index.authorize(request(sa("ns2", "any"), "list", "nodes", "")).allowed).toBe(false);
    expect(index.authorize(request(alice, "list", "nodes", "")).allowed).toBe(false);
  });

  it("a binding with a malformed roleRef is ignored", () => {
    const index = new RbacIndex();
    index.setClusterRole("nodes", clusterRole("nodes", LIST_NODES));
    index.setClusterRoleBinding("crb", {
      apiVersion: RBAC,
      kind: "ClusterRoleBinding",
      metadata: { name: "crb" },
      roleRef: { kind: "Policy", name: "nodes" },
      subjects: [{ kind: "User", name: "alice" }],
    });
    expect(index.authorize(request(alice, "list", "nodes", ""))).toEqual({ allowed: false, reason: "" });
    expect(index.size.clusterBindings).toBe(0);
  });

  describe("changes take effect", () => {
    it("removing a RoleBinding or ClusterRoleBinding", () => {
      const index = new RbacIndex();
      index.setClusterRole("view", clusterRole("view", GET_PODS));
      index.setRoleBinding(
        "ns1/rb",
        roleBinding("ns1", "rb", { kind: "ClusterRole", name: "view" }, [{ kind: "User", name: "alice" }]),
      );
      index.setClusterRoleBinding(
        "crb",
        clusterRoleBinding("crb", "view", [{ kind: "Group", name: "devs" }]),
      );
      expect(index.authorize(request(alice, "get", "pods", "ns1")).allowed).toBe(true);
      expect(index.authorize(request(dev, "get", "pods", "ns1")).allowed).toBe(true);
      index.setRoleBinding("ns1/rb", undefined);
      index.setClusterRoleBinding("crb", undefined);
      expect(index.authorize(request(alice, "get", "pods", "ns1"))).toEqual({ allowed: false, reason: "" });
      expect(index.authorize(request(dev, "get", "pods", "ns1"))).toEqual({ allowed: false, reason: "" });
      expect(index.size).toEqual({ roles: 0, clusterRoles: 1, bindings: 0, clusterBindings: 0 });
    });

    it("replacing a binding's subjects", () => {
      const index = new RbacIndex();
      index.setRole("ns1/reader", role("ns1", "reader", GET_PODS));
      index.setRoleBinding(
        "ns1/rb",
        roleBinding("ns1", "rb", { kind: "Role", name: "reader" }, [{ kind: "User", name: "alice" }]),
      );
      index.setRoleBinding(
        "ns1/rb",
        roleBinding("ns1", "rb", { kind: "Role", name: "reader" }, [{ kind: "Group", name: "devs" }]),
      );
      expect(index.authorize(request(alice, "get", "pods", "ns1")).allowed).toBe(false);
      expect(index.authorize(request(dev, "get", "pods", "ns1")).reason).toBe(
        'RBAC: allowed by RoleBinding "rb/ns1" of Role "reader" to Group "devs"',
      );
      expect(index.size.bindings).toBe(1);

      index.setClusterRole("nodes", clusterRole("nodes", LIST_NODES));
      index.setClusterRoleBinding(
        "crb",
        clusterRoleBinding("crb", "nodes", [{ kind: "User", name: "alice" }]),
      );
      index.setClusterRoleBinding(
        "crb",
        clusterRoleBinding("crb", "nodes", [{ kind: "User", name: "dave" }]),
      );
      expect(index.authorize(request(alice, "list", "nodes", "")).allowed).toBe(false);
      expect(index.authorize(request(dev, "list", "nodes", "")).allowed).toBe(true);
    });

    it("replacing a binding's roleRef", () => {
      const index = new RbacIndex();
      index.setClusterRole("view", clusterRole("view", GET_PODS));
      index.setClusterRole("nodes", clusterRole("nodes", LIST_NODES));
      index.setClusterRoleBinding(
        "crb",
        clusterRoleBinding("crb", "view", [{ kind: "User", name: "alice" }]),
      );
      index.setClusterRoleBinding(
        "crb",
        clusterRoleBinding("crb", "nodes", [{ kind: "User", name: "alice" }]),
      );
      expect(index.authorize(request(alice, "get", "pods", "ns1")).allowed).toBe(false);
      expect(index.authorize(request(alice, "list", "nodes", "")).allowed).toBe(true);
    });

    it("replacing or removing a role's rules", () => {
      const index = new RbacIndex();
      index.setRole("ns1/r", role("ns1", "r", GET_PODS));
      index.setRoleBinding(
        "ns1/rb",
        roleBinding("ns1", "rb", { kind: "Role", name: "r" }, [{ kind: "User", name: "alice" }]),
      );
      expect(index.authorize(request(alice, "get", "pods", "ns1")).allowed).toBe(true);
      index.setRole("ns1/r", role("ns1", "r", [{ verbs: ["get"], apiGroups: [""], resources: ["secrets"] }]));
      expect(index.authorize(request(alice, "get", "pods", "ns1")).allowed).toBe(false);
      expect(index.authorize(request(alice, "get", "secrets", "ns1")).allowed).toBe(true);
      index.setRole("ns1/r", undefined);
      expect(index.authorize(request(alice, "get", "secrets", "ns1")).allowed).toBe(false);
      expect(index.roleRules("Role", "ns1", "r")).toBeUndefined();
    });

    it("a ClusterRole created after its binding", () => {
      const index = new RbacIndex();
      index.setClusterRoleBinding(
        "crb",
        clusterRoleBinding("crb", "late", [{ kind: "User", name: "alice" }]),
      );
      expect(index.authorize(request(alice, "list", "nodes", "")).allowed).toBe(false);
      index.setClusterRole("late", clusterRole("late", LIST_NODES));
      expect(index.authorize(request(alice, "list", "nodes", "")).allowed).toBe(true);
      index.setClusterRole("late", undefined);
      expect(index.authorize(request(alice, "list", "nodes", "")).allowed).toBe(false);
    });
  });

  it("several missing roles are listed in the deny reason, cluster bindings first", () => {
    const index = new RbacIndex();
    index.setRoleBinding(
      "ns1/rb",
      roleBinding("ns1", "rb", { kind: "Role", name: "gone" }, [{ kind: "User", name: "alice" }]),
    );
    index.setClusterRoleBinding("crb", clusterRoleBinding("crb", "x", [{ kind: "User", name: "alice" }]));
    expect(index.authorize(request(alice, "get", "pods", "ns1"))).toEqual({
      allowed: false,
      reason:
        'RBAC: [clusterrole.rbac.authorization.k8s.io "x" not found, role.rbac.authorization.k8s.io "gone" not found]',
    });
  });

  it("a missing role does not stop another binding from allowing", () => {
    const index = new RbacIndex();
    index.setClusterRole("view", clusterRole("view", GET_PODS));
    index.setClusterRoleBinding("a", clusterRoleBinding("a", "x", [{ kind: "User", name: "alice" }]));
    index.setClusterRoleBinding("b", clusterRoleBinding("b", "view", [{ kind: "User", name: "alice" }]));
    expect(index.authorize(request(alice, "get", "pods", "ns1"))).toEqual({
      allowed: true,
      reason: 'RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "view" to User "alice"',
    });
  });

  it("rulesFor: cluster-wide rules, plus the namespace's when one is given", () => {
    const index = new RbacIndex();
    index.setClusterRole("nodes", clusterRole("nodes", LIST_NODES));
    index.setClusterRole("view", clusterRole("view", GET_PODS));
    index.setRole("ns1/health", role("ns1", "health", HEALTH));
    index.setClusterRoleBinding("crb", clusterRoleBinding("crb", "nodes", [{ kind: "Group", name: "devs" }]));
    index.setRoleBinding(
      "ns1/rb1",
      roleBinding("ns1", "rb1", { kind: "ClusterRole", name: "view" }, [{ kind: "User", name: "dave" }]),
    );
    index.setRoleBinding(
      "ns1/rb2",
      roleBinding("ns1", "rb2", { kind: "Role", name: "health" }, [{ kind: "User", name: "dave" }]),
    );
    index.setRoleBinding(
      "ns1/rb3",
      roleBinding("ns1", "rb3", { kind: "Role", name: "missing" }, [{ kind: "Group", name: "devs" }]),
    );
    index.setRoleBinding(
      "ns2/rb",
      roleBinding("ns2", "rb", { kind: "ClusterRole", name: "view" }, [{ kind: "User", name: "dave" }]),
    );

    expect(index.rulesFor(dev, "")).toEqual({ rules: LIST_NODES, errors: [] });
    const inNs1 = index.rulesFor(dev, "ns1");
    expect(inNs1.rules).toHaveLength(3);
    expect(inNs1.rules).toEqual(expect.arrayContaining([...LIST_NODES, ...GET_PODS, ...HEALTH]));
    expect(inNs1.errors).toEqual(['role.rbac.authorization.k8s.io "missing" not found']);
    expect(index.rulesFor(dev, "ns2")).toEqual({ rules: [...LIST_NODES, ...GET_PODS], errors: [] });
    expect(index.rulesFor(alice, "ns1")).toEqual({ rules: [], errors: [] });
  });

  it("roleRules looks up a Role by namespace and a ClusterRole by name", () => {
    const index = new RbacIndex();
    index.setRole("ns1/r", role("ns1", "r", GET_PODS));
    index.setClusterRole("c", clusterRole("c", LIST_NODES));
    expect(index.roleRules("Role", "ns1", "r")).toEqual(GET_PODS);
    expect(index.roleRules("Role", "ns2", "r")).toBeUndefined();
    expect(index.roleRules("ClusterRole", undefined, "c")).toEqual(LIST_NODES);
    expect(index.roleRules("ClusterRole", "ns1", "c")).toEqual(LIST_NODES);
    expect(index.roleRules("ClusterRole", undefined, "r")).toBeUndefined();
    expect(index.roleRules("Role", "ns1", "c")).toBeUndefined();
  });
});

describe("rbacAuthorizer", () => {
  it("lets system:masters do anything, asks RBAC for everyone else", () => {
    const index = new RbacIndex();
    index.setClusterRole("nodes", clusterRole("nodes", LIST_NODES));
    index.setClusterRoleBinding("crb", clusterRoleBinding("crb", "nodes", [{ kind: "User", name: "alice" }]));
    const authz = rbacAuthorizer(index);
    const admin: UserInfo = { name: "anyone", groups: [MASTERS_GROUP] };
    expect(authz.authorize(request(admin, "delete", "secrets", "kube-system", { name: "x" }))).toEqual({
      allowed: true,
      reason: "",
    });
    expect(authz.authorize({ kind: "nonresource", user: admin, verb: "post", path: "/anything" })).toEqual({
      allowed: true,
      reason: "",
    });
    expect(authz.authorize(request(alice, "list", "nodes", ""))).toEqual(
      index.authorize(request(alice, "list", "nodes", "")),
    );
    expect(authz.authorize(request(alice, "list", "secrets", "ns1"))).toEqual({ allowed: false, reason: "" });
    expect(
      authz.authorize(request({ name: "system:masters", groups: [] }, "list", "secrets", "")).allowed,
    ).toBe(false);
  });

  it("gives system:masters every rule and others their RBAC rules", () => {
    const index = new RbacIndex();
    index.setClusterRole("nodes", clusterRole("nodes", LIST_NODES));
    index.setClusterRoleBinding("crb", clusterRoleBinding("crb", "nodes", [{ kind: "User", name: "alice" }]));
    const authz = rbacAuthorizer(index);
    expect(authz.rulesFor({ name: "root", groups: [MASTERS_GROUP] }, "ns1")).toEqual({
      rules: [
        { verbs: ["*"], apiGroups: ["*"], resources: ["*"] },
        { verbs: ["*"], nonResourceURLs: ["*"] },
      ],
      errors: [],
    });
    expect(authz.rulesFor(alice, "ns1")).toEqual({ rules: LIST_NODES, errors: [] });
    expect(alwaysAllow.authorize(request(alice, "delete", "nodes", "")).allowed).toBe(true);
  });
});

describe("forbiddenMessage / forbiddenError", () => {
  const bob: UserInfo = { name: "bob", groups: ["system:authenticated"] };
  const cases: Array<{
    name: string;
    attrs: Attributes;
    reason?: string;
    inner: string;
    message: string;
    details: Record<string, string>;
  }> = [
    {
      name: "namespaced list",
      attrs: request(bob, "list", "pods", "default"),
      inner: 'User "bob" cannot list resource "pods" in API group "" in the namespace "default"',
      message:
        'pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "default"',
      details: { kind: "pods" },
    },
    {
      name: "named subresource",
      attrs: request(bob, "get", "pods", "default", { name: "web", subresource: "log" }),
      inner: 'User "bob" cannot get resource "pods/log" in API group "" in the namespace "default"',
      message:
        'pods "web" is forbidden: User "bob" cannot get resource "pods/log" in API group "" in the namespace "default"',
      details: { name: "web", kind: "pods" },
    },
    {
      name: "named, in a group",
      attrs: request(bob, "patch", "deployments", "ns", { apiGroup: "apps", name: "d" }),
      inner: 'User "bob" cannot patch resource "deployments" in API group "apps" in the namespace "ns"',
      message:
        'deployments.apps "d" is forbidden: User "bob" cannot patch resource "deployments" in API group "apps" in the namespace "ns"',
      details: { name: "d", group: "apps", kind: "deployments" },
    },
    {
      name: "subresource in a group, unnamed",
      attrs: request(bob, "update", "deployments", "ns", { apiGroup: "apps", subresource: "scale" }),
      inner:
        'User "bob" cannot update resource "deployments/scale" in API group "apps" in the namespace "ns"',
      message:
        'deployments.apps is forbidden: User "bob" cannot update resource "deployments/scale" in API group "apps" in the namespace "ns"',
      details: { group: "apps", kind: "deployments" },
    },
    {
      name: "cluster scope",
      attrs: request({ name: "system:anonymous", groups: ["system:unauthenticated"] }, "list", "nodes", ""),
      inner: 'User "system:anonymous" cannot list resource "nodes" in API group "" at the cluster scope',
      message:
        'nodes is forbidden: User "system:anonymous" cannot list resource "nodes" in API group "" at the cluster scope',
      details: { kind: "nodes" },
    },
    {
      name: "impersonating a user",
      attrs: request(bob, "impersonate", "users", "", { name: "alice" }),
      inner: 'User "bob" cannot impersonate resource "users" in API group "" at the cluster scope',
      message:
        'users "alice" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope',
      details: { name: "alice", kind: "users" },
    },
    {
      name: "impersonating a uid",
      attrs: request(bob, "impersonate", "uids", "", { apiGroup: "authentication.k8s.io", name: "1234" }),
      inner:
        'User "bob" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope',
      message:
        'uids.authentication.k8s.io "1234" is forbidden: User "bob" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope',
      details: { name: "1234", group: "authentication.k8s.io", kind: "uids" },
    },
    {
      name: "with an RBAC reason",
      attrs: request(bob, "list", "pods", "default"),
      reason: 'RBAC: clusterrole.rbac.authorization.k8s.io "missing" not found',
      inner: 'User "bob" cannot list resource "pods" in API group "" in the namespace "default"',
      message:
        'pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "default": RBAC: clusterrole.rbac.authorization.k8s.io "missing" not found',
      details: { kind: "pods" },
    },
  ];
  it.each(cases)("$name", ({ attrs, reason, inner, message, details }) => {
    expect(forbiddenMessage(attrs)).toBe(inner);
    const err = forbiddenError(attrs, reason ?? "");
    expect(err.message).toBe(message);
    expect(err.code).toBe(403);
    expect(err.reason).toBe("Forbidden");
    expect(err.status).toMatchObject({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message,
      reason: "Forbidden",
      code: 403,
    });
    // Only the fields Kubernetes sends: name and kind (group when not the core group).
    expect(err.status.details).toMatchObject(details);
    if (!details.name) expect(err.status.details?.name).toBeUndefined();
  });

  it("non-resource requests", () => {
    const attrs: Attributes = { kind: "nonresource", user: bob, verb: "get", path: "/foo" };
    expect(forbiddenMessage(attrs)).toBe('User "bob" cannot get path "/foo"');
    const err = forbiddenError(attrs, "");
    expect(err.status).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'forbidden: User "bob" cannot get path "/foo"',
      reason: "Forbidden",
      details: {},
      code: 403,
    });
    expect(forbiddenError(attrs, "RBAC: x").message).toBe(
      'forbidden: User "bob" cannot get path "/foo": RBAC: x',
    );
  });

  it("keys a Status in kube-apiserver's order", () => {
    const err = forbiddenError({ kind: "nonresource", user: bob, verb: "get", path: "/" }, "");
    expect(Object.keys(err.status)).toEqual([
      "kind",
      "apiVersion",
      "metadata",
      "status",
      "message",
      "reason",
      "details",
      "code",
    ]);
  });
});

describe("RbacIndex: kube-apiserver's wording in the corners", () => {
  it("one missing role is named without brackets, and a role missing twice once", () => {
    const index = new RbacIndex();
    for (const name of ["a", "b"]) {
      index.setClusterRoleBinding(name, clusterRoleBinding(name, "gone", [{ kind: "User", name: "alice" }]));
    }
    expect(index.authorize(request(alice, "get", "pods", "ns1"))).toEqual({
      allowed: false,
      reason: 'RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found',
    });
  });

  it("the allow reason names the binding's first subject that is the user", () => {
    const index = new RbacIndex();
    index.setClusterRole("reader", clusterRole("reader", GET_PODS));
    index.setClusterRoleBinding(
      "both",
      clusterRoleBinding("both", "reader", [
        { kind: "Group", name: "devs" },
        { kind: "User", name: "dave" },
      ]),
    );
    expect(index.authorize(request(dev, "get", "pods", "ns1")).reason).toBe(
      'RBAC: allowed by ClusterRoleBinding "both" of ClusterRole "reader" to Group "devs"',
    );
    // A binding naming the user twice is one binding: its rules come once.
    expect(index.rulesFor(dev, "ns1").rules).toEqual(GET_PODS);
  });

  it("a ServiceAccount subject with an empty namespace is shown in the binding's", () => {
    const index = new RbacIndex();
    index.setRole("ns1/reader", role("ns1", "reader", GET_PODS));
    index.setRoleBinding(
      "ns1/rb",
      roleBinding("ns1", "rb", { kind: "Role", name: "reader" }, [
        { kind: "ServiceAccount", name: "sa", namespace: "" },
      ]),
    );
    expect(index.authorize(request(sa("ns1", "sa"), "get", "pods", "ns1")).reason).toBe(
      'RBAC: allowed by RoleBinding "rb/ns1" of Role "reader" to ServiceAccount "sa/ns1"',
    );
  });
});

describe("forbiddenError: kube-apiserver's details and escaping", () => {
  it("leaves the core group out of the details and escapes its own message", () => {
    expect(forbiddenError(request(alice, "get", "pods", "ns1", { name: "p" }), "").status.details).toEqual({
      name: "p",
      kind: "pods",
    });
    const err = forbiddenError(
      { kind: "nonresource", user: alice, verb: "get", path: "/a<b>&" },
      "because <x>",
    );
    expect(err.status.message).toBe(
      'forbidden: User "alice" cannot get path "/a&lt;b&gt;&amp;": because <x>',
    );
  });
});
