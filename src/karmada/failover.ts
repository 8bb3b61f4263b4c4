/**
 * What failover's producers share (the taint manager, application failover) and what reads
 * their tasks (graceful eviction, the binding controller, policy admission): purge mode names
 * old and new, the state an eviction preserves, and moving a cluster from a binding's targets
 * into an eviction task.
 */
import { parseJsonPath } from "../machinery/jsonpath.ts";
import type { AggregatedStatusItem, BindingSpec, GracefulEvictionTask } from "./types.ts";

export interface StatePreservationRule {
  aliasLabelName: string;
  jsonPath: string;
}

/**
 * The label state a failover keeps: each rule's JSONPath printed against the status the cluster
 * reported (missing keys are errors, as upstream).
 */
export function preservedLabelState(
  rules: readonly StatePreservationRule[],
  status: unknown,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rule of rules) {
    try {
      out[rule.aliasLabelName] = parseJsonPath(rule.jsonPath).execute(status);
    } catch (err) {
      throw new Error(`failed to execute jsonpath "${rule.jsonPath}": ${(err as Error).message}`);
    }
  }
  return out;
}

/**
 * What an eviction task carries for state preservation (gate StatefulFailoverInjection, rules
 * given): the label state from the status the evicted cluster reported, and the clusters the
 * binding had before. Throws while that cluster's status is not collected (the eviction is
 * retried), as upstream.
 */
export function preservedState(
  rules: readonly StatePreservationRule[] | undefined,
  items: readonly AggregatedStatusItem[],
  cluster: string,
  clustersBeforeFailover: readonly string[],
  injection: boolean,
): Pick<GracefulEvictionTask, "preservedLabelState" | "clustersBeforeFailover"> {
  if (!injection || !rules || rules.length === 0) return {};
  const status = items.find((i) => i.clusterName === cluster)?.status;
  if (status === undefined || status === null) {
    throw new Error(`the application status has not yet been collected from Cluster(${cluster})`);
  }
  return {
    preservedLabelState: preservedLabelState(rules, status),
    clustersBeforeFailover: [...clustersBeforeFailover],
  };
}

/**
 * A purge mode in today's names: `Graciously` and `Immediately` (v1.12, deprecated in v1.15)
 * mean `Gracefully` and `Directly`; anything else is returned as it is.
 */
export function purgeModeOf(mode: unknown): string | undefined {
  if (mode === "Graciously") return "Gracefully";
  if (mode === "Immediately") return "Directly";
  return typeof mode === "string" && mode !== "" ? mode : undefined;
}

/**
 * `GracefulEvictCluster`: the spec without the cluster in `clusters`, plus an eviction task for
 * it unless one exists. Undefined when the cluster is not a target.
 */
export function evictCluster(
  spec: BindingSpec,
  cluster: string,
  task: Omit<GracefulEvictionTask, "fromCluster" | "replicas" | "creationTimestamp">,
): Pick<BindingSpec, "clusters" | "gracefulEvictionTasks"> | undefined {
  const clusters = spec.clusters ?? [];
  const target = clusters.find((c) => c.name === cluster);
  if (!target) return undefined;
  const tasks = spec.gracefulEvictionTasks ?? [];
  const replicas = target.replicas ?? 0;
  return {
    clusters: clusters.filter((c) => c !== target),
    gracefulEvictionTasks: tasks.some((t) => t.fromCluster === cluster)
      ? tasks
      : [
          ...tasks,
          {
            fromCluster: cluster,
            ...(task.purgeMode ? { purgeMode: task.purgeMode } : {}),
            ...(replicas > 0 ? { replicas } : {}),
            reason: task.reason,
            ...(task.message ? { message: task.message } : {}),
            producer: task.producer,
            ...(task.gracePeriodSeconds != null ? { gracePeriodSeconds: task.gracePeriodSeconds } : {}),
            ...(task.suppressDeletion != null ? { suppressDeletion: task.suppressDeletion } : {}),
            ...(task.preservedLabelState ? { preservedLabelState: task.preservedLabelState } : {}),
            ...(task.clustersBeforeFailover ? { clustersBeforeFailover: task.clustersBeforeFailover } : {}),
          },
        ],
  };
}

/** Whether the task deletes the old copy before the new one is made (`Directly`, v1.12's `Immediately`). */
export function purgesDirectly(task: GracefulEvictionTask): boolean {
  return purgeModeOf(task.purgeMode) === "Directly";
}

/**
 * The labels stateful failover injects into the copy for `cluster` (gate
 * StatefulFailoverInjection), under upstream's conditions: the workload has exactly one target
 * (`targets`, with the clusters of bindings that require it); only the last eviction task
 * counts (with consecutive failovers A→B→C, the state preserved at the last one); that task
 * purged directly; and the cluster was not a target before that failover. Undefined: nothing
 * to inject.
 */
export function labelsToInject(
  spec: BindingSpec,
  cluster: string,
  targets: number,
): Record<string, string> | undefined {
  if (targets !== 1) return undefined;
  const last = spec.gracefulEvictionTasks?.at(-1);
  if (!last || !purgesDirectly(last)) return undefined;
  if (last.clustersBeforeFailover?.includes(cluster)) return undefined;
  const state = last.preservedLabelState;
  return state && Object.keys(state).length > 0 ? state : undefined;
}
