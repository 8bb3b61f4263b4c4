import { describe, expect, it } from "vitest";
import type { StoredObject } from "../../api/meta.ts";
import {
  classifyEvent,
  compactEvent,
  type EventLike,
  taintsInMessage,
  timeline,
  workloadEvents,
} from "./timeline.ts";

function event(name: string, e: Partial<EventLike>): EventLike {
  return { metadata: { name, namespace: "default" }, ...e };
}

const onBinding = { kind: "ResourceBinding", namespace: "default", name: "nginx-deployment" };
const onTemplate = { kind: "Deployment", namespace: "default", name: "nginx" };
const onCluster = { kind: "Cluster", name: "member1" };

const binding = {
  apiVersion: "work.karmada.io/v1alpha2",
  kind: "ResourceBinding",
  metadata: { name: "nginx-deployment", namespace: "default", uid: "b" },
  spec: {
    resource: { apiVersion: "apps/v1", kind: "Deployment", namespace: "default", name: "nginx" },
    replicas: 2,
    clusters: [{ name: "member2", replicas: 2 }],
    gracefulEvictionTasks: [
      {
        fromCluster: "member1",
        reason: "TaintUntolerated",
        producer: "TaintManager",
        purgeMode: "Gracefully",
        replicas: 1,
        creationTimestamp: "2026-01-01T10:00:02Z",
        preservedLabelState: { "failover-jobid": "j-7" },
        clustersBeforeFailover: ["member1"],
      },
    ],
  },
} as unknown as StoredObject;

const cluster = {
  apiVersion: "cluster.karmada.io/v1alpha1",
  kind: "Cluster",
  metadata: { name: "member1", uid: "c" },
  spec: {
    taints: [
      { key: "cluster.karmada.io/not-ready", effect: "NoExecute", timeAdded: "2026-01-01T10:00:01Z" },
      { key: "cluster.karmada.io/not-ready", effect: "NoSchedule" },
    ],
  },
  status: {
    conditions: [
      {
        type: "Ready",
        status: "False",
        reason: "ClusterNotReachable",
        message: "cluster is not reachable",
        lastTransitionTime: "2026-01-01T10:00:00Z",
      },
    ],
  },
} as unknown as StoredObject;

describe("classifyEvent", () => {
  it.each([
    [
      "a NoExecute taint",
      {
        reason: "TaintClusterSucceed",
        involvedObject: onCluster,
        message: "cluster now has taints([{Key:cluster.karmada.io/not-ready,Effect:NoExecute}])",
      },
      "taint",
      "bad",
      "member1: tainted cluster.karmada.io/not-ready:NoExecute",
    ],
    [
      "taints cleared",
      {
        reason: "TaintClusterSucceed",
        involvedObject: onCluster,
        message: "cluster now does not have taints",
      },
      "taint",
      "good",
      "member1: taints cleared",
    ],
    [
      "the taint manager's eviction",
      {
        reason: "EvictWorkloadFromClusterSucceed",
        involvedObject: onBinding,
        source: { component: "taint-manager" },
        message: "Evict from cluster member1 succeed.",
      },
      "eviction",
      "warn",
      "Evicted from member1 (taint not tolerated)",
    ],
    [
      "application failover",
      {
        reason: "EvictWorkloadFromClusterSucceed",
        involvedObject: onBinding,
        source: { component: "resource-binding-application-failover-controller" },
        message: "Evict from cluster member1 succeed.",
      },
      "application-failover",
      "bad",
      "Application failover: moving off member1",
    ],
    [
      "a graceful eviction's end",
      {
        reason: "EvictWorkloadFromClusterSucceed",
        involvedObject: onBinding,
        source: { component: "resource-binding-graceful-eviction-controller" },
        message: "Evict from cluster member1 succeed.",
      },
      "task-ended",
      "good",
      "Old copy on member1 removed: eviction finished",
    ],
    [
      "a dropped task",
      {
        reason: "GracefulEvictionTaskDropped",
        involvedObject: onBinding,
        message: "Dropped the eviction task of cluster member1: its cluster is back in the placement.",
      },
      "task-ended",
      "neutral",
      "Eviction task for member1 dropped",
    ],
    [
      "shadow mode",
      {
        reason: "EvictionShadowed",
        involvedObject: onBinding,
        message: "Would evict from cluster member1 (failover shadow mode): x.",
      },
      "shadow",
      "neutral",
      "Shadow mode: would evict from member1",
    ],
    [
      "a reschedule",
      {
        reason: "ScheduleBindingSucceed",
        involvedObject: onBinding,
        message: "Binding has been scheduled successfully. Result: {member2:2}",
      },
      "rescheduled",
      "good",
      "Scheduled: member2 ×2",
    ],
  ])("%s", (_, e, kind, tone, title) => {
    expect(classifyEvent(event("e", e), true)).toEqual({ kind, tone, title });
  });

  it("leaves out what is not about failover, and reschedules of uninvolved workloads", () => {
    expect(
      classifyEvent(event("e", { reason: "SyncWorkSucceed", involvedObject: onBinding }), true),
    ).toBeUndefined();
    expect(
      classifyEvent(event("e", { reason: "ScheduleBindingSucceed", involvedObject: onBinding }), false),
    ).toBeUndefined();
    expect(
      classifyEvent(
        event("e", { reason: "EvictWorkloadFromClusterSucceed", involvedObject: onTemplate }),
        true,
      ),
    ).toBeUndefined();
  });

  it("reads taints from the cluster controller's message", () => {
    expect(
      taintsInMessage("cluster now has taints([{Key:a,Value:b,Effect:NoSchedule},{Key:c,Effect:NoExecute}])"),
    ).toEqual(["a=b:NoSchedule", "c:NoExecute"]);
  });
});

describe("timeline", () => {
  it("merges taints, readiness, tasks, relayed state and events, newest first", () => {
    const events = [
      event("evict", {
        reason: "EvictWorkloadFromClusterSucceed",
        involvedObject: onBinding,
        source: { component: "taint-manager" },
        message: "Evict from cluster member1 succeed.",
        lastTimestamp: "2026-01-01T10:00:02Z",
        count: 1,
      }),
      event("sched", {
        reason: "ScheduleBindingSucceed",
        involvedObject: onBinding,
        source: { component: "default-scheduler" },
        message: "Binding has been scheduled successfully. Result: {member2:2}",
        lastTimestamp: "2026-01-01T10:00:03Z",
        count: 2,
      }),
      event("noise", {
        reason: "SyncWorkSucceed",
        involvedObject: onBinding,
        lastTimestamp: "2026-01-01T10:00:04Z",
      }),
    ];
    const { entries, total } = timeline({ events, clusters: [cluster], bindings: [binding] });
    expect(total).toBe(6);
    expect(entries.map((e) => [e.time.slice(11, 19), e.kind, e.title])).toEqual([
      ["10:00:03", "rescheduled", "Scheduled: member2 ×2"],
      ["10:00:02", "state-relayed", "State relayed from member1 to member2"],
      ["10:00:02", "eviction-task", "Leaving member1: graceful eviction in progress"],
      ["10:00:02", "eviction", "Evicted from member1 (taint not tolerated)"],
      ["10:00:01", "taint", "member1 tainted cluster.karmada.io/not-ready:NoExecute"],
      ["10:00:00", "cluster", "member1 not Ready (ClusterNotReachable)"],
    ]);
    expect(entries[0]).toMatchObject({
      workload: { key: "rb/default/nginx-deployment", label: "Deployment default/nginx" },
      count: 2,
    });
    expect(entries[1]!.detail).toBe("Labels injected into the new copy: failover-jobid=j-7");
    expect(timeline({ events, clusters: [cluster], bindings: [binding] }, 2).entries).toHaveLength(2);
  });
});

describe("workloadEvents", () => {
  it("keeps one of each event recorded on the binding and on its template", () => {
    const events = [
      event("on-binding", {
        reason: "EvictWorkloadFromClusterSucceed",
        involvedObject: onBinding,
        source: { component: "taint-manager" },
        message: "Evict from cluster member1 succeed.",
        lastTimestamp: "2026-01-01T10:00:02Z",
      }),
      event("on-template", {
        reason: "EvictWorkloadFromClusterSucceed",
        involvedObject: onTemplate,
        source: { component: "taint-manager" },
        message: "Evict from cluster member1 succeed.",
        lastTimestamp: "2026-01-01T10:00:02Z",
      }),
      event("applied", {
        reason: "ApplyPolicySucceed",
        involvedObject: onTemplate,
        source: { component: "resource-detector" },
        message: "Apply policy succeed.",
        lastTimestamp: "2026-01-01T10:00:00Z",
      }),
      event("other", {
        reason: "ApplyPolicySucceed",
        involvedObject: { kind: "Deployment", namespace: "default", name: "other" },
        lastTimestamp: "2026-01-01T10:00:00Z",
      }),
    ];
    expect(workloadEvents(events, binding).map((e) => [e.key, e.title, e.source])).toEqual([
      ["event/default/on-binding", "EvictWorkloadFromClusterSucceed", "taint-manager"],
      ["event/default/applied", "ApplyPolicySucceed", "resource-detector (on the Deployment)"],
    ]);
  });

  it("compacts events to what is read", () => {
    const full = {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: "e", namespace: "default", uid: "u", resourceVersion: "1", managedFields: [{}] },
      involvedObject: onBinding,
      reason: "X",
      message: "m",
      source: { component: "c", host: "h" },
      series: { count: 2 },
    } as unknown as StoredObject;
    const compact = compactEvent(full);
    expect(compact.metadata).toEqual({ name: "e", namespace: "default", uid: "u", resourceVersion: "1" });
    expect(compact).not.toHaveProperty("series");
  });
});
