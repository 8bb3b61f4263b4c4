/**
 * controller-runtime's reconcile metrics, which upstream's controllers export:
 * `controller_runtime_reconcile_total{controller,result}` (success, error, requeue_after),
 * `controller_runtime_reconcile_errors_total`, `controller_runtime_terminal_reconcile_errors_total`,
 * `controller_runtime_reconcile_time_seconds`, `controller_runtime_max_concurrent_reconciles`
 * and `controller_runtime_active_workers`.
 */
import { counter, gauge, histogram, type Registry } from "../metrics/registry.ts";

export type ReconcileOutcome = "success" | "error" | "terminal" | "requeue_after";

export interface ReconcileMetrics {
  /** A worker took a key (`active_workers` up). */
  begin(): void;
  /** The reconcile ended so, after so long (`active_workers` down). */
  end(outcome: ReconcileOutcome, seconds: number): void;
}

// controller-runtime's buckets: finer below a second, where most reconciles end.
const RECONCILE_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25,
  1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];

export function reconcileMetrics(registry: Registry, controller: string, workers: number): ReconcileMetrics {
  const labelNames = ["controller"] as const;
  const labels = { controller };
  const total = counter(registry, {
    name: "controller_runtime_reconcile_total",
    help: "Total number of reconciliations per controller",
    labelNames: ["controller", "result"],
  });
  const errors = counter(registry, {
    name: "controller_runtime_reconcile_errors_total",
    help: "Total number of reconciliation errors per controller",
    labelNames,
  }).labels(labels);
  const terminal = counter(registry, {
    name: "controller_runtime_terminal_reconcile_errors_total",
    help: "Total number of terminal reconciliation errors per controller",
    labelNames,
  }).labels(labels);
  const time = histogram(registry, {
    name: "controller_runtime_reconcile_time_seconds",
    help: "Length of time per reconciliation per controller",
    labelNames,
    buckets: RECONCILE_BUCKETS,
  }).labels(labels);
  gauge(registry, {
    name: "controller_runtime_max_concurrent_reconciles",
    help: "Maximum number of concurrent reconciles per controller",
    labelNames,
  }).set(labels, workers);
  const active = gauge(registry, {
    name: "controller_runtime_active_workers",
    help: "Number of currently used workers per controller",
    labelNames,
  }).labels(labels);
  active.set(0);
  const byResult = {
    success: total.labels({ controller, result: "success" }),
    error: total.labels({ controller, result: "error" }),
    requeue_after: total.labels({ controller, result: "requeue_after" }),
  };
  return {
    begin: () => active.inc(),
    end(outcome, seconds) {
      active.dec();
      time.observe(seconds);
      if (outcome === "terminal") {
        // controller-runtime counts a terminal error as an error too.
        terminal.inc();
        errors.inc();
        byResult.error.inc();
      } else {
        if (outcome === "error") errors.inc();
        byResult[outcome].inc();
      }
    },
  };
}
