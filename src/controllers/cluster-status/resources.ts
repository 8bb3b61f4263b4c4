/**
 * The resource arithmetic of cluster status, as upstream's getNodeSummary, getResourceSummary
 * and getAllocatableModelings do it: pure functions over a member's nodes and pods (whole, or
 * as member-inventory.ts trims them).
 */
import { isObject, type StoredObject } from "../../api/meta.ts";
import { type Condition, isConditionTrue } from "../../machinery/conditions.ts";
import {
  compareQuantities,
  formatQuantity,
  parseQuantity,
  type Quantity,
  sumQuantities,
  sumResourceLists,
} from "../../machinery/quantity.ts";

/** One grade of a Cluster's `spec.resourceModels`. */
export interface ResourceModel {
  grade: number;
  ranges: Array<{ name: string; min: unknown; max: unknown }>;
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
    const pods = byNode.get(node.metadata.name) ?? [];
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
  const ready = nodes.filter((n) =>
    isConditionTrue(
      (isObject(n.status) && Array.isArray(n.status.conditions) ? n.status.conditions : []) as Condition[],
      "Ready",
    ),
  ).length;
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
