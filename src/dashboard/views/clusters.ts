/**
 * The clusters page's tiles: one per Cluster, with what an operator checks first (Ready, Push
 * or Pull, nodes, how full it is, its taints) and where it sits (region, zone). The page groups
 * tiles by region, then zone; the tiles stay flat here so a change streams as one tile.
 */
import type { StoredObject } from "../../api/meta.ts";
import type { ClusterObject, ClusterStatus } from "../../karmada/types.ts";
import { parseQuantity } from "../../machinery/quantity.ts";
import type { CapacityBar, ClustersMeta, ClusterTile, Readiness } from "../wire.ts";

/** A quantity as a plain number of base units (`500m` → 0.5, `1Gi` → 1073741824); 0 when malformed. */
export function quantityNumber(text: unknown): number {
  const q = parseQuantity(text);
  if (!q) return 0;
  return Number(q.n) * 10 ** q.scale;
}

const GIB = 1024 ** 3;

function trimmed(n: number): string {
  if (n === 0) return "0";
  if (n >= 100) return String(Math.round(n));
  if (n >= 10) return (Math.round(n * 10) / 10).toString();
  return (Math.round(n * 100) / 100).toString();
}

/** The bars a cluster's `status.resourceSummary` gives: CPU, memory and pods, in that order. */
export function capacityBars(status: ClusterStatus | undefined): CapacityBar[] {
  const rs = status?.resourceSummary;
  if (!rs?.allocatable) return [];
  const allocatable = rs.allocatable;
  const used = (name: string): number =>
    quantityNumber(rs.allocated?.[name]) + quantityNumber(rs.allocating?.[name]);
  const bars: CapacityBar[] = [];
  const add = (name: string, label: string, scale: number, unit: string): void => {
    if (allocatable[name] === undefined) return;
    const total = quantityNumber(allocatable[name]);
    const allocated = used(name);
    bars.push({
      resource: label,
      allocatable: total,
      allocated,
      text: `${trimmed(allocated / scale)} / ${trimmed(total / scale)}${unit}`,
    });
  };
  add("cpu", "CPU", 1, " cores");
  add("memory", "Memory", GIB, " GiB");
  add("pods", "Pods", 1, "");
  return bars;
}

export function readinessOf(cluster: ClusterObject): {
  readiness: Readiness;
  reason?: string;
  message?: string;
} {
  const ready = cluster.status?.conditions?.find((c) => c.type === "Ready");
  if (!ready)
    return { readiness: "Unknown", reason: "NoStatus", message: "The cluster has not reported yet." };
  const readiness: Readiness =
    ready.status === "True" ? "Ready" : ready.status === "False" ? "NotReady" : "Unknown";
  return {
    readiness,
    ...(ready.reason ? { reason: ready.reason } : {}),
    ...(ready.message ? { message: ready.message } : {}),
  };
}

/** How many bindings name each cluster in `spec.clusters`. */
export function workloadsPerCluster(bindings: readonly StoredObject[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const b of bindings) {
    const clusters = (b.spec as { clusters?: Array<{ name?: string }> } | undefined)?.clusters ?? [];
    for (const c of clusters) if (c.name) counts.set(c.name, (counts.get(c.name) ?? 0) + 1);
  }
  return counts;
}

export function clusterTile(obj: StoredObject, workloads: ReadonlyMap<string, number>): ClusterTile {
  const cluster = obj as ClusterObject;
  const spec = cluster.spec ?? {};
  const status = cluster.status ?? {};
  const zones = spec.zones?.length ? spec.zones : spec.zone ? [spec.zone] : [];
  const ready = readinessOf(cluster);
  const nodes = status.nodeSummary;
  const name = cluster.metadata.name;
  return {
    key: name,
    name,
    region: spec.region ?? "",
    zone: zones[0] ?? "",
    zones,
    ...(spec.provider ? { provider: spec.provider } : {}),
    readiness: ready.readiness,
    ...(ready.reason ? { readyReason: ready.reason } : {}),
    ...(ready.message ? { readyMessage: ready.message } : {}),
    syncMode: spec.syncMode === "Pull" ? "Pull" : "Push",
    ...(status.kubernetesVersion ? { kubernetesVersion: status.kubernetesVersion } : {}),
    ...(nodes ? { nodes: { total: nodes.totalNum ?? 0, ready: nodes.readyNum ?? 0 } } : {}),
    capacity: capacityBars(status),
    taints: (spec.taints ?? []).map((t) => ({
      key: t.key,
      ...(t.value ? { value: t.value } : {}),
      effect: t.effect,
      ...(t.timeAdded ? { timeAdded: t.timeAdded } : {}),
    })),
    workloads: workloads.get(name) ?? 0,
    deleting: !!cluster.metadata.deletionTimestamp,
  };
}

export function clustersMeta(tiles: readonly ClusterTile[]): ClustersMeta {
  return {
    total: tiles.length,
    ready: tiles.filter((t) => t.readiness === "Ready").length,
    notReady: tiles.filter((t) => t.readiness === "NotReady").length,
    unknown: tiles.filter((t) => t.readiness === "Unknown").length,
    tainted: tiles.filter((t) => t.taints.length > 0).length,
  };
}
