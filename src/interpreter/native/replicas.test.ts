import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../api/meta.ts";
import { createNativeInterpreter, nativeInterpreter } from "./index.ts";

const podSpec = {
  nodeSelector: { foo: "foo1" },
  tolerations: [{ key: "foo", operator: "Exists", effect: "NoSchedule" }],
  affinity: {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [{ matchFields: [{ key: "foo", operator: "Exists" }] }],
      },
    },
  },
  priorityClassName: "high",
  containers: [{ name: "c", resources: { requests: { cpu: "250m", memory: "64Mi" } } }],
};
const requirements = {
  nodeClaim: {
    nodeSelector: { foo: "foo1" },
    tolerations: [{ key: "foo", operator: "Exists", effect: "NoSchedule" }],
    hardNodeAffinity: { nodeSelectorTerms: [{ matchFields: [{ key: "foo", operator: "Exists" }] }] },
  },
  resourceRequest: { cpu: "250m", memory: "64Mi" },
};

const workload = (apiVersion: string, kind: string, spec: Record<string, unknown>): KubeObject => ({
  apiVersion,
  kind,
  metadata: { name: "w", namespace: "ns" },
  spec: { ...spec, template: { spec: podSpec } },
});

describe("getReplicas", () => {
  const cases: Array<{ name: string; obj: KubeObject; want: number }> = [
    { name: "Deployment", obj: workload("apps/v1", "Deployment", { replicas: 2 }), want: 2 },
    { name: "Deployment without replicas counts 0", obj: workload("apps/v1", "Deployment", {}), want: 0 },
    {
      name: "Deployment with zero replicas",
      obj: workload("apps/v1", "Deployment", { replicas: 0 }),
      want: 0,
    },
    { name: "ReplicaSet", obj: workload("apps/v1", "ReplicaSet", { replicas: 3 }), want: 3 },
    { name: "StatefulSet", obj: workload("apps/v1", "StatefulSet", { replicas: 5 }), want: 5 },
    {
      name: "Job: completions cap parallelism",
      obj: workload("batch/v1", "Job", { parallelism: 3, completions: 2 }),
      want: 2,
    },
    {
      name: "Job: parallelism below completions",
      obj: workload("batch/v1", "Job", { parallelism: 2, completions: 10 }),
      want: 2,
    },
    { name: "Job without completions", obj: workload("batch/v1", "Job", { parallelism: 4 }), want: 4 },
    { name: "Job without parallelism", obj: workload("batch/v1", "Job", { completions: 4 }), want: 0 },
  ];
  for (const { name, obj, want } of cases) {
    it(name, () => expect(nativeInterpreter.getReplicas(obj)).toEqual({ replicas: want, requirements }));
  }

  it("Pod: one replica, requirements from its own spec", () => {
    const pod: KubeObject = { apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec: podSpec };
    expect(nativeInterpreter.getReplicas(pod)).toEqual({ replicas: 1, requirements });
  });

  it("no requirements key when the template constrains nothing", () => {
    const deploy: KubeObject = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      spec: { replicas: 1, template: { spec: { containers: [{ name: "c" }] } } },
    };
    expect(nativeInterpreter.getReplicas(deploy)).toEqual({ replicas: 1 });
  });

  it("priorityClassName with the ResourceQuotaEstimate gate", () => {
    const gated = createNativeInterpreter({ resourceQuotaEstimate: true });
    expect(gated.getReplicas(workload("apps/v1", "Deployment", { replicas: 1 }))?.requirements).toEqual({
      ...requirements,
      priorityClassName: "high",
    });
  });

  it("no hook for other kinds or other versions", () => {
    for (const [apiVersion, kind] of [
      ["apps/v1", "DaemonSet"],
      ["batch/v1", "CronJob"],
      ["extensions/v1beta1", "Deployment"],
      ["v1", "ConfigMap"],
    ] as const) {
      expect(nativeInterpreter.getReplicas(workload(apiVersion, kind, { replicas: 1 }))).toBeUndefined();
    }
  });
});

describe("reviseReplica", () => {
  const cases: Array<{ name: string; obj: KubeObject; want: Record<string, unknown> }> = [
    {
      name: "Deployment",
      obj: { apiVersion: "apps/v1", kind: "Deployment", spec: { replicas: 3, paused: false } },
      want: { replicas: 1, paused: false },
    },
    {
      name: "ReplicaSet",
      obj: { apiVersion: "apps/v1", kind: "ReplicaSet", spec: { replicas: 3 } },
      want: { replicas: 1 },
    },
    {
      name: "StatefulSet",
      obj: { apiVersion: "apps/v1", kind: "StatefulSet", spec: { replicas: 0 } },
      want: { replicas: 1 },
    },
    {
      name: "Job sets parallelism, not completions",
      obj: { apiVersion: "batch/v1", kind: "Job", spec: { parallelism: 3, completions: 6 } },
      want: { parallelism: 1, completions: 6 },
    },
    {
      name: "a template without the field is left as it is",
      obj: { apiVersion: "apps/v1", kind: "Deployment", spec: { paused: true } },
      want: { paused: true },
    },
    {
      name: "Job without parallelism",
      obj: { apiVersion: "batch/v1", kind: "Job", spec: { completions: 6 } },
      want: { completions: 6 },
    },
  ];
  for (const { name, obj, want } of cases) {
    it(name, () => {
      const before = structuredClone(obj);
      expect(nativeInterpreter.reviseReplica(obj, 1)?.spec).toEqual(want);
      expect(obj).toEqual(before);
    });
  }

  it("no hook for Pods or DaemonSets", () => {
    expect(nativeInterpreter.reviseReplica({ apiVersion: "v1", kind: "Pod" }, 1)).toBeUndefined();
    expect(nativeInterpreter.reviseReplica({ apiVersion: "apps/v1", kind: "DaemonSet" }, 1)).toBeUndefined();
  });
});
