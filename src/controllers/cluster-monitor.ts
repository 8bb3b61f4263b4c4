/**
 * Cluster health monitoring, the part of upstream's cluster controller that notices a silent
 * member: for Pull-mode clusters (an agent reports their status and renews the Lease
 * `karmada-cluster/<name>`), when neither the Ready condition changed nor the Lease was renewed
 * for the monitor grace period (the startup grace period while the cluster never reported),
 * Ready turns Unknown, which brings the unreachable taint. Push-mode clusters are probed by our
 * own cluster-status controller, so upstream leaves them alone here and so do we.
 *
 * With gate `Failover` (upstream v1.12's taint-based eviction, `processTaintBaseEviction`), the
 * monitor also gives every cluster, Push or Pull, the NoExecute taint of its Ready condition
 * once that has lasted `--failover-eviction-timeout`: `cluster.karmada.io/not-ready:NoExecute`
 * when Ready has been False since the transition was seen, `cluster.karmada.io/unreachable:
 * NoExecute` when it is Unknown and no sign of life came for that long; the other one goes at
 * the same moment. Ready=True takes both away at once; a cluster that never reported gets
 * neither. The taint manager evicts the workloads that do not tolerate them.
 *
 * What was last seen per cluster lives in memory, as upstream keeps it: a restarted monitor
 * starts every clock again, which can only delay a verdict, never invent one.
 */
import { isObject, rfc3339, type StoredObject } from "../api/meta.ts";
import { RESOURCES } from "../client/client.ts";
import type { Taint } from "../karmada/types.ts";
import type { Logger } from "../log.ts";
import { type Condition, findCondition, setCondition } from "../machinery/conditions.ts";
import { deepEqual } from "../machinery/equality.ts";
import { cloneJson } from "../machinery/merge-patch.ts";
import { commit } from "../runtime/commit.ts";
import { type Controller, done, type ReconcileResult, requeueAfter } from "../runtime/controller.ts";
import { objectKeys } from "../runtime/keys.ts";
import {
  CLUSTER_CONTROLLER,
  commitClusterTaints,
  TAINT_NOT_READY,
  TAINT_UNREACHABLE,
  taintsMessage,
} from "./cluster.ts";
import type { ControllerContext } from "./context.ts";

/** Upstream's util.NamespaceClusterLease: where agents keep one Lease per Pull cluster. */
export const CLUSTER_LEASE_NAMESPACE = "karmada-cluster";

interface Health {
  /** The Ready condition as last seen (undefined: none yet). */
  ready: Condition | undefined;
  /** The Lease's renewTime as last seen. */
  leaseRenewTime: string | undefined;
  /** When we last saw a sign of life: a changed Ready condition or a renewed Lease. */
  probeTimestamp: number;
  /** When we saw Ready transition last (a change that kept its lastTransitionTime is none). */
  readyTransitionTimestamp: number;
}

/** The clocks the NoExecute taints are timed by (upstream's clusterHealthData). */
export interface FailoverClocks {
  readyTransitionTimestamp: number;
  probeTimestamp: number;
}

const noExecute = (key: string) => (t: Taint) => t.key === key && t.effect === "NoExecute";

/**
 * The taints a cluster should carry for its Ready status (undefined: no Ready condition) under
 * gate Failover, and when to look again if a timeout is still running. Taints match by key and
 * effect; one added is stamped `timeAdded` now, as upstream's SetCurrentClusterTaints does.
 */
export function failoverTaints(
  taints: readonly Taint[],
  ready: string | undefined,
  clocks: FailoverClocks,
  now: number,
  timeoutMs: number,
): { taints: Taint[]; recheckAfterMs?: number } {
  if (ready === "True") {
    return {
      taints: taints.filter((t) => !noExecute(TAINT_NOT_READY)(t) && !noExecute(TAINT_UNREACHABLE)(t)),
    };
  }
  if (ready !== "False" && ready !== "Unknown") return { taints: [...taints] };
  const [add, remove, since] =
    ready === "False"
      ? [TAINT_NOT_READY, TAINT_UNREACHABLE, clocks.readyTransitionTimestamp]
      : [TAINT_UNREACHABLE, TAINT_NOT_READY, clocks.probeTimestamp];
  const deadline = since + timeoutMs;
  // Upstream acts once the decision time is after the deadline.
  if (now <= deadline) return { taints: [...taints], recheckAfterMs: deadline - now + 1 };
  const out = taints.filter((t) => !noExecute(remove)(t));
  if (!out.some(noExecute(add))) out.push({ key: add, effect: "NoExecute", timeAdded: rfc3339(now) });
  return { taints: out };
}

function conditionsOf(cluster: StoredObject): Condition[] {
  const status = isObject(cluster.status) ? cluster.status : {};
  return Array.isArray(status.conditions)
    ? (status.conditions.filter(isObject) as unknown as Condition[])
    : [];
}

export function clusterMonitorController(ctx: ControllerContext): Controller {
  const clusters = ctx.informers.informer(RESOURCES.clusters);
  const leases = ctx.informers.informer(RESOURCES.leases, { namespace: CLUSTER_LEASE_NAMESPACE });
  const health = new Map<string, Health>();
  const period = ctx.options.clusterMonitorPeriodMs;
  const failover = ctx.options.features.enabled("Failover");
  const events = ctx.recorder(CLUSTER_CONTROLLER);

  /** Gate Failover: the NoExecute taints of the Ready condition; whether they were written, when to look again. */
  async function taintForFailover(
    cluster: StoredObject,
    seen: Health,
    now: number,
  ): Promise<{ wrote: boolean; recheckAfterMs?: number | undefined }> {
    const spec = isObject(cluster.spec) ? cluster.spec : {};
    const taints = (Array.isArray(spec.taints) ? spec.taints : []) as Taint[];
    const desired = failoverTaints(
      taints,
      seen.ready?.status,
      seen,
      now,
      ctx.options.failoverEvictionTimeoutMs,
    );
    if (deepEqual(desired.taints, taints)) return { wrote: false, recheckAfterMs: desired.recheckAfterMs };
    await commitClusterTaints(
      ctx.client,
      events,
      cluster,
      desired.taints,
      `Taint cluster succeed: ${taintsMessage(desired.taints)}.`,
    );
    return { wrote: true };
  }

  /** What we know of the cluster's signs of life, brought up to date with this version of it. */
  function observe(cluster: StoredObject, ready: Condition | undefined, pull: boolean, now: number): Health {
    const name = cluster.metadata.name;
    let seen = health.get(name);
    if (!seen) {
      const created = Date.parse(cluster.metadata.creationTimestamp ?? "") || now;
      const since = ready ? now : created;
      seen = { ready, leaseRenewTime: undefined, probeTimestamp: since, readyTransitionTimestamp: since };
      health.set(name, seen);
    } else if (!deepEqual(seen.ready, ready)) {
      if (seen.ready?.lastTransitionTime !== ready?.lastTransitionTime) seen.readyTransitionTimestamp = now;
      seen.ready = ready;
      seen.probeTimestamp = now;
    }
    if (pull) {
      const lease = leases.get(CLUSTER_LEASE_NAMESPACE, name);
      const renewTime = isObject(lease?.spec) ? (lease.spec.renewTime as string | undefined) : undefined;
      if (renewTime && renewTime !== seen.leaseRenewTime) {
        seen.leaseRenewTime = renewTime;
        seen.probeTimestamp = now;
      }
    }
    return seen;
  }

  /** Sets Ready to Unknown: the cluster stopped reporting (or never did). */
  async function markUnknown(
    log: Logger,
    cluster: StoredObject,
    ready: Condition | undefined,
    seen: Health,
    now: number,
  ): Promise<void> {
    const next = cloneJson(cluster);
    const conditions = conditionsOf(next);
    setCondition(
      conditions,
      ready
        ? {
            type: "Ready",
            status: "Unknown",
            reason: "ClusterStatusUnknown",
            message: "Cluster status controller stopped posting cluster status.",
            ...(ready.observedGeneration !== undefined
              ? { observedGeneration: ready.observedGeneration }
              : {}),
          }
        : {
            type: "Ready",
            status: "Unknown",
            reason: "ClusterStatusNeverUpdated",
            message: "Cluster status controller never posted cluster status.",
          },
      rfc3339(now),
    );
    next.status = { ...(isObject(next.status) ? next.status : {}), conditions };
    log.info("cluster stopped reporting, Ready is now Unknown", {
      cluster: cluster.metadata.name,
      silentForMs: now - seen.probeTimestamp,
    });
    // Optimistic: a conflict means the agent just wrote, which the next reconcile sees.
    await commit(ctx.client, RESOURCES.clusters, cluster, next);
    // Our own write is no sign of life: the unreachable timeout counts from the last one, as
    // upstream's (which keeps its probe timestamp across this update).
    seen.ready = findCondition(conditions, "Ready");
    seen.readyTransitionTimestamp = now;
  }

  return {
    name: "cluster-monitor",
    for: clusters,
    // A Pull cluster's Lease is named after it.
    watches: [
      {
        informer: leases,
        map: (lease) => [objectKeys.encode({ namespace: undefined, name: lease.metadata.name })],
      },
    ],
    async reconcile(rc, key): Promise<ReconcileResult> {
      const cluster = clusters.getByKey(key);
      if (!cluster) {
        health.delete(key);
        return done;
      }
      const now = ctx.now();
      const spec = isObject(cluster.spec) ? cluster.spec : {};
      const ready = findCondition(conditionsOf(cluster), "Ready");
      const pull = spec.syncMode === "Pull";
      const seen = observe(cluster, ready, pull, now);
      let recheck: number | undefined;
      if (failover) {
        const tainted = await taintForFailover(cluster, seen, now);
        // The taint write comes back through the informer, and with it the next look.
        if (tainted.wrote) return done;
        recheck = tainted.recheckAfterMs;
      }
      if (!pull) return recheck !== undefined ? requeueAfter(recheck) : done;

      const grace = ready ? ctx.options.clusterMonitorGracePeriodMs : ctx.options.clusterStartupGracePeriodMs;
      if (now <= seen.probeTimestamp + grace || ready?.status === "Unknown")
        return requeueAfter(Math.min(period, recheck ?? period));
      await markUnknown(rc.log, cluster, ready, seen, now);
      return requeueAfter(period);
    },
  };
}
