import { describe, expect, it } from "vitest";
import type { StoredObject } from "../../api/meta.ts";
import {
  parseWorkloadKey,
  policyOfBinding,
  readyOf,
  workloadKey,
  workloadRow,
  workloadsMeta,
} from "./workloads.ts";

const scheduled = (status = "True", message?: string) => ({
  type: "Scheduled",
  status,
  reason: status === "True" ? "Success" : "NoClusterFit",
  ...(message ? { message } : {}),
  lastTransitionTime: "2026-01-01T00:00:01Z",
});

function binding(spec: object, status: object = {}, ns: string | null = "default"): StoredObject {
  const namespace = ns ?? undefined;
  return {
    apiVersion: "work.karmada.io/v1alpha2",
    kind: namespace ? "ResourceBinding" : "ClusterResourceBinding",
    metadata: {
      name: "nginx-deployment",
      uid: "b-1",
      ...(namespace ? { namespace } : {}),
      annotations: namespace
        ? {
            "propagationpolicy.karmada.io/name": "nginx-propagation",
            "propagationpolicy.karmada.io/namespace": "default",
          }
        : { "clusterpropagationpolicy.karmada.io/name": "everywhere" },
    },
    spec: { resource: { apiVersion: "apps/v1", kind: "Deployment", namespace, name: "nginx" }, ...spec },
    status,
  } as StoredObject;
}

const two = {
  replicas: 2,
  clusters: [
    { name: "member1", replicas: 1 },
    { name: "member2", replicas: 1 },
  ],
};
const item = (clusterName: string, health: string, extra: object = {}) => ({
  clusterName,
  applied: true,
  health,
  status: { replicas: 1, readyReplicas: health === "Healthy" ? 1 : 0 },
  ...extra,
});

describe("keys", () => {
  it("round-trips binding keys", () => {
    const rb = binding({});
    const crb = binding({}, {}, null);
    expect(workloadKey(rb)).toBe("rb/default/nginx-deployment");
    expect(workloadKey(crb)).toBe("crb/nginx-deployment");
    expect(parseWorkloadKey("rb/default/nginx-deployment")).toEqual({
      namespace: "default",
      name: "nginx-deployment",
    });
    expect(parseWorkloadKey("crb/x")).toEqual({ name: "x" });
    expect(parseWorkloadKey("rb/x")).toBeUndefined();
    expect(parseWorkloadKey("pod/a/b")).toBeUndefined();
  });

  it("reads the claiming policy", () => {
    expect(policyOfBinding(binding({}))).toEqual({
      kind: "PropagationPolicy",
      name: "nginx-propagation",
      namespace: "default",
    });
    expect(policyOfBinding(binding({}, {}, null))).toEqual({
      kind: "ClusterPropagationPolicy",
      name: "everywhere",
    });
  });

  it("reads ready counts from a reflected status", () => {
    expect(readyOf({ replicas: 3, readyReplicas: 2 }, undefined)).toBe("2/3");
    expect(readyOf({ availableReplicas: 1 }, 2)).toBe("1/2");
    expect(readyOf({ phase: "Running" }, undefined)).toBeUndefined();
    expect(readyOf(undefined, 1)).toBeUndefined();
  });
});

describe("health", () => {
  it.each([
    [
      "healthy everywhere",
      two,
      {
        conditions: [scheduled()],
        aggregatedStatus: [item("member1", "Healthy"), item("member2", "Healthy")],
      },
      "Healthy",
      "2 replicas healthy on 2 clusters.",
    ],
    [
      "unhealthy somewhere",
      two,
      {
        conditions: [scheduled()],
        aggregatedStatus: [item("member1", "Healthy"), item("member2", "Unhealthy")],
      },
      "Unhealthy",
      "Unhealthy on member2.",
    ],
    [
      "a failed apply",
      two,
      {
        aggregatedStatus: [
          item("member1", "Unknown", { applied: false, appliedMessage: "quota exceeded" }),
          item("member2", "Healthy"),
        ],
      },
      "Unhealthy",
      "Failed to apply on member1: quota exceeded",
    ],
    [
      "not reported yet",
      two,
      { conditions: [scheduled()], aggregatedStatus: [item("member1", "Healthy")] },
      "Progressing",
      "Waiting for member2 to apply and report.",
    ],
    [
      "unknown health",
      two,
      { aggregatedStatus: [item("member1", "Unknown"), item("member2", "Healthy")] },
      "Unknown",
      "Health unknown on member1.",
    ],
    [
      "unschedulable",
      { replicas: 2 },
      { conditions: [scheduled("False", "0/3 clusters are available")] },
      "Unschedulable",
      "0/3 clusters are available",
    ],
    ["waiting for the scheduler", { replicas: 2 }, {}, "Pending", "Waiting for the scheduler."],
    [
      "moving off a cluster",
      {
        replicas: 2,
        clusters: [{ name: "member2", replicas: 2 }],
        gracefulEvictionTasks: [
          { fromCluster: "member1", replicas: 1, reason: "TaintUntolerated", producer: "TaintManager" },
        ],
      },
      { aggregatedStatus: [item("member1", "Healthy"), item("member2", "Healthy")] },
      "Progressing",
      "Moving off member1: the old copy stays until the new ones are healthy.",
    ],
  ])("%s", (_, spec, status, health, text) => {
    const row = workloadRow(binding(spec, status));
    expect([row.health, row.healthText]).toEqual([health, text]);
  });

  it("gives a row's placements with replicas, readiness and evictions", () => {
    const row = workloadRow(
      binding(
        {
          replicas: 3,
          clusters: [{ name: "member2", replicas: 3 }],
          gracefulEvictionTasks: [
            { fromCluster: "member1", replicas: 1, reason: "ApplicationFailure", producer: "x" },
          ],
        },
        {
          conditions: [scheduled()],
          aggregatedStatus: [item("member2", "Healthy", { status: { replicas: 3, readyReplicas: 3 } })],
        },
      ),
    );
    expect(row).toMatchObject({
      key: "rb/default/nginx-deployment",
      kind: "Deployment",
      namespace: "default",
      name: "nginx",
      replicas: 3,
      policy: { name: "nginx-propagation" },
      updated: "2026-01-01T00:00:01Z",
      placements: [
        { cluster: "member2", replicas: 3, health: "Healthy", applied: true, ready: "3/3" },
        { cluster: "member1", replicas: 1, evicting: true },
      ],
    });
  });

  it("counts rows by health", () => {
    const rows = [
      workloadRow(
        binding(two, { aggregatedStatus: [item("member1", "Healthy"), item("member2", "Healthy")] }),
      ),
      workloadRow(binding({ replicas: 1 }, {})),
      workloadRow(binding({ replicas: 1 }, {})),
    ];
    expect(workloadsMeta(rows)).toEqual({ total: 3, byHealth: { Healthy: 1, Pending: 2 } });
  });
});
