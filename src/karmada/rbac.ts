/**
 * Karmada's identities and RBAC in the control plane:
 * - `karmada-view` / `karmada-edit`, aggregated into view/edit/admin (as `karmadactl init`);
 * - the bootstrap-token configuration (`karmadactl init`, artifacts/deploy/
 *   bootstrap-token-configuration.yaml): anonymous read of `kube-public/cluster-info`, CSR
 *   creation and auto-approval for bootstrap tokens and agents, the rbac-generator;
 * - our components' own users and least-privilege ClusterRoles. Upstream gives the
 *   controller manager and the scheduler `system:masters`; we give them the CNs upstream's
 *   dev deploy script names them with and only what they use (ADR 0010);
 * - the per-cluster agent RBAC `karmadactl register` creates (upstream v1.12's minimized set).
 */

import {
  CLUSTER_INFO_NAME,
  CLUSTER_INFO_NAMESPACE,
  KARMADA_BOOTSTRAP_GROUP,
} from "../api/bootstrap-token.ts";
import {
  type BindingSpec,
  clusterBinding,
  type Policy,
  type RoleSpec,
  rule,
  urlRule,
} from "../apiserver/authz/bootstrap-policy.ts";

export const CONTROLLER_MANAGER_USER = "system:karmada:karmada-controller-manager";
export const SCHEDULER_USER = "system:karmada:karmada-scheduler";
export const AGENT_USER_PREFIX = "system:karmada:agent:";
export const AGENTS_GROUP = "system:karmada:agents";
export const RBAC_GENERATOR_USER = "system:karmada:agent:rbac-generator";
export const CONTROLLER_MANAGER_ROLE = "system:karmada:controller-manager";
export const SCHEDULER_ROLE = "system:karmada:scheduler";
/** karmada-search's identity (the search API, the proxy and their caches). */
export const SEARCH_USER = "system:karmada:karmada-search";
export const SEARCH_ROLE = "system:karmada:search";
/** The identity the cluster proxy reads Clusters and their secrets with (upstream's karmada-aggregated-apiserver). */
export const AGGREGATED_APISERVER_USER = "system:karmada:karmada-aggregated-apiserver";
export const AGGREGATED_APISERVER_ROLE = "system:karmada:aggregated-apiserver";
/** Upstream's artifacts/deploy/cluster-proxy-admin-rbac.yaml: system:admin may proxy every member. */
export const CLUSTER_PROXY_ADMIN = "cluster-proxy-admin";

export function agentUser(cluster: string): string {
  return `${AGENT_USER_PREFIX}${cluster}`;
}

const READ = ["get", "list", "watch"];
const WRITE = ["create", "delete", "deletecollection", "patch", "update"];

/** What karmada-view and karmada-edit cover, per API group. */
const KARMADA_NAMESPACED: Array<[string, string[]]> = [
  [
    "autoscaling.karmada.io",
    ["cronfederatedhpas", "cronfederatedhpas/status", "federatedhpas", "federatedhpas/status"],
  ],
  [
    "multicluster.x-k8s.io",
    ["serviceexports", "serviceexports/status", "serviceimports", "serviceimports/status"],
  ],
  [
    "networking.karmada.io",
    [
      "multiclusteringresses",
      "multiclusteringresses/status",
      "multiclusterservices",
      "multiclusterservices/status",
    ],
  ],
  ["policy.karmada.io", ["overridepolicies", "propagationpolicies"]],
  ["work.karmada.io", ["resourcebindings", "resourcebindings/status", "works", "works/status"]],
];

const LEASES = "coordination.k8s.io";

const roles: RoleSpec[] = [
  {
    name: "karmada-view",
    labels: { "rbac.authorization.k8s.io/aggregate-to-view": "true" },
    rules: KARMADA_NAMESPACED.map(([group, resources]) => rule(READ, [group], resources)),
  },
  {
    name: "karmada-edit",
    labels: { "rbac.authorization.k8s.io/aggregate-to-edit": "true" },
    rules: KARMADA_NAMESPACED.map(([group, resources]) => rule(WRITE, [group], resources)),
  },
  {
    name: "system:karmada:bootstrap-signer-clusterinfo",
    namespace: CLUSTER_INFO_NAMESPACE,
    rules: [rule(["get"], [""], ["configmaps"], [CLUSTER_INFO_NAME])],
  },
  {
    name: "system:karmada:certificatesigningrequest:autoapprover",
    rules: [rule(["create"], ["certificates.k8s.io"], ["certificatesigningrequests/clusteragent"])],
  },
  {
    name: "system:karmada:certificatesigningrequest:selfautoapprover",
    rules: [rule(["create"], ["certificates.k8s.io"], ["certificatesigningrequests/selfclusteragent"])],
  },
  { name: "system:karmada:agent-rbac-generator", rules: [rule(["*"], ["*"], ["*"])] },
  {
    // Reads everything (templates of any kind, member credentials); changes what the
    // controllers own; creates and deletes only Karmada's own objects, its execution
    // namespaces, events and leases; approves agent CSRs.
    name: CONTROLLER_MANAGER_ROLE,
    rules: [
      rule([...READ, "patch", "update"], ["*"], ["*"]),
      rule(
        ["create", "delete", "deletecollection"],
        ["work.karmada.io"],
        ["clusterresourcebindings", "resourcebindings", "works"],
      ),
      rule(["create", "delete"], [""], ["namespaces"]),
      rule(["create"], ["", "events.k8s.io"], ["events"]),
      rule(["create", "delete"], [LEASES], ["leases"]),
      // Agent CSR approval, and who may scrape its /metrics (delegated authentication and authorization).
      rule(["create"], ["authorization.k8s.io"], ["subjectaccessreviews"]),
      rule(["create"], ["authentication.k8s.io"], ["tokenreviews"]),
      rule(["approve"], ["certificates.k8s.io"], ["signers"], ["kubernetes.io/kube-apiserver-client"]),
      urlRule(["get"], ["/healthz", "/livez", "/readyz"]),
    ],
  },
  {
    // Places bindings: reads clusters, policies and interpreter configuration, writes bindings.
    name: SCHEDULER_ROLE,
    rules: [
      rule(READ, ["cluster.karmada.io"], ["clusters"]),
      rule(
        [...READ, "patch", "update"],
        ["work.karmada.io"],
        [
          "clusterresourcebindings",
          "clusterresourcebindings/status",
          "resourcebindings",
          "resourcebindings/status",
        ],
      ),
      rule(READ, ["policy.karmada.io"], ["clusterpropagationpolicies", "propagationpolicies"]),
      rule(
        READ,
        ["config.karmada.io"],
        ["resourceinterpretercustomizations", "resourceinterpreterwebhookconfigurations"],
      ),
      rule(["create", "patch", "update"], ["", "events.k8s.io"], ["events"]),
      rule(["create"], [LEASES], ["leases"]),
      rule(["get", "update"], [LEASES], ["leases"], ["karmada-scheduler"]),
      // Who may scrape its /metrics (delegated authentication and authorization).
      rule(["create"], ["authentication.k8s.io"], ["tokenreviews"]),
      rule(["create"], ["authorization.k8s.io"], ["subjectaccessreviews"]),
    ],
  },
  {
    // Caches members for the search API and the proxy: reads Clusters, registries and the
    // clusters' credentials, writes registry status.
    name: SEARCH_ROLE,
    rules: [
      rule(READ, ["cluster.karmada.io"], ["clusters"]),
      rule(READ, ["search.karmada.io"], ["resourceregistries"]),
      rule(["patch", "update"], ["search.karmada.io"], ["resourceregistries/status"]),
      rule(["get"], [""], ["secrets"]),
    ],
  },
  {
    // Proxies to members: reads a Cluster and its two credential secrets.
    name: AGGREGATED_APISERVER_ROLE,
    rules: [rule(["get"], ["cluster.karmada.io"], ["clusters"]), rule(["get"], [""], ["secrets"])],
  },
  { name: CLUSTER_PROXY_ADMIN, rules: [rule(["*"], ["cluster.karmada.io"], ["clusters/proxy"])] },
];

const bindings: BindingSpec[] = [
  {
    name: "system:karmada:bootstrap-signer-clusterinfo",
    namespace: CLUSTER_INFO_NAMESPACE,
    role: { kind: "Role", name: "system:karmada:bootstrap-signer-clusterinfo" },
    subjects: [{ kind: "User", name: "system:anonymous" }],
  },
  {
    name: "system:karmada:agent-bootstrap",
    role: { kind: "ClusterRole", name: "system:node-bootstrapper" },
    subjects: [{ kind: "Group", name: KARMADA_BOOTSTRAP_GROUP }],
  },
  {
    name: "system:karmada:agent-autoapprove-bootstrap",
    role: { kind: "ClusterRole", name: "system:karmada:certificatesigningrequest:autoapprover" },
    subjects: [{ kind: "Group", name: KARMADA_BOOTSTRAP_GROUP }],
  },
  {
    name: "system:karmada:agent-autoapprove-certificate-rotation",
    role: { kind: "ClusterRole", name: "system:karmada:certificatesigningrequest:selfautoapprover" },
    subjects: [{ kind: "Group", name: AGENTS_GROUP }],
  },
  clusterBinding("system:karmada:agent-rbac-generator", { kind: "User", name: RBAC_GENERATOR_USER }),
  clusterBinding(CONTROLLER_MANAGER_ROLE, { kind: "User", name: CONTROLLER_MANAGER_USER }),
  clusterBinding(SCHEDULER_ROLE, { kind: "User", name: SCHEDULER_USER }),
  clusterBinding(SEARCH_ROLE, { kind: "User", name: SEARCH_USER }),
  clusterBinding(AGGREGATED_APISERVER_ROLE, { kind: "User", name: AGGREGATED_APISERVER_USER }),
  clusterBinding(CLUSTER_PROXY_ADMIN, { kind: "User", name: "system:admin" }),
];

/** Karmada's control-plane RBAC, reconciled by the API server at start-up. */
export const KARMADA_POLICY: Policy = {
  labels: { "karmada.io/bootstrapping": "rbac-defaults" },
  annotations: { "rbac.authorization.kubernetes.io/autoupdate": "true" },
  roles,
  bindings,
};

/** The names of the per-cluster agent RBAC objects `register` creates. */
export function agentRbacNames(cluster: string): {
  clusterRole: string;
  secretRole: string;
  workRole: string;
} {
  return {
    clusterRole: `system:karmada:${cluster}:agent`,
    secretRole: `system:karmada:${cluster}:agent-secret`,
    workRole: `system:karmada:${cluster}:agent-work`,
  };
}

/**
 * What an agent may do in the control plane, as `karmadactl register` grants it: its own
 * Cluster (and create, list, watch), its status, interpreter configuration, leases, CSRs,
 * events; its own credential Secrets in the cluster namespace; the Works of its own
 * execution namespace.
 */
export function agentPolicy(cluster: string, clusterNamespace: string): Pick<Policy, "roles" | "bindings"> {
  const names = agentRbacNames(cluster);
  const subjects = [{ kind: "User" as const, name: agentUser(cluster) }];
  return {
    roles: [
      {
        name: names.clusterRole,
        rules: [
          rule(["get", "delete"], ["cluster.karmada.io"], ["clusters"], [cluster]),
          rule(["create", "list", "watch"], ["cluster.karmada.io"], ["clusters"]),
          rule(["update"], ["cluster.karmada.io"], ["clusters/status"], [cluster]),
          rule(
            READ,
            ["config.karmada.io"],
            ["resourceinterpreterwebhookconfigurations", "resourceinterpretercustomizations"],
          ),
          rule(["get"], [""], ["namespaces"]),
          rule(["get", "create", "update"], [LEASES], ["leases"]),
          rule(["get", "create"], ["certificates.k8s.io"], ["certificatesigningrequests"]),
          rule(["list", "watch"], [""], ["services"]),
          rule(["patch", "create", "update"], [""], ["events"]),
        ],
      },
      {
        name: names.secretRole,
        namespace: clusterNamespace,
        rules: [
          rule(["get", "patch"], [""], ["secrets"], [cluster, `${cluster}-impersonator`]),
          rule(["create"], [""], ["secrets"]),
        ],
      },
      {
        name: names.workRole,
        namespace: `karmada-es-${cluster}`,
        rules: [
          rule(["get", "create", "list", "watch", "update", "delete"], ["work.karmada.io"], ["works"]),
          rule(["patch", "update"], ["work.karmada.io"], ["works/status"]),
        ],
      },
    ],
    bindings: [
      { name: names.clusterRole, role: { kind: "ClusterRole", name: names.clusterRole }, subjects },
      {
        name: names.secretRole,
        namespace: clusterNamespace,
        role: { kind: "Role", name: names.secretRole },
        subjects,
      },
      {
        name: names.workRole,
        namespace: `karmada-es-${cluster}`,
        role: { kind: "Role", name: names.workRole },
        subjects,
      },
    ],
  };
}
