import { describe, expect, it } from "vitest";
import { EXPLANATION_ANNOTATION } from "../../scheduler/core/explanation.ts";
import type { ScheduleExplanation } from "../../scheduler/core/types.ts";
import { schedulingOf } from "./scheduling.ts";

const explanation: ScheduleExplanation = {
  attempts: [
    {
      needs: { replicas: 2, request: { cpu: "100m" } },
      clusters: [
        { name: "member1", score: 0, fits: 330, selected: true, replicas: 1 },
        { name: "member2", score: 100, fits: 10, assigned: 1, selected: true, replicas: 1 },
        {
          name: "member3",
          filteredBy: "ClusterAffinity",
          reason: "cluster(s) did not match the placement cluster affinity constraint",
        },
        { name: "member4", score: 0, selected: false },
        { name: "member5", deleting: true },
      ],
      spread: { by: "all" },
      replicas: { strategy: "StaticWeight", replicas: 2, weights: { member1: 1, member2: 1 } },
    },
  ],
};

describe("schedulingOf", () => {
  it("turns the recorded explanation into a row per cluster", () => {
    const { attempts, text } = schedulingOf({ [EXPLANATION_ANNOTATION]: JSON.stringify(explanation) });
    expect(text[0]).toBe("  needs 2 replicas of {cpu: 100m}; the selected clusters fit 340 more");
    expect(attempts).toEqual([
      {
        needs: "2 replicas, each cpu 100m",
        clusters: [
          {
            name: "member1",
            outcome: "selected",
            tone: "good",
            replicas: 1,
            detail: "score 0, fits 330 more replicas",
          },
          {
            name: "member2",
            outcome: "selected",
            tone: "good",
            replicas: 1,
            detail: "score 100, fits 10 more replicas, runs 1 now",
          },
          {
            name: "member3",
            outcome: "filtered out",
            tone: "bad",
            filteredBy: "ClusterAffinity",
            detail: "ClusterAffinity: cluster(s) did not match the placement cluster affinity constraint",
          },
          {
            name: "member4",
            outcome: "not selected",
            tone: "warn",
            detail: "Passed every filter but was not chosen (score 0).",
          },
          {
            name: "member5",
            outcome: "being deleted",
            tone: "neutral",
            detail: "The cluster is being deleted.",
          },
        ],
        spread: "all feasible clusters selected",
        replicas: "2 replicas by StaticWeight, weights member1=1 member2=1",
      },
    ]);
  });

  it("is empty without an explanation, or with an unreadable one", () => {
    expect(schedulingOf(undefined)).toEqual({ attempts: [], text: [] });
    expect(schedulingOf({ [EXPLANATION_ANNOTATION]: "{oops" })).toEqual({ attempts: [], text: [] });
  });
});
