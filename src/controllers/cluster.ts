/**
 * The cluster controller: every Cluster gets the `karmada.io/cluster-controller` finalizer
 * and its execution space `karmada-es-<name>`; NoSchedule taints follow the Ready condition;
 * a deleted Cluster loses its execution space, and goes once no binding targets it.
 */
import { isObject, rfc3339, type StoredObject } from "../api/meta.ts";
import { type Client, RESOURCES, type ResourceRef } from "../client/client.ts";
import { type Condition, findCondition } from "../machinery/conditions.ts";
import { deepEqual } from "../machinery/equality.ts";
import { isAlreadyExists, isConflict, isNotFound } from "../machinery/errors.ts";
import { cloneJson } from "../machinery/merge-patch.ts";
import type { Taint } from "../machinery/tolerations.ts";
import { addFinalizer, commit, hasFinalizer, removeFinalizer } from "../runtime/commit.ts";
import { type Controller, done, type ReconcileResult, requeueAfter } from "../runtime/controller.ts";
import type { EventRecorder } from "../runtime/events.ts";
import { objectKey } from "../runtime/keys.ts";
import type { ControllerContext } from "./context.ts";

/** Upstream's controller name: the source of its events. */
export const CLUSTER_CONTROLLER = "cluster-controller";
export const CLUSTER_FINALIZER = "karmada.io/cluster-controller";
export const EXECUTION_SPACE_PREFIX = "karmada-es-";
export const SYSTEM_LABEL = "karmada.io/system";
export const TAINT_NOT_READY = "cluster.karmada.io/not-ready";
export const TAINT_UNREACHABLE = "cluster.karmada.io/unreachable";
/** Upstream's CleanupCheckInterval: how often a deleting cluster looks again (besides watches). */
const CLEANUP_CHECK_INTERVAL_MS = 10_000;

export const RESOURCE_BINDINGS: ResourceRef = {
  group: "work.karmada.io",
  version: "v1alpha2",
  resource: "resourcebindings",
  namespaced: true,
  kind: "ResourceBinding",
};
export const CLUSTER_RESOURCE_BINDINGS: ResourceRef = {
  group: "work.karmada.io",
  version: "v1alpha2",
  resource: "clusterresourcebindings",
  namespaced: false,
  kind: "ClusterResourceBinding",
};

export function executionSpace(cluster: string): string {
  return `${EXECUTION_SPACE_PREFIX}${cluster}`;
}

/**
 * The taints a Cluster should carry given its Ready condition (user taints kept as they are);
 * a taint added gets `timeAdded`, as upstream's SetCurrentClusterTaints stamps it.
 */
export function taintsForReadiness(
  taints: Taint[],
  conditions: readonly Pick<Condition, "type" | "status">[],
  now: number,
): Taint[] {
  const ready = findCondition(conditions, "Ready");
  const want = new Set<string>();
  const drop = new Set<string>();
  if (!ready || ready.status === "False") {
    want.add(TAINT_NOT_READY);
    drop.add(TAINT_UNREACHABLE);
  } else if (ready.status === "Unknown") {
    want.add(TAINT_UNREACHABLE);
    drop.add(TAINT_NOT_READY);
  } else {
    drop.add(TAINT_NOT_READY);
    drop.add(TAINT_UNREACHABLE);
  }
  const out = taints.filter((t) => !(t.effect === "NoSchedule" && drop.has(t.key)));
  for (const key of want) {
    if (!out.some((t) => t.key === key && t.effect === "NoSchedule"))
      out.push({ key, effect: "NoSchedule", timeAdded: rfc3339(now) });
  }
  return out;
}

/**
 * Commits a Cluster's taints (the cluster and taint-policy controllers and the monitor all
 * write them), with upstream's TaintClusterSucceed/Failed events. An empty list is left out, as
 * upstream's `omitempty` does. A conflict only means the cache was behind another writer (the
 * status controller, say): no event, and the retry sees the newer Cluster.
 */
export async function commitClusterTaints(
  client: Client,
  events: EventRecorder,
  cluster: StoredObject,
  taints: Taint[],
  succeeded: string,
): Promise<void> {
  const next = cloneJson(cluster);
  const spec = isObject(next.spec) ? next.spec : {};
  if (taints.length > 0) spec.taints = taints;
  else delete spec.taints;
  next.spec = spec;
  let written: StoredObject | undefined;
  try {
    written = await commit(client, RESOURCES.clusters, cluster, next);
  } catch (err) {
    if (!isConflict(err)) events.event(cluster, "Warning", "TaintClusterFailed", (err as Error).message);
    throw err;
  }
  if (written) events.event(cluster, "Normal", "TaintClusterSucceed", succeeded);
}

/** Upstream's GenerateTaintsMessage: `cluster now has taints([{Key:k,Effect:e}])`. */
export function taintsMessage(taints: Taint[]): string {
  if (taints.length === 0) return "cluster now does not have taints";
  const shown = taints.map((t) =>
    t.value ? `{Key:${t.key},Value:${t.value},Effect:${t.effect}}` : `{Key:${t.key},Effect:${t.effect}}`,
  );
  return `cluster now has taints([${shown.join(",")}])`;
}

function bindingsTargeting(obj: StoredObject): string[] {
  const spec = isObject(obj.spec) ? obj.spec : {};
  const clusters = Array.isArray(spec.clusters) ? spec.clusters : [];
  return clusters.flatMap((c) => (isObject(c) && typeof c.name === "string" ? [c.name] : []));
}

export function clusterController(ctx: ControllerContext): Controller {
  const clusters = ctx.informers.informer(RESOURCES.clusters);
  const byCluster = { byCluster: bindingsTargeting };
  const events = ctx.recorder(CLUSTER_CONTROLLER);
  const rbs = ctx.informers.informer(RESOURCE_BINDINGS, { indexers: byCluster });
  const crbs = ctx.informers.informer(CLUSTER_RESOURCE_BINDINGS, { indexers: byCluster });
  // Execution spaces carry the system label: a deleted one wakes its cluster at once (to
  // finish a deletion, or to recreate it) instead of at the next 10 s check.
  const systemNamespaces = ctx.informers.informer(RESOURCES.namespaces, {
    labelSelector: `${SYSTEM_LABEL}=true`,
  });

  async function removeExecutionSpace(cluster: StoredObject, name: string): Promise<boolean> {
    const es = executionSpace(name);
    try {
      const ns = await ctx.client.get(RESOURCES.namespaces, undefined, es);
      if (!ns.metadata.deletionTimestamp) {
        await ctx.client.delete(RESOURCES.namespaces, undefined, es);
        events.event(
          cluster,
          "Normal",
          "RemoveExecutionSpaceSucceed",
          `Removed execution space for cluster(${name}).`,
        );
      }
      return false;
    } catch (err) {
      if (isNotFound(err)) return true;
      throw err;
    }
  }

  /** A deleted cluster goes once its execution space is gone and no binding lists it. */
  async function removeCluster(cluster: StoredObject, name: string): Promise<ReconcileResult> {
    if (!hasFinalizer(cluster, CLUSTER_FINALIZER)) return done;
    const gone = await removeExecutionSpace(cluster, name);
    const targeted = rbs.byIndex("byCluster", name).length + crbs.byIndex("byCluster", name).length;
    if (!gone || targeted > 0) return requeueAfter(CLEANUP_CHECK_INTERVAL_MS);
    const next = cloneJson(cluster);
    removeFinalizer(next, CLUSTER_FINALIZER);
    await commit(ctx.client, RESOURCES.clusters, cluster, next);
    ctx.members.forget(name);
    return done;
  }

  async function ensureExecutionSpace(cluster: StoredObject, name: string): Promise<void> {
    const es = executionSpace(name);
    if (systemNamespaces.get(undefined, es)) return;
    try {
      await ctx.client.create(RESOURCES.namespaces, {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: es, labels: { [SYSTEM_LABEL]: "true" } },
      });
      events.event(
        cluster,
        "Normal",
        "CreateExecutionSpaceSucceed",
        `Created execution space(${es}) for cluster(${name}).`,
      );
    } catch (err) {
      if (isAlreadyExists(err)) return;
      events.event(cluster, "Warning", "CreateExecutionSpaceFailed", (err as Error).message);
      throw err;
    }
  }

  async function taintByCondition(cluster: StoredObject): Promise<void> {
    const spec = isObject(cluster.spec) ? cluster.spec : {};
    const status = isObject(cluster.status) ? cluster.status : {};
    const taints = (Array.isArray(spec.taints) ? spec.taints : []) as Taint[];
    const conditions = (Array.isArray(status.conditions) ? status.conditions : []) as Condition[];
    const desired = taintsForReadiness(taints, conditions, ctx.now());
    if (deepEqual(desired, taints)) return;
    await commitClusterTaints(
      ctx.client,
      events,
      cluster,
      desired,
      `Taint cluster succeed: ${taintsMessage(desired)}.`,
    );
  }

  async function reconcile(key: string): Promise<ReconcileResult> {
    const cluster = clusters.getByKey(key);
    if (!cluster) return done;
    const name = cluster.metadata.name;
    if (cluster.metadata.deletionTimestamp) return removeCluster(cluster, name);

    if (!hasFinalizer(cluster, CLUSTER_FINALIZER)) {
      const next = cloneJson(cluster);
      addFinalizer(next, CLUSTER_FINALIZER);
      await commit(ctx.client, RESOURCES.clusters, cluster, next);
      return done; // the write comes back through the informer
    }
    await ensureExecutionSpace(cluster, name);
    await taintByCondition(cluster);
    return done;
  }

  // A binding's change matters only to a cluster that is waiting to go.
  const deletingTargets = (binding: StoredObject): string[] =>
    bindingsTargeting(binding).flatMap((name) => {
      const cluster = clusters.get(undefined, name);
      return cluster?.metadata.deletionTimestamp ? [objectKey(cluster)] : [];
    });
  const executionSpaceOwner = (ns: StoredObject): string[] => {
    const name = ns.metadata.name ?? "";
    if (!name.startsWith(EXECUTION_SPACE_PREFIX)) return [];
    const cluster = clusters.get(undefined, name.slice(EXECUTION_SPACE_PREFIX.length));
    return cluster ? [objectKey(cluster)] : [];
  };

  return {
    name: CLUSTER_CONTROLLER,
    for: clusters,
    watches: [
      { informer: rbs, map: deletingTargets },
      { informer: crbs, map: deletingTargets },
      { informer: systemNamespaces, map: executionSpaceOwner },
    ],
    reconcile: (_rctx, key) => reconcile(key),
  };
}
