import { describe, expect, it } from "vitest";
import { failureBackoffMs, WorkQueue } from "./queue.ts";

describe("WorkQueue", () => {
  it("deduplicates waiting keys", async () => {
    const seen: string[] = [];
    const q = new WorkQueue((k) => {
      seen.push(k);
      return undefined;
    });
    q.add("b"); // starts at once; "a" then waits behind it
    q.add("a");
    q.add("a");
    await q.idle();
    expect(seen).toEqual(["b", "a"]);
  });

  it("coalesces a burst of adds of one key into one run, without putting it off forever", async () => {
    const seen: string[] = [];
    const q = new WorkQueue((k) => {
      seen.push(k);
      return undefined;
    });
    for (let i = 0; i < 50; i++) q.addCoalesced("a", 20);
    q.addCoalesced("b", 20);
    await q.idle();
    expect([...seen].sort()).toEqual(["a", "b"]);
  });

  it("waits for a key due beyond setTimeout's range instead of running it at once", async () => {
    const seen: string[] = [];
    const q = new WorkQueue((k) => {
      seen.push(k);
      return undefined;
    });
    q.addAfter("in-30-days", 30 * 86_400_000);
    q.addAfter("soon", 5);
    await new Promise((r) => setTimeout(r, 50));
    expect(seen).toEqual(["soon"]);
    q.stop();
  });

  it("never runs one key twice at once, and reruns a key added while it ran", async () => {
    let running = 0;
    let max = 0;
    let runs = 0;
    let release: () => void = () => {};
    const q = new WorkQueue(
      async () => {
        running++;
        runs++;
        max = Math.max(max, running);
        if (runs === 1) await new Promise<void>((r) => (release = r));
        running--;
        return undefined;
      },
      { workers: 4 },
    );
    q.add("k");
    await new Promise((r) => setTimeout(r, 5));
    q.add("k");
    q.add("k");
    release();
    await q.idle();
    expect(max).toBe(1);
    expect(runs).toBe(2);
  });

  it("retries failures with backoff until success", async () => {
    let attempts = 0;
    const q = new WorkQueue(
      () => {
        attempts++;
        if (attempts < 3) throw new Error("not yet");
        return undefined;
      },
      { baseDelayMs: 1 },
    );
    q.add("x");
    await q.idle();
    expect(attempts).toBe(3);
  });

  it("stops retrying when onError says so", async () => {
    let attempts = 0;
    const q = new WorkQueue(
      () => {
        attempts++;
        throw new Error("terminal");
      },
      { baseDelayMs: 1, onError: () => false },
    );
    q.add("x");
    await q.idle();
    expect(attempts).toBe(1);
  });

  it("keeps FIFO order across many keys (the backing array is compacted as it drains)", async () => {
    const seen: string[] = [];
    const q = new WorkQueue(async (k) => {
      seen.push(k);
      return undefined;
    });
    const keys = Array.from({ length: 5000 }, (_, i) => `k${i}`);
    for (const k of keys) q.add(k);
    expect(q.length).toBe(keys.length - 1); // the first is already running
    // Added again while queued: deduplicated, order unchanged.
    for (const k of keys.slice(2500)) q.add(k);
    await q.idle();
    expect(seen).toEqual(keys);
    expect(q.length).toBe(0);
    // Usable again after draining.
    q.add("again");
    await q.idle();
    expect(seen.at(-1)).toBe("again");
  });

  it("requeues after the delay a reconcile asks for, and doubles the backoff per failure", async () => {
    const times: number[] = [];
    let runs = 0;
    const q = new WorkQueue(
      () => {
        times.push(performance.now());
        runs++;
        if (runs === 1) return { requeueAfterMs: 20 };
        if (runs < 4) throw new Error("again");
        return undefined;
      },
      { baseDelayMs: 10, maxDelayMs: 1000 },
    );
    q.add("x");
    await q.idle();
    expect(runs).toBe(4);
    // Lower bounds only: timers never fire early, but a busy machine may fire them late.
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(19);
    expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(9);
    expect(times[3]! - times[2]!).toBeGreaterThanOrEqual(19);
  });

  it("runs up to N keys at once and stop() drops what waits", async () => {
    let running = 0;
    let max = 0;
    const releases: Array<() => void> = [];
    const seen: string[] = [];
    const q = new WorkQueue(
      async (k) => {
        seen.push(k);
        running++;
        max = Math.max(max, running);
        await new Promise<void>((r) => releases.push(r));
        running--;
        return undefined;
      },
      { workers: 3 },
    );
    for (let i = 0; i < 10; i++) q.add(`k${i}`);
    expect(running).toBe(3);
    expect(q.length).toBe(7);
    q.stop();
    expect(q.length).toBe(0);
    q.add("late");
    for (const r of releases) r();
    await q.idle();
    expect(max).toBe(3);
    expect(seen).toEqual(["k0", "k1", "k2"]);
  });
});

describe("a paused queue", () => {
  it("collects keys without processing them until resumed", async () => {
    const seen: string[] = [];
    const q = new WorkQueue(
      (key) => {
        seen.push(key);
        return undefined;
      },
      { paused: true },
    );
    q.add("a");
    q.add("b");
    q.add("a");
    await new Promise((r) => setTimeout(r, 20));
    expect(seen).toEqual([]);
    q.resume();
    await q.idle();
    expect(seen).toEqual(["a", "b"]);
    q.stop();
  });
});

describe("failure backoff", () => {
  it.each([
    // attempt, base, max, random, wait
    [1, 5, 1000, 0, 5],
    [1, 5, 1000, 0.5, 6.25],
    [3, 5, 1000, 0, 20],
    [3, 5, 1000, 0.999, 29.99],
    [20, 5, 1000, 0, 1000],
    [20, 5, 1000, 0.5, 1250],
  ])("attempt %i, base %i, max %i, random %f: %f ms", (attempt, base, max, random, wait) => {
    expect(failureBackoffMs(attempt, base, max, random)).toBeCloseTo(wait, 6);
  });

  it("spreads keys that fail together", async () => {
    const draws = [0, 0.9];
    const failedAt = new Map<string, number>();
    const retriedAt = new Map<string, number>();
    const q = new WorkQueue(
      (key) => {
        if (!failedAt.has(key)) {
          failedAt.set(key, performance.now());
          throw new Error("overloaded");
        }
        retriedAt.set(key, performance.now());
        return undefined;
      },
      { workers: 2, baseDelayMs: 40, random: () => draws.shift() ?? 0 },
    );
    q.add("a");
    q.add("b");
    await q.idle();
    // Timers never fire early: b waited at least 40 × 1.45 ms.
    expect(retriedAt.get("b")! - failedAt.get("b")!).toBeGreaterThanOrEqual(57);
    expect(retriedAt.get("a")! - failedAt.get("a")!).toBeGreaterThanOrEqual(39);
  });
});

describe("retryFailing", () => {
  it("brings back at once the selected keys waiting out a failure backoff, their counts forgotten", async () => {
    const attempts: Array<[string, number]> = [];
    let reachable = false;
    const q = new WorkQueue(
      (key, attempt) => {
        attempts.push([key, attempt]);
        if (!reachable) throw new Error("connection refused");
        return undefined;
      },
      // A backoff of an hour: only retryFailing can bring a key back within the test.
      { workers: 3, baseDelayMs: 3_600_000 },
    );
    q.add("m1/a");
    q.add("m1/b");
    q.add("m2/c");
    await new Promise((r) => setTimeout(r, 20));
    expect(attempts).toHaveLength(3);
    reachable = true;
    q.retryFailing((key) => key.startsWith("m1/"));
    await new Promise((r) => setTimeout(r, 20));
    // m1's keys ran again, as first attempts; m2's still waits.
    expect(attempts.slice(3).sort()).toEqual([
      ["m1/a", 1],
      ["m1/b", 1],
    ]);
    q.retryFailing();
    await q.idle();
    expect(attempts.at(-1)).toEqual(["m2/c", 1]);
  });

  it("leaves alone keys that wait for a requeue they asked for", async () => {
    let runs = 0;
    const q = new WorkQueue(() => {
      runs++;
      return runs === 1 ? { requeueAfterMs: 3_600_000 } : undefined;
    });
    q.add("x");
    await new Promise((r) => setTimeout(r, 20));
    q.retryFailing();
    await new Promise((r) => setTimeout(r, 20));
    expect(runs).toBe(1);
    q.stop();
  });
});
