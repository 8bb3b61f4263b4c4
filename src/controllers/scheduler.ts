/**
 * The scheduler as a controller (upstream's karmada-scheduler around our pure core): decides
 * whether a binding needs scheduling, runs `schedule`, and writes the result as upstream does
 * (`spec.clusters` and the applied-placement annotation, then the `Scheduled` condition,
 * `schedulerObservedGeneration`, `lastScheduledTime`, events on binding and template).
 * Beyond upstream, the decision's explanation (per cluster: passed, or which filter and why,
 * with capacity figures) is kept in the binding's annotation
 * `scheduler.karmada-ts.io/explanation` and summarised in the events.
 */

import { isObject, rfc3339, type StoredObject } from "../api/meta.ts";
import { RESOURCES } from "../client/client.ts";
import { type Binding, bindingResource } from "../karmada/bindings.ts";
import { ANNOTATION, LABEL } from "../karmada/names.ts";
import { KARMADA } from "../karmada/resources.ts";
import { templateRef } from "../karmada/template-ref.ts";
import type { BindingSpec, ClusterObject, TargetCluster } from "../karmada/types.ts";
import {
  type Condition,
  type ConditionUpdate,
  isConditionTrue,
  setCondition,
} from "../machinery/conditions.ts";
import { deepEqual } from "../machinery/equality.ts";
import { isConflict } from "../machinery/errors.ts";
import { cloneJson } from "../machinery/merge-patch.ts";
import { clusterMatches } from "../policy/cluster-affinity.ts";
import { commit } from "../runtime/commit.ts";
import { type Controller, done, type ReconcileResult } from "../runtime/controller.ts";
import { objectKey, parseObjectKey } from "../runtime/keys.ts";
import { EXPLANATION_ANNOTATION, explanationText } from "../scheduler/core/explanation.ts";
import { apiFilteredOut, needsScheduling } from "../scheduler/core/needs-scheduling.ts";
import { schedule } from "../scheduler/core/schedule.ts";
import { ScheduleError, type ScheduleExplanation } from "../scheduler/core/types.ts";
import type { ControllerContext } from "./context.ts";
import { type PendingQueue, type ScheduleType, schedulerMetrics } from "./scheduler-metrics.ts";

export const SCHEDULER_NAME = "default-scheduler";
export { EXPLANATION_ANNOTATION };

/** Whether this scheduler takes the binding (upstream's binding filter). */
export function schedulable(binding: StoredObject): boolean {
  const spec = (isObject(binding.spec) ? binding.spec : {}) as Partial<BindingSpec>;
  if ((spec.schedulerName || SCHEDULER_NAME) !== SCHEDULER_NAME) return false;
  if (spec.suspension?.scheduling === true) return false;
  const labels = binding.metadata.labels ?? {};
  return !!(labels[LABEL.ppPermanentId] || labels[LABEL.cppPermanentId] || labels[LABEL.managedBy]);
}

/** The explanation on one line, for an event message. */
function onlyPlacementResultChanged(old: StoredObject, obj: StoredObject): boolean {
  const { clusters: _a, ...before } = (old.spec ?? {}) as Record<string, unknown>;
  const { clusters: _b, ...after } = (obj.spec ?? {}) as Record<string, unknown>;
  return deepEqual(before, after);
}

function explained(e: ScheduleExplanation): string {
  return explanationText(e)
    .map((line) => line.trim())
    .filter(Boolean)
    .join("; ");
}

/** Whether the binding's last scheduling succeeded. */
function scheduled(b: StoredObject): boolean {
  const conditions = (
    isObject(b.status) && Array.isArray(b.status.conditions) ? b.status.conditions : []
  ) as Condition[];
  return isConditionTrue(conditions, "Scheduled");
}

const resultText = (clusters: readonly TargetCluster[]): string =>
  `{${clusters.map((c) => `${c.name}:${c.replicas ?? 0}`).join(", ")}}`;

/** A scheduling that found no cluster that fits (recorded; retried on a cluster change, not with backoff). */
const NO_FIT = Symbol("no cluster fits");

/** Whether the binding's last scheduling found no cluster that fits (upstream's unschedulable queue). */
function unschedulable(b: StoredObject): boolean {
  const conditions = (
    isObject(b.status) && Array.isArray(b.status.conditions) ? b.status.conditions : []
  ) as Condition[];
  return conditions.some(
    (c) => c.type === "Scheduled" && c.status === "False" && c.reason === "NoClusterFit",
  );
}

export function schedulerController(ctx: ControllerContext, clusterScoped: boolean): Controller {
  const events = ctx.recorder(SCHEDULER_NAME);
  const ref = bindingResource(clusterScoped);
  const bindings = ctx.informers.informer(ref);
  const clusters = ctx.informers.informer(RESOURCES.clusters);
  const name = clusterScoped ? "scheduler-queue-crb" : "scheduler-queue";
  /** Keys whose last attempt failed and wait for their retry (upstream's backoff queue). */
  const backingOff = new Set<string>();
  let queued = (): number => 0;
  const pending = (queue: PendingQueue): number =>
    queue === "active"
      ? queued()
      : queue === "backoff"
        ? backingOff.size
        : bindings.list().filter((b) => schedulable(b) && unschedulable(b)).length;
  const metrics = schedulerMetrics(ctx.metrics, { name, count: pending });

  /** The binding with its status edited by `edit` (on a copy), committed. */
  async function commitStatus(binding: StoredObject, edit: (status: Record<string, unknown>) => void) {
    const next = cloneJson(binding);
    const status: Record<string, unknown> = isObject(next.status) ? next.status : {};
    edit(status);
    next.status = status;
    await commit(ctx.client, ref, binding, next);
  }

  /** The Scheduled condition and the fields that go with it, written over the binding as its placement left it. */
  async function writeStatus(
    binding: StoredObject,
    condition: ConditionUpdate,
    extra: Record<string, unknown>,
  ): Promise<void> {
    await commitStatus(binding, (status) => {
      Object.assign(status, extra);
      const conditions = (Array.isArray(status.conditions) ? status.conditions : []) as Condition[];
      setCondition(conditions, condition, rfc3339(ctx.now()));
      status.conditions = conditions;
    });
  }

  /**
   * Writes the placement part of a decision (annotations, and `spec.clusters` when `clusters`
   * is given: null clears it); returns the binding as written, undefined when it is gone.
   */
  async function writePlacement(
    binding: Binding,
    annotations: Record<string, string>,
    clusters?: TargetCluster[] | null,
  ): Promise<StoredObject | undefined> {
    const next = cloneJson(binding);
    next.metadata.annotations = { ...next.metadata.annotations, ...annotations };
    if (clusters === null) delete next.spec.clusters;
    else if (clusters !== undefined) next.spec.clusters = clusters;
    return commit(ctx.client, ref, binding, next);
  }

  function explanationJson(e: ScheduleExplanation): string {
    return JSON.stringify(e);
  }

  async function reconcile(key: string): Promise<ReconcileResult> {
    backingOff.delete(key);
    const { namespace: ns, name } = parseObjectKey(key);
    const binding = bindings.get(ns, name) as Binding | undefined;
    if (!binding || binding.metadata.deletionTimestamp || !schedulable(binding)) return done;
    const all = clusters.list() as ClusterObject[];
    const trigger = needsScheduling(binding as never, all);
    if (!trigger) {
      await commitStatus(binding, (s) => {
        s.schedulerObservedGeneration = binding.metadata.generation;
      });
      return done;
    }
    // Upstream's e2e scheduling latency: from the decision to schedule to the written result.
    const type: ScheduleType = trigger === "ReplicasChanged" ? "ScaleSchedule" : "ReconcileSchedule";
    const start = performance.now();
    try {
      const result = await scheduleBinding(key, binding, all);
      if (result === NO_FIT) {
        // Counted as a failed attempt, but not retried: a cluster change brings it back.
        metrics.scheduled(type, result, (performance.now() - start) / 1000);
        return done;
      }
      metrics.scheduled(type, undefined, (performance.now() - start) / 1000);
      return result;
    } catch (err) {
      // A conflict is a race with another writer, retried at once: not a failed attempt.
      if (!isConflict(err)) {
        metrics.scheduled(type, err, (performance.now() - start) / 1000);
        metrics.incoming("ScheduleAttemptFailure");
        backingOff.add(key);
      }
      throw err;
    }
  }

  async function scheduleBinding(
    key: string,
    binding: Binding,
    all: ClusterObject[],
  ): Promise<ReconcileResult | typeof NO_FIT> {
    const { namespace: ns, name } = parseObjectKey(key);
    const status = (isObject(binding.status) ? binding.status : {}) as Record<string, unknown>;
    const template = templateRef(binding);
    /** Upstream's event for each clusterAffinities term that did not fit before the next was tried. */
    const termFailed = (e: ScheduleExplanation): void => {
      for (const a of e.attempts) {
        if (!a.error || a.affinityIndex === undefined) continue;
        const message = `failed to schedule ${clusterScoped ? "ClusterResourceBinding" : "ResourceBinding"}(${key}) with clusterAffiliates index(${a.affinityIndex}): ${a.error.message}`;
        events.event(binding, "Warning", "ScheduleBindingFailed", message);
        events.event(template, "Warning", "ScheduleBindingFailed", message);
      }
    };
    try {
      const result = schedule({
        binding: {
          ...(ns ? { namespace: ns } : {}),
          name,
          spec: binding.spec,
          status: status as { schedulerObservingAffinityName?: string; lastScheduledTime?: string },
        },
        clusters: all,
        options: ctx.options.schedule,
        trace: metrics.trace,
      });
      // The status follows the placement's write: it records the generation that write made.
      const updated = await writePlacement(
        binding,
        {
          [ANNOTATION.appliedPlacement]: JSON.stringify(binding.spec.placement ?? {}),
          [EXPLANATION_ANNOTATION]: explanationJson(result.explanation),
        },
        result.clusters,
      );
      if (!updated) return done;
      await writeStatus(
        updated,
        {
          type: "Scheduled",
          status: "True",
          reason: "Success",
          message: "Binding has been scheduled successfully.",
        },
        {
          schedulerObservedGeneration: updated.metadata.generation,
          lastScheduledTime: rfc3339(ctx.now()),
          ...(result.affinityName ? { schedulerObservingAffinityName: result.affinityName } : {}),
        },
      );
      termFailed(result.explanation);
      const message = `Binding has been scheduled successfully. Result: ${resultText(result.clusters)}`;
      events.event(binding, "Normal", "ScheduleBindingSucceed", message);
      events.event(template, "Normal", "ScheduleBindingSucceed", message);
      // Beyond upstream: why these clusters, readable in `kubectl describe` (the annotation has it all).
      events.event(binding, "Normal", "ScheduleExplanation", explained(result.explanation));
      return done;
    } catch (err) {
      if (!(err instanceof ScheduleError)) throw err;
      termFailed(err.explanation);
      const annotations = { [EXPLANATION_ANNOTATION]: explanationJson(err.explanation) };
      // A no-fit clears the placement, as upstream: the Works go.
      const updated = err.clearsClusters
        ? await writePlacement(
            binding,
            { ...annotations, [ANNOTATION.appliedPlacement]: JSON.stringify(binding.spec.placement ?? {}) },
            null,
          )
        : await writePlacement(binding, annotations);
      if (!updated) return done;
      await writeStatus(
        updated,
        { type: "Scheduled", status: "False", reason: err.reason, message: err.message },
        {},
      );
      const detail = explained(err.explanation);
      events.event(
        binding,
        "Warning",
        "ScheduleBindingFailed",
        `${err.message}${detail ? ` (${detail})` : ""}`,
      );
      events.event(template, "Warning", "ScheduleBindingFailed", err.message);
      // Fit errors wait for a cluster change; others are retried with backoff.
      if (err.reason === "NoClusterFit") return NO_FIT;
      throw err;
    }
  }

  /** A cluster's spec or labels changed: bindings whose affinity it (now or then) matches are looked at again. */
  const affected = (c: StoredObject): string[] =>
    bindings
      .list()
      .filter((b) => schedulable(b))
      .filter((b) => {
        const spec = b.spec as BindingSpec;
        const placement = spec.placement;
        if (placement?.clusterAffinities?.length) return true;
        return clusterMatches(c as ClusterObject, placement?.clusterAffinity);
      })
      .map(objectKey);

  const removers: Array<() => void> = [];
  const controller: Controller = {
    name,
    for: bindings,
    // Upstream schedules with one worker; here each binding waits for two store commits (its
    // placement, then its status), and one worker left the scheduler placing ~7 bindings/s
    // under load, the slowest step of propagation. Bindings are independent (a key is never
    // worked on twice at once), so four place them side by side.
    workers: 4,
    // The scheduler's own output (spec.clusters) is not a reason to schedule again: upstream
    // reschedules Duplicated bindings on that echo too, and always lands on the same result.
    updateFilter: (old, obj) =>
      old.metadata.generation !== obj.metadata.generation && !onlyPlacementResultChanged(old, obj),
    watches: [
      {
        informer: clusters,
        updateFilter: (old, obj) =>
          old.metadata.generation !== obj.metadata.generation ||
          !deepEqual(old.metadata.labels, obj.metadata.labels) ||
          old.metadata.deletionTimestamp !== obj.metadata.deletionTimestamp,
        map: affected,
      },
      {
        // Beyond upstream: a binding that found no cluster serving its API, or left out this
        // cluster for not serving it (a CRD still on its way to the members), is tried again
        // when the cluster's API enablements change, instead of waiting for an unrelated
        // spec change.
        informer: clusters,
        updateFilter: (old, obj) =>
          !deepEqual(
            (old.status as { apiEnablements?: unknown } | undefined)?.apiEnablements,
            (obj.status as { apiEnablements?: unknown } | undefined)?.apiEnablements,
          ),
        map: (c) =>
          bindings
            .list()
            .filter(
              (b) =>
                schedulable(b) &&
                (!scheduled(b) || apiFilteredOut(b.metadata.annotations).has(c.metadata.name)),
            )
            .map(objectKey),
      },
    ],
    reconcile: (_rctx, key) => reconcile(key),
    // Upstream's queue_incoming_bindings_total: what brought bindings to the queue.
    start(_enqueue, _coalesced, length) {
      queued = length;
      const clusterFilter = controller.watches![0]!.updateFilter!;
      removers.push(
        bindings.addHandler({
          onAdd: (b) => schedulable(b) && metrics.incoming("BindingAdd"),
          onUpdate: (old, b) => controller.updateFilter!(old, b) && metrics.incoming("BindingUpdate"),
          onDelete: () => {},
        }),
        clusters.addHandler({
          onAdd: (c) => metrics.incoming("ClusterChanged", affected(c).length),
          onUpdate: (old, c) =>
            clusterFilter(old, c) && metrics.incoming("ClusterChanged", affected(c).length),
          onDelete: (c) => metrics.incoming("ClusterChanged", affected(c).length),
        }),
      );
    },
    stop() {
      for (const remove of removers.splice(0)) remove();
      metrics.close();
    },
  };
  return controller;
}
