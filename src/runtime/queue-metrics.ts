/**
 * Work queue metrics with client-go's names and controller-runtime's labels (`controller` and
 * `name`, both the controller's name): `workqueue_depth`, `workqueue_adds_total`,
 * `workqueue_queue_duration_seconds`, `workqueue_work_duration_seconds`,
 * `workqueue_unfinished_work_seconds`, `workqueue_longest_running_processor_seconds`,
 * `workqueue_retries_total`. Depth and the in-progress gauges are read from the live queues
 * when Prometheus scrapes, so a queue costs nothing between scrapes but its counters.
 */
import { counter, exponentialBuckets, gauge, histogram, type Registry } from "../metrics/registry.ts";

/** What a queue reports; `WorkQueue` calls these when it is given one. */
export interface QueueMetrics {
  /** A key was queued (not a duplicate of one waiting). */
  added(): void;
  /** A key waited this long between being queued and a worker taking it. */
  started(waitSeconds: number): void;
  /** A worker spent this long on a key. */
  finished(workSeconds: number): void;
  /** A key was scheduled for a retry after a failure. */
  retried(): void;
}

/** The live state the scrape-time gauges read. */
export interface QueueState {
  depth(): number;
  /** `performance.now()` readings of the keys being processed now. */
  processingSince(): Iterable<number>;
}

type Labels = "controller" | "name";

interface Tracked {
  labels: Record<Labels, string>;
  state: QueueState;
}

const live = new WeakMap<Registry, Set<Tracked>>();

function liveQueues(registry: Registry): Set<Tracked> {
  let set = live.get(registry);
  if (!set) {
    set = new Set();
    live.set(registry, set);
  }
  return set;
}

// client-go's buckets for both durations: 10ns to 1000s.
const DURATION_BUCKETS = exponentialBuckets(10e-9, 10, 12);

/** The metrics of one named queue in `registry`; `close()` when the queue stops. */
export function queueMetrics(
  registry: Registry,
  name: string,
  state: QueueState,
): QueueMetrics & { close(): void } {
  const queues = liveQueues(registry);
  const labelNames = ["controller", "name"] as const;
  gauge(registry, {
    name: "workqueue_depth",
    help: "Current depth of workqueue",
    labelNames,
    collect() {
      this.reset();
      for (const q of queues) this.set(q.labels, q.state.depth());
    },
  });
  gauge(registry, {
    name: "workqueue_unfinished_work_seconds",
    help: "How many seconds of work has been done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.",
    labelNames,
    collect() {
      this.reset();
      const now = performance.now();
      for (const q of queues) {
        let total = 0;
        for (const since of q.state.processingSince()) total += now - since;
        this.set(q.labels, total / 1000);
      }
    },
  });
  gauge(registry, {
    name: "workqueue_longest_running_processor_seconds",
    help: "How many seconds has the longest running processor for workqueue been running.",
    labelNames,
    collect() {
      this.reset();
      const now = performance.now();
      for (const q of queues) {
        let oldest = now;
        for (const since of q.state.processingSince()) oldest = Math.min(oldest, since);
        this.set(q.labels, (now - oldest) / 1000);
      }
    },
  });
  const adds = counter(registry, {
    name: "workqueue_adds_total",
    help: "Total number of adds handled by workqueue",
    labelNames,
  });
  const retries = counter(registry, {
    name: "workqueue_retries_total",
    help: "Total number of retries handled by workqueue",
    labelNames,
  });
  const queueDuration = histogram(registry, {
    name: "workqueue_queue_duration_seconds",
    help: "How long in seconds an item stays in workqueue before being requested",
    labelNames,
    buckets: DURATION_BUCKETS,
  });
  const workDuration = histogram(registry, {
    name: "workqueue_work_duration_seconds",
    help: "How long in seconds processing an item from workqueue takes.",
    labelNames,
    buckets: DURATION_BUCKETS,
  });
  const tracked: Tracked = { labels: { controller: name, name }, state };
  queues.add(tracked);
  // Bound once: the hot path does no label hashing.
  const add = adds.labels(tracked.labels);
  const retry = retries.labels(tracked.labels);
  const waited = queueDuration.labels(tracked.labels);
  const worked = workDuration.labels(tracked.labels);
  return {
    added: () => add.inc(),
    started: (s) => waited.observe(s),
    finished: (s) => worked.observe(s),
    retried: () => retry.inc(),
    close: () => queues.delete(tracked),
  };
}
