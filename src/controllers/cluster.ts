/**
 * The cluster controller: every Cluster gets the `karmada.io/cluster-controller` finalizer
 * and its execution space `karmada-es-<name>`; NoSchedule taints follow the Ready condition;
 * a deleted Cluster loses its execution space, and goes once no binding targets it.
 */
import { isObject, type StoredObject } from "../api/meta.ts";
import { RESOURCES, type ResourceRef } from "../client/client.ts";
import { isAlreadyExists, isNotFound } from "../machinery/errors.ts";
import type { Controller, ReconcileResult } from "../runtime/controller.ts";
import type { ControllerContext } from "./context.ts";

export const CLUSTER_FINALIZER = "karmada.io/cluster-controller";
export const EXECUTION_SPACE_PREFIX = "karmada-es-";
export const SYSTEM_LABEL = "karmada.io/system";
export const TAINT_NOT_READY = "cluster.karmada.io/not-ready";
export const TAINT_UNREACHABLE = "cluster.karmada.io/unreachable";

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

interface Taint {
  key: string;
  value?: string;
  effect: string;
  timeAdded?: string;
}

interface Condition {
  type: string;
  status: string;
}

/** The taints a Cluster should carry given its Ready condition (user taints kept as they are). */
export function taintsForReadiness(taints: Taint[], conditions: Condition[]): Taint[] {
  const ready = conditions.find((c) => c.type === "Ready");
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
    if (!out.some((t) => t.key === key && t.effect === "NoSchedule")) out.push({ key, effect: "NoSchedule" });
  }
  return out;
}

function bindingsTargeting(obj: StoredObject): string[] {
  const spec = isObject(obj.spec) ? obj.spec : {};
  const clusters = Array.isArray(spec.clusters) ? spec.clusters : [];
  return clusters.flatMap((c) => (isObject(c) && typeof c.name === "string" ? [c.name] : []));
}

export function clusterController(ctx: ControllerContext): Controller {
  const clusters = ctx.informers.informer(RESOURCES.clusters);
  const byCluster = { byCluster: bindingsTargeting };
  const rbs = ctx.informers.informer(RESOURCE_BINDINGS, { indexers: byCluster });
  const crbs = ctx.informers.informer(CLUSTER_RESOURCE_BINDINGS, { indexers: byCluster });

  async function removeExecutionSpace(cluster: StoredObject, name: string): Promise<boolean> {
    const es = executionSpace(name);
    try {
      const ns = await ctx.client.get(RESOURCES.namespaces, undefined, es);
      if (!ns.metadata.deletionTimestamp) {
        await ctx.client.delete(RESOURCES.namespaces, undefined, es);
        ctx.events.event(
          cluster,
          "Normal",
          "RemoveExecutionSpaceSucceed",
          `Removed execution space(${es}) for cluster(${name}).`,
        );
      }
      return false;
    } catch (err) {
      if (isNotFound(err)) return true;
      throw err;
    }
  }

  async function reconcile(key: string): Promise<ReconcileResult> {
    const cluster = clusters.get(undefined, key);
    if (!cluster) return undefined;
    const name = cluster.metadata.name!;
    const finalizers = cluster.metadata.finalizers ?? [];

    if (cluster.metadata.deletionTimestamp) {
      if (!finalizers.includes(CLUSTER_FINALIZER)) return undefined;
      const gone = await removeExecutionSpace(cluster, name);
      const targeted = rbs.byIndex("byCluster", name).length + crbs.byIndex("byCluster", name).length;
      if (!gone || targeted > 0) return { requeueAfterMs: 10_000 };
      await ctx.client.update(RESOURCES.clusters, {
        ...cluster,
        metadata: { ...cluster.metadata, finalizers: finalizers.filter((f) => f !== CLUSTER_FINALIZER) },
      });
      ctx.members.forget(name);
      return undefined;
    }

    if (!finalizers.includes(CLUSTER_FINALIZER)) {
      await ctx.client.update(RESOURCES.clusters, {
        ...cluster,
        metadata: { ...cluster.metadata, finalizers: [...finalizers, CLUSTER_FINALIZER] },
      });
      return undefined; // the update comes back through the informer
    }

    const es = executionSpace(name);
    try {
      await ctx.client.create(RESOURCES.namespaces, {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: es, labels: { [SYSTEM_LABEL]: "true" } },
      });
      ctx.events.event(
        cluster,
        "Normal",
        "CreateExecutionSpaceSucceed",
        `Created execution space(${es}) for cluster(${name}).`,
      );
    } catch (err) {
      if (!isAlreadyExists(err)) {
        ctx.events.event(
          cluster,
          "Warning",
          "CreateExecutionSpaceFailed",
          `Failed to create execution space for cluster(${name}): ${(err as Error).message}`,
        );
        throw err;
      }
    }

    const spec = isObject(cluster.spec) ? cluster.spec : {};
    const status = isObject(cluster.status) ? cluster.status : {};
    const taints = (Array.isArray(spec.taints) ? spec.taints : []) as Taint[];
    const conditions = (Array.isArray(status.conditions) ? status.conditions : []) as Condition[];
    const desired = taintsForReadiness(taints, conditions);
    if (JSON.stringify(desired) !== JSON.stringify(taints)) {
      try {
        await ctx.client.update(RESOURCES.clusters, { ...cluster, spec: { ...spec, taints: desired } });
        const shown = desired.map((t) => `${t.key}:${t.effect}`).join(",");
        ctx.events.event(cluster, "Normal", "TaintClusterSucceed", `Taint cluster succeed: ${shown}.`);
      } catch (err) {
        ctx.events.event(
          cluster,
          "Warning",
          "TaintClusterFailed",
          `Failed to taint cluster: ${(err as Error).message}`,
        );
        throw err;
      }
    }
    return undefined;
  }

  // A binding's change matters only to a cluster that is waiting to go.
  const deletingTargets = (binding: StoredObject): string[] =>
    bindingsTargeting(binding).filter((name) => clusters.get(undefined, name)?.metadata.deletionTimestamp);

  return {
    name: "cluster",
    for: clusters,
    watches: [
      { informer: rbs, map: deletingTargets },
      { informer: crbs, map: deletingTargets },
    ],
    reconcile: (_rctx, key) => reconcile(key),
  };
}
