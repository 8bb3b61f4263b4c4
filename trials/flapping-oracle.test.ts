import { describe, expect, it } from "vitest";
import {
  type Allowance,
  evictionPace,
  evictionWindow,
  flapSchedule,
  type HealthTimings,
  memberObjectChanges,
  overdueTasks,
  troubledSpans,
  unexplainedEvictions,
} from "./flapping-oracle.ts";
import { mulberry32 } from "./random.ts";

const T: HealthTimings = {
  failureThresholdMs: 3_000,
  successThresholdMs: 3_000,
  statusPeriodMs: 500,
  evictionTimeoutMs: 4_000,
};

describe("troubledSpans", () => {
  it.each([
    ["one down", [{ from: 0, to: 5_000 }], [{ from: 0, to: 5_000 }]],
    [
      "a return shorter than the success threshold (plus probes) does not end the trouble",
      [
        { from: 0, to: 5_000 },
        { from: 9_000, to: 12_000 },
      ],
      [{ from: 0, to: 12_000 }],
    ],
    [
      "a long return does",
      [
        { from: 0, to: 5_000 },
        { from: 10_000, to: 12_000 },
      ],
      [
        { from: 0, to: 5_000 },
        { from: 10_000, to: 12_000 },
      ],
    ],
    [
      "unsorted input",
      [
        { from: 20_000, to: 21_000 },
        { from: 0, to: 1_000 },
      ],
      [
        { from: 0, to: 1_000 },
        { from: 20_000, to: 21_000 },
      ],
    ],
  ])("%s", (_name, down, want) => {
    expect(troubledSpans(down, T)).toEqual(want);
  });
});

describe("evictionWindow", () => {
  it("opens after failure threshold + eviction timeout + toleration, and closes after recovery", () => {
    expect(evictionWindow({ from: 10_000, to: 30_000 }, 2, T)).toEqual({
      from: 10_000 + 3_000 + 4_000 + 2_000 - 1_250,
      to: 30_000 + 3_000 + 1_000 + 5_000,
    });
  });
  it("never for a toleration without seconds", () => {
    expect(evictionWindow({ from: 0, to: 60_000 }, undefined, T)).toBeUndefined();
  });
  it("never when the trouble is too short", () => {
    expect(evictionWindow({ from: 0, to: 1_000 }, 300, T)).toBeUndefined();
  });
});

describe("unexplainedEvictions", () => {
  const allowances: Record<string, Allowance> = {
    "ns/short": { kind: "workload", tolerationSeconds: 2 },
    "ns/forever": { kind: "workload", tolerationSeconds: undefined },
    "ns/cm": { kind: "configuration" },
  };
  const down = { member1: [{ from: 0, to: 20_000 }] };
  const check = (binding: string, at: number, withTask = true) =>
    unexplainedEvictions([{ binding, cluster: "member1", at, withTask }], down, (b) => allowances[b], T);

  it.each<[string, string, number, boolean, string | undefined]>([
    ["in its window", "ns/short", 12_000, true, undefined],
    ["too early", "ns/short", 5_000, true, "no trouble long enough before it"],
    ["long after the member came back", "ns/short", 40_000, true, "no trouble long enough before it"],
    ["without a task", "ns/short", 12_000, false, "without an eviction task"],
    ["tolerated for good", "ns/forever", 12_000, true, "tolerated for good"],
    ["configuration", "ns/cm", 12_000, true, "configuration is never evicted"],
    ["unknown binding", "ns/other", 12_000, true, "did not make"],
  ])("%s", (_name, binding, at, withTask, want) => {
    const got = check(binding, at, withTask);
    if (want === undefined) expect(got).toEqual([]);
    else expect(got).toEqual([expect.stringContaining(want)]);
  });
});

describe("evictionPace", () => {
  it.each<[string, number[], number, number, number]>([
    ["paced at the rate", [0, 1_000, 2_000, 3_000], 1, 0, 1],
    ["observed a little early, within the slack", [0, 800, 2_000], 1, 0, 2],
    ["a burst beyond the rate", [0, 100, 200, 5_000], 1, 1, 3],
    ["three within 1.5 s at one per second", [0, 900, 1_500], 1, 1, 2],
  ])("%s", (_name, times, rate, violations, maxInOneSecond) => {
    const got = evictionPace(times, rate, 250);
    expect(got.violations.length > 0).toBe(violations > 0);
    expect(got.maxInOneSecond).toBe(maxInOneSecond);
    expect(got.closestMs).toBe(Math.min(...times.slice(1).map((t, i) => t - times[i]!)));
  });
});

describe("memberObjectChanges", () => {
  it("finds deleted and re-created objects, and which were not allowed to change", () => {
    const before = new Map([
      ["ConfigMap ns/a", "u1"],
      ["Deployment ns/b", "u2"],
      ["Deployment ns/c", "u3"],
      ["Deployment ns/d", "u4"],
    ]);
    const after = new Map([
      ["ConfigMap ns/a", "u1"],
      ["Deployment ns/b", "u9"],
      ["Deployment ns/d", "u8"],
    ]);
    const got = memberObjectChanges(before, after, (k) => k === "Deployment ns/d");
    expect(got.deleted).toEqual(["Deployment ns/c"]);
    expect(got.recreated).toEqual(["Deployment ns/b", "Deployment ns/d"]);
    expect(got.violations).toEqual([
      "Deployment ns/b was re-created on the member (uid u2 → u9), and nothing allowed it",
      "Deployment ns/c was deleted on the member, and nothing allowed it",
    ]);
  });
});

describe("overdueTasks", () => {
  it("names the tasks older than their bound", () => {
    const tasks = [
      { binding: "ns/a", cluster: "member1", firstSeen: 0 },
      { binding: "ns/b", cluster: "member1", firstSeen: 10_000 },
    ];
    expect(overdueTasks(tasks, 26_000, 20_000, 5_000)).toEqual([
      "ns/a: the eviction task of member1 seen at 0.0s is still there at 26.0s (bound 25.0s)",
    ]);
  });
});

describe("flapSchedule", () => {
  it("is reproduced by its seed, alternates, and stays within the duration", () => {
    const a = mulberry32(7);
    const b = mulberry32(7);
    const schedule = (r: typeof a) =>
      flapSchedule(
        120_000,
        () => r.int(2_000, 12_000),
        () => r.int(1_000, 8_000),
      );
    const one = schedule(a);
    expect(schedule(b)).toEqual(one);
    expect(one.length).toBeGreaterThan(5);
    for (const [i, d] of one.entries()) {
      expect(d.to).toBeGreaterThan(d.from);
      expect(d.to).toBeLessThanOrEqual(120_000);
      if (i > 0) expect(d.from).toBeGreaterThanOrEqual(one[i - 1]!.to + 1_000);
    }
  });
});
