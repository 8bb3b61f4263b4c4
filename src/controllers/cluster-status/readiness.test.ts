import { describe, expect, it } from "vitest";
import type { ConditionStatus, ConditionUpdate } from "../../machinery/conditions.ts";
import { type Observation, publishable, thresholdAdjusted } from "./readiness.ts";

describe("publishable (success and failure thresholds)", () => {
  const th = { successMs: 300, failureMs: 500 };
  const cond = (status: ConditionStatus): ConditionUpdate => ({
    type: "Ready",
    status,
    reason: "",
    message: "",
  });
  const cases: Array<[string, ConditionUpdate | undefined, ConditionStatus, number, boolean]> = [
    ["no Ready yet: at once", undefined, "False", 0, true],
    ["same status: at once", cond("True"), "True", 0, true],
    ["True -> False before the failure threshold: kept", cond("True"), "False", 499, false],
    ["True -> False at the failure threshold", cond("True"), "False", 500, true],
    ["False -> True before the success threshold: kept", cond("False"), "True", 299, false],
    ["False -> True at the success threshold", cond("False"), "True", 300, true],
    ["Unknown -> True waits for the success threshold", cond("Unknown"), "True", 299, false],
    ["Unknown -> False: at once", cond("Unknown"), "False", 0, true],
    ["False -> Unknown: at once", cond("False"), "Unknown", 0, true],
  ];
  for (const [name, current, observed, elapsed, want] of cases) {
    it(name, () => {
      expect(publishable(current, observed, 1_000, 1_000 + elapsed, th)).toBe(want);
    });
  }
});

describe("thresholdAdjusted (what is published, what is remembered)", () => {
  const th = { successMs: 300, failureMs: 500 };
  const current = {
    type: "Ready",
    status: "True",
    reason: "ClusterReady",
    message: "",
    lastTransitionTime: "t0",
  } as const;
  const down: ConditionUpdate = { type: "Ready", status: "False", reason: "ClusterNotReady", message: "" };
  const seenDown = (since: number, uid = "u1"): Observation => ({ uid, status: "False", since });

  it("a first observation is published at once, even against the stored condition", () => {
    expect(thresholdAdjusted(undefined, "u1", current, down, 1_000, th)).toEqual({
      ready: down,
      seen: seenDown(1_000),
    });
  });

  it("a Cluster recreated under the same name (another uid) starts afresh", () => {
    expect(thresholdAdjusted(seenDown(0, "old"), "u1", current, down, 1_000, th)).toEqual({
      ready: down,
      seen: seenDown(1_000),
    });
  });

  it("a flip keeps the current condition until it has lasted the threshold, counted from its first sight", () => {
    const seenUp: Observation = { uid: "u1", status: "True", since: 0 };
    const first = thresholdAdjusted(seenUp, "u1", current, down, 1_000, th);
    expect(first).toEqual({ ready: current, seen: seenDown(1_000) });
    expect(thresholdAdjusted(first.seen, "u1", current, down, 1_499, th)).toEqual({
      ready: current,
      seen: seenDown(1_000),
    });
    expect(thresholdAdjusted(first.seen, "u1", current, down, 1_500, th).ready).toBe(down);
  });

  it("without a stored condition the observed one is published", () => {
    expect(thresholdAdjusted(seenDown(0), "u1", undefined, down, 10, th).ready).toBe(down);
  });
});
