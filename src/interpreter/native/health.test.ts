import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../api/meta.ts";
import type { Health } from "../types.ts";
import { nativeInterpreter } from "./index.ts";

const obj = (
  apiVersion: string,
  kind: string,
  fields: { generation?: number; spec?: unknown; status?: unknown },
) => ({
  apiVersion,
  kind,
  metadata: { name: "x", ...(fields.generation !== undefined ? { generation: fields.generation } : {}) },
  ...(fields.spec !== undefined ? { spec: fields.spec } : {}),
  ...(fields.status !== undefined ? { status: fields.status } : {}),
});

const cases: Array<{ name: string; obj: KubeObject; want: Health | undefined }> = [
  // Deployment and StatefulSet share the rollout rule.
  ...(["Deployment", "StatefulSet"] as const).flatMap((kind) => [
    {
      name: `${kind}: rolled out`,
      obj: obj("apps/v1", kind, {
        generation: 2,
        spec: { replicas: 3 },
        status: { observedGeneration: 2, updatedReplicas: 3, availableReplicas: 3 },
      }),
      want: "Healthy" as const,
    },
    {
      name: `${kind}: controller has not seen the latest spec`,
      obj: obj("apps/v1", kind, {
        generation: 2,
        spec: { replicas: 3 },
        status: { observedGeneration: 1, updatedReplicas: 3, availableReplicas: 3 },
      }),
      want: "Unhealthy" as const,
    },
    {
      name: `${kind}: not every replica updated`,
      obj: obj("apps/v1", kind, {
        generation: 1,
        spec: { replicas: 3 },
        status: { observedGeneration: 1, updatedReplicas: 2, availableReplicas: 2 },
      }),
      want: "Unhealthy" as const,
    },
    {
      name: `${kind}: updated replicas not yet available`,
      obj: obj("apps/v1", kind, {
        generation: 1,
        spec: { replicas: 2 },
        status: { observedGeneration: 1, updatedReplicas: 2, availableReplicas: 1 },
      }),
      want: "Unhealthy" as const,
    },
    {
      name: `${kind}: no replicas field, only availability counts`,
      obj: obj("apps/v1", kind, { generation: 1, spec: {}, status: { observedGeneration: 1 } }),
      want: "Healthy" as const,
    },
    {
      name: `${kind}: scaled to zero`,
      obj: obj("apps/v1", kind, { generation: 3, spec: { replicas: 0 }, status: { observedGeneration: 3 } }),
      want: "Healthy" as const,
    },
    {
      name: `${kind}: no status yet`,
      obj: obj("apps/v1", kind, { generation: 1, spec: { replicas: 1 } }),
      want: "Unhealthy" as const,
    },
  ]),
  {
    name: "ReplicaSet: enough available",
    obj: obj("apps/v1", "ReplicaSet", {
      generation: 1,
      spec: { replicas: 2 },
      status: { observedGeneration: 1, availableReplicas: 2 },
    }),
    want: "Healthy",
  },
  {
    name: "ReplicaSet: too few available",
    obj: obj("apps/v1", "ReplicaSet", {
      generation: 1,
      spec: { replicas: 2 },
      status: { observedGeneration: 1, availableReplicas: 1 },
    }),
    want: "Unhealthy",
  },
  {
    name: "ReplicaSet: stale observation",
    obj: obj("apps/v1", "ReplicaSet", {
      generation: 2,
      spec: { replicas: 0 },
      status: { observedGeneration: 1 },
    }),
    want: "Unhealthy",
  },
  {
    name: "DaemonSet: every node updated and available",
    obj: obj("apps/v1", "DaemonSet", {
      generation: 1,
      status: {
        observedGeneration: 1,
        desiredNumberScheduled: 3,
        updatedNumberScheduled: 3,
        numberAvailable: 3,
      },
    }),
    want: "Healthy",
  },
  {
    name: "DaemonSet: rollout in progress",
    obj: obj("apps/v1", "DaemonSet", {
      generation: 1,
      status: {
        observedGeneration: 1,
        desiredNumberScheduled: 3,
        updatedNumberScheduled: 2,
        numberAvailable: 2,
      },
    }),
    want: "Unhealthy",
  },
  {
    name: "DaemonSet: updated pods not yet available",
    obj: obj("apps/v1", "DaemonSet", {
      generation: 1,
      status: {
        observedGeneration: 1,
        desiredNumberScheduled: 3,
        updatedNumberScheduled: 3,
        numberAvailable: 2,
      },
    }),
    want: "Unhealthy",
  },
  {
    name: "Service: ClusterIP is always healthy",
    obj: obj("v1", "Service", { spec: { type: "ClusterIP" } }),
    want: "Healthy",
  },
  {
    name: "Service: no type (defaulted ClusterIP)",
    obj: obj("v1", "Service", { spec: {} }),
    want: "Healthy",
  },
  {
    name: "Service: LoadBalancer with an IP",
    obj: obj("v1", "Service", {
      spec: { type: "LoadBalancer" },
      status: { loadBalancer: { ingress: [{ ip: "1.2.3.4" }] } },
    }),
    want: "Healthy",
  },
  {
    name: "Service: LoadBalancer with a hostname",
    obj: obj("v1", "Service", {
      spec: { type: "LoadBalancer" },
      status: { loadBalancer: { ingress: [{ ipMode: "VIP" }, { hostname: "lb.example.com" }] } },
    }),
    want: "Healthy",
  },
  {
    name: "Service: LoadBalancer still pending",
    obj: obj("v1", "Service", { spec: { type: "LoadBalancer" }, status: { loadBalancer: {} } }),
    want: "Unhealthy",
  },
  {
    name: "Ingress: with an address",
    obj: obj("networking.k8s.io/v1", "Ingress", {
      status: { loadBalancer: { ingress: [{ ip: "1.2.3.4" }] } },
    }),
    want: "Healthy",
  },
  {
    name: "Ingress: without an address",
    obj: obj("networking.k8s.io/v1", "Ingress", { status: { loadBalancer: { ingress: [{}] } } }),
    want: "Unhealthy",
  },
  {
    name: "PVC: Bound",
    obj: obj("v1", "PersistentVolumeClaim", { status: { phase: "Bound" } }),
    want: "Healthy",
  },
  {
    name: "PVC: Pending",
    obj: obj("v1", "PersistentVolumeClaim", { status: { phase: "Pending" } }),
    want: "Unhealthy",
  },
  { name: "Pod: Succeeded", obj: obj("v1", "Pod", { status: { phase: "Succeeded" } }), want: "Healthy" },
  {
    name: "Pod: Running and Ready",
    obj: obj("v1", "Pod", {
      status: {
        phase: "Running",
        conditions: [
          { type: "Initialized", status: "True" },
          { type: "Ready", status: "True" },
        ],
      },
    }),
    want: "Healthy",
  },
  {
    name: "Pod: Running, not Ready",
    obj: obj("v1", "Pod", { status: { phase: "Running", conditions: [{ type: "Ready", status: "False" }] } }),
    want: "Unhealthy",
  },
  {
    name: "Pod: Running without conditions",
    obj: obj("v1", "Pod", { status: { phase: "Running" } }),
    want: "Unhealthy",
  },
  {
    name: "Pod: Pending even if marked Ready",
    obj: obj("v1", "Pod", { status: { phase: "Pending", conditions: [{ type: "Ready", status: "True" }] } }),
    want: "Unhealthy",
  },
  {
    name: "PDB: enough healthy pods",
    obj: obj("policy/v1", "PodDisruptionBudget", { status: { currentHealthy: 2, desiredHealthy: 2 } }),
    want: "Healthy",
  },
  {
    name: "PDB: too few healthy pods",
    obj: obj("policy/v1", "PodDisruptionBudget", { status: { currentHealthy: 1, desiredHealthy: 2 } }),
    want: "Unhealthy",
  },
  { name: "Job: no hook", obj: obj("batch/v1", "Job", { status: {} }), want: undefined },
  { name: "ConfigMap: no hook", obj: obj("v1", "ConfigMap", {}), want: undefined },
  {
    name: "policy/v1beta1 PDB: no hook",
    obj: obj("policy/v1beta1", "PodDisruptionBudget", {}),
    want: undefined,
  },
];

describe("interpretHealth", () => {
  for (const { name, obj: input, want } of cases) {
    it(name, () => expect(nativeInterpreter.interpretHealth(input)).toBe(want));
  }
});
