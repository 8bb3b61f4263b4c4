import { describe, expect, it } from "vitest";
import { RESOURCES } from "../client/client.ts";
import { memoryLogger } from "../log.ts";
import { conflict } from "../machinery/errors.ts";
import {
  type Controller,
  done,
  type ReconcileContext,
  requeueAfter,
  runController,
  TerminalError,
} from "./controller.ts";

/** Runs `reconcile` for one key until it rests (bounded); returns the contexts it was given and the log. */
async function runOnce(reconcile: Controller["reconcile"]) {
  const { logger, lines } = memoryLogger();
  const seen: ReconcileContext[] = [];
  const running = runController(
    {
      name: "example",
      baseDelayMs: 1,
      start: (enqueue) => enqueue("default/web"),
      reconcile: (ctx, key) => {
        seen.push(ctx);
        return reconcile(ctx, key);
      },
    },
    { log: logger },
  );
  await running.queue.idle();
  running.stop();
  return { seen, lines };
}

describe("runController", () => {
  it("hands each attempt a logger naming the controller, the key and the attempt, and retries a failure", async () => {
    let calls = 0;
    const { seen, lines } = await runOnce(async () => {
      if (++calls < 3) throw new Error("member unreachable");
      return done;
    });
    expect(seen.map((c) => c.attempt)).toEqual([1, 2, 3]);
    const failures = lines.filter((l) => l.msg === "reconcile failed; retrying");
    expect(failures).toHaveLength(2);
    expect(failures[0]).toMatchObject({
      controller: "example",
      key: "default/web",
      attempt: 1,
      level: "error",
    });
    expect((failures[0]!.err as { message: string }).message).toBe("member unreachable");
  });

  it("drops a key whose reconcile throws a TerminalError, logging it once", async () => {
    const { seen, lines } = await runOnce(async () => {
      throw new TerminalError("spec can never be applied");
    });
    expect(seen).toHaveLength(1);
    expect(lines.filter((l) => l.msg === "reconcile failed; not retrying")).toHaveLength(1);
  });

  it("retries a conflict quietly", async () => {
    let calls = 0;
    const { lines } = await runOnce(async () => {
      if (++calls === 1) throw conflict(RESOURCES.deployments, "web", "changed");
      return done;
    });
    expect(calls).toBe(2);
    expect(lines.filter((l) => l.level === "error")).toEqual([]);
    expect(lines.filter((l) => l.msg === "reconcile conflicted; retrying")).toHaveLength(1);
  });

  it("brings a key back when asked to", async () => {
    let calls = 0;
    const { seen } = await runOnce(async () => (++calls < 2 ? requeueAfter(1) : done));
    expect(seen.map((c) => c.attempt)).toEqual([1, 1]);
  });
});
