/**
 * The graceful eviction rules as a table: upstream's (stamp, suppressDeletion, timeout, all
 * scheduled clusters Healthy for the current generation) and ours (a task whose cluster is
 * scheduled again or gone ends; an empty schedule does not count as healthy when the old copy
 * is kept).
 */
import { describe, expect, it } from "vitest";
import { rfc3339 } from "../api/meta.ts";
import { purgeModeOf } from "../karmada/failover.ts";
import type { AggregatedStatusItem, GracefulEvictionTask, TargetCluster } from "../karmada/types.ts";
import { assessEvictionTasks, type TaskAssessment, type TaskAssessmentInput } from "./graceful-eviction.ts";

const T0 = Date.UTC(2024, 0, 2, 3, 0, 0);
const NOW = T0 + 60_000;
const TIMEOUT = 600_000;

const task = (extra: Partial<GracefulEvictionTask> = {}): GracefulEvictionTask => ({
  fromCluster: "member1",
  purgeMode: "Gracefully",
  reason: "TaintUntolerated",
  producer: "TaintManager",
  creationTimestamp: rfc3339(T0),
  ...extra,
});
/** A task the controller has not stamped yet. */
const fresh = (): GracefulEvictionTask => {
  const { creationTimestamp: _, ...rest } = task();
  return rest;
};
const healthy = (...clusters: string[]): AggregatedStatusItem[] =>
  clusters.map((clusterName) => ({ clusterName, applied: true, health: "Healthy" }));
const on = (...names: string[]): TargetCluster[] => names.map((name) => ({ name }));

function assess(
  tasks: GracefulEvictionTask[],
  extra: Partial<Omit<TaskAssessmentInput, "tasks">> = {},
): TaskAssessment {
  return assessEvictionTasks(
    {
      tasks,
      clusters: on("member2"),
      aggregatedStatus: [],
      scheduled: true,
      clusterExists: () => true,
      timeoutMs: TIMEOUT,
      now: NOW,
      ...extra,
    },
    rfc3339(NOW),
  );
}

/** The remaining time of a task created at T0 with this timeout, as the requeue gives it. */
const remaining = (timeoutMs: number): number => T0 + timeoutMs - NOW + 1;

describe("assessEvictionTasks", () => {
  const cases: Array<[string, GracefulEvictionTask[], Partial<TaskAssessmentInput>, TaskAssessment]> = [
    [
      "a new task is only stamped, even when everything is healthy",
      [fresh()],
      { aggregatedStatus: healthy("member2") },
      { kept: [task({ creationTimestamp: rfc3339(NOW) })], dropped: [], nextCheckMs: TIMEOUT + 1 },
    ],
    [
      "a task waits while the new copy is not healthy",
      [task()],
      { aggregatedStatus: [{ clusterName: "member2", applied: true, health: "Unhealthy" }] },
      { kept: [task()], dropped: [], nextCheckMs: remaining(TIMEOUT) },
    ],
    [
      "a task waits while a scheduled cluster has no status yet",
      [task()],
      { clusters: on("member2", "member3"), aggregatedStatus: healthy("member2") },
      { kept: [task()], dropped: [], nextCheckMs: remaining(TIMEOUT) },
    ],
    [
      "every scheduled cluster Healthy ends it",
      [task()],
      { aggregatedStatus: healthy("member2") },
      { kept: [], dropped: [{ cluster: "member1", reason: "Healthy" }] },
    ],
    [
      "not for a generation the scheduler has not seen",
      [task()],
      { aggregatedStatus: healthy("member2"), scheduled: false },
      { kept: [task()], dropped: [], nextCheckMs: remaining(TIMEOUT) },
    ],
    [
      "the timeout ends it",
      [task({ creationTimestamp: rfc3339(NOW - TIMEOUT - 1000) })],
      {},
      { kept: [], dropped: [{ cluster: "member1", reason: "Timeout" }] },
    ],
    [
      "gracePeriodSeconds overrides the timeout",
      [task({ gracePeriodSeconds: 30 })],
      {},
      { kept: [], dropped: [{ cluster: "member1", reason: "Timeout" }] },
    ],
    [
      "a longer gracePeriodSeconds is waited for",
      [task({ gracePeriodSeconds: 1200 })],
      {},
      { kept: [task({ gracePeriodSeconds: 1200 })], dropped: [], nextCheckMs: remaining(1_200_000) },
    ],
    [
      "suppressDeletion true keeps it past every deadline, without a requeue",
      [task({ suppressDeletion: true, creationTimestamp: rfc3339(T0 - 10 * TIMEOUT) })],
      { aggregatedStatus: healthy("member2") },
      {
        kept: [task({ suppressDeletion: true, creationTimestamp: rfc3339(T0 - 10 * TIMEOUT) })],
        dropped: [],
      },
    ],
    [
      "suppressDeletion false ends it at once",
      [task({ suppressDeletion: false })],
      {},
      { kept: [], dropped: [{ cluster: "member1", reason: "SuppressionLifted" }] },
    ],
    [
      "the next check is the earliest deadline",
      [
        task({ fromCluster: "a", gracePeriodSeconds: 300 }),
        task({ fromCluster: "b", gracePeriodSeconds: 120 }),
      ],
      {},
      {
        kept: [
          task({ fromCluster: "a", gracePeriodSeconds: 300 }),
          task({ fromCluster: "b", gracePeriodSeconds: 120 }),
        ],
        dropped: [],
        nextCheckMs: remaining(120_000),
      },
    ],
    // Beyond upstream.
    [
      "its cluster scheduled again ends it",
      [task()],
      { clusters: on("member1", "member2") },
      { kept: [], dropped: [{ cluster: "member1", reason: "Rescheduled" }] },
    ],
    [
      "its cluster scheduled again ends even a new task",
      [fresh()],
      { clusters: on("member1") },
      { kept: [], dropped: [{ cluster: "member1", reason: "Rescheduled" }] },
    ],
    [
      "its cluster gone ends it, even a suppressed one",
      [task({ suppressDeletion: true })],
      { clusterExists: (name) => name !== "member1" },
      { kept: [], dropped: [{ cluster: "member1", reason: "ClusterGone" }] },
    ],
    [
      "an empty schedule is not 'all healthy' while the old copy is kept",
      [task()],
      { clusters: [] },
      { kept: [task()], dropped: [], nextCheckMs: remaining(TIMEOUT) },
    ],
    [
      "but a Directly task (old copy already gone) ends on an empty schedule, as upstream's",
      [task({ purgeMode: "Directly" })],
      { clusters: [] },
      { kept: [], dropped: [{ cluster: "member1", reason: "Healthy" }] },
    ],
    [
      "the old name Immediately is Directly",
      [task({ purgeMode: "Immediately" })],
      { clusters: [] },
      { kept: [], dropped: [{ cluster: "member1", reason: "Healthy" }] },
    ],
  ];
  it.each(cases)("%s", (_name, tasks, input, expected) => {
    expect(assess(tasks, input)).toEqual(expected);
  });

  it("assesses each task on its own", () => {
    const result = assess([task({ fromCluster: "a" }), task({ fromCluster: "b", suppressDeletion: false })], {
      clusters: on("c"),
    });
    expect(result.kept.map((t) => t.fromCluster)).toEqual(["a"]);
    expect(result.dropped).toEqual([{ cluster: "b", reason: "SuppressionLifted" }]);
  });
});

describe("purgeModeOf", () => {
  it.each([
    ["Graciously", "Gracefully"],
    ["Immediately", "Directly"],
    ["Gracefully", "Gracefully"],
    ["Directly", "Directly"],
    ["Never", "Never"],
    ["", undefined],
    [undefined, undefined],
  ])("%s → %s", (mode, expected) => {
    expect(purgeModeOf(mode)).toBe(expected);
  });
});
