/**
 * Application failover's rules as tables: which clusters count as unhealthy, when the
 * toleration runs out, what the eviction task says per purge mode (old names too), the state a
 * failover preserves, and when the binding controller injects it.
 */
import { describe, expect, it } from "vitest";
import { labelsToInject, preservedLabelState } from "../karmada/failover.ts";
import type { AggregatedStatusItem, BindingSpec, GracefulEvictionTask } from "../karmada/types.ts";
import { FeatureGates } from "../runtime/features.ts";
import {
  type ApplicationFailoverBehavior,
  applicationEvictionTask,
  detectFailure,
  RB_APPLICATION_FAILOVER_CONTROLLER,
  splitByHealth,
} from "./application-failover.ts";

const item = (clusterName: string, health: string, status?: Record<string, unknown>): AggregatedStatusItem =>
  ({ clusterName, health, applied: true, ...(status ? { status } : {}) }) as AggregatedStatusItem;

describe("splitByHealth", () => {
  it("Unhealthy clusters not already evicted; Healthy and Unknown are the others", () => {
    const items = [
      item("a", "Unhealthy"),
      item("b", "Healthy"),
      item("c", "Unknown"),
      item("d", "Unhealthy"),
    ];
    const tasks = [{ fromCluster: "d", reason: "ApplicationFailure", producer: "x" }];
    expect(splitByHealth(items, tasks)).toEqual({ unhealthy: ["a"], others: ["b", "c"] });
  });
});

describe("detectFailure", () => {
  it("records a newly unhealthy cluster and looks again when its toleration runs out", () => {
    const since = new Map<string, number>();
    expect(detectFailure(["a"], 30_000, since, 1_000)).toEqual({ evict: [], recheckAfterMs: 30_001 });
    expect(since.get("a")).toBe(1_000);
  });

  it("evicts once the toleration has passed, and waits for the others", () => {
    const since = new Map([
      ["a", 0],
      ["b", 20_000],
    ]);
    expect(detectFailure(["a", "b"], 30_000, since, 30_001)).toEqual({
      evict: ["a"],
      recheckAfterMs: 20_000,
    });
  });

  it("with tolerationSeconds 0, evicts on the very next look (1 ms later)", () => {
    const since = new Map<string, number>();
    expect(detectFailure(["a"], 0, since, 5)).toEqual({ evict: [], recheckAfterMs: 1 });
    expect(detectFailure(["a"], 0, since, 6)).toEqual({ evict: ["a"] });
  });

  it("nothing unhealthy: nothing to do", () => {
    expect(detectFailure([], 1_000, new Map(), 0)).toEqual({ evict: [] });
  });
});

describe("applicationEvictionTask", () => {
  const gates = (spec: string) => FeatureGates.parse([spec]);
  const allOn = gates("StatefulFailoverInjection=true,GracefulEviction=true");
  const items = [item("member1", "Unhealthy", { jobStatus: { jobID: "abc", state: "FAILED" } })];
  const task = (behavior: ApplicationFailoverBehavior, features = allOn) =>
    applicationEvictionTask(
      behavior,
      items,
      "member1",
      RB_APPLICATION_FAILOVER_CONTROLLER,
      ["member1"],
      features,
    );

  it.each([
    ["Gracefully", { purgeMode: "Gracefully", gracePeriodSeconds: 600 }],
    ["Graciously (v1.12 name, kept as given)", { purgeMode: "Graciously", gracePeriodSeconds: 600 }],
    ["Never", { purgeMode: "Never", suppressDeletion: true }],
    ["Directly", { purgeMode: "Directly" }],
    ["Immediately (v1.12 name, kept as given)", { purgeMode: "Immediately" }],
  ])("%s", (_name, expected) => {
    const behavior = {
      purgeMode: expected.purgeMode,
      ...("gracePeriodSeconds" in expected ? { gracePeriodSeconds: 600 } : {}),
    };
    expect(task(behavior)).toEqual({
      producer: "resource-binding-application-failover-controller",
      reason: "ApplicationFailure",
      ...expected,
    });
  });

  it("Gracefully needs the GracefulEviction gate, as upstream", () => {
    expect(() =>
      task({ purgeMode: "Gracefully", gracePeriodSeconds: 600 }, gates("GracefulEviction=false")),
    ).toThrow("GracefulEviction featureGate must be enabled when purgeMode is Gracefully");
  });

  it("preserves state by JSONPath with the clusters before the failover (gate StatefulFailoverInjection)", () => {
    const behavior: ApplicationFailoverBehavior = {
      purgeMode: "Directly",
      statePreservation: {
        rules: [{ aliasLabelName: "failover.example.io/job-id", jsonPath: "{ .jobStatus.jobID }" }],
      },
    };
    expect(task(behavior)).toMatchObject({
      preservedLabelState: { "failover.example.io/job-id": "abc" },
      clustersBeforeFailover: ["member1"],
    });
    expect(task(behavior, gates("StatefulFailoverInjection=false"))).not.toHaveProperty(
      "preservedLabelState",
    );
  });

  it("a status not collected yet, or a path that is missing, fails the eviction (retried later)", () => {
    const rules = [{ aliasLabelName: "x", jsonPath: "{.jobStatus.savepoint}" }];
    expect(() => task({ purgeMode: "Directly", statePreservation: { rules } })).toThrow(
      /savepoint is not found/,
    );
    expect(() =>
      applicationEvictionTask(
        { purgeMode: "Directly", statePreservation: { rules } },
        [item("member1", "Unhealthy")],
        "member1",
        "p",
        [],
        allOn,
      ),
    ).toThrow("the application status has not yet been collected from Cluster(member1)");
  });
});

describe("preservedLabelState", () => {
  it("prints each rule's JSONPath as the label value", () => {
    expect(
      preservedLabelState(
        [
          { aliasLabelName: "replicas", jsonPath: "{.replicas}" },
          { aliasLabelName: "ready", jsonPath: "{.readyReplicas}" },
        ],
        { replicas: 3, readyReplicas: 0 },
      ),
    ).toEqual({ replicas: "3", ready: "0" });
  });
});

describe("labelsToInject", () => {
  const task = (extra: Partial<GracefulEvictionTask>): GracefulEvictionTask => ({
    fromCluster: "member1",
    reason: "ApplicationFailure",
    producer: "p",
    purgeMode: "Directly",
    preservedLabelState: { "job-id": "abc" },
    clustersBeforeFailover: ["member1"],
    ...extra,
  });
  const spec = (...tasks: GracefulEvictionTask[]): BindingSpec => ({
    resource: { apiVersion: "flink.apache.org/v1beta1", kind: "FlinkDeployment", name: "f" },
    clusters: [{ name: "member2" }],
    gracefulEvictionTasks: tasks,
  });

  it.each([
    ["the last task, purged directly, to a new cluster", spec(task({})), "member2", 1, { "job-id": "abc" }],
    ["the old name Immediately", spec(task({ purgeMode: "Immediately" })), "member2", 1, { "job-id": "abc" }],
    ["more than one target: never", spec(task({})), "member2", 2, undefined],
    ["Gracefully: never", spec(task({ purgeMode: "Gracefully" })), "member2", 1, undefined],
    ["Never: never", spec(task({ purgeMode: "Never" })), "member2", 1, undefined],
    ["a cluster targeted before the failover", spec(task({})), "member1", 1, undefined],
    ["no task", spec(), "member2", 1, undefined],
    ["empty state", spec(task({ preservedLabelState: {} })), "member2", 1, undefined],
    [
      "A→B→C: the last failover's state",
      spec(
        task({}),
        task({
          fromCluster: "member2",
          preservedLabelState: { "job-id": "def" },
          clustersBeforeFailover: ["member2"],
        }),
      ),
      "member3",
      1,
      { "job-id": "def" },
    ],
  ])("%s", (_name, s, cluster, targets, expected) => {
    expect(labelsToInject(s, cluster, targets)).toEqual(expected);
  });
});
