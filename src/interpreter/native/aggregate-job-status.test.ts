import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../api/meta.ts";
import type { AggregatedStatusItem } from "../../karmada/types.ts";
import { aggregateJobStatus, formatTime } from "./aggregate-job-status.ts";
import { createNativeInterpreter } from "./index.ts";

const NOW = new Date("2024-05-01T12:00:00.678Z");
const STAMP = "2024-05-01T12:00:00Z";
const now = () => NOW;

const job = (status?: Record<string, unknown>): KubeObject => ({
  apiVersion: "batch/v1",
  kind: "Job",
  metadata: { name: "pi", namespace: "default" },
  spec: { completions: 2 },
  ...(status ? { status } : {}),
});

const item = (clusterName: string, status?: Record<string, unknown>): AggregatedStatusItem =>
  status ? { clusterName, applied: true, status } : { clusterName, applied: false };

const T0 = "2024-05-01T10:00:00Z";
const T1 = "2024-05-01T10:05:00Z";
const T2 = "2024-05-01T10:09:00Z";

const complete = (start: string, end: string, extra: Record<string, unknown> = {}) => ({
  succeeded: 1,
  startTime: start,
  completionTime: end,
  conditions: [
    { type: "SuccessCriteriaMet", status: "True" },
    { type: "Complete", status: "True" },
  ],
  ...extra,
});
const failed = {
  failed: 1,
  startTime: T0,
  conditions: [{ type: "Failed", status: "True", reason: "BackoffLimitExceeded" }],
};
const running = (start: string) => ({ active: 1, startTime: start });

const condition = (type: string, reason: string, message: string) => ({
  type,
  status: "True",
  lastProbeTime: STAMP,
  lastTransitionTime: STAMP,
  reason,
  message,
});

describe("aggregate: Job", () => {
  const cases: Array<{ name: string; template: KubeObject; items: AggregatedStatusItem[]; want: unknown }> = [
    {
      name: "every member completed",
      template: job(),
      items: [item("member1", complete(T1, T2)), item("member2", complete(T0, T1))],
      want: {
        succeeded: 2,
        startTime: T0,
        completionTime: T2,
        conditions: [
          condition("Complete", "Completed", "Job completed"),
          condition(
            "SuccessCriteriaMet",
            "CompletionsReached",
            "All member clusters have met success criteria",
          ),
        ],
      },
    },
    {
      name: "completed without SuccessCriteriaMet everywhere",
      template: job(),
      items: [
        item("member1", complete(T0, T1)),
        item("member2", complete(T0, T1, { conditions: [{ type: "Complete", status: "True" }] })),
      ],
      want: {
        succeeded: 2,
        startTime: T0,
        completionTime: T1,
        conditions: [condition("Complete", "Completed", "Job completed")],
      },
    },
    {
      name: "one member failed",
      template: job(),
      items: [item("member1", complete(T0, T1)), item("member2", failed)],
      want: {
        succeeded: 1,
        failed: 1,
        startTime: T0,
        conditions: [condition("Failed", "JobFailed", "Job executed failed in member clusters member2")],
      },
    },
    {
      name: "failed clusters listed in item order",
      template: job(),
      items: [item("a", failed), item("b", failed)],
      want: {
        failed: 2,
        startTime: T0,
        conditions: [condition("Failed", "JobFailed", "Job executed failed in member clusters a,b")],
      },
    },
    {
      name: "still running: sums, start time once all have started",
      template: job(),
      items: [item("member1", running(T1)), item("member2", { ...running(T0), succeeded: 1 })],
      want: { active: 2, succeeded: 1, startTime: T0 },
    },
    {
      name: "a member not started yet: no start time",
      template: job(),
      items: [item("member1", running(T1)), item("member2", {})],
      want: { active: 1 },
    },
    {
      name: "a member without status blocks completion and start time",
      template: job(),
      items: [item("member1", complete(T0, T1)), item("member2")],
      want: { succeeded: 1 },
    },
    {
      name: "the template's start time is kept",
      template: job({ startTime: T2, active: 5, ready: 1 }),
      items: [item("member1", running(T0))],
      want: { active: 1, startTime: T2 },
    },
    {
      name: "no items: an empty status",
      template: job({ active: 1 }),
      items: [],
      want: {},
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const before = structuredClone(c.template);
      expect(aggregateJobStatus(c.template, c.items, now).status).toEqual(c.want);
      expect(c.template).toEqual(before);
    });
  }

  it("a finished Job is never updated again", () => {
    for (const type of ["Complete", "Failed"]) {
      const finished = job({ succeeded: 1, conditions: [{ type, status: "True" }] });
      const got = aggregateJobStatus(finished, [item("member1", running(T0))], now);
      expect(got).toEqual(finished);
      expect(got).not.toBe(finished);
    }
  });

  it("a False Complete condition does not finish it", () => {
    const got = aggregateJobStatus(
      job({ conditions: [{ type: "Complete", status: "False" }] }),
      [item("m", running(T0))],
      now,
    );
    expect(got.status).toEqual({ active: 1, startTime: T0 });
  });

  it("is the interpreter's Job hook, stamped by the injected clock", () => {
    const interpreter = createNativeInterpreter({ now });
    expect(interpreter.aggregateStatus(job(), [item("a", failed)])?.status).toEqual({
      failed: 1,
      startTime: T0,
      conditions: [condition("Failed", "JobFailed", "Job executed failed in member clusters a")],
    });
  });

  it("formats times as metav1.Time does", () => {
    expect(formatTime(NOW)).toBe(STAMP);
  });
});
