/**
 * The scheduling decision as pure functions over pods and nodes: kube-scheduler's default
 * filters in their order (NodeUnschedulable, TaintToleration, NodeAffinity,
 * NodeResourcesFit; the first that rejects a node names the reason), a least-allocated score,
 * and the FitError message kube-scheduler 1.32 writes into PodScheduled and FailedScheduling:
 *
 *   0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.
 *
 * Not simulated: inter-pod (anti-)affinity, topology spread constraints, host ports, volumes,
 * preemption itself (the message says no victims were found, which holds when all pods share
 * a priority).
 */
import type { StoredObject } from "../api/meta.ts";
import { requirementMatches } from "../machinery/node-selector.ts";
import { parseQuantity } from "../machinery/quantity.ts";
import { findUntoleratedTaint, tolerationsTolerate } from "../machinery/tolerations.ts";
import type { NodeSelectorTerm, NodeSpec, NodeStatus, PodSpec, ResourceList, Taint } from "./types.ts";

/** Resource amounts in milli-units (cpu in millicores, memory in milli-bytes), exact. */
export type Amounts = Map<string, bigint>;

/** What is already placed on a node. */
export interface NodeUsage {
  requested: Amounts;
  /** Requests with kube-scheduler's defaults for pods that set none (100m cpu, 200Mi memory), for scoring. */
  nonZeroCpu: bigint;
  nonZeroMemory: bigint;
  pods: number;
}

export function emptyUsage(): NodeUsage {
  return { requested: new Map(), nonZeroCpu: 0n, nonZeroMemory: 0n, pods: 0 };
}

const DEFAULT_CPU_MILLI = 100n;
const DEFAULT_MEMORY_MILLI = 200n * 1024n * 1024n * 1000n;

/** A quantity's value in milli-units, rounded up. */
export function toMilli(value: unknown): bigint | undefined {
  const q = parseQuantity(value);
  if (!q) return undefined;
  const exp = q.scale + 3;
  if (exp >= 0) return q.n * 10n ** BigInt(exp);
  const div = 10n ** BigInt(-exp);
  const whole = q.n / div;
  return q.n % div === 0n || q.n < 0n ? whole : whole + 1n;
}

function amounts(list: ResourceList | undefined): Amounts {
  const out: Amounts = new Map();
  for (const [name, v] of Object.entries(list ?? {})) {
    const m = toMilli(v);
    if (m !== undefined) out.set(name, m);
  }
  return out;
}

/** The pod's effective requests: max(sum of containers, each init container) plus overhead. */
export function podRequests(spec: PodSpec): Amounts {
  const total: Amounts = new Map();
  for (const c of spec.containers ?? []) {
    for (const [k, v] of amounts(c.resources?.requests)) total.set(k, (total.get(k) ?? 0n) + v);
  }
  for (const c of spec.initContainers ?? []) {
    for (const [k, v] of amounts(c.resources?.requests)) if (v > (total.get(k) ?? 0n)) total.set(k, v);
  }
  for (const [k, v] of amounts(spec.overhead)) total.set(k, (total.get(k) ?? 0n) + v);
  return total;
}

/** Adds a pod (its requests, see podRequests) to a node's usage, in place. */
export function addPod(usage: NodeUsage, req: Amounts): void {
  for (const [k, v] of req) usage.requested.set(k, (usage.requested.get(k) ?? 0n) + v);
  usage.nonZeroCpu += req.get("cpu") || DEFAULT_CPU_MILLI;
  usage.nonZeroMemory += req.get("memory") || DEFAULT_MEMORY_MILLI;
  usage.pods++;
}

/** A node selector term: every expression on labels and every field (only metadata.name) must hold. */
export function termMatches(term: NodeSelectorTerm, node: StoredObject): boolean {
  const exprs = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  // An empty term matches no node.
  if (exprs.length === 0 && fields.length === 0) return false;
  const labels = node.metadata.labels ?? {};
  for (const r of exprs)
    if (!requirementMatches(r, Object.hasOwn(labels, r.key) ? labels[r.key] : undefined)) return false;
  for (const r of fields) {
    if (r.key !== "metadata.name" || !requirementMatches(r, node.metadata.name)) return false;
  }
  return true;
}

export function matchesNodeSelectorAndAffinity(spec: PodSpec, node: StoredObject): boolean {
  const labels = node.metadata.labels ?? {};
  for (const [k, v] of Object.entries(spec.nodeSelector ?? {})) if (labels[k] !== v) return false;
  const required = spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (!required) return true;
  return (required.nodeSelectorTerms ?? []).some((t) => termMatches(t, node));
}

/** The first NoSchedule/NoExecute taint the pod does not tolerate. */
export function untoleratedTaint(spec: PodSpec, node: StoredObject): Taint | undefined {
  return findUntoleratedTaint(
    ((node.spec ?? {}) as NodeSpec).taints,
    spec.tolerations,
    (t) => t.effect === "NoSchedule" || t.effect === "NoExecute",
  );
}

const UNSCHEDULABLE_TAINT: Taint = { key: "node.kubernetes.io/unschedulable", effect: "NoSchedule" };

/** Why a node does not fit; `unresolvable` when evicting pods could not help. */
export interface NodeRejection {
  reasons: string[];
  unresolvable: boolean;
}

function isScalarResource(name: string): boolean {
  if (name.startsWith("hugepages-")) return true;
  return name.includes("/") && !name.startsWith("kubernetes.io/") && !name.startsWith("requests.");
}

function insufficient(requests: Amounts, usage: NodeUsage, allocatable: Amounts): string[] {
  const reasons: string[] = [];
  if (usage.pods + 1 > Number((allocatable.get("pods") ?? 0n) / 1000n)) reasons.push("Too many pods");
  const check = (name: string): void => {
    const want = requests.get(name) ?? 0n;
    if (want <= 0n) return;
    const free = (allocatable.get(name) ?? 0n) - (usage.requested.get(name) ?? 0n);
    if (want > free) reasons.push(`Insufficient ${name}`);
  };
  for (const name of ["cpu", "memory", "ephemeral-storage"]) check(name);
  for (const name of [...requests.keys()].filter(isScalarResource).sort()) check(name);
  return reasons;
}

/** The default filters in kube-scheduler's order; undefined when the node fits. */
export function filterNode(
  spec: PodSpec,
  requests: Amounts,
  node: StoredObject,
  usage: NodeUsage,
): NodeRejection | undefined {
  const nodeSpec = (node.spec ?? {}) as NodeSpec;
  if (nodeSpec.unschedulable && !tolerationsTolerate(spec.tolerations, UNSCHEDULABLE_TAINT)) {
    return { reasons: ["node(s) were unschedulable"], unresolvable: true };
  }
  const taint = untoleratedTaint(spec, node);
  if (taint) {
    return {
      reasons: [`node(s) had untolerated taint {${taint.key}: ${taint.value ?? ""}}`],
      unresolvable: true,
    };
  }
  if (!matchesNodeSelectorAndAffinity(spec, node)) {
    return { reasons: ["node(s) didn't match Pod's node affinity/selector"], unresolvable: true };
  }
  const allocatable = amounts(((node.status ?? {}) as NodeStatus).allocatable);
  const reasons = insufficient(requests, usage, allocatable);
  return reasons.length > 0 ? { reasons, unresolvable: false } : undefined;
}

function histogram(reasons: string[]): string {
  const counts = new Map<string, number>();
  for (const r of reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  return [...counts]
    .map(([r, n]) => `${n} ${r}`)
    .sort()
    .join(", ");
}

/** FitError.Error() with the default preemption plugin's PostFilter message. */
export function fitErrorMessage(spec: PodSpec, nodes: number, rejections: NodeRejection[]): string {
  if (nodes === 0) return "no nodes available to schedule pods";
  let msg = `0/${nodes} nodes are available: ${histogram(rejections.flatMap((r) => r.reasons))}.`;
  if (spec.preemptionPolicy === "Never")
    return `${msg} preemption: not eligible due to preemptionPolicy=Never.`;
  const preemption = rejections.map((r) =>
    r.unresolvable
      ? "Preemption is not helpful for scheduling"
      : "No preemption victims found for incoming pod",
  );
  msg += ` preemption: 0/${nodes} nodes are available: ${histogram(preemption)}.`;
  return msg;
}

/** LeastAllocated + BalancedAllocation over cpu and memory with non-zero requests, 0..200. */
function score(requests: Amounts, node: StoredObject, usage: NodeUsage): number {
  const allocatable = amounts(((node.status ?? {}) as NodeStatus).allocatable);
  const after = emptyUsage();
  addPod(after, requests);
  const fraction = (used: bigint, total: bigint | undefined): number =>
    total && total > 0n ? Math.min(1, Number((used * 10000n) / total) / 10000) : 1;
  const cpu = fraction(usage.nonZeroCpu + after.nonZeroCpu, allocatable.get("cpu"));
  const memory = fraction(usage.nonZeroMemory + after.nonZeroMemory, allocatable.get("memory"));
  const least = ((1 - cpu) * 100 + (1 - memory) * 100) / 2;
  const balanced = 100 - Math.abs(cpu - memory) * 100;
  return least + balanced;
}

export type ScheduleDecision = { node: string } | { message: string };

/** Picks a node for the pod: the best-scoring one that passes every filter (first by name on ties). */
export function schedulePod(
  pod: StoredObject,
  nodes: ReadonlyArray<{ node: StoredObject; usage: NodeUsage }>,
): ScheduleDecision {
  const spec = (pod.spec ?? {}) as PodSpec;
  const requests = podRequests(spec);
  const rejections: NodeRejection[] = [];
  let best: { name: string; score: number } | undefined;
  const sorted = [...nodes].sort((a, b) => (a.node.metadata.name < b.node.metadata.name ? -1 : 1));
  for (const { node, usage } of sorted) {
    const rejection = filterNode(spec, requests, node, usage);
    if (rejection) {
      rejections.push(rejection);
      continue;
    }
    const s = score(requests, node, usage);
    if (!best || s > best.score) best = { name: node.metadata.name, score: s };
  }
  return best ? { node: best.name } : { message: fitErrorMessage(spec, nodes.length, rejections) };
}
