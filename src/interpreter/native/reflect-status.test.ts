import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../api/meta.ts";
import { nativeInterpreter } from "./index.ts";
import { reflectNativeStatus, reflectWholeStatus, resourceTemplateGeneration } from "./reflect-status.ts";

const member = (
  apiVersion: string,
  kind: string,
  status: unknown,
  extra: { generation?: number; templateGeneration?: string; spec?: unknown } = {},
): KubeObject => ({
  apiVersion,
  kind,
  metadata: {
    name: "w",
    namespace: "ns",
    ...(extra.generation !== undefined ? { generation: extra.generation } : {}),
    annotations: { "resourcetemplate.karmada.io/generation": extra.templateGeneration ?? "1" },
  },
  ...(extra.spec !== undefined ? { spec: extra.spec } : {}),
  ...(status !== undefined ? { status } : {}),
});

interface Case {
  name: string;
  obj: KubeObject;
  want: Record<string, unknown> | null | undefined;
}

function runCases(cases: Case[]): void {
  for (const { name, obj, want } of cases) {
    it(name, () => {
      const before = structuredClone(obj);
      expect(reflectNativeStatus(obj)).toEqual(want);
      expect(obj).toEqual(before);
    });
  }
}

describe("reflect: workloads carry their federated generation", () => {
  runCases([
    {
      name: "Deployment",
      obj: member(
        "apps/v1",
        "Deployment",
        {
          replicas: 3,
          updatedReplicas: 3,
          readyReplicas: 2,
          availableReplicas: 2,
          unavailableReplicas: 1,
          observedGeneration: 4,
          conditions: [{ type: "Available", status: "True" }],
          collisionCount: 1,
        },
        { generation: 4, templateGeneration: "7" },
      ),
      want: {
        generation: 4,
        resourceTemplateGeneration: 7,
        replicas: 3,
        updatedReplicas: 3,
        readyReplicas: 2,
        availableReplicas: 2,
        unavailableReplicas: 1,
        observedGeneration: 4,
      },
    },
    {
      name: "Deployment: zero counters are left out",
      obj: member("apps/v1", "Deployment", { replicas: 1, readyReplicas: 0 }, { generation: 1 }),
      want: { generation: 1, resourceTemplateGeneration: 1, replicas: 1 },
    },
    {
      name: "Deployment: nothing to say yet is no status",
      obj: member("apps/v1", "Deployment", {}, { templateGeneration: "0" }),
      want: null,
    },
    { name: "Deployment without status", obj: member("apps/v1", "Deployment", undefined), want: null },
    {
      name: "ReplicaSet: replicas always present",
      obj: member(
        "apps/v1",
        "ReplicaSet",
        { replicas: 0, fullyLabeledReplicas: 0, observedGeneration: 2 },
        { generation: 2, templateGeneration: "3" },
      ),
      want: { generation: 2, resourceTemplateGeneration: 3, replicas: 0, observedGeneration: 2 },
    },
    {
      name: "StatefulSet: no observedGeneration; replicas and availableReplicas always present",
      obj: member(
        "apps/v1",
        "StatefulSet",
        { observedGeneration: 2, currentReplicas: 2, readyReplicas: 1, currentRevision: "r1" },
        { generation: 2 },
      ),
      want: {
        generation: 2,
        resourceTemplateGeneration: 1,
        replicas: 0,
        availableReplicas: 0,
        currentReplicas: 2,
        readyReplicas: 1,
      },
    },
    {
      name: "DaemonSet: scheduling counters always present",
      obj: member(
        "apps/v1",
        "DaemonSet",
        { numberAvailable: 2, updatedNumberScheduled: 2, observedGeneration: 1 },
        { generation: 1 },
      ),
      want: {
        generation: 1,
        resourceTemplateGeneration: 1,
        currentNumberScheduled: 0,
        numberMisscheduled: 0,
        desiredNumberScheduled: 0,
        numberReady: 0,
        numberAvailable: 2,
        updatedNumberScheduled: 2,
        observedGeneration: 1,
      },
    },
  ]);

  it("a missing or malformed template generation is an error", () => {
    const noAnnotation: KubeObject = { apiVersion: "apps/v1", kind: "Deployment", status: { replicas: 1 } };
    expect(() => reflectNativeStatus(noAnnotation)).toThrow(
      "failed to parse Deployment(/) generation from annotation(resourcetemplate.karmada.io/generation:)",
    );
    expect(() =>
      reflectNativeStatus(member("apps/v1", "ReplicaSet", {}, { templateGeneration: "invalid" })),
    ).toThrow(/generation from annotation/);
  });

  it("parses the template generation like strconv.ParseInt", () => {
    const withGeneration = (v: string): KubeObject =>
      member("apps/v1", "Deployment", {}, { templateGeneration: v });
    expect(resourceTemplateGeneration(withGeneration("12"))).toBe(12);
    expect(resourceTemplateGeneration(withGeneration("+3"))).toBe(3);
    expect(() => resourceTemplateGeneration(withGeneration("1.5"))).toThrow();
    expect(() => resourceTemplateGeneration(withGeneration(" 1"))).toThrow();
  });
});

describe("reflect: other specialised kinds", () => {
  const lb = { loadBalancer: { ingress: [{ ip: "8.8.8.8", ports: [{ port: 80, protocol: "TCP" }] }] } };
  runCases([
    {
      name: "LoadBalancer Service: its load balancer status only",
      obj: member(
        "v1",
        "Service",
        { ...lb, conditions: [{ type: "x" }] },
        { spec: { type: "LoadBalancer" } },
      ),
      want: lb,
    },
    {
      name: "LoadBalancer Service without an address yet",
      obj: member("v1", "Service", {}, { spec: { type: "LoadBalancer" } }),
      want: { loadBalancer: {} },
    },
    {
      name: "ClusterIP Service: nothing to record",
      obj: member("v1", "Service", { loadBalancer: {} }, { spec: { type: "ClusterIP" } }),
      want: null,
    },
    { name: "Service without a type", obj: member("v1", "Service", {}), want: null },
    {
      name: "Ingress: the whole status",
      obj: member("networking.k8s.io/v1", "Ingress", lb),
      want: lb,
    },
    {
      name: "Job",
      obj: member("batch/v1", "Job", {
        active: 1,
        succeeded: 2,
        failed: 0,
        ready: 1,
        terminating: 0,
        startTime: "2024-01-01T00:00:00Z",
        conditions: [{ type: "SuccessCriteriaMet", status: "False" }],
        uncountedTerminatedPods: {},
      }),
      want: {
        active: 1,
        succeeded: 2,
        startTime: "2024-01-01T00:00:00Z",
        conditions: [{ type: "SuccessCriteriaMet", status: "False" }],
      },
    },
    {
      name: "Job with a completion time",
      obj: member("batch/v1", "Job", {
        succeeded: 1,
        startTime: "2024-01-01T00:00:00Z",
        completionTime: "2024-01-01T00:01:00Z",
        conditions: [],
      }),
      want: { succeeded: 1, startTime: "2024-01-01T00:00:00Z", completionTime: "2024-01-01T00:01:00Z" },
    },
    {
      name: "PodDisruptionBudget: budget counters always present",
      obj: member("policy/v1", "PodDisruptionBudget", {
        currentHealthy: 2,
        desiredHealthy: 1,
        observedGeneration: 1,
        disruptedPods: { "p-1": "2024-01-01T00:00:00Z" },
        conditions: [{ type: "DisruptionAllowed" }],
      }),
      want: {
        disruptionsAllowed: 0,
        expectedPods: 0,
        currentHealthy: 2,
        desiredHealthy: 1,
        disruptedPods: { "p-1": "2024-01-01T00:00:00Z" },
      },
    },
    {
      name: "HorizontalPodAutoscaler v2: replica counts",
      obj: member("autoscaling/v2", "HorizontalPodAutoscaler", {
        currentReplicas: 0,
        desiredReplicas: 0,
        currentMetrics: [{ type: "Resource" }],
      }),
      want: { desiredReplicas: 0 },
    },
    { name: "Job without status", obj: member("batch/v1", "Job", undefined), want: null },
    {
      name: "other kinds have no specialised reflector",
      obj: member("v1", "Pod", { phase: "Running" }),
      want: undefined,
    },
    {
      name: "autoscaling/v1 HPA has none either",
      obj: member("autoscaling/v1", "HorizontalPodAutoscaler", { currentReplicas: 1 }),
      want: undefined,
    },
  ]);
});

describe("reflectStatus through the interpreter", () => {
  it("answers undefined for no hook and null for nothing to record", () => {
    expect(nativeInterpreter.reflectStatus(member("v1", "ConfigMap", undefined))).toBeUndefined();
    expect(
      nativeInterpreter.reflectStatus(member("v1", "Service", {}, { spec: { type: "NodePort" } })),
    ).toBeNull();
    expect(nativeInterpreter.reflectStatus(member("autoscaling/v2", "HorizontalPodAutoscaler", {}))).toEqual({
      desiredReplicas: 0,
    });
  });

  it("the whole status for kinds without a reflector", () => {
    expect(reflectWholeStatus(member("v1", "Pod", { phase: "Running" }))).toEqual({ phase: "Running" });
    expect(reflectWholeStatus(member("v1", "ConfigMap", undefined))).toBeNull();
  });
});
