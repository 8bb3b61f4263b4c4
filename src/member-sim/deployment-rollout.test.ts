import { describe, expect, it } from "vitest";
import type { StoredObject } from "../api/meta.ts";
import {
  calculateStatus,
  fenceposts,
  maxUnavailable,
  newReplicaSetCondition,
  newReplicaSetReplicas,
  oldReplicaSetsScaleDown,
  withProgress,
} from "./deployment-rollout.ts";
import type { DeploymentSpec, DeploymentStatus } from "./types.ts";

const T0 = "2026-03-01T10:00:00Z";
const T1 = "2026-03-01T10:01:00Z";

function rs(
  name: string,
  replicas: number,
  status: { replicas?: number; availableReplicas?: number; readyReplicas?: number } = {},
  created = T0,
): StoredObject {
  return {
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: { name, uid: `uid-${name}`, creationTimestamp: created },
    spec: { replicas },
    status: {
      replicas: status.replicas ?? replicas,
      availableReplicas: status.availableReplicas ?? 0,
      readyReplicas: status.readyReplicas ?? 0,
    },
  };
}

function deployment(spec: DeploymentSpec, status: DeploymentStatus = {}, generation = 1): StoredObject {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", uid: "uid-web", generation },
    spec: { replicas: 3, progressDeadlineSeconds: 600, ...spec },
    status,
  };
}

describe("deployment rollout arithmetic", () => {
  it.each<[DeploymentSpec, { maxSurge: number; maxUnavailable: number }]>([
    [{ replicas: 10 }, { maxSurge: 3, maxUnavailable: 2 }],
    [{ replicas: 3 }, { maxSurge: 1, maxUnavailable: 0 }],
    [
      { replicas: 1, strategy: { rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } } },
      { maxSurge: 0, maxUnavailable: 1 },
    ],
    [
      { replicas: 4, strategy: { rollingUpdate: { maxSurge: "50%", maxUnavailable: 1 } } },
      { maxSurge: 2, maxUnavailable: 1 },
    ],
  ])("fenceposts %j", (spec, want) => {
    expect(fenceposts(spec)).toEqual(want);
  });

  it("maxUnavailable is 0 for Recreate and never above replicas", () => {
    expect(maxUnavailable({ replicas: 3, strategy: { type: "Recreate" } })).toBe(0);
    expect(maxUnavailable({ replicas: 2, strategy: { rollingUpdate: { maxUnavailable: 5 } } })).toBe(2);
  });

  it.each<[string, number, StoredObject[], number | undefined, number]>([
    ["a first rollout starts at full size", 3, [], undefined, 3],
    ["a new template starts at maxSurge", 4, [rs("old", 4)], undefined, 1],
    ["grows while old pods shrink", 4, [rs("old", 2)], 2, 3],
    ["waits while at replicas + maxSurge", 4, [rs("old", 3)], 2, 2],
    ["scales up from 0", 3, [], 0, 3],
    ["scales down at once", 1, [], 3, 1],
  ])("new ReplicaSet size: %s", (_name, replicas, old, current, want) => {
    const newRS = current === undefined ? undefined : rs("new", current);
    expect(newReplicaSetReplicas({ replicas }, newRS ? [...old, newRS] : old, newRS)).toBe(want);
  });

  it("shrinks old ReplicaSets' unavailable pods first, then available ones down to replicas - maxUnavailable", () => {
    const spec: DeploymentSpec = { replicas: 4 };
    // 4 old (3 available) + new 1 (available 1): min available 3, 5 total.
    const plan = oldReplicaSetsScaleDown(
      spec,
      [rs("old", 4, { availableReplicas: 3 })],
      rs("new", 1, { availableReplicas: 1 }),
    );
    expect(plan.get("old")).toBe(2);
    // The new pod not available yet: one old one may still go (maxUnavailable 1), no more.
    expect(
      oldReplicaSetsScaleDown(spec, [rs("old", 4, { availableReplicas: 4 })], rs("new", 1)).get("old"),
    ).toBe(3);
    // With maxUnavailable 0 nothing goes until the new pod is available.
    const strict: DeploymentSpec = {
      replicas: 4,
      strategy: { rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
    };
    expect(oldReplicaSetsScaleDown(strict, [rs("old", 4, { availableReplicas: 4 })], rs("new", 1)).size).toBe(
      0,
    );
  });

  it("takes the oldest ReplicaSets first", () => {
    const plan = oldReplicaSetsScaleDown(
      { replicas: 2, strategy: { rollingUpdate: { maxUnavailable: 1, maxSurge: 1 } } },
      [rs("newer", 1, { availableReplicas: 1 }, T1), rs("older", 1, { availableReplicas: 1 }, T0)],
      rs("new", 1, { availableReplicas: 1 }),
    );
    expect([...plan]).toEqual([
      ["older", 0],
      ["newer", 0],
    ]);
  });

  it("sums the ReplicaSets into the status and sets Available", () => {
    const d = deployment({ replicas: 3 });
    const status = calculateStatus(
      d,
      [
        rs("old", 1, { availableReplicas: 1, readyReplicas: 1 }),
        rs("new", 2, { availableReplicas: 1, readyReplicas: 2 }),
      ],
      rs("new", 2, { availableReplicas: 1 }),
      [],
      T0,
    );
    expect(status).toEqual({
      observedGeneration: 1,
      replicas: 3,
      updatedReplicas: 2,
      readyReplicas: 3,
      availableReplicas: 2,
      unavailableReplicas: 1,
      conditions: [
        {
          type: "Available",
          status: "False",
          reason: "MinimumReplicasUnavailable",
          message: "Deployment does not have minimum availability.",
          lastUpdateTime: T0,
          lastTransitionTime: T0,
        },
      ],
    });
  });

  it("drops zero counts as the API's omitempty does", () => {
    const status = calculateStatus(deployment({ replicas: 0 }), [rs("new", 0)], rs("new", 0), [], T0);
    expect(Object.keys(status).sort()).toEqual(["conditions", "observedGeneration"]);
  });

  it("Progressing: created, progressing (lastUpdateTime moves), complete, timed out", () => {
    const created = newReplicaSetCondition([], "web-abc", true, T0);
    expect(created).toEqual([
      {
        type: "Progressing",
        status: "True",
        reason: "NewReplicaSetCreated",
        message: 'Created new replica set "web-abc"',
        lastUpdateTime: T0,
        lastTransitionTime: T0,
      },
    ]);
    expect(newReplicaSetCondition(created, "web-abc", false, T1)).toEqual(created);
    expect(newReplicaSetCondition([], "web-abc", false, T1)[0]).toMatchObject({
      reason: "FoundNewReplicaSet",
      message: 'Found new replica set "web-abc"',
    });
    const newRS = rs("web-abc", 3);
    const d = deployment({}, { replicas: 3, updatedReplicas: 1, conditions: created });
    const progressing = withProgress(
      d,
      { replicas: 3, updatedReplicas: 2, conditions: created },
      newRS,
      T1,
      Date.parse(T1),
    );
    expect(progressing.conditions).toEqual([
      {
        type: "Progressing",
        status: "True",
        reason: "ReplicaSetUpdated",
        message: 'ReplicaSet "web-abc" is progressing.',
        lastUpdateTime: T1,
        lastTransitionTime: T0,
      },
    ]);
    const done = withProgress(
      d,
      {
        observedGeneration: 1,
        replicas: 3,
        updatedReplicas: 3,
        availableReplicas: 3,
        conditions: progressing.conditions!,
      },
      newRS,
      T1,
      Date.parse(T1),
    );
    expect(done.conditions?.[0]).toMatchObject({
      reason: "NewReplicaSetAvailable",
      message: 'ReplicaSet "web-abc" has successfully progressed.',
    });
    const stuck = deployment(
      { progressDeadlineSeconds: 30 },
      { replicas: 3, updatedReplicas: 1, conditions: created },
    );
    const late = Date.parse(T0) + 31_000;
    const timedOut = withProgress(
      stuck,
      { replicas: 3, updatedReplicas: 1, conditions: created },
      newRS,
      T1,
      late,
    );
    expect(timedOut.conditions?.[0]).toMatchObject({
      status: "False",
      reason: "ProgressDeadlineExceeded",
      message: 'ReplicaSet "web-abc" has timed out progressing.',
    });
  });
});
