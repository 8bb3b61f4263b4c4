/**
 * Upstream's unified-auth controller: whoever the control plane allows to proxy a cluster
 * (RBAC on `cluster.karmada.io` `clusters/proxy` naming it or all clusters, or on
 * `search.karmada.io` `proxying/proxy`) may be impersonated in that cluster by its
 * impersonator service account. For each cluster with an impersonator secret, two Works in
 * its execution space keep ClusterRole and ClusterRoleBinding `karmada-impersonator` in the
 * member: `impersonate` on exactly those users, groups and service accounts. Only
 * ClusterRoleBindings to ClusterRoles count, and verbs are not looked at, as upstream.
 */
import { randomUUID } from "node:crypto";
import type { KubeObject, StoredObject } from "../api/meta.ts";
import { RESOURCES } from "../client/client.ts";
import { IMPERSONATOR_SA, SYSTEM_LABEL } from "../cluster/register.ts";
import { ANNOTATION, executionSpace, LABEL, workName } from "../karmada/names.ts";
import { KARMADA } from "../karmada/resources.ts";
import type { ClusterObject } from "../karmada/types.ts";
import { deepEqual } from "../machinery/equality.ts";
import { type Controller, done, type ReconcileResult } from "../runtime/controller.ts";
import { objectKeys } from "../runtime/keys.ts";
import type { ControllerContext } from "./context.ts";
import { createOrUpdateWork, workManifest } from "./work.ts";

export const IMPERSONATOR_ROLE = "karmada-impersonator";

interface Rule {
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
}

interface Subject {
  kind: string;
  name: string;
  namespace?: string;
}

const has = (list: string[] | undefined, value: string): boolean =>
  !!list && (list.includes(value) || list.includes("*"));

/** The clusters a ClusterRole lets its subjects proxy: names, `"all"`, or none. */
export function proxiedClusters(role: StoredObject): string[] | "all" {
  const names = new Set<string>();
  for (const rule of (role.rules as Rule[] | undefined) ?? []) {
    if (has(rule.apiGroups, "search.karmada.io") && has(rule.resources, "proxying/proxy")) return "all";
    if (!has(rule.apiGroups, "cluster.karmada.io") || !has(rule.resources, "clusters/proxy")) continue;
    if (!rule.resourceNames || rule.resourceNames.length === 0) return "all";
    for (const n of rule.resourceNames) names.add(n);
  }
  return [...names];
}

/** Upstream's GenerateImpersonationRules: `impersonate` on each kind of subject, names sorted. */
export function impersonationRules(subjects: readonly Subject[]): Array<Record<string, unknown>> {
  const byResource: Array<[string, string]> = [
    ["User", "users"],
    ["ServiceAccount", "serviceaccounts"],
    ["Group", "groups"],
  ];
  const rules: Array<Record<string, unknown>> = [];
  for (const [kind, resource] of byResource) {
    const names = [...new Set(subjects.filter((s) => s.kind === kind).map((s) => s.name))].sort();
    if (names.length > 0)
      rules.push({ apiGroups: [""], resources: [resource], verbs: ["impersonate"], resourceNames: names });
  }
  return rules;
}

export function unifiedAuthController(ctx: ControllerContext): Controller {
  const clusters = ctx.informers.informer(RESOURCES.clusters);
  const roles = ctx.informers.informer(RESOURCES.clusterroles);
  const bindings = ctx.informers.informer(RESOURCES.clusterrolebindings);
  const works = ctx.informers.informer(KARMADA.works);

  const clustersOfRole = (role: StoredObject | undefined): string[] => {
    if (!role) return [];
    const which = proxiedClusters(role);
    return which === "all"
      ? clusters.keys()
      : which.map((name) => objectKeys.encode({ namespace: undefined, name }));
  };
  const roleOf = (binding: StoredObject): StoredObject | undefined => {
    const ref = binding.roleRef as { kind?: string; name?: string } | undefined;
    return ref?.kind === "ClusterRole" && ref.name ? roles.get(undefined, ref.name) : undefined;
  };

  function subjectsFor(cluster: string): Subject[] {
    const allowed = new Set(
      roles
        .list()
        .filter((r) => {
          const which = proxiedClusters(r);
          return which === "all" || which.includes(cluster);
        })
        .map((r) => r.metadata.name),
    );
    const subjects: Subject[] = [];
    for (const b of bindings.list()) {
      const ref = b.roleRef as { kind?: string; name?: string } | undefined;
      if (ref?.kind !== "ClusterRole" || !ref.name || !allowed.has(ref.name)) continue;
      subjects.push(...((b.subjects as Subject[] | undefined) ?? []));
    }
    return subjects;
  }

  async function writeWork(cluster: ClusterObject, manifest: KubeObject): Promise<void> {
    const namespace = executionSpace(cluster.metadata.name);
    const name = workName(manifest.kind!, manifest.metadata!.name!);
    const existing = works.get(namespace, name);
    if (existing?.metadata.deletionTimestamp) return;
    const workId = existing?.metadata.labels?.[LABEL.workPermanentId] ?? randomUUID();
    manifest.metadata!.labels = { ...manifest.metadata!.labels, [LABEL.managed]: "true" };
    manifest.metadata!.annotations = { [ANNOTATION.workName]: name, [ANNOTATION.workNamespace]: namespace };
    await createOrUpdateWork(ctx, existing, {
      namespace,
      name,
      labels: { [LABEL.workPermanentId]: workId },
      annotations: {},
      ownerReferences: [
        {
          apiVersion: "cluster.karmada.io/v1alpha1",
          kind: "Cluster",
          name: cluster.metadata.name,
          uid: cluster.metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
      spec: { workload: { manifests: [workManifest(manifest, workId)] } },
    });
  }

  async function reconcile(key: string): Promise<ReconcileResult> {
    const cluster = clusters.getByKey(key) as ClusterObject | undefined;
    if (!cluster || cluster.metadata.deletionTimestamp) return done;
    const name = cluster.metadata.name;
    const ref = cluster.spec?.impersonatorSecretRef as { namespace?: string } | undefined;
    // Without an impersonator the cluster cannot be proxied; upstream logs "unified auth is disabled".
    if (!ref) return done;
    const labels = { [SYSTEM_LABEL]: "true" };
    await writeWork(cluster, {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: IMPERSONATOR_ROLE, labels },
      rules: impersonationRules(subjectsFor(name)),
    });
    await writeWork(cluster, {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name: IMPERSONATOR_ROLE, labels },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: IMPERSONATOR_ROLE },
      subjects: [{ kind: "ServiceAccount", name: IMPERSONATOR_SA, namespace: ref.namespace ?? "" }],
    });
    return done;
  }

  return {
    name: "unified-auth-controller",
    for: clusters,
    // Upstream reacts to a Cluster's creation only; a new impersonator secret ref counts too here.
    updateFilter: (old, obj) =>
      !deepEqual(
        (old.spec as ClusterObject["spec"])?.impersonatorSecretRef,
        (obj.spec as ClusterObject["spec"])?.impersonatorSecretRef,
      ),
    watches: [
      { informer: roles, map: clustersOfRole, coalesceMs: 200 },
      { informer: bindings, map: (b) => clustersOfRole(roleOf(b)), coalesceMs: 200 },
    ],
    reconcile: (_rctx, key) => reconcile(key),
  };
}
