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
  parseQuantity,
  type Quantity,
  sumQuantities,
  sumResourceLists,
} from "../machinery/quantity.ts";
import type { Controller, ReconcileResult } from "../runtime/controller.ts";
import { CLUSTER_FINALIZER } from "./cluster.ts";
import type { ControllerContext, MemberConnection } from "./context.ts";

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

function setCondition(
  conditions: Condition[],
  next: Omit<Condition, "lastTransitionTime">,
  now: string,
): Condition[] {
  const old = conditions.find((c) => c.type === next.type);
  const merged: Condition = {
    ...next,
    lastTransitionTime: old && old.status === next.status ? (old.lastTransitionTime ?? now) : now,
  };
  return [...conditions.filter((c) => c.type !== next.type), merged];
}

/** Every group version and its resources (no subresources), sorted, from legacy discovery. */
async function apiEnablements(
  conn: MemberConnection,
  timeoutMs: number,
): Promise<{ enablements: unknown[]; complete: boolean }> {
  const groupVersions: string[] = [];
  let complete = true;
  const core = JSON.parse((await conn.getRaw("/api", timeoutMs)).body) as { versions?: string[] };
  groupVersions.push(...(core.versions ?? []));
  const groups = JSON.parse((await conn.getRaw("/apis", timeoutMs)).body) as {
    groups?: Array<{ versions?: Array<{ groupVersion: string }> }>;
  };
  for (const g of groups.groups ?? []) for (const v of g.versions ?? []) groupVersions.push(v.groupVersion);
  const out: Array<{ groupVersion: string; resources: Array<{ name: string; kind: string }> }> = [];
  for (const gv of groupVersions.sort()) {
    try {
      const r = await conn.getRaw(gv.includes("/") ? `/apis/${gv}` : `/api/${gv}`, timeoutMs);
      if (r.status !== 200) {
        complete = false;
        continue;
      }
      const list = JSON.parse(r.body) as { resources?: Array<{ name: string; kind: string }> };
      const resources = (list.resources ?? [])
        .filter((res) => !res.name.includes("/"))
        .map((res) => ({ name: res.name, kind: res.kind }))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      out.push({ groupVersion: gv, resources });
    } catch {
      complete = false;
    }
  }
  return { enablements: out, complete };
}

function podRequests(pod: StoredObject): Record<string, unknown> {
  const spec = isObject(pod.spec) ? pod.spec : {};
  const containers = (Array.isArray(spec.containers) ? spec.containers : []).filter(isObject);
  return sumResourceLists(
    containers.map((c) =>
      isObject(c.resources) && isObject(c.resources.requests) ? c.resources.requests : undefined,
    ),
  );
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
  const live = pods.filter((p) => {
    const phase = isObject(p.status) ? p.status.phase : undefined;
    return phase !== "Succeeded" && phase !== "Failed";
  });
  const pending = live.filter((p) => !(isObject(p.spec) && p.spec.nodeName));
  const bound = live.filter((p) => isObject(p.spec) && p.spec.nodeName);
  const withCount = (lists: Record<string, unknown>[], count: number): Record<string, string> => {
    const sum = sumResourceLists(lists);
    if (count > 0 || Object.keys(sum).length > 0) sum.pods = String(count);
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

async function listAll(
  conn: MemberConnection,
  res: typeof RESOURCES.nodes | typeof RESOURCES.pods,
): Promise<StoredObject[]> {
  const out: StoredObject[] = [];
  let cont: string | undefined;
  do {
    const page = await conn.client.list(res, undefined, { limit: 500, ...(cont ? { continue: cont } : {}) });
    out.push(...page.items);
    cont = page.metadata.continue;
  } while (cont);
  return out;
}

export function clusterStatusController(ctx: ControllerContext): Controller {
  const clusters = ctx.informers.informer(RESOURCES.clusters);
  const observations = new Map<string, Observation>();
  const opts = ctx.options;

  async function reconcile(name: string): Promise<ReconcileResult> {
    const cluster = clusters.get(undefined, name);
    if (!cluster) {
      observations.delete(name);
      return undefined;
    }
    const spec = isObject(cluster.spec) ? cluster.spec : {};
    if (cluster.metadata.deletionTimestamp || spec.syncMode !== "Push" || !isObject(spec.secretRef))
      return undefined;
    // Status is collected only once the cluster controller has taken the cluster in.
    if (!(cluster.metadata.finalizers ?? []).includes(CLUSTER_FINALIZER)) return undefined;

    const now = ctx.now();
    const status = isObject(cluster.status) ? { ...cluster.status } : {};
    const conditions = (Array.isArray(status.conditions) ? status.conditions : []) as Condition[];
    const current = conditions.find((c) => c.type === "Ready");

    let conn: MemberConnection | undefined;
    let observed: Omit<Condition, "lastTransitionTime">;
    let health: Health = "offline";
    try {
      conn = await ctx.members.connect(cluster);
      health = await probeHealth(conn, opts.clusterProbeTimeoutMs);
      observed = {
        type: "Ready",
        ...(health === "healthy"
          ? READY_MESSAGES.ready
          : health === "unhealthy"
            ? READY_MESSAGES.notReady
            : READY_MESSAGES.unreachable),
      };
    } catch (err) {
      observed = {
        type: "Ready",
        status: "False",
        reason: "StatusCollectionFailed",
        message: `failed to create a ClusterClient: ${(err as Error).message}`,
      };
    }

    const seen = observations.get(name);
    const since = seen && seen.status === observed.status ? seen.since : now;
    observations.set(name, { status: observed.status, since });
    const publish = publishable(current, observed.status, since, now, {
      successMs: opts.clusterSuccessThresholdMs,
      failureMs: opts.clusterFailureThresholdMs,
    });
    const stamp = rfc3339(now);
    let nextConditions = publish ? setCondition(conditions, observed, stamp) : conditions;
    const ready = nextConditions.find((c) => c.type === "Ready");

    if (conn && health === "healthy" && ready?.status === "True") {
      try {
        const version = JSON.parse((await conn.getRaw("/version", opts.clusterProbeTimeoutMs)).body) as {
          gitVersion?: string;
        };
        if (version.gitVersion) status.kubernetesVersion = version.gitVersion;
        const { enablements, complete } = await apiEnablements(conn, opts.clusterProbeTimeoutMs);
        status.apiEnablements = enablements;
        nextConditions = setCondition(
          nextConditions,
          enablements.length === 0
            ? {
                type: "CompleteAPIEnablements",
                status: "False",
                reason: "Empty",
                message: "collected empty APIEnablements from the cluster",
              }
            : complete
              ? {
                  type: "CompleteAPIEnablements",
                  status: "True",
                  reason: "Complete",
                  message: "collected complete APIEnablements from the cluster",
                }
              : {
                  type: "CompleteAPIEnablements",
                  status: "False",
                  reason: "Partial",
                  message: `might collect partial APIEnablements(${enablements.length}) from the cluster`,
                },
          stamp,
        );
        const [nodes, pods] = await Promise.all([
          listAll(conn, RESOURCES.nodes),
          listAll(conn, RESOURCES.pods),
        ]);
        const models = (Array.isArray(spec.resourceModels) ? spec.resourceModels : []) as ResourceModel[];
        const { nodeSummary, resourceSummary } = summarize(nodes, pods, models);
        status.nodeSummary = nodeSummary;
        status.resourceSummary = resourceSummary;
      } catch (err) {
        ctx.log.warn("cluster status collection failed", { cluster: name, err: (err as Error).message });
      }
    }
    status.conditions = nextConditions;
    if (JSON.stringify(status) !== JSON.stringify(cluster.status ?? {})) {
      await ctx.client.updateStatus(RESOURCES.clusters, { ...cluster, status });
    }
    return { requeueAfterMs: opts.clusterStatusUpdateFrequencyMs };
  }

  return {
    name: "cluster-status",
    for: clusters,
    workers: 4,
    reconcile: (_rctx, key) => reconcile(key),
  };
}
