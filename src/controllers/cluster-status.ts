/**
 * The cluster status controller (push clusters): probes each member's health every
 * `--cluster-status-update-frequency`, publishes the Ready condition through the success and
 * failure thresholds, and while the member is healthy collects its Kubernetes version, API
 * enablements, node summary and resource summary.
 */
import { isObject, rfc3339, type StoredObject } from "../api/meta.ts";
import { RESOURCES } from "../client/client.ts";
import {
  compareQuantities,
  formatQuantity,
  parseQuantity,
  type Quantity,
  sumQuantities,
  sumResourceLists,
} from "../machinery/quantity.ts";
import { type Controller, generationChanged, type ReconcileResult } from "../runtime/controller.ts";
import { CLUSTER_FINALIZER } from "./cluster.ts";
import { type ClusterLease, startClusterLease } from "./cluster-lease.ts";
import type { ControllerContext, MemberConnection } from "./context.ts";
import { MemberInventories } from "./member-inventory.ts";

export interface Condition {
  type: string;
  status: "True" | "False" | "Unknown";
  reason: string;
  message: string;
  lastTransitionTime?: string;
}

export const READY_MESSAGES = {
  ready: {
    status: "True",
    reason: "ClusterReady",
    message: "cluster is healthy and ready to accept workloads",
  },
  notReady: {
    status: "False",
    reason: "ClusterNotReady",
    message: "cluster is reachable but health endpoint responded without ok",
  },
  unreachable: { status: "False", reason: "ClusterNotReachable", message: "cluster is not reachable" },
} as const;

type Health = "healthy" | "unhealthy" | "offline";

/** `/readyz`, falling back to `/healthz` when the member has no `/readyz`. */
export async function probeHealth(conn: MemberConnection, timeoutMs: number): Promise<Health> {
  try {
    let r = await conn.getRaw("/readyz", timeoutMs);
    if (r.status === 404) r = await conn.getRaw("/healthz", timeoutMs);
    return r.status === 200 ? "healthy" : "unhealthy";
  } catch {
    return "offline";
  }
}

interface Observation {
  /** The Cluster's uid: a Cluster recreated under the same name starts afresh. */
  uid: string | undefined;
  status: Condition["status"];
  since: number;
}

/**
 * Whether an observed Ready status may be published now: a flip between True and not-True
 * must persist for the threshold (failure threshold when losing True, success threshold when
 * gaining it); anything else is published at once.
 */
export function publishable(
  current: Condition | undefined,
  observed: Condition["status"],
  observedSince: number,
  now: number,
  thresholds: { successMs: number; failureMs: number },
): boolean {
  if (!current || current.status === observed) return true;
  if (current.status === "True") return now - observedSince >= thresholds.failureMs;
  if (observed === "True") return now - observedSince >= thresholds.successMs;
  return true;
}

/**
 * `meta.SetStatusCondition`: replaces the condition in place (or appends a new type); the
 * transition time moves only with the status.
 */
export function setCondition(
  conditions: Condition[],
  next: Omit<Condition, "lastTransitionTime">,
  now: string,
): Condition[] {
  const at = conditions.findIndex((c) => c.type === next.type);
  const old = at >= 0 ? conditions[at] : undefined;
  const merged: Condition = {
    ...next,
    lastTransitionTime: old && old.status === next.status ? (old.lastTransitionTime ?? now) : now,
  };
  return at >= 0 ? conditions.map((c, i) => (i === at ? merged : c)) : [...conditions, merged];
}

/** Every group version and its resources (no subresources), sorted, from legacy discovery. */
async function apiEnablements(
  conn: MemberConnection,
  timeoutMs: number,
): Promise<{ enablements: unknown[]; complete: boolean }> {
  const getJson = async <T>(path: string): Promise<T> => {
    const r = await conn.getRaw(path, timeoutMs);
    if (r.status !== 200) throw new Error(`GET ${path}: HTTP ${r.status}`);
    return JSON.parse(r.body) as T;
  };
  const [core, groups] = await Promise.all([
    getJson<{ versions?: string[] }>("/api"),
    getJson<{ groups?: Array<{ versions?: Array<{ groupVersion: string }> }> }>("/apis"),
  ]);
  const groupVersions = [
    ...(core.versions ?? []),
    ...(groups.groups ?? []).flatMap((g) => (g.versions ?? []).map((v) => v.groupVersion)),
  ].sort();
  // All group versions at once, as client-go's discovery fetches them: a member that stops
  // answering costs one timeout, not one per group version.
  const lists = await Promise.all(
    groupVersions.map((gv) =>
      getJson<{ resources?: Array<{ name: string; kind: string }> }>(
        gv.includes("/") ? `/apis/${gv}` : `/api/${gv}`,
      ).then(
        (list) => ({ gv, list }),
        () => ({ gv, list: undefined }),
      ),
    ),
  );
  const out: Array<{ groupVersion: string; resources: Array<{ name: string; kind: string }> }> = [];
  for (const { gv, list } of lists) {
    if (!list) continue;
    const resources = (list.resources ?? [])
      .filter((res) => !res.name.includes("/"))
      .map((res) => ({ name: res.name, kind: res.kind }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    out.push({ groupVersion: gv, resources });
  }
  return { enablements: out, complete: out.length === groupVersions.length };
}

function containerRequests(containers: unknown): Array<Record<string, unknown> | undefined> {
  return (Array.isArray(containers) ? containers : [])
    .filter(isObject)
    .map((c) => (isObject(c.resources) && isObject(c.resources.requests) ? c.resources.requests : undefined));
}

/**
 * A pod's effective request (upstream `Resource.AddPodRequest`): per resource the larger of
 * the app containers' sum and the largest init container, plus the pod overhead.
 */
export function podRequests(pod: StoredObject): Record<string, string> {
  const spec = isObject(pod.spec) ? pod.spec : {};
  const sum = sumResourceLists(containerRequests(spec.containers));
  for (const init of containerRequests(spec.initContainers)) {
    for (const [name, value] of Object.entries(init ?? {})) {
      const q = parseQuantity(value);
      const current = parseQuantity(sum[name] ?? "0");
      if (q && current && compareQuantities(q, current) > 0) sum[name] = formatQuantity(q);
    }
  }
  return isObject(spec.overhead) ? sumResourceLists([sum, spec.overhead]) : sum;
}

interface ResourceModel {
  grade: number;
  ranges: Array<{ name: string; min: unknown; max: unknown }>;
}

function subtractLists(a: Record<string, string>, b: Record<string, string>): Map<string, Quantity> {
  const out = new Map<string, Quantity>();
  for (const [name, value] of Object.entries(a)) {
    const q = parseQuantity(value);
    if (!q) continue;
    const minus = parseQuantity(b[name] ?? "0")!;
    out.set(name, sumQuantities([q, { ...minus, n: -minus.n }]));
  }
  return out;
}

/**
 * How many nodes fall in each resource-model grade: a node's grade is, over the model's
 * resources, the lowest "last grade whose min its free amount reaches". Like upstream, the
 * count stops at the first node with no pod capacity left.
 */
export function allocatableModelings(
  models: ResourceModel[],
  nodes: StoredObject[],
  boundPods: StoredObject[],
): Array<{ grade: number; count: number }> {
  const sorted = [...models].sort((a, b) => a.grade - b.grade);
  const counts = sorted.map((m) => ({ grade: m.grade, count: 0 }));
  if (sorted.length === 0) return counts;
  const byNode = new Map<string, StoredObject[]>();
  for (const p of boundPods) {
    const node = String((p.spec as { nodeName?: string }).nodeName);
    byNode.set(node, [...(byNode.get(node) ?? []), p]);
  }
  const resources = sorted[0]!.ranges.map((r) => r.name);
  for (const node of nodes) {
    const allocatable = (
      isObject(node.status) && isObject(node.status.allocatable) ? node.status.allocatable : {}
    ) as Record<string, string>;
    const pods = byNode.get(node.metadata.name!) ?? [];
    const used = sumResourceLists(pods.map(podRequests));
    used.pods = String(pods.length);
    const free = subtractLists(allocatable, used);
    const freePods = free.get("pods");
    if (!freePods || freePods.n <= 0n) break;
    let grade = sorted.length - 1;
    for (const resource of resources) {
      const amount = free.get(resource) ?? { n: 0n, scale: 0, format: "DecimalSI" as const };
      let last = 0;
      sorted.forEach((m, i) => {
        const min = parseQuantity(m.ranges.find((r) => r.name === resource)?.min ?? "0");
        if (min && compareQuantities(min, amount) <= 0) last = i;
      });
      grade = Math.min(grade, last);
    }
    counts[grade]!.count++;
  }
  return counts;
}

/** Node and resource summaries as upstream computes them from the member's nodes and pods. */
export function summarize(
  nodes: StoredObject[],
  pods: StoredObject[],
  models: ResourceModel[] = [],
): { nodeSummary: unknown; resourceSummary: unknown } {
  const ready = nodes.filter((n) => {
    const conds = (
      isObject(n.status) && Array.isArray(n.status.conditions) ? n.status.conditions : []
    ) as Condition[];
    return conds.some((c) => c.type === "Ready" && c.status === "True");
  }).length;
  const allocatable = sumResourceLists(
    nodes.map((n) =>
      isObject(n.status) && isObject(n.status.allocatable) ? n.status.allocatable : undefined,
    ),
  );
  const scheduled = (p: StoredObject): boolean => Boolean(isObject(p.spec) && p.spec.nodeName);
  // Like upstream: every unscheduled pod is allocating; a finished pod occupies nothing.
  const pending = pods.filter((p) => !scheduled(p));
  const bound = pods.filter((p) => {
    const phase = isObject(p.status) ? p.status.phase : undefined;
    return scheduled(p) && phase !== "Succeeded" && phase !== "Failed";
  });
  // Upstream's ResourceList() leaves out zero amounts (and so an empty list altogether).
  const withCount = (lists: Record<string, unknown>[], count: number): Record<string, string> => {
    const sum = sumResourceLists(lists);
    if (count > 0) sum.pods = String(count);
    for (const [name, value] of Object.entries(sum)) {
      const q = parseQuantity(value);
      if (!q || q.n <= 0n) delete sum[name];
    }
    return sum;
  };
  const resourceSummary: Record<string, unknown> = { allocatable };
  const allocating = withCount(pending.map(podRequests), pending.length);
  const allocated = withCount(bound.map(podRequests), bound.length);
  if (Object.keys(allocating).length > 0) resourceSummary.allocating = allocating;
  if (Object.keys(allocated).length > 0) resourceSummary.allocated = allocated;
  if (models.length > 0) resourceSummary.allocatableModelings = allocatableModelings(models, nodes, bound);
  return { nodeSummary: { totalNum: nodes.length, readyNum: ready }, resourceSummary };
}

function completeAPIEnablements(count: number, complete: boolean): Omit<Condition, "lastTransitionTime"> {
  const type = "CompleteAPIEnablements";
  if (count === 0)
    return {
      type,
      status: "False",
      reason: "Empty",
      message: "collected empty APIEnablements from the cluster",
    };
  if (!complete)
    return {
      type,
      status: "False",
      reason: "Partial",
      message: `might collect partial APIEnablements(${count}) from the cluster`,
    };
  return {
    type,
    status: "True",
    reason: "Complete",
    message: "collected complete APIEnablements from the cluster",
  };
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
  const opts = ctx.options;
  let lease: ClusterLease | undefined;
  const stopLease = (): void => {
    lease?.stop();
    lease = undefined;
  };

  /** Connects and probes: the Ready condition as observed right now. */
  async function observe(
    cluster: StoredObject,
  ): Promise<{ conn?: MemberConnection; health: Health; observed: Omit<Condition, "lastTransitionTime"> }> {
    let conn: MemberConnection;
    try {
      conn = await ctx.members.connect(cluster);
    } catch (err) {
      const message = `failed to create a ClusterClient: ${(err as Error).message}`;
      return {
        health: "offline",
        observed: { type: "Ready", status: "False", reason: "StatusCollectionFailed", message },
      };
    }
    const health = await probeHealth(conn, opts.clusterProbeTimeoutMs);
    const messages =
      health === "healthy"
        ? READY_MESSAGES.ready
        : health === "unhealthy"
          ? READY_MESSAGES.notReady
          : READY_MESSAGES.unreachable;
    return { conn, health, observed: { type: "Ready", ...messages } };
  }

  /**
   * The Ready condition to publish: the observed one, unless it flips True/not-True and has
   * not lasted the threshold yet. The first observation since this controller started (or
   * since the Cluster was recreated) is published as it is, as upstream's
   * clusterConditionStore does.
   */
  function thresholdAdjusted(
    cluster: StoredObject,
    current: Condition | undefined,
    observed: Omit<Condition, "lastTransitionTime">,
    now: number,
  ): Omit<Condition, "lastTransitionTime"> {
    const name = cluster.metadata.name!;
    const seen = observations.get(name);
    const first = seen === undefined || seen.uid !== cluster.metadata.uid;
    const since = !first && seen.status === observed.status ? seen.since : now;
    observations.set(name, { uid: cluster.metadata.uid, status: observed.status, since });
    if (first || !current) return observed;
    const thresholds = {
      successMs: opts.clusterSuccessThresholdMs,
      failureMs: opts.clusterFailureThresholdMs,
    };
    return publishable(current, observed.status, since, now, thresholds) ? observed : current;
  }

  /**
   * Version, API enablements, node and resource summaries of a healthy member, written into
   * `status`; returns the conditions with CompleteAPIEnablements set.
   */
  async function collect(
    name: string,
    conn: MemberConnection,
    spec: Record<string, unknown>,
    status: Record<string, unknown>,
    conditions: Condition[],
    stamp: string,
  ): Promise<Condition[]> {
    const version = JSON.parse((await conn.getRaw("/version", opts.clusterProbeTimeoutMs)).body) as {
      gitVersion?: string;
    };
    if (version.gitVersion) status.kubernetesVersion = version.gitVersion;
    const { enablements, complete } = await apiEnablements(conn, opts.clusterProbeTimeoutMs);
    status.apiEnablements = enablements;
    const next = setCondition(conditions, completeAPIEnablements(enablements.length, complete), stamp);
    const { nodes, pods } = await inventories.snapshot(name, conn, opts.clusterProbeTimeoutMs);
    const models = (Array.isArray(spec.resourceModels) ? spec.resourceModels : []) as ResourceModel[];
    const { nodeSummary, resourceSummary } = summarize(nodes, pods, models);
    status.nodeSummary = nodeSummary;
    status.resourceSummary = resourceSummary;
    return next;
  }

  async function reconcile(name: string): Promise<ReconcileResult> {
    const cluster = clusters.get(undefined, name);
    if (!cluster) {
      observations.delete(name);
      inventories.stop(name);
      stopLease();
      return undefined;
    }
    const spec = isObject(cluster.spec) ? cluster.spec : {};
    if (cluster.metadata.deletionTimestamp) return undefined;
    const mine = agent.pullCluster
      ? name === agent.pullCluster && spec.syncMode === "Pull"
      : spec.syncMode === "Push" && isObject(spec.secretRef);
    if (!mine) {
      inventories.stop(name);
      return undefined;
    }
    // Status is collected only once the cluster controller has taken the cluster in.
    if (!(cluster.metadata.finalizers ?? []).includes(CLUSTER_FINALIZER)) return undefined;

    const now = ctx.now();
    const stamp = rfc3339(now);
    const status = isObject(cluster.status) ? { ...cluster.status } : {};
    let conditions = (Array.isArray(status.conditions) ? status.conditions : []) as Condition[];
    const { conn, health, observed } = await observe(cluster);
    const ready = thresholdAdjusted(
      cluster,
      conditions.find((c) => c.type === "Ready"),
      observed,
      now,
    );
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
      const collected: Record<string, unknown> = {};
      try {
        conditions = await collect(name, conn, spec, collected, conditions, stamp);
        Object.assign(status, collected);
      } catch (err) {
        ctx.log.warn("cluster status collection failed", { cluster: name, err: (err as Error).message });
      }
    } else {
      inventories.stop(name);
    }
    // Ready is set after what was collected, as upstream sets it last.
    status.conditions = setCondition(conditions, ready, stamp);
    if (JSON.stringify(status) !== JSON.stringify(cluster.status ?? {})) {
      await ctx.client.updateStatus(RESOURCES.clusters, { ...cluster, status });
    }
    return { requeueAfterMs: opts.clusterStatusUpdateFrequencyMs };
  }

  return {
    name: "cluster-status",
    for: clusters,
    stop: () => {
      stopLease();
      inventories.stopAll();
    },
    // Its own status writes must not trigger another probe; the periodic requeue covers the
    // rest. The cluster controller's finalizer is awaited, so its arrival counts too.
    updateFilter: (old, obj) =>
      generationChanged(old, obj) ||
      (old.metadata.finalizers ?? []).includes(CLUSTER_FINALIZER) !==
        (obj.metadata.finalizers ?? []).includes(CLUSTER_FINALIZER),
    workers: 4,
    reconcile: (_rctx, key) => reconcile(key),
  };
}
