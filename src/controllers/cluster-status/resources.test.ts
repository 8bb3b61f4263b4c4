import { describe, expect, it } from "vitest";
import type { StoredObject } from "../../api/meta.ts";
import { trimNode, trimPod } from "../member-inventory.ts";
import { allocatableModelings, podRequests, summarize } from "./resources.ts";

function node(name: string, allocatable: Record<string, string>, ready = "True"): StoredObject {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name, uid: `uid-node-${name}` },
    status: { allocatable, conditions: [{ type: "Ready", status: ready }] },
  };
}

function pod(
  name: string,
  opts: {
    node?: string;
    phase?: string;
    requests?: Array<Record<string, string>>;
    init?: Array<Record<string, string>>;
    overhead?: Record<string, string>;
  } = {},
): StoredObject {
  const containers = (opts.requests ?? [{}]).map((requests, i) => ({
    name: `c${i}`,
    image: "nginx",
    resources: { requests },
  }));
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default", uid: `uid-pod-${name}` },
    spec: {
      containers,
      ...(opts.init
        ? { initContainers: opts.init.map((requests, i) => ({ name: `i${i}`, resources: { requests } })) }
        : {}),
      ...(opts.overhead ? { overhead: opts.overhead } : {}),
      ...(opts.node ? { nodeName: opts.node } : {}),
    },
    status: { phase: opts.phase ?? (opts.node ? "Running" : "Pending") },
  };
}

describe("resource summary (getResourceSummary, getNodeSummary, getAllocatableModelings)", () => {
  it("a pod's effective request: containers summed, the largest init container if bigger, plus overhead", () => {
    expect(podRequests(pod("a", { requests: [{ cpu: "250m", memory: "64Mi" }, { cpu: "250m" }] }))).toEqual({
      cpu: "500m",
      memory: "64Mi",
    });
    const withInit = pod("b", {
      requests: [{ cpu: "250m", memory: "64Mi" }],
      init: [{ cpu: "1" }, { cpu: "500m", memory: "32Mi" }],
      overhead: { cpu: "100m" },
    });
    expect(podRequests(withInit)).toEqual({ cpu: "1100m", memory: "64Mi" });
  });

  it("sums node allocatable, counts Ready nodes, splits pods into allocating (unscheduled) and allocated (scheduled, not finished)", () => {
    const nodes = [
      node("n1", { cpu: "8", memory: "32Gi", pods: "110", "hugepages-2Mi": "0" }),
      node("n2", { cpu: "4", memory: "16Gi", pods: "110", "hugepages-2Mi": "0" }, "Unknown"),
    ];
    const pods = [
      pod("running", { node: "n1", requests: [{ cpu: "500m", memory: "1Gi" }] }),
      pod("done", { node: "n1", phase: "Succeeded", requests: [{ cpu: "4" }] }),
      pod("failed", { node: "n2", phase: "Failed", requests: [{ cpu: "4" }] }),
      pod("pending", { requests: [{ cpu: "2", memory: "0" }] }),
      pod("no-requests", { node: "n2" }),
    ];
    expect(summarize(nodes, pods)).toEqual({
      nodeSummary: { totalNum: 2, readyNum: 1 },
      resourceSummary: {
        // Zero amounts stay in allocatable (a sum of node lists) ...
        allocatable: { cpu: "12", "hugepages-2Mi": "0", memory: "48Gi", pods: "220" },
        // ... and are left out of allocating/allocated (upstream's Resource.ResourceList()).
        allocating: { cpu: "2", pods: "1" },
        allocated: { cpu: "500m", memory: "1Gi", pods: "2" },
      },
    });
  });

  it("the member inventory keeps only what the summaries read, and the summaries come out the same", () => {
    const nodes = [
      node("n1", { cpu: "8", memory: "32Gi", pods: "110" }),
      node("n2", { cpu: "4", memory: "16Gi", pods: "110" }, "Unknown"),
    ];
    const pods = [
      pod("running", { node: "n1", requests: [{ cpu: "500m", memory: "1Gi" }, { cpu: "1" }] }),
      pod("init", {
        node: "n2",
        requests: [{ cpu: "100m" }],
        init: [{ cpu: "2" }],
        overhead: { cpu: "10m" },
      }),
      pod("done", { node: "n1", phase: "Succeeded", requests: [{ cpu: "4" }] }),
      pod("pending", { requests: [{ cpu: "2", memory: "64Mi" }] }),
      pod("no-requests", { node: "n2" }),
    ];
    const models = [
      { grade: 0, ranges: [{ name: "cpu", min: "0", max: "4" }] },
      { grade: 1, ranges: [{ name: "cpu", min: "4", max: "100" }] },
    ];
    expect(summarize(nodes.map(trimNode), pods.map(trimPod), models)).toEqual(summarize(nodes, pods, models));
    const full = {
      ...pods[0]!,
      metadata: { ...pods[0]!.metadata, labels: { app: "x" }, annotations: { big: "y".repeat(1000) } },
      spec: {
        ...(pods[0]!.spec as Record<string, unknown>),
        volumes: [{ name: "v", emptyDir: {} }],
      },
    };
    const trimmed = trimPod(full);
    expect(trimmed.metadata).toEqual({
      name: "running",
      namespace: full.metadata.namespace,
      uid: "uid-pod-running",
    });
    expect(JSON.stringify(trimmed)).not.toContain("volumes");
    expect(JSON.stringify(trimmed)).not.toContain("image");
  });

  it("leaves allocating and allocated out when no pod counts", () => {
    const out = summarize(
      [node("n1", { cpu: "1", pods: "10" })],
      [pod("done", { node: "n1", phase: "Succeeded" })],
    );
    expect(out.resourceSummary).toEqual({ allocatable: { cpu: "1", pods: "10" } });
  });

  it("counts nodes per resource-model grade by their free resources, stopping at a node without pod room", () => {
    const models = [
      { grade: 0, ranges: [{ name: "cpu", min: "0", max: "2" }] },
      { grade: 1, ranges: [{ name: "cpu", min: "2", max: "4" }] },
      { grade: 2, ranges: [{ name: "cpu", min: "4", max: "9223372036854775807" }] },
    ];
    const nodes = [
      node("big", { cpu: "8", pods: "10" }),
      node("busy", { cpu: "8", pods: "10" }),
      node("small", { cpu: "1", pods: "10" }),
      node("full", { cpu: "8", pods: "1" }),
      node("after-full", { cpu: "8", pods: "10" }),
    ];
    const bound = [
      pod("p1", { node: "busy", requests: [{ cpu: "5" }] }),
      pod("p2", { node: "full", requests: [{ cpu: "1" }] }),
    ];
    expect(allocatableModelings(models, nodes, bound)).toEqual([
      { grade: 0, count: 1 },
      { grade: 1, count: 1 },
      { grade: 2, count: 1 },
    ]);
  });
});
