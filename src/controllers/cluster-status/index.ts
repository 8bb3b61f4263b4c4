/**
 * The cluster status controller: every `--cluster-status-update-frequency` it probes a
 * member (probe.ts), publishes the Ready condition through the success and failure thresholds
 * (readiness.ts), and while the member is healthy collects its Kubernetes version, API
 * enablements and node and resource summaries (resources.ts), then commits Cluster.status.
 * The controller manager runs it for every Push cluster; an agent for its own Pull cluster.
 */
import { isObject, rfc3339, type StoredObject } from "../../api/meta.ts";
import { RESOURCES } from "../../client/client.ts";
import type { MemberConnection } from "../../cluster/connections.ts";
import {
  type Condition,
  type ConditionUpdate,
  findCondition,
  setCondition,
} from "../../machinery/conditions.ts";
import { cloneJson } from "../../machinery/merge-patch.ts";
import { approximateFloat, parseQuantity } from "../../machinery/quantity.ts";
import { commit, hasFinalizer } from "../../runtime/commit.ts";
import {
  type Controller,
  done,
  generationChanged,
  type ReconcileContext,
  type ReconcileResult,
  requeueAfter,
} from "../../runtime/controller.ts";
import { parseObjectKey } from "../../runtime/keys.ts";
import { CLUSTER_FINALIZER } from "../cluster.ts";
import { type ClusterLease, startClusterLease } from "../cluster-lease.ts";
import type { ControllerContext } from "../context.ts";
import { MemberInventories } from "../member-inventory.ts";
import { type ClusterFigures, karmadaMetrics } from "../metrics.ts";
import { apiEnablements, type Health, probeHealth, probeVersion } from "./probe.ts";
import {
  completeAPIEnablements,
  connectFailedReady,
  type Observation,
  observedReady,
  thresholdAdjusted,
} from "./readiness.ts";
import { type ResourceModel, summarize } from "./resources.ts";

/** What cluster_ready_state and the cluster_* resource gauges show of a status. */
export function clusterFigures(status: Record<string, unknown>, ready: boolean): ClusterFigures {
  const figures: ClusterFigures = { ready };
  const nodes = isObject(status.nodeSummary) ? status.nodeSummary : undefined;
  if (nodes) figures.nodes = { total: Number(nodes.totalNum ?? 0), ready: Number(nodes.readyNum ?? 0) };
  const summary = isObject(status.resourceSummary) ? status.resourceSummary : undefined;
  const amounts = (list: unknown) => {
    const r = isObject(list) ? list : {};
    const value = (v: unknown) => {
      const q = parseQuantity(v);
      return q ? approximateFloat(q) : 0;
    };
    return { cpu: value(r.cpu), memory: value(r.memory), pods: value(r.pods) };
  };
  if (summary?.allocatable) figures.allocatable = amounts(summary.allocatable);
  if (summary?.allocated) figures.allocated = amounts(summary.allocated);
  return figures;
}

/**
 * In the controller manager (default) it looks after every Push cluster. In an agent
 * (`pullCluster`), after its own Pull cluster only, and keeps that cluster's Lease renewed
 * once the cluster is Ready, as upstream's agent does.
 */
export function clusterStatusController(
  ctx: ControllerContext,
  agent: { pullCluster?: string } = {},
): Controller {
  const clusters = ctx.informers.informer(
    RESOURCES.clusters,
    agent.pullCluster ? { fieldSelector: `metadata.name=${agent.pullCluster}` } : {},
  );
  const observations = new Map<string, Observation>();
  const inventories = new MemberInventories(ctx.log);
  const metrics = karmadaMetrics(ctx.metrics);
  const opts = ctx.options;
  const timeoutMs = opts.clusterProbeTimeoutMs;
  let lease: ClusterLease | undefined;
  const stopLease = (): void => {
    lease?.stop();
    lease = undefined;
  };

  /** Connects and probes: the Ready condition as observed right now. */
  async function observe(
    cluster: StoredObject,
  ): Promise<{ conn?: MemberConnection; health: Health; observed: ConditionUpdate }> {
    let conn: MemberConnection;
    try {
      conn = await ctx.members.connect(cluster);
    } catch (err) {
      return { health: "offline", observed: connectFailedReady(err as Error) };
    }
    const health = await probeHealth(conn, timeoutMs);
    return { conn, health, observed: observedReady(health) };
  }

  /** Version, API enablements, node and resource summaries of a healthy member. */
  async function collect(
    name: string,
    conn: MemberConnection,
    spec: Record<string, unknown>,
  ): Promise<{ fields: Record<string, unknown>; enablements: ConditionUpdate }> {
    const fields: Record<string, unknown> = {};
    const version = await probeVersion(conn, timeoutMs);
    if (version) fields.kubernetesVersion = version;
    const { enablements, complete } = await apiEnablements(conn, timeoutMs);
    fields.apiEnablements = enablements;
    const { nodes, pods } = await inventories.snapshot(name, conn, timeoutMs);
    const models = (Array.isArray(spec.resourceModels) ? spec.resourceModels : []) as ResourceModel[];
    Object.assign(fields, summarize(nodes, pods, models));
    return { fields, enablements: completeAPIEnablements(enablements.length, complete) };
  }

  async function reconcile(rctx: ReconcileContext, key: string): Promise<ReconcileResult> {
    const { name } = parseObjectKey(key);
    const cluster = clusters.get(undefined, name);
    if (!cluster) {
      observations.delete(name);
      inventories.stop(name);
      stopLease();
      metrics.clusterRemoved(name);
      return done;
    }
    const spec = isObject(cluster.spec) ? cluster.spec : {};
    if (cluster.metadata.deletionTimestamp) return done;
    const mine = agent.pullCluster
      ? name === agent.pullCluster && spec.syncMode === "Pull"
      : spec.syncMode === "Push" && isObject(spec.secretRef);
    if (!mine) {
      inventories.stop(name);
      return done;
    }
    // Status is collected only once the cluster controller has taken the cluster in.
    if (!hasFinalizer(cluster, CLUSTER_FINALIZER)) return done;

    const started = performance.now();
    const now = ctx.now();
    const stamp = rfc3339(now);
    const next = cloneJson(cluster);
    const status: Record<string, unknown> = isObject(next.status) ? next.status : {};
    const conditions = (Array.isArray(status.conditions) ? status.conditions : []) as Condition[];
    const { conn, health, observed } = await observe(cluster);
    const thresholds = {
      successMs: opts.clusterSuccessThresholdMs,
      failureMs: opts.clusterFailureThresholdMs,
    };
    const current = findCondition(conditions, "Ready");
    const { ready, seen } = thresholdAdjusted(
      observations.get(name),
      cluster.metadata.uid,
      current,
      observed,
      now,
      thresholds,
    );
    observations.set(name, seen);
    if (conn && health === "healthy" && ready.status === "True") {
      if (agent.pullCluster && !lease) {
        lease = startClusterLease(ctx.client, name, {
          durationMs: opts.clusterLeaseDurationMs,
          renewFraction: opts.clusterLeaseRenewFraction,
          now: ctx.now,
          log: ctx.log,
        });
      }
      // All or nothing: a member lost halfway must not leave half its API enablements behind.
      // A failed collection still lets Ready be written, so it is logged here, not thrown.
      try {
        const { fields, enablements } = await collect(name, conn, spec);
        Object.assign(status, fields);
        setCondition(conditions, enablements, stamp);
      } catch (err) {
        rctx.log.warn("cluster status collection failed", { cluster: name, err: (err as Error).message });
      }
    } else {
      inventories.stop(name);
    }
    // Ready is set after what was collected, as upstream sets it last.
    setCondition(conditions, ready, stamp);
    status.conditions = conditions;
    next.status = status;
    // PUT, not patch: upstream's agent RBAC lets an agent update its Cluster's status, not patch it.
    await commit(ctx.client, RESOURCES.clusters, cluster, next, { update: true });
    metrics.clusterStatus(name, clusterFigures(status, ready.status === "True"));
    metrics.clusterSynced(name, (performance.now() - started) / 1000);
    return requeueAfter(opts.clusterStatusUpdateFrequencyMs);
  }

  return {
    name: "cluster-status-controller",
    for: clusters,
    stop: () => {
      stopLease();
      inventories.stopAll();
    },
    // Its own status writes must not trigger another probe; the periodic requeue covers the
    // rest. The cluster controller's finalizer is awaited, so its arrival counts too.
    updateFilter: (old, obj) =>
      generationChanged(old, obj) ||
      hasFinalizer(old, CLUSTER_FINALIZER) !== hasFinalizer(obj, CLUSTER_FINALIZER),
    workers: 4,
    reconcile,
  };
}
