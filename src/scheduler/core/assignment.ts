/**
 * Replica assignment over the selected clusters (upstream `core/assignment.go` and
 * `division_algorithm.go`). Duplicated gives every cluster all replicas; StaticWeight divides
 * by the policy's weights, ignoring the previous result; DynamicWeight and Aggregated divide by
 * the replicas each cluster can still take and, unless a reschedule was requested ("fresh"),
 * change the previous `spec.clusters` as little as possible: a scale up places only the extra
 * replicas, a scale down shrinks every cluster in proportion.
 */
import type { BindingSpec, Placement, TargetCluster } from "../../karmada/types.ts";
import { affinityMatcher, overflowEnabled } from "./affinity.ts";
import { componentCount, replicaSchedulingType, rescheduleRequired, sumReplicas } from "./binding.ts";
import type { ClusterDetail } from "./spread.ts";
import type { AssignMode, AssignStrategy, BindingSchedulingStatus, ReplicaExplanation } from "./types.ts";
import { divideByWeight } from "./webster.ts";

/** Not enough capacity: upstream's UnschedulableError (the binding waits in the unschedulable queue). */
export class UnschedulableError extends Error {}

export interface Assignment {
  clusters: TargetCluster[];
  explanation: ReplicaExplanation;
}

/** The strategy a placement asks for, or undefined when upstream has none for it. */
export function assignStrategy(placement: Placement): AssignStrategy | undefined {
  const type = replicaSchedulingType(placement);
  if (type === "Duplicated") return "Duplicated";
  if (type !== "Divided") return undefined;
  const rs = placement.replicaScheduling!;
  switch (rs.replicaDivisionPreference) {
    case "Aggregated":
      return "Aggregated";
    case "Weighted":
      return rs.weightPreference?.dynamicWeight ? "DynamicWeight" : "StaticWeight";
    default:
      return undefined;
  }
}

/**
 * `AssignReplicas`. Workloads (replicas or per-replica requirements, at most one pod template)
 * get replicas and lose clusters that got none; anything else is propagated to every selected
 * cluster without replicas.
 */
export function assignReplicas(
  selected: readonly ClusterDetail[],
  spec: BindingSpec,
  placement: Placement,
  status: BindingSchedulingStatus,
): Assignment {
  if (selected.length === 0) throw new Error("no clusters available to schedule");
  const replicas = spec.replicas ?? 0;
  if ((replicas > 0 || spec.replicaRequirements != null) && componentCount(spec) <= 1) {
    return assignWorkloadReplicas(selected, spec, placement, status);
  }
  return { clusters: selected.map((c) => ({ name: c.name })), explanation: { replicas } };
}

function baseExplanation(spec: BindingSpec, strategy: AssignStrategy | undefined): ReplicaExplanation {
  const explanation: ReplicaExplanation = { replicas: spec.replicas ?? 0 };
  if (strategy) explanation.strategy = strategy;
  return explanation;
}

function assignWorkloadReplicas(
  clusters: readonly ClusterDetail[],
  spec: BindingSpec,
  placement: Placement,
  status: BindingSchedulingStatus,
): Assignment {
  const explanation = baseExplanation(spec, assignStrategy(placement));
  if (!overflowEnabled(placement, status)) {
    const tier = assignToClusters(clusters, spec, placement, status, spec.replicas ?? 0);
    if (tier.mode) explanation.mode = tier.mode;
    if (tier.previouslyAssigned !== undefined) explanation.previouslyAssigned = tier.previouslyAssigned;
    if (tier.weights) explanation.weights = tier.weights;
    return { clusters: tier.clusters, explanation };
  }
  // Overflow: fill the observed term's clusters first, then each overflow group in order.
  const tiers = new Map<number, ClusterDetail[]>();
  for (const c of clusters) {
    const tier = tiers.get(c.overflowOrder);
    if (tier) tier.push(c);
    else tiers.set(c.overflowOrder, [c]);
  }
  const result: TargetCluster[] = [];
  explanation.tiers = [];
  let remaining = spec.replicas ?? 0;
  for (const order of [...tiers.keys()].sort((a, b) => a - b)) {
    const members = tiers.get(order)!;
    const capacity = members.reduce((sum, c) => sum + c.available, 0);
    const replicas = Math.min(remaining, capacity);
    const tier = assignToClusters(members, spec, placement, status, replicas);
    result.push(...tier.clusters);
    explanation.tiers.push(
      tier.mode ? { overflowOrder: order, replicas, mode: tier.mode } : { overflowOrder: order, replicas },
    );
    remaining -= replicas;
    if (remaining <= 0) break;
  }
  if (remaining > 0) throw new UnschedulableError("Clusters available replicas are not enough to schedule.");
  return { clusters: result, explanation };
}

interface TierAssignment {
  clusters: TargetCluster[];
  mode?: AssignMode;
  previouslyAssigned?: number;
  weights?: Record<string, number>;
}

/** `assignReplicasToClusters` for `replicas` (spec.replicas, or a tier's share of it). */
function assignToClusters(
  candidates: readonly ClusterDetail[],
  spec: BindingSpec,
  placement: Placement,
  status: BindingSchedulingStatus,
  replicas: number,
): TierAssignment {
  const strategy = assignStrategy(placement);
  let out: TierAssignment;
  switch (strategy) {
    case "Duplicated":
      out = { clusters: candidates.map((c) => ({ name: c.name, replicas })) };
      break;
    case "StaticWeight":
      out = assignByStaticWeight(candidates, spec, placement, replicas);
      break;
    case "DynamicWeight":
    case "Aggregated":
      out = assignDynamically(candidates, spec, status, replicas, strategy);
      break;
    default: {
      const rs = placement.replicaScheduling;
      throw new Error(
        `unsupported replica scheduling strategy, replicaSchedulingType: ${replicaSchedulingType(placement)}, ` +
          `replicaDivisionPreference: ${rs?.replicaDivisionPreference ?? ""}, please try another scheduling strategy`,
      );
    }
  }
  out.clusters = out.clusters
    .filter((c) => (c.replicas ?? 0) > 0)
    .map((c) => ({ name: c.name, replicas: c.replicas! }));
  return out;
}

/**
 * Each candidate weighs the most of the static rules whose targetCluster it matches; candidates
 * no rule matches are dropped, unless none matches at all (then all weigh 1). No
 * weightPreference: all weigh 1. The previous result plays no part.
 */
export function staticWeights(
  candidates: readonly ClusterDetail[],
  placement: Placement,
): Array<{ name: string; weight: number }> {
  const preference = placement.replicaScheduling?.weightPreference;
  if (!preference) return candidates.map((c) => ({ name: c.name, weight: 1 }));
  // Heaviest rule first, so the first that matches is the candidate's weight.
  const rules = (preference.staticWeightList ?? [])
    .filter((rule) => rule.weight > 0)
    .sort((a, b) => b.weight - a.weight)
    .map((rule) => ({ weight: rule.weight, matches: affinityMatcher(rule.targetCluster) }));
  const weights: Array<{ name: string; weight: number }> = [];
  for (const c of candidates) {
    const rule = rules.find((r) => r.matches(c.cluster));
    if (rule) weights.push({ name: c.name, weight: rule.weight });
  }
  if (weights.length === 0) return candidates.map((c) => ({ name: c.name, weight: 1 }));
  return weights;
}

function assignByStaticWeight(
  candidates: readonly ClusterDetail[],
  spec: BindingSpec,
  placement: Placement,
  replicas: number,
): TierAssignment {
  const weights = staticWeights(candidates, placement);
  return {
    clusters: divideByWeight(replicas, weights, spec.resource.uid),
    weights: weightsByName(weights),
  };
}

/**
 * `{ [cluster]: weight }` for the explanation. A fresh `{}` given hundreds of cluster names, in
 * an order that differs per binding, costs V8 a hidden class per key (0.5 ms at 1,000 clusters,
 * growing faster than the clusters); an object without a prototype is a hash table from the
 * start. The prototype is put back afterwards, so readers see a plain object.
 */
function weightsByName(weights: ReadonlyArray<{ name: string; weight: number }>): Record<string, number> {
  const byName: Record<string, number> = Object.create(null);
  for (const w of weights) byName[w.name] = w.weight;
  return Object.setPrototypeOf(byName, Object.prototype);
}

/** Stable sort by replicas, most first (upstream sorts unstably; the candidate order breaks ties here). */
function byReplicasDescending(list: TargetCluster[]): TargetCluster[] {
  return list.sort((a, b) => (b.replicas ?? 0) - (a.replicas ?? 0));
}

function assignDynamically(
  candidates: readonly ClusterDetail[],
  spec: BindingSpec,
  status: BindingSchedulingStatus,
  replicas: number,
  strategy: "DynamicWeight" | "Aggregated",
): TierAssignment {
  const names = new Set(candidates.map((c) => c.name));
  // Replicas on clusters no longer selected are treated as not placed: they get re-placed.
  const scheduled = (spec.clusters ?? []).filter((c) => names.has(c.name));
  const assigned = sumReplicas(scheduled);
  const uid = spec.resource.uid;

  if (rescheduleRequired(spec, status)) {
    const previous = new Map(scheduled.map((c) => [c.name, c.replicas ?? 0]));
    const available = byReplicasDescending(
      candidates.map((c) => ({ name: c.name, replicas: c.allocatable + (previous.get(c.name) ?? 0) })),
    );
    return {
      clusters: wrap("failed to do fresh scale", () => divide(available, replicas, [], strategy, uid)),
      mode: "fresh",
      previouslyAssigned: assigned,
    };
  }
  if (assigned > replicas) {
    // Shrink in proportion to what each cluster runs now.
    const available = byReplicasDescending(
      scheduled.map((c) => ({ name: c.name, replicas: c.replicas ?? 0 })),
    );
    return {
      clusters: wrap("failed to scale down", () => divide(available, replicas, [], strategy, uid)),
      mode: "scale down",
      previouslyAssigned: assigned,
    };
  }
  if (assigned < replicas) {
    // Place only the extra replicas, by what each cluster can still take; a first schedule is a scale up from 0.
    const available = byReplicasDescending(
      candidates.map((c) => ({ name: c.name, replicas: c.allocatable })),
    );
    return {
      clusters: wrap("failed to scale up", () =>
        divide(available, replicas - assigned, scheduled, strategy, uid),
      ),
      mode: "scale up",
      previouslyAssigned: assigned,
    };
  }
  return { clusters: scheduled.map((c) => ({ ...c })), mode: "unchanged", previouslyAssigned: assigned };
}

function wrap<T>(context: string, run: () => T): T {
  try {
    return run();
  } catch (err) {
    const message = `${context}: ${(err as Error).message}`;
    throw err instanceof UnschedulableError ? new UnschedulableError(message) : new Error(message);
  }
}

/**
 * `dynamicDivideReplicas`: divides `target` by the available replicas of `available` (sorted,
 * most first) and adds the result onto `scheduled`. Aggregated first keeps the clusters already
 * used in front, then only as many clusters as needed to hold `target`.
 */
export function divide(
  available: TargetCluster[],
  target: number,
  scheduled: readonly TargetCluster[],
  strategy: "DynamicWeight" | "Aggregated",
  uid: string | undefined,
): TargetCluster[] {
  const total = sumReplicas(available);
  if (total < target) {
    throw new UnschedulableError(`Clusters available replicas ${total} are not enough to schedule.`);
  }
  let weighted = available;
  if (strategy === "Aggregated") {
    const used = new Set(scheduled.filter((c) => (c.replicas ?? 0) > 0).map((c) => c.name));
    if (used.size > 0) {
      weighted = [
        ...available.filter((c) => used.has(c.name)),
        ...available.filter((c) => !used.has(c.name)),
      ];
    }
    let sum = 0;
    for (let i = 0; i < weighted.length; i++) {
      sum += weighted[i]!.replicas ?? 0;
      if (sum >= target) {
        weighted = weighted.slice(0, i + 1);
        break;
      }
    }
  }
  const added = divideByWeight(
    target,
    weighted.map((c) => ({ name: c.name, weight: c.replicas ?? 0 })),
    uid,
  );
  return mergeTargetClusters(scheduled, added);
}

/**
 * Adds `added` onto `previous`: the clusters of `added` (in its order) with the previous replicas
 * summed in, then the previous clusters `added` does not name (upstream appends those in map
 * order; we keep their previous order).
 */
export function mergeTargetClusters(
  previous: readonly TargetCluster[],
  added: readonly TargetCluster[],
): TargetCluster[] {
  if (previous.length === 0) return [...added];
  if (added.length === 0) return [...previous];
  const old = new Map(previous.map((c) => [c.name, c.replicas ?? 0]));
  const merged = added.map((c) => {
    const before = old.get(c.name);
    if (before === undefined) return { ...c };
    old.delete(c.name);
    return { name: c.name, replicas: (c.replicas ?? 0) + before };
  });
  for (const [name, replicas] of old) merged.push({ name, replicas });
  return merged;
}
