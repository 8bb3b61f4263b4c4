/**
 * The roles and bindings kube-apiserver v1.32 bootstraps (the ones clients and Karmada
 * expect; the node, kubelet and in-process controller roles are left out), and their
 * reconciliation at start-up as kube-apiserver's `rbac/bootstrap-roles` hook does it: missing
 * objects are created, missing rules and subjects are added, nothing is removed, and objects
 * annotated `rbac.authorization.kubernetes.io/autoupdate: "false"` are left alone. Every
 * replica does it; creating something another replica just created is fine.
 */
import { isObject, type NewObject, type StoredObject } from "../../api/meta.ts";
import { deepEqual } from "../../machinery/equality.ts";
import { isAlreadyExists, isNotFound } from "../../machinery/errors.ts";
import { cloneJson } from "../../machinery/merge-patch.ts";
import { requestContext, type ServerContext } from "../context.ts";
import { unlessGoneOrChanged } from "../controllers/follow.ts";
import { systemWriter } from "../controllers/writer.ts";
import { getObject } from "../verbs/read.ts";
import { createObject } from "../verbs/write.ts";
import { type PolicyRule, rulesOf } from "./rules.ts";

export const RBAC_API_VERSION = "rbac.authorization.k8s.io/v1";
export const BOOTSTRAPPING_LABEL = "kubernetes.io/bootstrapping";
export const AUTOUPDATE_ANNOTATION = "rbac.authorization.kubernetes.io/autoupdate";
const AGGREGATE_TO = (role: "admin" | "edit" | "view") => `rbac.authorization.k8s.io/aggregate-to-${role}`;

/** A policy rule with every list sorted, as kube-apiserver stores its own. */
export function rule(
  verbs: string[],
  apiGroups: string[],
  resources: string[],
  resourceNames?: string[],
): PolicyRule {
  const r: PolicyRule = {
    verbs: [...verbs].sort(),
    apiGroups: [...apiGroups].sort(),
    resources: [...resources].sort(),
  };
  if (resourceNames) r.resourceNames = [...resourceNames].sort();
  return r;
}

export function urlRule(verbs: string[], urls: string[]): PolicyRule {
  return { verbs: [...verbs].sort(), nonResourceURLs: [...urls].sort() };
}

export type Subject =
  | { kind: "User" | "Group"; name: string }
  | { kind: "ServiceAccount"; name: string; namespace: string };

export function subjectJson(s: Subject): Record<string, string> {
  return s.kind === "ServiceAccount"
    ? { kind: s.kind, name: s.name, namespace: s.namespace }
    : { kind: s.kind, apiGroup: "rbac.authorization.k8s.io", name: s.name };
}

export interface RoleSpec {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  rules: PolicyRule[];
  aggregateFrom?: string[];
}

export interface BindingSpec {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  role: { kind: "ClusterRole" | "Role"; name: string };
  subjects: Subject[];
}

/** A ClusterRoleBinding named as the ClusterRole it binds, as most bootstrap bindings are. */
export function clusterBinding(name: string, ...subjects: Subject[]): BindingSpec {
  return { name, role: { kind: "ClusterRole", name }, subjects };
}

export interface Policy {
  roles: RoleSpec[];
  bindings: BindingSpec[];
  /** Metadata every object of this policy gets. */
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

export function roleObject(spec: RoleSpec, meta: Pick<Policy, "labels" | "annotations">): NewObject {
  const obj: NewObject = {
    apiVersion: RBAC_API_VERSION,
    kind: spec.namespace ? "Role" : "ClusterRole",
    metadata: {
      name: spec.name,
      ...(spec.namespace ? { namespace: spec.namespace } : {}),
      labels: { ...meta.labels, ...spec.labels },
      ...(Object.keys(meta.annotations).length ? { annotations: { ...meta.annotations } } : {}),
    },
    rules: spec.rules.map((r) => ({ ...r })),
  };
  if (spec.aggregateFrom) {
    obj.aggregationRule = {
      clusterRoleSelectors: spec.aggregateFrom.map((l) => ({ matchLabels: { [l]: "true" } })),
    };
  }
  return obj;
}

export function bindingObject(spec: BindingSpec, meta: Pick<Policy, "labels" | "annotations">): NewObject {
  return {
    apiVersion: RBAC_API_VERSION,
    kind: spec.namespace ? "RoleBinding" : "ClusterRoleBinding",
    metadata: {
      name: spec.name,
      ...(spec.namespace ? { namespace: spec.namespace } : {}),
      labels: { ...meta.labels, ...spec.labels },
      ...(Object.keys(meta.annotations).length ? { annotations: { ...meta.annotations } } : {}),
    },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: spec.role.kind, name: spec.role.name },
    subjects: spec.subjects.map(subjectJson),
  };
}

const CRUD = ["create", "delete", "deletecollection", "patch", "update"];
const READ = ["get", "list", "watch"];

/** kube-apiserver's defaults that clients and Karmada rely on. */
export const KUBERNETES_POLICY: Policy = {
  labels: { [BOOTSTRAPPING_LABEL]: "rbac-defaults" },
  annotations: { [AUTOUPDATE_ANNOTATION]: "true" },
  roles: [
    { name: "cluster-admin", rules: [rule(["*"], ["*"], ["*"]), urlRule(["*"], ["*"])] },
    {
      name: "system:discovery",
      rules: [
        urlRule(
          ["get"],
          [
            "/api",
            "/api/*",
            "/apis",
            "/apis/*",
            "/healthz",
            "/livez",
            "/openapi",
            "/openapi/*",
            "/readyz",
            "/version",
            "/version/",
          ],
        ),
      ],
    },
    {
      name: "system:monitoring",
      rules: [
        urlRule(
          ["get"],
          [
            "/healthz",
            "/healthz/*",
            "/livez",
            "/livez/*",
            "/metrics",
            "/metrics/slis",
            "/readyz",
            "/readyz/*",
          ],
        ),
      ],
    },
    {
      name: "system:basic-user",
      rules: [
        rule(["create"], ["authorization.k8s.io"], ["selfsubjectaccessreviews", "selfsubjectrulesreviews"]),
        rule(["create"], ["authentication.k8s.io"], ["selfsubjectreviews"]),
      ],
    },
    {
      name: "system:public-info-viewer",
      rules: [urlRule(["get"], ["/healthz", "/livez", "/readyz", "/version", "/version/"])],
    },
    { name: "admin", rules: [], aggregateFrom: [AGGREGATE_TO("admin")] },
    {
      name: "edit",
      labels: { [AGGREGATE_TO("admin")]: "true" },
      rules: [],
      aggregateFrom: [AGGREGATE_TO("edit")],
    },
    {
      name: "view",
      labels: { [AGGREGATE_TO("edit")]: "true" },
      rules: [],
      aggregateFrom: [AGGREGATE_TO("view")],
    },
    {
      name: "system:aggregate-to-admin",
      labels: { [AGGREGATE_TO("admin")]: "true" },
      rules: [
        rule(["create"], ["authorization.k8s.io"], ["localsubjectaccessreviews"]),
        rule([...CRUD, ...READ], ["rbac.authorization.k8s.io"], ["rolebindings", "roles"]),
      ],
    },
    {
      name: "system:aggregate-to-edit",
      labels: { [AGGREGATE_TO("edit")]: "true" },
      rules: [
        rule(
          READ,
          [""],
          ["pods/attach", "pods/exec", "pods/portforward", "pods/proxy", "secrets", "services/proxy"],
        ),
        rule(["impersonate"], [""], ["serviceaccounts"]),
        rule(CRUD, [""], ["pods", "pods/attach", "pods/exec", "pods/portforward", "pods/proxy"]),
        rule(["create"], [""], ["pods/eviction"]),
        rule(
          CRUD,
          [""],
          [
            "configmaps",
            "events",
            "persistentvolumeclaims",
            "replicationcontrollers",
            "replicationcontrollers/scale",
            "secrets",
            "serviceaccounts",
            "services",
            "services/proxy",
          ],
        ),
        rule(["create"], [""], ["serviceaccounts/token"]),
        rule(
          CRUD,
          ["apps"],
          [
            "daemonsets",
            "deployments",
            "deployments/rollback",
            "deployments/scale",
            "replicasets",
            "replicasets/scale",
            "statefulsets",
            "statefulsets/scale",
          ],
        ),
        rule(CRUD, ["autoscaling"], ["horizontalpodautoscalers"]),
        rule(CRUD, ["batch"], ["cronjobs", "jobs"]),
        rule(
          CRUD,
          ["extensions"],
          [
            "daemonsets",
            "deployments",
            "deployments/rollback",
            "deployments/scale",
            "ingresses",
            "networkpolicies",
            "replicasets",
            "replicasets/scale",
            "replicationcontrollers/scale",
          ],
        ),
        rule(CRUD, ["policy"], ["poddisruptionbudgets"]),
        rule(CRUD, ["networking.k8s.io"], ["ingresses", "networkpolicies"]),
        rule([...CRUD, ...READ], ["coordination.k8s.io"], ["leases"]),
      ],
    },
    {
      name: "system:aggregate-to-view",
      labels: { [AGGREGATE_TO("view")]: "true" },
      rules: [
        rule(
          READ,
          [""],
          [
            "configmaps",
            "endpoints",
            "persistentvolumeclaims",
            "persistentvolumeclaims/status",
            "pods",
            "replicationcontrollers",
            "replicationcontrollers/scale",
            "serviceaccounts",
            "services",
            "services/status",
          ],
        ),
        rule(
          READ,
          [""],
          [
            "bindings",
            "events",
            "limitranges",
            "namespaces/status",
            "pods/log",
            "pods/status",
            "replicationcontrollers/status",
            "resourcequotas",
            "resourcequotas/status",
          ],
        ),
        rule(READ, [""], ["namespaces"]),
        rule(READ, ["discovery.k8s.io"], ["endpointslices"]),
        rule(
          READ,
          ["apps"],
          [
            "controllerrevisions",
            "daemonsets",
            "daemonsets/status",
            "deployments",
            "deployments/scale",
            "deployments/status",
            "replicasets",
            "replicasets/scale",
            "replicasets/status",
            "statefulsets",
            "statefulsets/scale",
            "statefulsets/status",
          ],
        ),
        rule(READ, ["autoscaling"], ["horizontalpodautoscalers", "horizontalpodautoscalers/status"]),
        rule(READ, ["batch"], ["cronjobs", "cronjobs/status", "jobs", "jobs/status"]),
        rule(
          READ,
          ["extensions"],
          [
            "daemonsets",
            "daemonsets/status",
            "deployments",
            "deployments/scale",
            "deployments/status",
            "ingresses",
            "ingresses/status",
            "networkpolicies",
            "replicasets",
            "replicasets/scale",
            "replicasets/status",
            "replicationcontrollers/scale",
          ],
        ),
        rule(READ, ["policy"], ["poddisruptionbudgets", "poddisruptionbudgets/status"]),
        rule(READ, ["networking.k8s.io"], ["ingresses", "ingresses/status", "networkpolicies"]),
      ],
    },
    {
      name: "system:node-bootstrapper",
      rules: [
        rule(["create", "get", "list", "watch"], ["certificates.k8s.io"], ["certificatesigningrequests"]),
      ],
    },
    {
      name: "system:auth-delegator",
      rules: [
        rule(["create"], ["authentication.k8s.io"], ["tokenreviews"]),
        rule(["create"], ["authorization.k8s.io"], ["subjectaccessreviews"]),
      ],
    },
    {
      name: "system:service-account-issuer-discovery",
      rules: [
        urlRule(
          ["get"],
          [
            "/.well-known/openid-configuration",
            "/.well-known/openid-configuration/",
            "/openid/v1/jwks",
            "/openid/v1/jwks/",
          ],
        ),
      ],
    },
    {
      name: "system:certificates.k8s.io:certificatesigningrequests:nodeclient",
      rules: [rule(["create"], ["certificates.k8s.io"], ["certificatesigningrequests/nodeclient"])],
    },
    {
      name: "system:certificates.k8s.io:certificatesigningrequests:selfnodeclient",
      rules: [rule(["create"], ["certificates.k8s.io"], ["certificatesigningrequests/selfnodeclient"])],
    },
    ...(
      [
        ["legacy-unknown-approver", "kubernetes.io/legacy-unknown"],
        ["kubelet-serving-approver", "kubernetes.io/kubelet-serving"],
        ["kube-apiserver-client-approver", "kubernetes.io/kube-apiserver-client"],
        ["kube-apiserver-client-kubelet-approver", "kubernetes.io/kube-apiserver-client-kubelet"],
      ] as const
    ).map(([name, signer]) => ({
      name: `system:certificates.k8s.io:${name}`,
      rules: [rule(["approve"], ["certificates.k8s.io"], ["signers"], [signer])],
    })),
  ],
  bindings: [
    clusterBinding("cluster-admin", { kind: "Group", name: "system:masters" }),
    clusterBinding("system:monitoring", { kind: "Group", name: "system:monitoring" }),
    clusterBinding("system:discovery", { kind: "Group", name: "system:authenticated" }),
    clusterBinding("system:basic-user", { kind: "Group", name: "system:authenticated" }),
    clusterBinding(
      "system:public-info-viewer",
      { kind: "Group", name: "system:authenticated" },
      { kind: "Group", name: "system:unauthenticated" },
    ),
    clusterBinding("system:service-account-issuer-discovery", {
      kind: "Group",
      name: "system:serviceaccounts",
    }),
  ],
};

/** Creates what is missing of `policy` and adds missing rules and subjects to what exists. */
export async function reconcilePolicy(server: ServerContext, policy: Policy): Promise<void> {
  const writer = systemWriter(server, "kube-apiserver");
  const ctx = requestContext();
  const opts = { dryRun: false, fieldValidation: "Ignore" as const, fieldManager: "kube-apiserver" };
  const types = {
    Role: server.registry.get("rbac.authorization.k8s.io", "v1", "roles")!,
    ClusterRole: server.registry.get("rbac.authorization.k8s.io", "v1", "clusterroles")!,
    RoleBinding: server.registry.get("rbac.authorization.k8s.io", "v1", "rolebindings")!,
    ClusterRoleBinding: server.registry.get("rbac.authorization.k8s.io", "v1", "clusterrolebindings")!,
  };
  const ensure = async (want: NewObject, merge: (cur: StoredObject) => StoredObject | undefined) => {
    const rt = types[want.kind as keyof typeof types];
    const { name, namespace } = want.metadata;
    let current: StoredObject | undefined;
    try {
      current = await getObject(server, rt, namespace, name!);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    if (!current) {
      try {
        await createObject(server, ctx, rt, namespace, want, opts);
        return;
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
        current = await getObject(server, rt, namespace, name!);
      }
    }
    if (current.metadata.annotations?.[AUTOUPDATE_ANNOTATION] === "false") return;
    if (merge(cloneJson(current)) === undefined) return;
    await writer.change(rt, current, (cur) => merge(cloneJson(cur)) ?? cur).catch(unlessGoneOrChanged);
  };
  for (const spec of policy.roles) {
    const want = roleObject(spec, policy);
    await ensure(want, (cur) => {
      const have = rulesOf(cur);
      // An aggregated role's rules are the aggregation controller's business.
      const missing = spec.aggregateFrom ? [] : spec.rules.filter((r) => !have.some((h) => deepEqual(h, r)));
      const aggregation = want.aggregationRule;
      if (missing.length === 0 && (!aggregation || deepEqual(cur.aggregationRule, aggregation)))
        return undefined;
      if (aggregation) cur.aggregationRule = aggregation;
      cur.rules = [...(Array.isArray(cur.rules) ? cur.rules : []), ...missing];
      return cur;
    });
  }
  for (const spec of policy.bindings) {
    const want = bindingObject(spec, policy);
    await ensure(want, (cur) => {
      const have = Array.isArray(cur.subjects) ? cur.subjects.filter(isObject) : [];
      const missing = (want.subjects as Array<Record<string, string>>).filter(
        (s) =>
          !have.some(
            (h) => h.kind === s.kind && h.name === s.name && (h.namespace ?? "") === (s.namespace ?? ""),
          ),
      );
      if (missing.length === 0) return undefined;
      cur.subjects = [...have, ...missing];
      return cur;
    });
  }
}

/** The default policy, and Karmada's own when this is a Karmada control plane. */
export async function reconcileBootstrapPolicy(
  server: ServerContext,
  extra: readonly Policy[],
): Promise<void> {
  await reconcilePolicy(server, KUBERNETES_POLICY);
  for (const p of extra) await reconcilePolicy(server, p);
}
