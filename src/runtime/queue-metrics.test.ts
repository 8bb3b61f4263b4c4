import { describe, expect, it } from "vitest";
import { createMetricsRegistry } from "../metrics/registry.ts";
import { done, type ReconcileResult, requeueAfter, runController, TerminalError } from "./controller.ts";
import { WorkQueue } from "./queue.ts";
import { queueMetrics } from "./queue-metrics.ts";

/** One sample's value in the exposition text, or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const labels = '{controller="q",name="q"}';

describe("work queue metrics, as client-go names them", () => {
  it("counts adds, times waits and work, reads depth and work in progress when scraped", async () => {
    const registry = createMetricsRegistry({ processMetrics: false });
    let release: () => void = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    const q = new WorkQueue(
      async (key) => {
        if (key === "a") await held;
        return undefined;
      },
      { metrics: (state) => queueMetrics(registry, "q", state) },
    );
    q.add("a");
    q.add("b");
    q.add("b"); // a duplicate of a waiting key is no add
    await new Promise((r) => setTimeout(r, 20));
    let text = await registry.metrics();
    expect(sample(text, `workqueue_adds_total${labels}`)).toBe(2);
    expect(sample(text, `workqueue_depth${labels}`)).toBe(1);
    expect(sample(text, `workqueue_longest_running_processor_seconds${labels}`)).toBeGreaterThan(0);
    expect(sample(text, `workqueue_unfinished_work_seconds${labels}`)).toBeGreaterThan(0);
    release();
    await q.idle();
    text = await registry.metrics();
    expect(sample(text, `workqueue_depth${labels}`)).toBe(0);
    expect(sample(text, `workqueue_queue_duration_seconds_count${labels}`)).toBe(2);
    expect(sample(text, `workqueue_work_duration_seconds_count${labels}`)).toBe(2);
    expect(sample(text, `workqueue_unfinished_work_seconds${labels}`)).toBe(0);
    q.stop();
    // A stopped queue is no longer reported.
    expect(await registry.metrics()).not.toContain(`workqueue_depth${labels}`);
  });

  it("counts retries", async () => {
    const registry = createMetricsRegistry({ processMetrics: false });
    let failures = 2;
    const q = new WorkQueue(
      () => {
        if (failures-- > 0) throw new Error("not yet");
        return undefined;
      },
      { baseDelayMs: 1, metrics: (state) => queueMetrics(registry, "q", state) },
    );
    q.add("k");
    await q.idle();
    const text = await registry.metrics();
    expect(sample(text, `workqueue_retries_total${labels}`)).toBe(2);
    expect(sample(text, `workqueue_adds_total${labels}`)).toBe(3);
    q.stop();
  });
});

describe("controller-runtime's reconcile metrics", () => {
  it("counts each ending and times reconciles", async () => {
    const registry = createMetricsRegistry({ processMetrics: false });
    const outcomes: Record<string, () => ReconcileResult> = {
      ok: () => done,
      later: () => requeueAfter(60_000),
      broken: () => {
        throw new TerminalError("never");
      },
    };
    const running = runController(
      {
        name: "c",
        workers: 3,
        async reconcile(_ctx, key) {
          return outcomes[key]!();
        },
      },
      { metrics: registry },
    );
    for (const key of Object.keys(outcomes)) running.enqueue(key);
    await new Promise((r) => setTimeout(r, 50));
    const text = await registry.metrics();
    running.stop();
    expect(sample(text, 'controller_runtime_reconcile_total{controller="c",result="success"}')).toBe(1);
    expect(sample(text, 'controller_runtime_reconcile_total{controller="c",result="requeue_after"}')).toBe(1);
    expect(sample(text, 'controller_runtime_reconcile_total{controller="c",result="error"}')).toBe(1);
    expect(sample(text, 'controller_runtime_terminal_reconcile_errors_total{controller="c"}')).toBe(1);
    expect(sample(text, 'controller_runtime_reconcile_errors_total{controller="c"}')).toBe(1);
    expect(sample(text, 'controller_runtime_reconcile_time_seconds_count{controller="c"}')).toBe(3);
    expect(sample(text, 'controller_runtime_max_concurrent_reconciles{controller="c"}')).toBe(3);
    expect(sample(text, 'controller_runtime_active_workers{controller="c"}')).toBe(0);
    expect(sample(text, 'workqueue_adds_total{controller="c",name="c"}')).toBe(3);
  });
});
