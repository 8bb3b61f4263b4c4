/**
 * `schedule`: one binding against the cluster snapshot, as upstream's generic scheduler plus
 * the clusterAffinities fallback around it. Filter (first failing plugin rejects), score (sum),
 * select (spread constraints), assign replicas; with ordered clusterAffinities each term is
 * tried from the observed one on until one schedules.
 *
 * An empty `clusterAffinities` list is treated as absent (upstream, seeing a non-nil empty
 * slice, would try no term and report success without writing anything).
 */
import type { BindingSpec, ClusterObject, Placement, TargetCluster } from "../../karmada/types.ts";
import { overflowOrderOf } from "./affinity.ts";
import { assignReplicas, UnschedulableError } from "./assignment.ts";
import { isWorkload, rescheduleRequired } from "./binding.ts";
import { availableReplicas } from "./estimate.ts";
import { FILTER_PLUGINS, type PluginContext, pluginContext, SCORE_PLUGINS } from "./plugins.ts";
import { type ClusterDetail, compareClusters, SelectionError, selectClusters } from "./spread.ts";
import {
  type AttemptExplanation,
  type BindingSchedulingStatus,
  type ClusterExplanation,
  ScheduleError,
  type ScheduleExplanation,
  type ScheduleFailureReason,
  type ScheduleInput,
  type ScheduleOptions,
  type ScheduleResult,
  type ScheduleTrace,
} from "./types.ts";

/** One run failed: the reason upstream's condition would carry, and its message. */
class AttemptFailure extends Error {
  readonly reason: ScheduleFailureReason;
  constructor(reason: ScheduleFailureReason, message: string) {
    super(message);
    this.reason = reason;
  }
}

/** `FitError.Error()`: the histogram of filter reasons over the clusters that failed. */
export function fitErrorMessage(numClusters: number, reasons: readonly string[]): string {
  if (numClusters === 0 || reasons.length === 0) {
    return `0/${numClusters} clusters are available: no cluster exists.`;
  }
  const counts = new Map<string, number>();
  for (const r of reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  const histogram = [...counts].map(([reason, n]) => `${n} ${reason}`).sort();
  return `0/${numClusters} clusters are available: ${histogram.join(", ")}.`;
}

function bindingLabel(binding: ScheduleInput["binding"]): string {
  return binding.namespace
    ? `resourceBinding(${binding.namespace}/${binding.name})`
    : `clusterResourceBinding(${binding.name})`;
}

/**
 * Schedules a binding. Throws `ScheduleError` (upstream's message and condition reason) when
 * no placement fits; with clusterAffinities that is the error of the first term tried.
 */
export function schedule(input: ScheduleInput): ScheduleResult {
  const { binding, clusters } = input;
  const spec = binding.spec;
  const placement = spec.placement;
  if (!placement) {
    const explanation: ScheduleExplanation = { attempts: [] };
    throw new ScheduleError(
      "SchedulerError",
      `failed to get placement from ${bindingLabel(binding)}`,
      explanation,
    );
  }
  const status = binding.status ?? {};
  const options = input.options ?? {};
  const terms = placement.clusterAffinities;
  if (!terms?.length) {
    const attempt = runAttempt(spec, placement, status, clusters, options, input.trace);
    const explanation: ScheduleExplanation = { attempts: [attempt.explanation] };
    if (attempt.failure)
      throw new ScheduleError(attempt.failure.reason, attempt.failure.message, explanation);
    return { clusters: attempt.clusters, explanation };
  }

  let index = terms.findIndex((t) => t.affinityName === status.schedulerObservingAffinityName);
  if (index < 0 || !status.schedulerObservingAffinityName || rescheduleRequired(spec, status)) index = 0;
  const explanation: ScheduleExplanation = { attempts: [] };
  let first: AttemptFailure | undefined;
  for (; index < terms.length; index++) {
    const affinityName = terms[index]!.affinityName;
    const attempt = runAttempt(
      spec,
      placement,
      { ...status, schedulerObservingAffinityName: affinityName },
      clusters,
      options,
      input.trace,
    );
    attempt.explanation.affinityName = affinityName;
    attempt.explanation.affinityIndex = index;
    explanation.attempts.push(attempt.explanation);
    if (!attempt.failure) {
      explanation.affinityName = affinityName;
      return { clusters: attempt.clusters, affinityName, explanation };
    }
    first ??= attempt.failure;
  }
  // Every term failed: the first error counts, and the observed term stays what it was.
  throw new ScheduleError(first!.reason, first!.message, explanation);
}

/**
 * The event upstream records for a clusterAffinities term that failed, before the next is tried:
 * "failed to schedule ResourceBinding(ns/name) with clusterAffiliates index(i): <error>".
 */
export function affinityAttemptFailedMessage(
  binding: Pick<ScheduleInput["binding"], "namespace" | "name">,
  attempt: AttemptExplanation,
): string | undefined {
  if (!attempt.error || attempt.affinityIndex === undefined) return undefined;
  const who = binding.namespace
    ? `ResourceBinding(${binding.namespace}/${binding.name})`
    : `ClusterResourceBinding(${binding.name})`;
  return `failed to schedule ${who} with clusterAffiliates index(${attempt.affinityIndex}): ${attempt.error.message}`;
}

interface Attempt {
  clusters: TargetCluster[];
  explanation: AttemptExplanation;
  failure?: AttemptFailure;
}

function runAttempt(
  spec: BindingSpec,
  placement: Placement,
  status: BindingSchedulingStatus,
  clusters: readonly ClusterObject[],
  options: ScheduleOptions,
  trace: ScheduleTrace | undefined,
): Attempt {
  const verdicts: ClusterExplanation[] = [];
  const explanation: AttemptExplanation = { clusters: verdicts };
  try {
    return {
      clusters: scheduleOnce(spec, placement, status, clusters, options, explanation, trace),
      explanation,
    };
  } catch (err) {
    const failure =
      err instanceof AttemptFailure ? err : new AttemptFailure("SchedulerError", (err as Error).message);
    explanation.error = { reason: failure.reason, message: failure.message };
    return { clusters: [], explanation, failure };
  }
}

/**
 * Runs the filters over every cluster, recording a verdict per cluster. Deleting clusters are
 * skipped silently (their scheduled results are being cleaned up) but still count in "0/N".
 */
function filterClusters(
  ctx: PluginContext,
  clusters: readonly ClusterObject[],
  verdicts: ClusterExplanation[],
  pluginMs: Map<string, number> | undefined,
): ClusterObject[] {
  const feasible: ClusterObject[] = [];
  const reasons: string[] = [];
  for (const cluster of clusters) {
    const verdict: ClusterExplanation = { name: cluster.metadata.name };
    verdicts.push(verdict);
    if (cluster.metadata.deletionTimestamp) {
      verdict.deleting = true;
      continue;
    }
    const rejectedBy = FILTER_PLUGINS.find((plugin) => {
      if (ctx.disabled?.has(plugin.name)) return false;
      const start = pluginMs ? performance.now() : 0;
      const reason = plugin.filter(ctx, cluster);
      if (pluginMs) pluginMs.set(plugin.name, (pluginMs.get(plugin.name) ?? 0) + performance.now() - start);
      if (reason !== undefined) verdict.reason = reason;
      return reason !== undefined;
    });
    if (rejectedBy) {
      verdict.filteredBy = rejectedBy.name;
      reasons.push(verdict.reason!);
    } else {
      feasible.push(cluster);
    }
  }
  if (feasible.length === 0)
    throw new AttemptFailure("NoClusterFit", fitErrorMessage(clusters.length, reasons));
  return feasible;
}

/** Scores and estimates the feasible clusters and ranks them for selection. */
function rankClusters(
  ctx: PluginContext,
  feasible: readonly ClusterObject[],
  byName: ReadonlyMap<string, ClusterExplanation>,
  pluginMs: Map<string, number> | undefined,
): ClusterDetail[] {
  const { spec, placement, status } = ctx;
  const replicas = spec.replicas ?? 0;
  const workload = isWorkload(spec);
  const estimates = availableReplicas(feasible, replicas, spec.replicaRequirements);
  const previous = new Map((spec.clusters ?? []).map((c) => [c.name, c.replicas ?? 0]));
  const overflowOrder = overflowOrderOf(placement, status);
  const details = feasible.map((cluster, i): ClusterDetail => {
    const name = cluster.metadata.name;
    let score = 0;
    for (const plugin of SCORE_PLUGINS) {
      if (ctx.disabled?.has(plugin.name)) continue;
      const start = pluginMs ? performance.now() : 0;
      score += plugin.score(ctx, cluster);
      if (pluginMs) pluginMs.set(plugin.name, (pluginMs.get(plugin.name) ?? 0) + performance.now() - start);
    }
    const allocatable = estimates[i]!;
    const assigned = previous.get(name) ?? 0;
    const order = overflowOrder(cluster);
    const verdict = byName.get(name)!;
    verdict.score = score;
    if (replicas > 0) verdict.fits = allocatable;
    if (workload && assigned > 0) verdict.assigned = assigned;
    if (order !== 0) verdict.overflowOrder = order;
    verdict.selected = false;
    return { name, cluster, score, overflowOrder: order, allocatable, available: allocatable + assigned };
  });
  return details.sort(compareClusters);
}

/** upstream `genericScheduler.Schedule`; fills `explanation` as it goes. */
function scheduleOnce(
  spec: BindingSpec,
  placement: Placement,
  status: BindingSchedulingStatus,
  clusters: readonly ClusterObject[],
  options: ScheduleOptions,
  explanation: AttemptExplanation,
  trace: ScheduleTrace | undefined,
): TargetCluster[] {
  const ctx = pluginContext(spec, placement, status, options.disabledPlugins);
  // Each step is timed as upstream's (deferred: a step that fails counts too).
  const timed = <T>(step: Parameters<ScheduleTrace["step"]>[0], run: () => T): T => {
    if (!trace) return run();
    const start = performance.now();
    let failed = true;
    try {
      const result = run();
      failed = false;
      return result;
    } finally {
      trace.step(step, performance.now() - start, failed);
    }
  };
  const pluginMs = trace ? new Map<string, number>() : undefined;
  const reportPlugins = (point: "Filter" | "Score"): void => {
    if (!trace || !pluginMs) return;
    for (const [name, ms] of pluginMs) trace.plugin(name, point, ms);
    pluginMs.clear();
  };
  let feasible: ClusterObject[];
  try {
    feasible = timed("Filter", () => filterClusters(ctx, clusters, explanation.clusters, pluginMs));
  } finally {
    reportPlugins("Filter");
  }
  const byName = new Map(explanation.clusters.map((v) => [v.name, v]));
  const replicas = spec.replicas ?? 0;
  if (isWorkload(spec)) {
    const request = spec.replicaRequirements?.resourceRequest;
    explanation.needs = request && Object.keys(request).length > 0 ? { replicas, request } : { replicas };
  }
  const details = timed("Score", () => rankClusters(ctx, feasible, byName, pluginMs));
  reportPlugins("Score");

  let selected: ClusterDetail[];
  try {
    const selection = timed("Select", () => selectClusters(placement, details, replicas));
    selected = selection.clusters;
    explanation.spread = selection.spread;
  } catch (err) {
    if (!(err instanceof SelectionError)) throw err;
    if (err.spread) explanation.spread = err.spread;
    throw new AttemptFailure("SchedulerError", `failed to select clusters: ${err.message}`);
  }
  for (const c of selected) byName.get(c.name)!.selected = true;

  let result: TargetCluster[];
  try {
    const assignment = timed("AssignReplicas", () => assignReplicas(selected, spec, placement, status));
    result = assignment.clusters;
    explanation.replicas = assignment.explanation;
  } catch (err) {
    const reason = err instanceof UnschedulableError ? "Unschedulable" : "SchedulerError";
    throw new AttemptFailure(reason, `failed to assign replicas: ${(err as Error).message}`);
  }

  if (options.enableEmptyWorkloadPropagation) {
    const named = new Set(result.map((c) => c.name));
    for (const c of selected) if (!named.has(c.name)) result.push({ name: c.name, replicas: 0 });
  }
  for (const c of result) {
    const verdict = byName.get(c.name)!;
    if (c.replicas !== undefined) verdict.replicas = c.replicas;
  }
  return result;
}
