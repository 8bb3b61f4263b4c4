import { describe, expect, it } from "vitest";
import {
  cluster,
  duplicated,
  dynamicWeight,
  replicasOf,
  SERVED_APIS,
  spec,
} from "../../../test/support/scheduler-fixtures.ts";
import type { BindingSpec, ClusterObject, Placement } from "../../karmada/types.ts";
import { explanationText } from "./explanation.ts";
import { affinityAttemptFailedMessage, fitErrorMessage, schedule } from "./schedule.ts";
import { ScheduleError, type ScheduleInput } from "./types.ts";

/** A cluster with room for `cpu` cores and 110 pods. */
function sized(name: string, cpu: number, extra: Parameters<typeof cluster>[1] = {}): ClusterObject {
  return cluster(name, {
    ...extra,
    status: {
      apiEnablements: SERVED_APIS,
      resourceSummary: { allocatable: { pods: "110", cpu: String(cpu), memory: "64Gi" } },
    },
  });
}

function input(
  fields: Partial<BindingSpec>,
  clusters: ClusterObject[],
  status?: ScheduleInput["binding"]["status"],
): ScheduleInput {
  const binding: ScheduleInput["binding"] = {
    namespace: "default",
    name: "nginx-deployment",
    spec: spec(fields),
  };
  if (status) binding.status = status;
  return { binding, clusters };
}

function failure(run: () => unknown): ScheduleError {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(ScheduleError);
    return err as ScheduleError;
  }
  throw new Error("expected a ScheduleError");
}

const oneCpu = { replicaRequirements: { resourceRequest: { cpu: "1" } } };

describe("fitErrorMessage", () => {
  it("counts each reason and sorts the histogram", () => {
    expect(fitErrorMessage(4, ["b reason", "a reason", "b reason"])).toBe(
      "0/4 clusters are available: 1 a reason, 2 b reason.",
    );
    expect(fitErrorMessage(0, [])).toBe("0/0 clusters are available: no cluster exists.");
    expect(fitErrorMessage(2, [])).toBe("0/2 clusters are available: no cluster exists.");
  });
});

describe("schedule: no fit", () => {
  it("upstream's message for an affinity nobody matches; the placement is cleared", () => {
    const err = failure(() =>
      schedule(
        input({ placement: { clusterAffinity: { clusterNames: ["nope"] } } }, [
          cluster("member1"),
          cluster("member2"),
          cluster("member3"),
        ]),
      ),
    );
    expect(err.message).toBe(
      "0/3 clusters are available: 3 cluster(s) did not match the placement cluster affinity constraint.",
    );
    expect(err.reason).toBe("NoClusterFit");
    expect(err.clearsClusters).toBe(true);
    expect(err.explanation.attempts[0]!.clusters[0]).toEqual({
      name: "member1",
      filteredBy: "ClusterAffinity",
      reason: "cluster(s) did not match the placement cluster affinity constraint",
    });
  });

  it("deleting clusters are skipped but counted; mixed reasons are listed", () => {
    const clusters = [
      cluster("member1", { deleting: true }),
      cluster("member2", { taints: [{ key: "cluster.karmada.io/not-ready", effect: "NoSchedule" }] }),
      cluster("member3"),
    ];
    const err = failure(() =>
      schedule(input({ placement: { clusterAffinity: { clusterNames: ["member1", "member2"] } } }, clusters)),
    );
    expect(err.message).toBe(
      "0/3 clusters are available: 1 cluster(s) did not match the placement cluster affinity constraint, " +
        "1 cluster(s) had untolerated taint {cluster.karmada.io/not-ready:NoSchedule}.",
    );
    expect(err.explanation.attempts[0]!.clusters[0]).toEqual({ name: "member1", deleting: true });
  });

  it("no clusters at all", () => {
    expect(failure(() => schedule(input({}, []))).message).toBe(
      "0/0 clusters are available: no cluster exists.",
    );
  });

  it("no placement: upstream's error", () => {
    const i = input({}, [cluster("m1")]);
    delete i.binding.spec.placement;
    const err = failure(() => schedule(i));
    expect(err.message).toBe("failed to get placement from resourceBinding(default/nginx-deployment)");
    expect(err.reason).toBe("SchedulerError");
    expect(err.clearsClusters).toBe(false);
  });
});

describe("schedule: success", () => {
  it("Duplicated: every feasible cluster, current ones first (locality), then by room and name", () => {
    const result = schedule(
      input(
        {
          replicas: 2,
          ...oneCpu,
          clusters: [{ name: "c", replicas: 2 }],
          placement: { replicaScheduling: duplicated },
        },
        [sized("a", 4), sized("b", 8), sized("c", 1)],
      ),
    );
    expect(result.clusters).toEqual([
      { name: "c", replicas: 2 },
      { name: "b", replicas: 2 },
      { name: "a", replicas: 2 },
    ]);
    expect(result.affinityName).toBeUndefined();
  });

  it("non-workloads: every feasible cluster without replicas", () => {
    const result = schedule(input({}, [cluster("b"), cluster("a"), cluster("c", { deleting: true })]));
    expect(result.clusters).toEqual([{ name: "a" }, { name: "b" }]);
  });

  it("Divided by dynamic weight: replicas follow the room the estimator finds", () => {
    const result = schedule(
      input({ replicas: 12, ...oneCpu, placement: { replicaScheduling: dynamicWeight } }, [
        sized("member1", 6),
        sized("member2", 12),
        sized("member3", 18),
      ]),
    );
    expect(result.clusters).toEqual([
      { name: "member1", replicas: 2 },
      { name: "member2", replicas: 4 },
      { name: "member3", replicas: 6 },
    ]);
    const attempt = result.explanation.attempts[0]!;
    expect(attempt.needs).toEqual({ replicas: 12, request: { cpu: "1" } });
    expect(attempt.clusters.find((c) => c.name === "member3")).toEqual({
      name: "member3",
      score: 0,
      fits: 18,
      selected: true,
      replicas: 6,
    });
  });

  it("spread by cluster picks the best clusters that fit the replicas together", () => {
    const placement: Placement = {
      replicaScheduling: dynamicWeight,
      spreadConstraints: [{ spreadByField: "cluster", minGroups: 1, maxGroups: 2 }],
    };
    const result = schedule(
      input({ replicas: 10, ...oneCpu, placement }, [
        sized("a", 4),
        sized("b", 3),
        sized("c", 8),
        sized("d", 1),
      ]),
    );
    expect(replicasOf(result.clusters)).toEqual({ a: 3, c: 7 });
    expect(result.explanation.attempts[0]!.spread).toEqual({
      by: "cluster",
      minGroups: 1,
      maxGroups: 2,
      needReplicas: 10,
    });
  });

  it("spread by region", () => {
    const placement: Placement = {
      replicaScheduling: duplicated,
      spreadConstraints: [
        { spreadByField: "region", minGroups: 2, maxGroups: 2 },
        { spreadByField: "cluster", minGroups: 2, maxGroups: 3 },
      ],
    };
    const clusters = [
      sized("eu1", 4, { region: "eu" }),
      sized("eu2", 4, { region: "eu" }),
      sized("us1", 4, { region: "us" }),
      sized("ap1", 4, { region: "ap" }),
      sized("none", 4),
    ];
    const result = schedule(input({ replicas: 1, ...oneCpu, placement }, clusters));
    expect(result.clusters.map((c) => c.name)).toEqual(["eu1", "ap1", "eu2"]);
    const attempt = result.explanation.attempts[0]!;
    expect(attempt.spread?.chosenRegions).toEqual(["eu", "ap"]);
    expect(attempt.clusters.find((c) => c.name === "none")?.filteredBy).toBe("SpreadConstraint");
  });

  it("empty workload propagation keeps selected clusters that got no replicas", () => {
    const placement: Placement = {
      replicaScheduling: { replicaSchedulingType: "Divided", replicaDivisionPreference: "Aggregated" },
    };
    const i = input({ replicas: 2, ...oneCpu, placement }, [sized("a", 4), sized("b", 4)]);
    expect(schedule(i).clusters).toEqual([{ name: "a", replicas: 2 }]);
    i.options = { enableEmptyWorkloadPropagation: true };
    expect(schedule(i).clusters).toEqual([
      { name: "a", replicas: 2 },
      { name: "b", replicas: 0 },
    ]);
  });
});

describe("schedule: other failures", () => {
  it("selection errors are SchedulerErrors with upstream's wording", () => {
    const placement: Placement = {
      spreadConstraints: [{ spreadByField: "cluster", minGroups: 3, maxGroups: 3 }],
    };
    const err = failure(() => schedule(input({ placement }, [cluster("a"), cluster("b")])));
    expect(err.message).toBe(
      "failed to select clusters: the number of feasible clusters is less than spreadConstraint.MinGroups",
    );
    expect(err.reason).toBe("SchedulerError");
    expect(err.clearsClusters).toBe(false);
  });

  it("not enough room is Unschedulable", () => {
    const err = failure(() =>
      schedule(
        input({ replicas: 10, ...oneCpu, placement: { replicaScheduling: dynamicWeight } }, [
          sized("a", 1),
          sized("b", 2),
        ]),
      ),
    );
    expect(err.message).toBe(
      "failed to assign replicas: failed to scale up: Clusters available replicas 3 are not enough to schedule.",
    );
    expect(err.reason).toBe("Unschedulable");
  });

  it("clusters without a resource summary have no room for workloads", () => {
    const err = failure(() =>
      schedule(
        input({ replicas: 1, ...oneCpu, placement: { replicaScheduling: dynamicWeight } }, [cluster("a")]),
      ),
    );
    expect(err.message).toBe(
      "failed to assign replicas: failed to scale up: Clusters available replicas 0 are not enough to schedule.",
    );
  });
});

describe("schedule: clusterAffinities fallback", () => {
  const placement: Placement = {
    replicaScheduling: dynamicWeight,
    clusterAffinities: [
      { affinityName: "group1", clusterNames: ["small"] },
      { affinityName: "group2", clusterNames: ["big"] },
      { affinityName: "group3", clusterNames: ["gone"] },
    ],
  };
  const clusters = [sized("small", 1), sized("big", 10)];

  it("tries terms in order and reports the one used", () => {
    const result = schedule(input({ replicas: 4, ...oneCpu, placement }, clusters));
    expect(result.clusters).toEqual([{ name: "big", replicas: 4 }]);
    expect(result.affinityName).toBe("group2");
    expect(result.explanation.affinityName).toBe("group2");
    const [first, second] = result.explanation.attempts;
    expect(first).toMatchObject({
      affinityName: "group1",
      affinityIndex: 0,
      error: {
        reason: "Unschedulable",
        message:
          "failed to assign replicas: failed to scale up: Clusters available replicas 1 are not enough to schedule.",
      },
    });
    expect(second).toMatchObject({ affinityName: "group2", affinityIndex: 1 });
    expect(affinityAttemptFailedMessage({ namespace: "default", name: "nginx-deployment" }, first!)).toBe(
      "failed to schedule ResourceBinding(default/nginx-deployment) with clusterAffiliates index(0): " +
        "failed to assign replicas: failed to scale up: Clusters available replicas 1 are not enough to schedule.",
    );
    expect(affinityAttemptFailedMessage({ name: "crb" }, first!)).toMatch(
      /^failed to schedule ClusterResourceBinding\(crb\) with/,
    );
    expect(affinityAttemptFailedMessage({ name: "crb" }, second!)).toBeUndefined();
  });

  it("starts from the observed term and never goes back on its own", () => {
    const result = schedule(
      input({ replicas: 1, ...oneCpu, placement }, clusters, { schedulerObservingAffinityName: "group2" }),
    );
    expect(result.explanation.attempts.map((a) => a.affinityName)).toEqual(["group2"]);
    expect(result.affinityName).toBe("group2");
  });

  it("a requested reschedule starts again from the first term", () => {
    const result = schedule(
      input({ replicas: 1, ...oneCpu, placement, rescheduleTriggeredAt: "2026-02-01T00:00:00Z" }, clusters, {
        schedulerObservingAffinityName: "group2",
        lastScheduledTime: "2026-01-01T00:00:00Z",
      }),
    );
    expect(result.affinityName).toBe("group1");
  });

  it("an unknown observed term starts from the first", () => {
    const result = schedule(
      input({ replicas: 1, ...oneCpu, placement }, clusters, { schedulerObservingAffinityName: "old" }),
    );
    expect(result.affinityName).toBe("group1");
  });

  it("all terms fail: the first error counts (and clears the placement only if it was a no-fit)", () => {
    const unschedulable = failure(() => schedule(input({ replicas: 50, ...oneCpu, placement }, clusters)));
    expect(unschedulable.reason).toBe("Unschedulable");
    expect(unschedulable.message).toBe(
      "failed to assign replicas: failed to scale up: Clusters available replicas 1 are not enough to schedule.",
    );
    expect(unschedulable.clearsClusters).toBe(false);
    expect(unschedulable.explanation.attempts).toHaveLength(3);
    expect(unschedulable.explanation.affinityName).toBeUndefined();

    const noFit = failure(() =>
      schedule(
        input({ replicas: 50, ...oneCpu, placement }, clusters, { schedulerObservingAffinityName: "group3" }),
      ),
    );
    expect(noFit.message).toBe(
      "0/2 clusters are available: 2 cluster(s) did not match the placement cluster affinity constraint.",
    );
    expect(noFit.clearsClusters).toBe(true);
  });

  it("overflow groups of the observed term take what the term cannot", () => {
    const overflowing: Placement = {
      replicaScheduling: dynamicWeight,
      clusterAffinities: [
        {
          affinityName: "main",
          clusterNames: ["small"],
          overflowAffinities: [{ affinityName: "spill", clusterNames: ["big"] }],
        },
      ],
    };
    const result = schedule(input({ replicas: 4, ...oneCpu, placement: overflowing }, clusters));
    expect(result.clusters).toEqual([
      { name: "small", replicas: 1 },
      { name: "big", replicas: 3 },
    ]);
    expect(result.explanation.attempts[0]!.clusters.find((c) => c.name === "big")?.overflowOrder).toBe(1);
  });
});

describe("explanationText", () => {
  it("says why, per cluster, and how replicas were divided", () => {
    const result = schedule(
      input(
        {
          replicas: 3,
          ...oneCpu,
          clusters: [{ name: "a", replicas: 1 }],
          placement: { replicaScheduling: dynamicWeight, clusterAffinity: { exclude: ["z"] } },
        },
        [sized("a", 4), sized("b", 2), sized("z", 8), cluster("gone", { deleting: true })],
      ),
    );
    expect(explanationText(result.explanation)).toEqual([
      "  needs 3 replicas of {cpu: 1}; the selected clusters fit 6 more",
      "  a: selected, 2 replicas (score 100, fits 4 more replicas of {cpu: 1}, runs 1)",
      "  b: selected, 1 replica (score 0, fits 2 more replicas of {cpu: 1})",
      "  z: filtered out by ClusterAffinity: cluster(s) did not match the placement cluster affinity constraint",
      "  gone: skipped, the cluster is being deleted",
      "  all feasible clusters selected",
      "  3 replicas by DynamicWeight, scale up from 1",
    ]);
    expect(JSON.parse(JSON.stringify(result.explanation))).toEqual(result.explanation);
  });

  it("names the affinity terms tried", () => {
    const placement: Placement = {
      clusterAffinities: [
        { affinityName: "first", clusterNames: ["x"] },
        { affinityName: "second", clusterNames: ["a"] },
      ],
    };
    const lines = explanationText(schedule(input({ placement }, [cluster("a")])).explanation);
    expect(lines[0]).toBe('affinity term "first" (index 0):');
    expect(lines).toContain(
      "  failed (NoClusterFit): 0/1 clusters are available: 1 cluster(s) did not match the placement cluster affinity constraint.",
    );
    expect(lines).toContain('affinity term "second" (index 1):');
    expect(lines.at(-1)).toBe('scheduled with affinity term "second"');
  });
});

describe("schedule: --plugins", () => {
  it("a disabled filter plugin lets the clusters it would reject through", () => {
    const clusters = [cluster("member1"), cluster("member2")];
    const placement = { clusterAffinity: { clusterNames: ["member1"] } };
    const on = schedule(input({ placement }, clusters));
    expect(on.clusters.map((c) => c.name)).toEqual(["member1"]);
    const off = schedule({
      ...input({ placement }, clusters),
      options: { disabledPlugins: new Set(["ClusterAffinity"]) },
    });
    expect(off.clusters.map((c) => c.name).sort()).toEqual(["member1", "member2"]);
    expect(off.explanation.attempts[0]!.clusters.every((c) => c.filteredBy === undefined)).toBe(true);
  });
});
