/**
 * karmada-scheduler's metrics, with upstream's names (prefix `karmada_scheduler_`): attempts
 * and end-to-end latency by result and schedule type, the algorithm's steps, bindings coming
 * into the queue by event, the framework's extension points and plugins; and
 * `scheduler_pending_bindings{queue}` (active, backoff, unschedulable).
 */
import { counter, exponentialBuckets, gauge, histogram, type Registry } from "../metrics/registry.ts";
import type { ScheduleTrace } from "../scheduler/core/types.ts";

/** Upstream's schedule types: a replicas change is a ScaleSchedule, anything else a ReconcileSchedule. */
export type ScheduleType = "ReconcileSchedule" | "ScaleSchedule";

/** Why bindings came to the scheduling queue (upstream's event label values). */
export type IncomingEvent =
  | "BindingAdd"
  | "BindingUpdate"
  | "ScheduleAttemptFailure"
  | "PolicyChanged"
  | "ClusterChanged";

export interface SchedulerMetrics {
  /** One binding's scheduling, from the decision to the written result. */
  scheduled(type: ScheduleType, err: unknown, seconds: number): void;
  incoming(event: IncomingEvent, count?: number): void;
  /** Timings for the core (`schedule({ trace })`). */
  trace: ScheduleTrace;
  /** The loop stopped: its pending counts go. */
  close(): void;
}

export type PendingQueue = "active" | "backoff" | "unschedulable";

export function schedulerMetrics(
  registry: Registry,
  pending: { name: string; count(queue: PendingQueue): number },
): SchedulerMetrics {
  const attempts = counter(registry, {
    name: "karmada_scheduler_schedule_attempts_total",
    help: "Number of attempts to schedule a ResourceBinding or ClusterResourceBinding",
    labelNames: ["result", "schedule_type"],
  });
  const e2e = histogram(registry, {
    name: "karmada_scheduler_e2e_scheduling_duration_seconds",
    help: "E2e scheduling latency in seconds",
    labelNames: ["result", "schedule_type"],
    buckets: exponentialBuckets(0.001, 2, 15),
  });
  const algorithm = histogram(registry, {
    name: "karmada_scheduler_scheduling_algorithm_duration_seconds",
    help: "Scheduling algorithm latency in seconds(exclude scale scheduler)",
    labelNames: ["schedule_step"],
    buckets: exponentialBuckets(0.001, 2, 15),
  });
  const incoming = counter(registry, {
    name: "karmada_scheduler_queue_incoming_bindings_total",
    help: "Number of ResourceBinding and ClusterResourceBinding objects added to scheduling queues by event type.",
    labelNames: ["event"],
  });
  const extensionPoint = histogram(registry, {
    name: "karmada_scheduler_framework_extension_point_duration_seconds",
    help: "Latency for running all plugins of a specific extension point.",
    labelNames: ["extension_point", "result"],
    buckets: exponentialBuckets(0.0001, 2, 12),
  });
  const plugin = histogram(registry, {
    name: "karmada_scheduler_plugin_execution_duration_seconds",
    help: "Duration for running a plugin at a specific extension point.",
    labelNames: ["plugin", "extension_point", "result"],
    buckets: exponentialBuckets(0.00001, 1.5, 20),
  });
  // The RB and CRB loops each report their share; the gauge sums them at scrape time.
  const sources = pendingSources(registry);
  sources.set(pending.name, pending.count);
  gauge(registry, {
    name: "scheduler_pending_bindings",
    help: "Number of pending bindings, by the queue type. 'active' means number of bindings in activeQ; 'backoff' means number of bindings in backoffQ; 'unschedulable' means number of bindings in unschedulableBindings that the scheduler attempted to schedule and failed.",
    labelNames: ["queue"],
    collect() {
      for (const queue of ["active", "backoff", "unschedulable"] as const) {
        let total = 0;
        for (const count of pendingSources(registry).values()) total += count(queue);
        this.set({ queue }, total);
      }
    },
  });
  return {
    scheduled(type, err, seconds) {
      const result = err === undefined ? "scheduled" : "error";
      attempts.inc({ result, schedule_type: type });
      e2e.observe({ result, schedule_type: type }, seconds);
    },
    incoming: (event, count = 1) => incoming.inc({ event }, count),
    close: () => sources.delete(pending.name),
    trace: {
      step(step, ms, failed) {
        algorithm.observe({ schedule_step: step }, ms / 1000);
        if (step === "Filter" || step === "Score")
          extensionPoint.observe(
            { extension_point: step, result: failed ? "Unschedulable" : "Success" },
            ms / 1000,
          );
      },
      plugin(name, point, ms) {
        plugin.observe({ plugin: name, extension_point: point, result: "Success" }, ms / 1000);
      },
    },
  };
}

const pendingByRegistry = new WeakMap<Registry, Map<string, (queue: PendingQueue) => number>>();

function pendingSources(registry: Registry): Map<string, (queue: PendingQueue) => number> {
  let m = pendingByRegistry.get(registry);
  if (!m) {
    m = new Map();
    pendingByRegistry.set(registry, m);
  }
  return m;
}
