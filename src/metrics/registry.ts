/**
 * Prometheus metrics, with prom-client: one registry per process, made in `src/bin` and passed
 * to whatever records into it (never a module-level singleton, so a test's components and
 * `karmada up`'s in-process ones each get the registry they are given).
 *
 * Families are declared where they are recorded (the API server's, the work queue's, the REST
 * client's, the controllers', the scheduler's) through `counter`/`gauge`/`histogram` here,
 * which return the family already registered under that name: the controller manager, the
 * scheduler and the agent of `karmada up` share one process and one registry, and each asks for
 * `workqueue_depth`, say, without knowing about the others.
 */
import {
  Counter,
  type CounterConfiguration,
  collectDefaultMetrics,
  Gauge,
  type GaugeConfiguration,
  Histogram,
  type HistogramConfiguration,
  type Metric,
  Registry,
} from "prom-client";
import { isConflict } from "../machinery/errors.ts";

export type { Counter, Gauge, Histogram, Registry };

/** The project's version, as karmada_build_info and `/version` carry it. */
export const BUILD_VERSION = "v0.1.0-karmada-ts";

/**
 * A process's registry: Node's process metrics (`process_cpu_seconds_total`,
 * `process_resident_memory_bytes`, `nodejs_*`, where Go components have `go_*`) and
 * `karmada_build_info`, as every upstream component exports it.
 */
export function createMetricsRegistry(opts: { processMetrics?: boolean } = {}): Registry {
  const registry = new Registry();
  if (opts.processMetrics !== false) collectDefaultMetrics({ register: registry });
  gauge(registry, {
    name: "karmada_build_info",
    help: "Karmada build metadata exposed as labels with a constant value of 1.",
    labelNames: ["git_version", "platform", "node_version"],
  }).set(
    {
      git_version: BUILD_VERSION,
      platform: `${process.platform}/${process.arch}`,
      node_version: process.version,
    },
    1,
  );
  return registry;
}

/** The metrics text Prometheus scrapes, and its content type. */
export async function exposition(registry: Registry): Promise<{ contentType: string; text: string }> {
  return { contentType: registry.contentType, text: await registry.metrics() };
}

function existing<T extends Metric>(
  registry: Registry,
  name: string,
  type: abstract new (...args: never[]) => T,
): T | undefined {
  const found = registry.getSingleMetric(name);
  if (found === undefined) return undefined;
  if (!(found instanceof type)) throw new Error(`metric ${name} is already registered as another type`);
  return found;
}

/** The counter `opts.name` of `registry`, registered now if it is not yet. */
export function counter<L extends string>(
  registry: Registry,
  opts: Omit<CounterConfiguration<L>, "registers">,
): Counter<L> {
  return (
    (existing(registry, opts.name, Counter) as Counter<L> | undefined) ??
    new Counter({ ...opts, registers: [registry] })
  );
}

/** The gauge `opts.name` of `registry`, registered now if it is not yet. */
export function gauge<L extends string>(
  registry: Registry,
  opts: Omit<GaugeConfiguration<L>, "registers">,
): Gauge<L> {
  return (
    (existing(registry, opts.name, Gauge) as Gauge<L> | undefined) ??
    new Gauge({ ...opts, registers: [registry] })
  );
}

/** The histogram `opts.name` of `registry`, registered now if it is not yet. */
export function histogram<L extends string>(
  registry: Registry,
  opts: Omit<HistogramConfiguration<L>, "registers">,
): Histogram<L> {
  return (
    (existing(registry, opts.name, Histogram) as Histogram<L> | undefined) ??
    new Histogram({ ...opts, registers: [registry] })
  );
}

/** Prometheus' ExponentialBuckets(start, factor, count), as upstream declares its histograms. */
export function exponentialBuckets(start: number, factor: number, count: number): number[] {
  const buckets: number[] = [];
  let b = start;
  for (let i = 0; i < count; i++) {
    buckets.push(Number(b.toPrecision(12)));
    b *= factor;
  }
  return buckets;
}

/**
 * Runs `work`, then tells `record` how it ended (its error, or undefined) and how long it took
 * in seconds, as upstream's result-and-latency histograms observe; the result or the error
 * passes through. A conflict is not recorded: it only means a cache was behind another
 * writer (our writes carry the resourceVersion they read), and the retry records the outcome,
 * so SLOs over these results count failures, not races.
 */
export async function measured<T>(
  work: () => Promise<T>,
  record: (err: unknown, seconds: number) => void,
): Promise<T> {
  const start = performance.now();
  try {
    const result = await work();
    record(undefined, (performance.now() - start) / 1000);
    return result;
  } catch (err) {
    if (!isConflict(err)) record(err, (performance.now() - start) / 1000);
    throw err;
  }
}

/** Upstream's result label: "error" when there was an error, else "success". */
export function resultOf(err: unknown): "success" | "error" {
  return err === undefined || err === null ? "success" : "error";
}
