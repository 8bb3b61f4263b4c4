/**
 * The graceful eviction controller (upstream `gracefulEviction`: one loop for ResourceBindings,
 * one for ClusterResourceBindings): drops a binding's `spec.gracefulEvictionTasks` once their
 * old copies may go. While a task exists, the binding controller keeps the evicted cluster's
 * Work (unless the task is `Directly`) and the scheduler's ClusterEviction filter keeps the
 * cluster out of new results; dropping the task lets both move on.
 *
 * Upstream's rules per task (pkg/controllers/gracefuleviction/evictiontask.go): a task without
 * `creationTimestamp` is only stamped; `suppressDeletion: true` keeps it, `false` drops it;
 * past `creationTimestamp + (gracePeriodSeconds ?? --graceful-eviction-timeout)` drops it; and
 * once the binding is scheduled for its current generation with every scheduled cluster's copy
 * Healthy, it is dropped. The loop comes back at the next deadline.
 *
 * Beyond upstream, so that a task never outlives its purpose when a cluster flaps or goes:
 * - a task whose cluster is in `spec.clusters` again is dropped: that cluster is a target, its
 *   copy is the current one (the scheduler excludes it while the task exists, so only another
 *   writer, or a result computed before the eviction was seen, puts it back);
 * - a task whose Cluster is deleted (or being deleted) is dropped: there is nothing left to purge;
 * - "every scheduled cluster is Healthy" needs at least one scheduled cluster when the task
 *   keeps the old copy (not `Directly`): upstream takes an empty result as all-healthy and
 *   deletes the only copy of a workload that found no other cluster; we keep it until the
 *   timeout instead.
 */
import { isObject, rfc3339, type StoredObject } from "../api/meta.ts";
import { RESOURCES } from "../client/client.ts";
import { type Binding, bindingResource } from "../karmada/bindings.ts";
import { purgeModeOf } from "../karmada/failover.ts";
import { KARMADA } from "../karmada/resources.ts";
import { templateRef } from "../karmada/template-ref.ts";
import type {
  AggregatedStatusItem,
  BindingSpec,
  GracefulEvictionTask,
  TargetCluster,
} from "../karmada/types.ts";
import type { Logger } from "../log.ts";
import { deepEqual } from "../machinery/equality.ts";
import { isConflict } from "../machinery/errors.ts";
import { cloneJson } from "../machinery/merge-patch.ts";
import { commit } from "../runtime/commit.ts";
import {
  type Controller,
  done,
  type ReconcileContext,
  type ReconcileResult,
  requeueAfter,
} from "../runtime/controller.ts";
import { objectKey, parseObjectKey } from "../runtime/keys.ts";
import type { ControllerContext } from "./context.ts";

/** Upstream's controller names: the sources of their events. */
export const RB_GRACEFUL_EVICTION_CONTROLLER = "resource-binding-graceful-eviction-controller";
export const CRB_GRACEFUL_EVICTION_CONTROLLER = "cluster-resource-binding-graceful-eviction-controller";

/** Why a task was dropped. */
export type DropReason =
  /** The user set `suppressDeletion: false`. */
  | "SuppressionLifted"
  /** Its grace period (or the controller's timeout) has passed. */
  | "Timeout"
  /** Every scheduled cluster reports the workload Healthy for the current generation. */
  | "Healthy"
  /** Beyond upstream: its cluster is in `spec.clusters` again. */
  | "Rescheduled"
  /** Beyond upstream: its Cluster is deleted or being deleted. */
  | "ClusterGone";

export interface TaskAssessmentInput {
  tasks: readonly GracefulEvictionTask[];
  /** `spec.clusters`. */
  clusters: readonly TargetCluster[];
  aggregatedStatus: readonly AggregatedStatusItem[];
  /** Whether the scheduler has seen the binding's current generation. */
  scheduled: boolean;
  /** Whether the Cluster exists and is not being deleted. */
  clusterExists(name: string): boolean;
  /** `--graceful-eviction-timeout`, for tasks without `gracePeriodSeconds`. */
  timeoutMs: number;
  now: number;
}

export interface TaskAssessment {
  kept: GracefulEvictionTask[];
  dropped: Array<{ cluster: string; reason: DropReason }>;
  /** When to look again: the earliest deadline of a kept task (none: only suppressed tasks, or none). */
  nextCheckMs?: number;
}

function timeoutOf(task: GracefulEvictionTask, defaultMs: number): number {
  return task.gracePeriodSeconds != null ? task.gracePeriodSeconds * 1000 : defaultMs;
}

function createdAt(task: GracefulEvictionTask): number | undefined {
  const t = task.creationTimestamp ? Date.parse(task.creationTimestamp) : Number.NaN;
  return Number.isFinite(t) ? t : undefined;
}

function allScheduledHealthy(input: TaskAssessmentInput): boolean {
  return input.clusters.every(
    (c) => input.aggregatedStatus.find((s) => s.clusterName === c.name)?.health === "Healthy",
  );
}

/** Beyond upstream: the task has nothing left to do. */
function mootReason(task: GracefulEvictionTask, input: TaskAssessmentInput): DropReason | undefined {
  if (input.clusters.some((c) => c.name === task.fromCluster)) return "Rescheduled";
  if (!input.clusterExists(task.fromCluster)) return "ClusterGone";
  return undefined;
}

/** Upstream's assessment of a stamped task. */
function dropReason(
  task: GracefulEvictionTask,
  created: number,
  input: TaskAssessmentInput,
): DropReason | undefined {
  if (task.suppressDeletion === true) return undefined;
  if (task.suppressDeletion === false) return "SuppressionLifted";
  if (input.now > created + timeoutOf(task, input.timeoutMs)) return "Timeout";
  const keepsOldCopy = purgeModeOf(task.purgeMode) !== "Directly";
  if (input.scheduled && !(keepsOldCopy && input.clusters.length === 0) && allScheduledHealthy(input)) {
    return "Healthy";
  }
  return undefined;
}

/**
 * Which tasks stay (a new one stamped `creationTimestamp: stamp`), which go and why, and when
 * to look again.
 */
export function assessEvictionTasks(input: TaskAssessmentInput, stamp: string): TaskAssessment {
  const kept: GracefulEvictionTask[] = [];
  const dropped: TaskAssessment["dropped"] = [];
  let next = Number.POSITIVE_INFINITY;
  for (const task of input.tasks) {
    const created = createdAt(task);
    // The first pass only stamps (a time that does not parse is stamped again), as upstream's.
    const reason =
      mootReason(task, input) ?? (created === undefined ? undefined : dropReason(task, created, input));
    if (reason) {
      dropped.push({ cluster: task.fromCluster, reason });
      continue;
    }
    kept.push(created === undefined ? { ...task, creationTimestamp: stamp } : task);
    if (task.suppressDeletion == null) {
      next = Math.min(next, (created ?? input.now) + timeoutOf(task, input.timeoutMs) - input.now);
    }
  }
  return {
    kept,
    dropped,
    ...(Number.isFinite(next) ? { nextCheckMs: Math.max(0, next) + 1 } : {}),
  };
}

function tasksOf(obj: StoredObject): GracefulEvictionTask[] {
  const spec = isObject(obj.spec) ? obj.spec : {};
  return Array.isArray(spec.gracefulEvictionTasks)
    ? (spec.gracefulEvictionTasks as GracefulEvictionTask[])
    : [];
}

const DROPPED_MESSAGE: Partial<Record<DropReason, string>> = {
  Rescheduled: "the cluster is scheduled again",
  ClusterGone: "the cluster is deleted",
};

export function gracefulEvictionController(ctx: ControllerContext, clusterScoped: boolean): Controller {
  const component = clusterScoped ? CRB_GRACEFUL_EVICTION_CONTROLLER : RB_GRACEFUL_EVICTION_CONTROLLER;
  const events = ctx.recorder(component);
  const ref = bindingResource(clusterScoped);
  const byEvictedCluster = { byEvictedCluster: (b: StoredObject) => tasksOf(b).map((t) => t.fromCluster) };
  const bindings = ctx.informers.informer(ref, { indexers: byEvictedCluster });
  const clusters = ctx.informers.informer(RESOURCES.clusters);

  /** Upstream's event per ended task; ours, for the reasons of our own, says why. */
  function reportDropped(log: Logger, binding: Binding, dropped: TaskAssessment["dropped"]): void {
    for (const { cluster, reason } of dropped) {
      log.info("graceful eviction task dropped", { cluster, reason });
      const why = DROPPED_MESSAGE[reason];
      if (why) {
        events.event(
          binding,
          "Normal",
          "GracefulEvictionTaskDropped",
          `Dropped the eviction task of cluster ${cluster}: ${why}.`,
        );
        continue;
      }
      const message = `Evict from cluster ${cluster} succeed.`;
      events.event(binding, "Normal", "EvictWorkloadFromClusterSucceed", message);
      events.event(templateRef(binding), "Normal", "EvictWorkloadFromClusterSucceed", message);
    }
  }

  async function reconcile(rctx: ReconcileContext, key: string): Promise<ReconcileResult> {
    const { namespace: ns, name } = parseObjectKey(key);
    const binding = bindings.get(ns, name) as Binding | undefined;
    if (!binding || binding.metadata.deletionTimestamp) return done;
    const tasks = tasksOf(binding);
    if (tasks.length === 0) return done;
    // "The cluster is gone" must not be read off a cache still filling up.
    await clusters.waitForSync();
    const status = (isObject(binding.status) ? binding.status : {}) as {
      schedulerObservedGeneration?: number;
      aggregatedStatus?: AggregatedStatusItem[];
    };
    const now = ctx.now();
    const assessment = assessEvictionTasks(
      {
        tasks,
        clusters: binding.spec.clusters ?? [],
        aggregatedStatus: status.aggregatedStatus ?? [],
        scheduled: status.schedulerObservedGeneration === binding.metadata.generation,
        clusterExists: (c) => {
          const cluster = clusters.get(undefined, c);
          return cluster !== undefined && !cluster.metadata.deletionTimestamp;
        },
        timeoutMs: ctx.options.gracefulEvictionTimeoutMs,
        now,
      },
      rfc3339(now),
    );
    const retry = assessment.nextCheckMs !== undefined ? requeueAfter(assessment.nextCheckMs) : done;
    if (deepEqual(assessment.kept, tasks)) return retry;
    const next = cloneJson(binding);
    if (assessment.kept.length > 0) next.spec.gracefulEvictionTasks = assessment.kept;
    else delete next.spec.gracefulEvictionTasks;
    try {
      // A binding changed meanwhile (a conflict) is assessed again from the newer copy; one
      // deleted meanwhile has no tasks left to end.
      if (!(await commit(ctx.client, ref, binding, next))) return done;
    } catch (err) {
      if (!isConflict(err)) {
        for (const { cluster } of assessment.dropped) {
          const message = `Evict from cluster ${cluster} failed.`;
          events.event(binding, "Warning", "EvictWorkloadFromClusterFailed", message);
          events.event(templateRef(binding), "Warning", "EvictWorkloadFromClusterFailed", message);
        }
      }
      throw err;
    }
    reportDropped(rctx.log, binding, assessment.dropped);
    return retry;
  }

  const withTasks = (c: StoredObject): string[] =>
    bindings.byIndex("byEvictedCluster", c.metadata.name).map(objectKey);

  return {
    name: clusterScoped ? CRB_GRACEFUL_EVICTION_CONTROLLER : RB_GRACEFUL_EVICTION_CONTROLLER,
    for: bindings,
    // Upstream's predicate: only bindings that have tasks (their status changes included).
    updateFilter: (_old, obj) => tasksOf(obj).length > 0,
    watches: [
      {
        // A Cluster deleted (or being deleted) ends the tasks that name it.
        informer: clusters,
        updateFilter: (old, obj) => old.metadata.deletionTimestamp !== obj.metadata.deletionTimestamp,
        map: withTasks,
      },
    ],
    reconcile,
  };
}
