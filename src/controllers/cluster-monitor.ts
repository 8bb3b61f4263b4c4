/**
 * Cluster health monitoring, the part of upstream's cluster controller that notices a silent
 * member: for Pull-mode clusters (an agent reports their status and renews the Lease
 * `karmada-cluster/<name>`), when neither the Ready condition changed nor the Lease was renewed
 * for the monitor grace period (the startup grace period while the cluster never reported),
 * Ready turns Unknown, which brings the unreachable taint. Push-mode clusters are probed by our
 * own cluster-status controller, so upstream leaves them alone here and so do we.
 *
 * What was last seen per cluster lives in memory, as upstream keeps it: a restarted monitor
 * starts every clock again, which can only delay a verdict, never invent one.
 */
import { isObject, rfc3339, type StoredObject } from "../api/meta.ts";
import { RESOURCES } from "../client/client.ts";
import { jsonEqual } from "../machinery/merge-patch.ts";
import type { Controller, ReconcileResult } from "../runtime/controller.ts";
import type { ControllerContext } from "./context.ts";

/** Upstream's util.NamespaceClusterLease: where agents keep one Lease per Pull cluster. */
export const CLUSTER_LEASE_NAMESPACE = "karmada-cluster";

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  [k: string]: unknown;
}

interface Health {
  /** The Ready condition as last seen (undefined: none yet). */
  ready: Condition | undefined;
  /** The Lease's renewTime as last seen. */
  leaseRenewTime: string | undefined;
  /** When we last saw a sign of life: a changed Ready condition or a renewed Lease. */
  probeTimestamp: number;
}

function conditionsOf(cluster: StoredObject): Condition[] {
  const status = isObject(cluster.status) ? cluster.status : {};
  return Array.isArray(status.conditions) ? (status.conditions.filter(isObject) as Condition[]) : [];
}

export function clusterMonitorController(ctx: ControllerContext): Controller {
  const clusters = ctx.informers.informer(RESOURCES.clusters);
  const leases = ctx.informers.informer(RESOURCES.leases, { namespace: CLUSTER_LEASE_NAMESPACE });
  const health = new Map<string, Health>();
  const period = ctx.options.clusterMonitorPeriodMs;

  return {
    name: "cluster-monitor",
    for: clusters,
    watches: [{ informer: leases, map: (lease) => [lease.metadata.name!] }],
    async reconcile(_rc, name): Promise<ReconcileResult> {
      const cluster = clusters.get(undefined, name);
      if (!cluster) {
        health.delete(name);
        return undefined;
      }
      const now = ctx.now();
      const spec = isObject(cluster.spec) ? cluster.spec : {};
      const conditions = conditionsOf(cluster);
      const ready = conditions.find((c) => c.type === "Ready");
      const created = Date.parse(cluster.metadata.creationTimestamp ?? "") || now;

      let seen = health.get(name);
      if (!seen) {
        seen = { ready, leaseRenewTime: undefined, probeTimestamp: ready ? now : created };
        health.set(name, seen);
      } else if (!jsonEqual(seen.ready, ready)) {
        seen.ready = ready;
        seen.probeTimestamp = now;
      }
      if (spec.syncMode !== "Pull") return undefined;

      const lease = leases.get(CLUSTER_LEASE_NAMESPACE, name);
      const renewTime = isObject(lease?.spec) ? (lease.spec.renewTime as string | undefined) : undefined;
      if (renewTime && renewTime !== seen.leaseRenewTime) {
        seen.leaseRenewTime = renewTime;
        seen.probeTimestamp = now;
      }

      const grace = ready ? ctx.options.clusterMonitorGracePeriodMs : ctx.options.clusterStartupGracePeriodMs;
      if (now <= seen.probeTimestamp + grace) return { requeueAfterMs: period };
      if (ready?.status === "Unknown") return { requeueAfterMs: period };

      const unknown: Condition = ready
        ? {
            ...ready,
            status: "Unknown",
            reason: "ClusterStatusUnknown",
            message: "Cluster status controller stopped posting cluster status.",
            lastTransitionTime: rfc3339(now),
          }
        : {
            type: "Ready",
            status: "Unknown",
            reason: "ClusterStatusNeverUpdated",
            message: "Cluster status controller never posted cluster status.",
            lastTransitionTime: rfc3339(now),
          };
      const next = ready ? conditions.map((c) => (c === ready ? unknown : c)) : [...conditions, unknown];
      ctx.log.info("cluster stopped reporting, Ready is now Unknown", {
        cluster: name,
        silentForMs: now - seen.probeTimestamp,
      });
      // Optimistic: a conflict means the agent just wrote, which the next reconcile sees.
      await ctx.client.updateStatus(RESOURCES.clusters, {
        ...cluster,
        status: { ...(isObject(cluster.status) ? cluster.status : {}), conditions: next },
      });
      return { requeueAfterMs: period };
    },
  };
}
