import { describe, expect, it } from "vitest";
import { conflict } from "../machinery/errors.ts";
import {
  counter,
  createMetricsRegistry,
  exponentialBuckets,
  gauge,
  histogram,
  measured,
  resultOf,
} from "./registry.ts";

describe("the metrics registry", () => {
  it("gives every component that asks for a family the same one", async () => {
    const r = createMetricsRegistry({ processMetrics: false });
    const a = counter(r, { name: "x_total", help: "x", labelNames: ["k"] });
    const b = counter(r, { name: "x_total", help: "x", labelNames: ["k"] });
    expect(b).toBe(a);
    a.inc({ k: "1" });
    b.inc({ k: "1" });
    expect(await r.metrics()).toContain('x_total{k="1"} 2');
    expect(() => gauge(r, { name: "x_total", help: "x" })).toThrow(/another type/);
  });

  it("carries karmada_build_info and, unless asked not to, the process metrics", async () => {
    const text = await createMetricsRegistry().metrics();
    expect(text).toMatch(
      /^karmada_build_info\{git_version="v0\.1\.0-karmada-ts",platform="linux\/x64",node_version="v\d+/m,
    );
    expect(text).toMatch(/^process_cpu_seconds_total /m);
    expect(text).toMatch(/^process_resident_memory_bytes /m);
    expect(await createMetricsRegistry({ processMetrics: false }).metrics()).not.toContain("process_");
  });

  it("makes Prometheus' exponential buckets", () => {
    expect(exponentialBuckets(0.001, 2, 4)).toEqual([0.001, 0.002, 0.004, 0.008]);
    expect(exponentialBuckets(10e-9, 10, 3)).toEqual([1e-8, 1e-7, 1e-6]);
    const h = histogram(createMetricsRegistry({ processMetrics: false }), {
      name: "h_seconds",
      help: "h",
      buckets: exponentialBuckets(0.001, 2, 12),
    });
    expect(h).toBeDefined();
  });

  it.each([
    [undefined, "success"],
    [null, "success"],
    [new Error("x"), "error"],
  ] as const)("result of %s is %s", (err, want) => {
    expect(resultOf(err)).toBe(want);
  });

  it("measures work's result and time, passes both through, and leaves conflicts to the retry", async () => {
    const seen: Array<[string, number]> = [];
    const record = (err: unknown, seconds: number) => seen.push([resultOf(err), seconds]);
    expect(await measured(async () => 7, record)).toBe(7);
    await expect(
      measured(async () => {
        throw new Error("member unreachable");
      }, record),
    ).rejects.toThrow("member unreachable");
    const raced = conflict({ group: "", resource: "configmaps" }, "c", "the object has been modified");
    await expect(
      measured(async () => {
        throw raced;
      }, record),
    ).rejects.toBe(raced);
    expect(seen.map(([r]) => r)).toEqual(["success", "error"]);
    expect(seen.every(([, s]) => s >= 0)).toBe(true);
  });
});
