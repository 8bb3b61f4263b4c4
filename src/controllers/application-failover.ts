/**
 * Application failover (upstream's applicationfailover controllers, one loop for
 * ResourceBindings, one for ClusterResourceBindings): a workload whose copy on a cluster stays
 * Unhealthy longer than `spec.failover.application.decisionConditions.tolerationSeconds` leaves
 * that cluster. The cluster moves from `spec.clusters` into a `gracefulEvictionTasks` entry
 * (reason ApplicationFailure, producer the controller's name); the scheduler then places the
 * workload elsewhere, and the graceful eviction controller ends the task by its purge mode:
 * `Gracefully` (v1.12 `Graciously`) keeps the old copy for `gracePeriodSeconds` or until the
 * new copies are healthy, `Directly` (`Immediately`) removes it first, `Never` keeps it until the
 * user sets the task's `suppressDeletion` to false.
 *
 * A binding is looked at only when it has `spec.failover.application`, some aggregated status,
 * a health hook for its kind (the interpreter's), and `propagateDeps: true`, as upstream. When
 * each cluster was first seen unhealthy is kept in memory, as upstream (a restart starts the
 * toleration again).
 *
 * State preservation (gate StatefulFailoverInjection): each `statePreservation.rules` JSONPath
 * is evaluated on the status the failed cluster reported (`aggregatedStatus[].status`), and the
 * results are kept on the task as `preservedLabelState`, with the clusters targeted before the
 * failover in `clustersBeforeFailover`; the binding controller injects them as labels into the
 * new copy.
 *
 * Beyond upstream: the toleration is timed to the millisecond (upstream rounds to seconds and,
 * with `tolerationSeconds: 0`, waits for the binding's next change before it evicts); success
 * is recorded as an event at once, as our taint manager does.
 */
import { isObject, type StoredObject } from "../api/meta.ts";
import { type Binding, bindingResource } from "../karmada/bindings.ts";
import {
  evictCluster,
  preservedState,
  purgeModeOf,
  type StatePreservationRule,
} from "../karmada/failover.ts";
import { KARMADA } from "../karmada/resources.ts";
import { templateRef } from "../karmada/template-ref.ts";
import type { AggregatedStatusItem, BindingSpec, GracefulEvictionTask } from "../karmada/types.ts";
import {
  type Controller,
  done,
  type ReconcileContext,
  type ReconcileResult,
  requeueAfter,
  TerminalError,
} from "../runtime/controller.ts";
import type { FeatureGates } from "../runtime/features.ts";
import { parseObjectKey } from "../runtime/keys.ts";
import type { ControllerContext } from "./context.ts";
import { writeEviction } from "./eviction.ts";

/** Upstream's controller names: the producers of their tasks and the sources of their events. */
export const RB_APPLICATION_FAILOVER_CONTROLLER = "resource-binding-application-failover-controller";
export const CRB_APPLICATION_FAILOVER_CONTROLLER = "cluster-resource-binding-application-failover-controller";
export const EVICTION_REASON_APPLICATION_FAILURE = "ApplicationFailure";
/** The CRD's default for `decisionConditions.tolerationSeconds`. */
const DEFAULT_TOLERATION_SECONDS = 300;

export interface ApplicationFailoverBehavior {
  decisionConditions?: { tolerationSeconds?: number };
  purgeMode?: string;
  gracePeriodSeconds?: number;
  statePreservation?: { rules?: StatePreservationRule[] };
}

/**
 * The clusters whose copy is Unhealthy and not already being evicted, and those whose copy is
 * Healthy or Unknown (their unhealthy time is forgotten).
 */
export function splitByHealth(
  items: readonly AggregatedStatusItem[],
  tasks: readonly GracefulEvictionTask[],
): { unhealthy: string[]; others: string[] } {
  const evicting = new Set(tasks.map((t) => t.fromCluster));
  const unhealthy: string[] = [];
  const others: string[] = [];
  for (const item of items) {
    if (item.health === "Unhealthy" && !evicting.has(item.clusterName)) unhealthy.push(item.clusterName);
    if (item.health === "Healthy" || item.health === "Unknown") others.push(item.clusterName);
  }
  return { unhealthy, others };
}

/**
 * Which unhealthy clusters have been so for longer than the toleration (`since`: when each was
 * first seen unhealthy; new ones are recorded at `now`), and when to look again for the rest.
 */
export function detectFailure(
  unhealthy: readonly string[],
  toleranceMs: number,
  since: Map<string, number>,
  now: number,
): { evict: string[]; recheckAfterMs?: number } {
  const evict: string[] = [];
  let next = Number.POSITIVE_INFINITY;
  for (const cluster of unhealthy) {
    const first = since.get(cluster);
    if (first === undefined) since.set(cluster, now);
    const deadline = (first ?? now) + toleranceMs;
    if (now > deadline) evict.push(cluster);
    else next = Math.min(next, deadline - now + 1);
  }
  return Number.isFinite(next) ? { evict, recheckAfterMs: next } : { evict };
}

/** The task an application failure gives the cluster (upstream's buildTaskOptions). */
export function applicationEvictionTask(
  behavior: ApplicationFailoverBehavior,
  items: readonly AggregatedStatusItem[],
  cluster: string,
  producer: string,
  clustersBeforeFailover: readonly string[],
  features: Pick<FeatureGates, "enabled">,
): Omit<GracefulEvictionTask, "fromCluster" | "replicas" | "creationTimestamp"> {
  const task: Omit<GracefulEvictionTask, "fromCluster" | "replicas" | "creationTimestamp"> = {
    producer,
    reason: EVICTION_REASON_APPLICATION_FAILURE,
    ...(behavior.purgeMode ? { purgeMode: behavior.purgeMode } : {}),
  };
  Object.assign(
    task,
    preservedState(
      behavior.statePreservation?.rules,
      items,
      cluster,
      clustersBeforeFailover,
      features.enabled("StatefulFailoverInjection"),
    ),
  );
  switch (purgeModeOf(behavior.purgeMode)) {
    case "Gracefully":
      // The gates are fixed while we run: only a change of the binding's purge mode can help.
      if (!features.enabled("GracefulEviction")) {
        throw new TerminalError(
          `GracefulEviction featureGate must be enabled when purgeMode is ${behavior.purgeMode}`,
        );
      }
      if (behavior.gracePeriodSeconds != null) task.gracePeriodSeconds = behavior.gracePeriodSeconds;
      break;
    case "Never":
      task.suppressDeletion = true;
      break;
  }
  return task;
}

/** A binding whose spec carries the application failover behaviour it was given. */
type FailoverBinding = Binding & { spec: { failover?: { application?: ApplicationFailoverBehavior } } };

const applicationOf = (obj: StoredObject | undefined): ApplicationFailoverBehavior | undefined => {
  const spec = isObject(obj?.spec) ? obj.spec : undefined;
  const failover = isObject(spec?.failover) ? spec.failover : undefined;
  return isObject(failover?.application) ? (failover.application as ApplicationFailoverBehavior) : undefined;
};

const aggregatedOf = (b: StoredObject): AggregatedStatusItem[] => {
  const status = isObject(b.status) ? b.status : {};
  return Array.isArray(status.aggregatedStatus) ? (status.aggregatedStatus as AggregatedStatusItem[]) : [];
};

export function applicationFailoverController(ctx: ControllerContext, clusterScoped: boolean): Controller {
  const component = clusterScoped ? CRB_APPLICATION_FAILOVER_CONTROLLER : RB_APPLICATION_FAILOVER_CONTROLLER;
  const ref = bindingResource(clusterScoped);
  const bindings = ctx.informers.informer(ref);
  const events = ctx.recorder(component);
  /** Per binding key: when each cluster's copy was first seen unhealthy. */
  const unhealthySince = new Map<string, Map<string, number>>();

  /** Upstream's bindingFilter. */
  async function handled(binding: FailoverBinding): Promise<boolean> {
    if (!applicationOf(binding) || aggregatedOf(binding).length === 0) return false;
    const { apiVersion, kind } = binding.spec.resource;
    if (!(await ctx.interpreter.hookEnabled("InterpretHealth", apiVersion, kind))) return false;
    return binding.spec.propagateDeps === true;
  }

  /** The eviction could not even be prepared (status not collected, a JSONPath, a gate): say why. */
  function cannotEvict(binding: FailoverBinding, cluster: string, err: Error): void {
    const message = `Evict from cluster ${cluster} failed: ${err.message}`;
    events.event(binding, "Warning", "EvictWorkloadFromClusterFailed", message);
    events.event(templateRef(binding), "Warning", "EvictWorkloadFromClusterFailed", message);
  }

  async function evict(
    rc: ReconcileContext,
    binding: FailoverBinding,
    clusters: readonly string[],
  ): Promise<void> {
    const behavior = applicationOf(binding)!;
    const items = aggregatedOf(binding);
    const before = (binding.spec.clusters ?? []).map((c) => c.name);
    let spec: BindingSpec = binding.spec;
    for (const cluster of clusters) {
      let task: ReturnType<typeof applicationEvictionTask>;
      try {
        task = applicationEvictionTask(behavior, items, cluster, component, before, ctx.options.features);
      } catch (err) {
        cannotEvict(binding, cluster, err as Error);
        throw err;
      }
      const next = evictCluster(spec, cluster, task);
      if (next) spec = { ...spec, ...next };
    }
    await writeEviction(ctx, events, ref, binding, spec, clusters);
    rc.log.info("evicted the workload from clusters where it is unhealthy", { clusters });
  }

  async function reconcile(rc: ReconcileContext, key: string): Promise<ReconcileResult> {
    const { namespace: ns, name } = parseObjectKey(key);
    const binding = bindings.get(ns, name) as FailoverBinding | undefined;
    if (!binding || binding.metadata.deletionTimestamp || !(await handled(binding))) {
      unhealthySince.delete(key);
      return done;
    }
    const behavior = applicationOf(binding)!;
    const tolerance = (behavior.decisionConditions?.tolerationSeconds ?? DEFAULT_TOLERATION_SECONDS) * 1000;
    const since = unhealthySince.get(key) ?? new Map<string, number>();
    unhealthySince.set(key, since);
    const { unhealthy, others } = splitByHealth(
      aggregatedOf(binding),
      binding.spec.gracefulEvictionTasks ?? [],
    );
    const decision = detectFailure(unhealthy, tolerance, since, ctx.now());
    if (decision.evict.length > 0) await evict(rc, binding, decision.evict);
    // Forget clusters that are no longer targets (the evicted ones too) or are no longer unhealthy.
    const targets = new Set((binding.spec.clusters ?? []).map((c) => c.name));
    for (const cluster of [...since.keys()]) {
      if (!targets.has(cluster) || decision.evict.includes(cluster) || others.includes(cluster))
        since.delete(cluster);
    }
    return decision.recheckAfterMs !== undefined ? requeueAfter(decision.recheckAfterMs) : done;
  }

  return {
    name: clusterScoped ? CRB_APPLICATION_FAILOVER_CONTROLLER : RB_APPLICATION_FAILOVER_CONTROLLER,
    for: bindings,
    // Upstream's predicate: the binding has (or had) an application failover behaviour.
    updateFilter: (old, obj) => applicationOf(old) !== undefined || applicationOf(obj) !== undefined,
    reconcile,
  };
}
