import { describe, expect, it } from "vitest";
import type { StoredObject } from "../../api/meta.ts";
import {
  capacityBars,
  clustersMeta,
  clusterTile,
  quantityNumber,
  readinessOf,
  workloadsPerCluster,
} from "./clusters.ts";

function cluster(
  name: string,
  extra: { spec?: object; status?: object; deleting?: boolean } = {},
): StoredObject {
  return {
    apiVersion: "cluster.karmada.io/v1alpha1",
    kind: "Cluster",
    metadata: {
      name,
      uid: `u-${name}`,
      ...(extra.deleting ? { deletionTimestamp: "2026-01-01T00:00:00Z" } : {}),
    },
    ...(extra.spec ? { spec: extra.spec } : {}),
    ...(extra.status ? { status: extra.status } : {}),
  };
}

const ready = (
  status: string,
  reason = "ClusterReady",
  message = "cluster is healthy and ready to accept workloads",
) => ({
  conditions: [{ type: "Ready", status, reason, message }],
});

describe("quantityNumber", () => {
  it.each([
    ["500m", 0.5],
    ["2", 2],
    ["1Gi", 1024 ** 3],
    ["1.5k", 1500],
    [110, 110],
    ["junk", 0],
    [undefined, 0],
  ])("%s → %s", (q, want) => {
    expect(quantityNumber(q)).toBeCloseTo(want);
  });
});

describe("capacityBars", () => {
  it("adds allocating to allocated, and reads cores, GiB and pods", () => {
    const bars = capacityBars({
      resourceSummary: {
        allocatable: { cpu: "8", memory: "16Gi", pods: "110" },
        allocated: { cpu: "1500m", memory: "4Gi", pods: "12" },
        allocating: { cpu: "500m" },
      },
    });
    expect(bars).toEqual([
      { resource: "CPU", allocatable: 8, allocated: 2, text: "2 / 8 cores" },
      { resource: "Memory", allocatable: 16 * 1024 ** 3, allocated: 4 * 1024 ** 3, text: "4 / 16 GiB" },
      { resource: "Pods", allocatable: 110, allocated: 12, text: "12 / 110" },
    ]);
  });

  it("is empty without a summary", () => {
    expect(capacityBars(undefined)).toEqual([]);
    expect(capacityBars({ resourceSummary: {} })).toEqual([]);
  });
});

describe("readiness", () => {
  it.each([
    [ready("True"), "Ready"],
    [ready("False", "ClusterNotReachable", "cluster is not reachable"), "NotReady"],
    [ready("Unknown", "ClusterStatusUnknown"), "Unknown"],
    [{}, "Unknown"],
  ])("%j → %s", (status, want) => {
    expect(readinessOf(cluster("c", { status })).readiness).toBe(want);
  });
});

describe("clusterTile", () => {
  it("reads region, zones, mode, nodes, taints and the workloads placed there", () => {
    const tile = clusterTile(
      cluster("member1", {
        spec: {
          syncMode: "Pull",
          region: "eu-west",
          zones: ["eu-west-1a", "eu-west-1b"],
          provider: "kind",
          taints: [
            { key: "cluster.karmada.io/not-ready", effect: "NoExecute", timeAdded: "2026-01-01T00:00:00Z" },
          ],
        },
        status: {
          ...ready("False", "ClusterNotReachable", "cluster is not reachable"),
          kubernetesVersion: "v1.32.0",
          nodeSummary: { totalNum: 3, readyNum: 2 },
        },
      }),
      workloadsPerCluster([
        {
          metadata: { name: "a", uid: "1" },
          spec: { clusters: [{ name: "member1" }, { name: "member2" }] },
        } as unknown as StoredObject,
        {
          metadata: { name: "b", uid: "2" },
          spec: { clusters: [{ name: "member1" }] },
        } as unknown as StoredObject,
      ]),
    );
    expect(tile).toEqual({
      key: "member1",
      name: "member1",
      region: "eu-west",
      zone: "eu-west-1a",
      zones: ["eu-west-1a", "eu-west-1b"],
      provider: "kind",
      readiness: "NotReady",
      readyReason: "ClusterNotReachable",
      readyMessage: "cluster is not reachable",
      syncMode: "Pull",
      kubernetesVersion: "v1.32.0",
      nodes: { total: 3, ready: 2 },
      capacity: [],
      taints: [
        { key: "cluster.karmada.io/not-ready", effect: "NoExecute", timeAdded: "2026-01-01T00:00:00Z" },
      ],
      workloads: 2,
      deleting: false,
    });
  });

  it("takes the deprecated spec.zone, defaults to Push, and counts the summary", () => {
    const tiles = [
      clusterTile(cluster("a", { spec: { zone: "z1" }, status: ready("True") }), new Map()),
      clusterTile(cluster("b", { status: ready("Unknown") }), new Map()),
      clusterTile(
        cluster("c", {
          spec: { taints: [{ key: "k", effect: "NoSchedule" }] },
          status: ready("True"),
          deleting: true,
        }),
        new Map(),
      ),
    ];
    expect(tiles.map((t) => [t.zone, t.syncMode, t.deleting])).toEqual([
      ["z1", "Push", false],
      ["", "Push", false],
      ["", "Push", true],
    ]);
    expect(clustersMeta(tiles)).toEqual({ total: 3, ready: 2, notReady: 0, unknown: 1, tainted: 1 });
  });
});
