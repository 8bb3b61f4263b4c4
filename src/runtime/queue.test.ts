import { describe, expect, it } from "vitest";
import { WorkQueue } from "./queue.ts";

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
});
