import { describe, expect, it } from "vitest";
import type { StoredObject } from "../api/meta.ts";
import { addPod, emptyUsage, type NodeUsage, podRequests, schedulePod, toMilli } from "./scheduling.ts";

function node(
  name: string,
  opts: {
    cpu?: string;
    memory?: string;
    pods?: string;
    labels?: Record<string, string>;
    spec?: Record<string, unknown>;
  } = {},
): StoredObject {
  const allocatable = { cpu: opts.cpu ?? "4", memory: opts.memory ?? "8Gi", pods: opts.pods ?? "110" };
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name, uid: `uid-${name}`, labels: { "kubernetes.io/hostname": name, ...opts.labels } },
    spec: opts.spec ?? {},
    status: { allocatable, capacity: allocatable },
  };
}

function pod(spec: Record<string, unknown> = {}, requests?: Record<string, string>): StoredObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p", namespace: "default", uid: "uid-p" },
    spec: {
      containers: [{ name: "c", image: "x", ...(requests ? { resources: { requests } } : {}) }],
      ...spec,
    },
  };
}

const free = (n: StoredObject) => ({ node: n, usage: emptyUsage() });
const used = (
  n: StoredObject,
  requests: Record<string, string>,
  count = 1,
): { node: StoredObject; usage: NodeUsage } => {
  const usage = emptyUsage();
  for (let i = 0; i < count; i++)
    addPod(usage, podRequests({ containers: [{ name: "c", resources: { requests } }] }));
  return { node: n, usage };
};

describe("quantities in milli-units", () => {
  it.each([
    ["1", 1000n],
    ["250m", 250n],
    ["1.5", 1500n],
    ["1Ki", 1024000n],
    ["2Gi", 2n * 1024n ** 3n * 1000n],
    ["1n", 1n],
  ])("%s", (q, want) => {
    expect(toMilli(q)).toBe(want);
  });

  it("sums containers, takes the largest init container, adds overhead", () => {
    const req = podRequests({
      containers: [
        { name: "a", resources: { requests: { cpu: "100m", memory: "64Mi" } } },
        { name: "b", resources: { requests: { cpu: "200m" } } },
      ],
      initContainers: [{ name: "i", resources: { requests: { cpu: "1", memory: "32Mi" } } }],
      overhead: { cpu: "10m" },
    });
    expect(req.get("cpu")).toBe(1010n);
    expect(req.get("memory")).toBe(64n * 1024n * 1024n * 1000n);
  });
});

describe("schedulePod", () => {
  const three = [node("n0"), node("n1"), node("n2")];

  it.each<[string, StoredObject, Array<{ node: StoredObject; usage: NodeUsage }>, string]>([
    [
      "insufficient cpu everywhere",
      pod({}, { cpu: "5" }),
      three.map(free),
      "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.",
    ],
    [
      "cpu and memory short on different nodes, histogram sorted",
      pod({}, { cpu: "3", memory: "6Gi" }),
      [
        used(three[0]!, { cpu: "2" }),
        used(three[1]!, { memory: "4Gi" }),
        used(three[2]!, { cpu: "2", memory: "4Gi" }),
      ],
      "0/3 nodes are available: 2 Insufficient cpu, 2 Insufficient memory. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.",
    ],
    [
      "too many pods",
      pod(),
      [used(node("n0", { pods: "1" }), {})],
      "0/1 nodes are available: 1 Too many pods. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
    ],
    [
      "node selector",
      pod({ nodeSelector: { disk: "ssd" } }),
      three.map(free),
      "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
    ],
    [
      "mixed: a taint, a cordon, a short node",
      pod({}, { cpu: "3" }),
      [
        free(node("n0", { spec: { taints: [{ key: "dedicated", value: "gpu", effect: "NoSchedule" }] } })),
        free(node("n1", { spec: { unschedulable: true } })),
        used(node("n2"), { cpu: "2" }),
      ],
      "0/3 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint {dedicated: gpu}, 1 node(s) were unschedulable. preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.",
    ],
    [
      "a taint without value",
      pod(),
      [
        free(
          node("n0", {
            spec: { taints: [{ key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" }] },
          }),
        ),
      ],
      "0/1 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
    ],
    [
      "preemptionPolicy Never",
      pod({ preemptionPolicy: "Never" }, { cpu: "5" }),
      [free(node("n0"))],
      "0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never.",
    ],
    ["no nodes", pod(), [], "no nodes available to schedule pods"],
  ])("%s", (_name, p, nodes, message) => {
    expect(schedulePod(p, nodes)).toEqual({ message });
  });

  it("checks only the first filter that rejects a node, in kube-scheduler's order", () => {
    const cordonedAndTainted = node("n0", {
      spec: { unschedulable: true, taints: [{ key: "x", effect: "NoSchedule" }] },
      labels: {},
    });
    expect(
      schedulePod(pod({ nodeSelector: { a: "b" } }, { cpu: "100" }), [free(cordonedAndTainted)]),
    ).toEqual({
      message:
        "0/1 nodes are available: 1 node(s) were unschedulable. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
    });
  });

  it.each<[string, StoredObject, string]>([
    [
      "tolerates an Equal taint",
      pod({ tolerations: [{ key: "k", operator: "Equal", value: "v", effect: "NoSchedule" }] }),
      "n0",
    ],
    ["tolerates with Exists and no effect", pod({ tolerations: [{ key: "k", operator: "Exists" }] }), "n0"],
    ["tolerates everything with an empty key", pod({ tolerations: [{ operator: "Exists" }] }), "n0"],
  ])("%s", (_name, p, want) => {
    const tainted = node("n0", { spec: { taints: [{ key: "k", value: "v", effect: "NoSchedule" }] } });
    expect(schedulePod(p, [free(tainted)])).toEqual({ node: want });
  });

  it("ignores PreferNoSchedule taints", () => {
    expect(
      schedulePod(pod(), [
        free(node("n0", { spec: { taints: [{ key: "k", effect: "PreferNoSchedule" }] } })),
      ]),
    ).toEqual({ node: "n0" });
  });

  it.each<[string, Record<string, unknown>, string | undefined]>([
    ["In", { key: "zone", operator: "In", values: ["b"] }, "n1"],
    ["NotIn", { key: "zone", operator: "NotIn", values: ["a"] }, "n1"],
    ["Exists", { key: "gpu", operator: "Exists" }, "n0"],
    ["DoesNotExist", { key: "gpu", operator: "DoesNotExist" }, "n1"],
    ["Gt", { key: "cores", operator: "Gt", values: ["8"] }, "n1"],
    ["Lt", { key: "cores", operator: "Lt", values: ["8"] }, "n0"],
  ])("required node affinity %s", (_name, expr, want) => {
    const nodes = [
      free(node("n0", { labels: { zone: "a", gpu: "1", cores: "4" } })),
      free(node("n1", { labels: { zone: "b", cores: "16" } })),
    ];
    const p = pod({
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [expr] }],
          },
        },
      },
    });
    expect(schedulePod(p, nodes)).toEqual({ node: want });
  });

  it("pins with matchFields on metadata.name (DaemonSet pods)", () => {
    const p = pod({
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchFields: [{ key: "metadata.name", operator: "In", values: ["n2"] }] }],
          },
        },
      },
    });
    expect(schedulePod(p, three.map(free))).toEqual({ node: "n2" });
  });

  it("prefers the least allocated node, counting default requests for pods without any", () => {
    const nodes = [used(three[0]!, {}, 3), used(three[1]!, {}, 1), used(three[2]!, {}, 2)];
    expect(schedulePod(pod(), nodes)).toEqual({ node: "n1" });
  });
});
