/**
 * The cluster taint policy controller (upstream `clustertaintpolicy`, gate `Failover`): taints
 * and untaints Clusters as their status conditions change, by ClusterTaintPolicies. Policies
 * apply oldest first, each to the clusters its `targetClusters` selects (all when unset): when
 * every `addOnConditions` entry holds, its taints are added (`timeAdded` now) unless a taint
 * with the same key and effect is there; when every `removeOnConditions` entry holds, they go.
 * A deleted policy leaves its taints behind, as upstream's.
 */
import { isObject, rfc3339, type StoredObject } from "../api/meta.ts";
import { RESOURCES, type ResourceRef } from "../client/client.ts";
import type { ClusterAffinity, ClusterObject, Taint } from "../karmada/types.ts";
import type { Condition } from "../machinery/conditions.ts";
import { deepEqual } from "../machinery/equality.ts";
import { clusterMatches } from "../policy/cluster-affinity.ts";
import { type Controller, done, type ReconcileResult } from "../runtime/controller.ts";
import { objectKey } from "../runtime/keys.ts";
import { commitClusterTaints, taintsMessage } from "./cluster.ts";
import type { ControllerContext } from "./context.ts";

/** Upstream's controller name: the source of its events. */
export const CLUSTER_TAINT_POLICY_CONTROLLER = "cluster-taint-policy-controller";

export const CLUSTER_TAINT_POLICIES: ResourceRef = {
  group: "policy.karmada.io",
  version: "v1alpha1",
  resource: "clustertaintpolicies",
  namespaced: false,
  kind: "ClusterTaintPolicy",
};

export interface MatchCondition {
  conditionType: string;
  operator: string;
  statusValues: string[];
}

export interface ClusterTaintPolicySpec {
  targetClusters?: ClusterAffinity;
  addOnConditions?: MatchCondition[];
  removeOnConditions?: MatchCondition[];
  taints: Array<{ key: string; value?: string; effect: string }>;
}

/**
 * Whether every match condition holds (ANDed): `In` needs the cluster's condition of that type
 * to have one of the values, `NotIn` none of them; a condition the cluster lacks never holds,
 * an unknown operator fails the whole list, and an empty list never matches.
 */
export function conditionsMatch(
  conditions: readonly Pick<Condition, "type" | "status">[],
  matches: readonly MatchCondition[] | undefined,
): boolean {
  if (!matches || matches.length === 0) return false;
  for (const m of matches) {
    const cond = conditions.findLast((c) => c.type === m.conditionType);
    if (m.operator !== "In" && m.operator !== "NotIn") return false;
    if (!cond) return false;
    const listed = (m.statusValues ?? []).includes(cond.status);
    if (listed !== (m.operator === "In")) return false;
  }
  return true;
}

const sameTaint = (a: { key: string; effect: string }, b: { key: string; effect: string }): boolean =>
  a.key === b.key && a.effect === b.effect;

/** The taints plus each policy taint that has no key-and-effect match yet, stamped `timeAdded`. */
export function addPolicyTaints(
  taints: readonly Taint[],
  add: ClusterTaintPolicySpec["taints"],
  timeAdded: string,
): Taint[] {
  const out = [...taints];
  for (const t of add) {
    if (out.some((c) => sameTaint(c, t))) continue;
    out.push({ key: t.key, ...(t.value ? { value: t.value } : {}), effect: t.effect, timeAdded });
  }
  return out;
}

/** The taints without the first key-and-effect match of each policy taint. */
export function removePolicyTaints(
  taints: readonly Taint[],
  remove: ClusterTaintPolicySpec["taints"],
): Taint[] {
  const out = [...taints];
  for (const t of remove) {
    const at = out.findIndex((c) => sameTaint(c, t));
    if (at >= 0) out.splice(at, 1);
  }
  return out;
}

/** Oldest first, so that conflicting policies settle on the same taints every time (ties: by name). */
export function byCreation(a: StoredObject, b: StoredObject): number {
  const ta = Date.parse(a.metadata.creationTimestamp ?? "") || 0;
  const tb = Date.parse(b.metadata.creationTimestamp ?? "") || 0;
  return ta - tb || (a.metadata.name ?? "").localeCompare(b.metadata.name ?? "");
}

function specOf(policy: StoredObject): ClusterTaintPolicySpec {
  const spec = isObject(policy.spec) ? (policy.spec as unknown as ClusterTaintPolicySpec) : undefined;
  return { ...spec, taints: Array.isArray(spec?.taints) ? spec.taints : [] };
}

function targets(cluster: ClusterObject, affinity: ClusterAffinity | undefined): boolean {
  try {
    return clusterMatches(cluster, affinity);
  } catch {
    return false; // a selector upstream cannot parse selects nothing
  }
}

function conditionsOf(cluster: StoredObject): Condition[] {
  const status = isObject(cluster.status) ? cluster.status : {};
  return (Array.isArray(status.conditions) ? status.conditions : []) as Condition[];
}

function taintsOf(cluster: StoredObject): Taint[] {
  const spec = isObject(cluster.spec) ? cluster.spec : {};
  return (Array.isArray(spec.taints) ? spec.taints : []) as Taint[];
}

/** The taints the policies (oldest first) give a cluster with these conditions. */
export function taintsByPolicies(
  cluster: ClusterObject,
  policies: readonly StoredObject[],
  now: number,
): Taint[] {
  const conditions = conditionsOf(cluster);
  let taints = taintsOf(cluster);
  for (const policy of [...policies].sort(byCreation)) {
    const spec = specOf(policy);
    if (spec.targetClusters && !targets(cluster, spec.targetClusters)) continue;
    if (conditionsMatch(conditions, spec.addOnConditions)) {
      taints = addPolicyTaints(taints, spec.taints, rfc3339(now));
    }
    if (conditionsMatch(conditions, spec.removeOnConditions)) {
      taints = removePolicyTaints(taints, spec.taints);
    }
  }
  return taints;
}

export function clusterTaintPolicyController(ctx: ControllerContext): Controller {
  const clusters = ctx.informers.informer(RESOURCES.clusters);
  const policies = ctx.informers.informer(CLUSTER_TAINT_POLICIES);
  const events = ctx.recorder(CLUSTER_TAINT_POLICY_CONTROLLER);

  async function reconcile(key: string): Promise<ReconcileResult> {
    const cluster = clusters.getByKey(key);
    if (!cluster) return done;
    const current = taintsOf(cluster);
    const desired = taintsByPolicies(cluster, policies.list(), ctx.now());
    if (deepEqual(desired, current)) return done;
    await commitClusterTaints(
      ctx.client,
      events,
      cluster,
      desired,
      `Update Cluster(${cluster.metadata.name}) with taints(${taintsMessage(desired)}) succeed`,
    );
    return done;
  }

  const targetedClusters = (policy: StoredObject): string[] => {
    const affinity = specOf(policy).targetClusters;
    return clusters
      .list()
      .filter((c) => !affinity || targets(c, affinity))
      .map(objectKey);
  };

  return {
    name: CLUSTER_TAINT_POLICY_CONTROLLER,
    for: clusters,
    // Upstream reacts to a Cluster's conditions only: its own taint writes do not come back.
    updateFilter: (old, obj) => !deepEqual(conditionsOf(old), conditionsOf(obj)),
    watches: [
      {
        informer: policies,
        map: targetedClusters,
        updateFilter: (old, obj) => !deepEqual(old.spec, obj.spec),
      },
    ],
    reconcile: (_rctx, key) => reconcile(key),
  };
}
