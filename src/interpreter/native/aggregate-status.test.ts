import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../api/meta.ts";
import type { AggregatedStatusItem } from "../../karmada/types.ts";
import { nativeInterpreter } from "./index.ts";

const template = (
  apiVersion: string,
  kind: string,
  fields: { generation?: number; spec?: unknown; status?: unknown } = {},
): KubeObject => ({
  apiVersion,
  kind,
  metadata: {
    name: "t",
    namespace: "ns",
    ...(fields.generation !== undefined ? { generation: fields.generation } : {}),
  },
  ...(fields.spec !== undefined ? { spec: fields.spec } : {}),
  ...(fields.status !== undefined ? { status: fields.status } : {}),
});

const item = (clusterName: string, status?: Record<string, unknown>): AggregatedStatusItem =>
  status ? { clusterName, applied: true, status } : { clusterName, applied: false };

interface Case {
  name: string;
  template: KubeObject;
  items: AggregatedStatusItem[];
  /** The expected `.status`; undefined when the template keeps having none. */
  want: unknown;
}

function runCases(cases: Case[]): void {
  for (const c of cases) {
    it(c.name, () => {
      const [templateBefore, itemsBefore] = [structuredClone(c.template), structuredClone(c.items)];
      const got = nativeInterpreter.aggregateStatus(c.template, c.items);
      expect(got?.status).toEqual(c.want);
      // Everything but the status is the template's.
      expect({ ...got, status: undefined }).toEqual({ ...c.template, status: undefined });
      expect(got).not.toBe(c.template);
      expect(c.template).toEqual(templateBefore);
      expect(c.items).toEqual(itemsBefore);
    });
  }
}

const deploymentMember = {
  replicas: 1,
  readyReplicas: 1,
  updatedReplicas: 1,
  availableReplicas: 1,
  unavailableReplicas: 0,
};

describe("aggregate: Deployment", () => {
  const caughtUp = {
    ...deploymentMember,
    generation: 2,
    observedGeneration: 2,
    resourceTemplateGeneration: 3,
  };
  runCases([
    {
      name: "sums the members",
      template: template("apps/v1", "Deployment"),
      items: [item("member1", deploymentMember), item("member2", deploymentMember)],
      want: { replicas: 2, readyReplicas: 2, updatedReplicas: 2, availableReplicas: 2 },
    },
    {
      name: "already up to date",
      template: template("apps/v1", "Deployment", {
        status: { replicas: 2, readyReplicas: 2, updatedReplicas: 2, availableReplicas: 2 },
      }),
      items: [item("member1", deploymentMember), item("member2", deploymentMember)],
      want: { replicas: 2, readyReplicas: 2, updatedReplicas: 2, availableReplicas: 2 },
    },
    {
      name: "up to date with explicit zeros: the template is kept as it is",
      template: template("apps/v1", "Deployment", { status: { replicas: 0, unavailableReplicas: 0 } }),
      items: [],
      want: { replicas: 0, unavailableReplicas: 0 },
    },
    {
      name: "observedGeneration follows the template once every member caught up",
      template: template("apps/v1", "Deployment", {
        generation: 3,
        status: { observedGeneration: 2, conditions: [{ type: "Available", status: "True" }] },
      }),
      items: [item("member1", caughtUp), item("member2", caughtUp)],
      want: {
        observedGeneration: 3,
        conditions: [{ type: "Available", status: "True" }],
        replicas: 2,
        readyReplicas: 2,
        updatedReplicas: 2,
        availableReplicas: 2,
      },
    },
    {
      name: "a member built from an older template keeps the old observedGeneration",
      template: template("apps/v1", "Deployment", { generation: 3, status: { observedGeneration: 2 } }),
      items: [item("member1", caughtUp), item("member2", { ...caughtUp, resourceTemplateGeneration: 2 })],
      want: {
        observedGeneration: 2,
        replicas: 2,
        readyReplicas: 2,
        updatedReplicas: 2,
        availableReplicas: 2,
      },
    },
    {
      name: "a member that has not observed its own spec keeps the old observedGeneration",
      template: template("apps/v1", "Deployment", { generation: 3, status: { observedGeneration: 2 } }),
      items: [item("member1", caughtUp), item("member2", { ...caughtUp, observedGeneration: 1 })],
      want: {
        observedGeneration: 2,
        replicas: 2,
        readyReplicas: 2,
        updatedReplicas: 2,
        availableReplicas: 2,
      },
    },
    {
      name: "a member without status adds nothing but blocks observedGeneration",
      template: template("apps/v1", "Deployment", { generation: 3 }),
      items: [item("member1", caughtUp), item("member2")],
      want: { replicas: 1, readyReplicas: 1, updatedReplicas: 1, availableReplicas: 1 },
    },
    {
      name: "no items: every (zero) member caught up",
      template: template("apps/v1", "Deployment", {
        generation: 4,
        status: { replicas: 3, observedGeneration: 1 },
      }),
      items: [],
      want: { observedGeneration: 4 },
    },
  ]);
});

describe("aggregate: ReplicaSet, DaemonSet, StatefulSet", () => {
  runCases([
    {
      name: "ReplicaSet sums, replicas always present",
      template: template("apps/v1", "ReplicaSet", { generation: 1 }),
      items: [
        item("a", { replicas: 0, generation: 1, observedGeneration: 1, resourceTemplateGeneration: 1 }),
        item("b", {
          replicas: 0,
          readyReplicas: 0,
          generation: 1,
          observedGeneration: 1,
          resourceTemplateGeneration: 1,
        }),
      ],
      want: { observedGeneration: 1, replicas: 0 },
    },
    {
      name: "ReplicaSet with replicas",
      template: template("apps/v1", "ReplicaSet"),
      items: [
        item("a", { replicas: 2, readyReplicas: 2, availableReplicas: 1 }),
        item("b", { replicas: 1, readyReplicas: 1, availableReplicas: 1 }),
      ],
      want: { replicas: 3, readyReplicas: 3, availableReplicas: 2 },
    },
    {
      name: "DaemonSet sums its seven counters",
      template: template("apps/v1", "DaemonSet"),
      items: [
        item("a", {
          currentNumberScheduled: 1,
          numberMisscheduled: 0,
          desiredNumberScheduled: 1,
          numberReady: 1,
          updatedNumberScheduled: 1,
          numberAvailable: 1,
          numberUnavailable: 0,
        }),
        item("b", {
          currentNumberScheduled: 1,
          numberMisscheduled: 0,
          desiredNumberScheduled: 1,
          numberReady: 1,
          updatedNumberScheduled: 1,
          numberAvailable: 1,
          numberUnavailable: 0,
        }),
      ],
      want: {
        currentNumberScheduled: 2,
        numberMisscheduled: 0,
        desiredNumberScheduled: 2,
        numberReady: 2,
        updatedNumberScheduled: 2,
        numberAvailable: 2,
      },
    },
    {
      name: "DaemonSet observedGeneration with caught-up members",
      template: template("apps/v1", "DaemonSet", { generation: 2 }),
      items: [
        item("a", { generation: 5, observedGeneration: 5, resourceTemplateGeneration: 2, numberReady: 1 }),
      ],
      want: {
        observedGeneration: 2,
        currentNumberScheduled: 0,
        numberMisscheduled: 0,
        desiredNumberScheduled: 0,
        numberReady: 1,
      },
    },
    {
      name: "StatefulSet sums its five counters",
      template: template("apps/v1", "StatefulSet"),
      items: [
        item("a", {
          replicas: 1,
          readyReplicas: 1,
          currentReplicas: 1,
          updatedReplicas: 1,
          availableReplicas: 1,
        }),
        item("b", {
          replicas: 1,
          readyReplicas: 1,
          currentReplicas: 1,
          updatedReplicas: 1,
          availableReplicas: 1,
        }),
      ],
      want: { replicas: 2, readyReplicas: 2, currentReplicas: 2, updatedReplicas: 2, availableReplicas: 2 },
    },
    {
      name: "StatefulSet: members report no observedGeneration, so the template's stays",
      template: template("apps/v1", "StatefulSet", { generation: 2, status: { observedGeneration: 1 } }),
      items: [item("a", { generation: 2, resourceTemplateGeneration: 2, replicas: 1, availableReplicas: 1 })],
      want: { observedGeneration: 1, replicas: 1, availableReplicas: 1 },
    },
  ]);
});

describe("aggregate: Service and Ingress load balancers", () => {
  const lb = (...ingress: unknown[]) => ({ loadBalancer: { ingress } });
  runCases([
    ...(["ClusterIP", "NodePort", "ExternalName"] as const).map((type) => ({
      name: `${type} Service is left alone`,
      template: template("v1", "Service", { spec: { type } }),
      items: [item("member1", {})],
      want: undefined,
    })),
    {
      name: "LoadBalancer Service collects every member's ingress",
      template: template("v1", "Service", { spec: { type: "LoadBalancer" } }),
      items: [item("member1", lb({ ip: "8.8.8.8" }))],
      want: lb({ ip: "8.8.8.8" }),
    },
    {
      name: "LoadBalancer Service: deduplicated and sorted, hostnames first, ports merged",
      template: template("v1", "Service", {
        spec: { type: "LoadBalancer" },
        status: { conditions: [{ type: "Old" }] },
      }),
      items: [
        item("member1", lb({ ip: "10.0.0.2" }, { ip: "10.0.0.1", ports: [{ port: 443, protocol: "TCP" }] })),
        item("member2"),
        item(
          "member3",
          lb(
            { hostname: "b.example.com" },
            {
              ip: "10.0.0.1",
              ports: [
                { port: 80, protocol: "TCP" },
                { port: 443, protocol: "TCP" },
              ],
            },
            { ip: "10.0.0.1", ipMode: "Proxy" },
            { hostname: "a.example.com", ip: "10.0.0.9" },
          ),
        ),
      ],
      want: lb(
        { ip: "10.0.0.9", hostname: "a.example.com" },
        { hostname: "b.example.com" },
        { ip: "10.0.0.1", ipMode: "Proxy" },
        {
          ip: "10.0.0.1",
          ports: [
            { port: 80, protocol: "TCP" },
            { port: 443, protocol: "TCP" },
          ],
        },
        { ip: "10.0.0.2" },
      ),
    },
    {
      name: "LoadBalancer Service with no addresses anywhere",
      template: template("v1", "Service", { spec: { type: "LoadBalancer" }, status: lb({ ip: "1.1.1.1" }) }),
      items: [item("member1", { loadBalancer: {} })],
      want: { loadBalancer: {} },
    },
    {
      name: "Ingress collects every member's ingress",
      template: template("networking.k8s.io/v1", "Ingress"),
      items: [
        item("member1", lb({ ip: "8.8.8.8" })),
        item("member2", lb({ ip: "8.8.8.8" }, { hostname: "h" })),
      ],
      want: lb({ hostname: "h" }, { ip: "8.8.8.8" }),
    },
    {
      name: "Ingress: the IP mode is not part of an Ingress address",
      template: template("networking.k8s.io/v1", "Ingress"),
      items: [item("member1", lb({ ip: "1.1.1.1", ipMode: "VIP" }))],
      want: lb({ ip: "1.1.1.1" }),
    },
  ]);
});

describe("aggregate: CronJob", () => {
  const ref = (name: string) => ({ apiVersion: "batch/v1", kind: "Job", namespace: "ns", name });
  runCases([
    {
      name: "active Jobs concatenated, latest times kept",
      template: template("batch/v1", "CronJob", { status: { lastScheduleTime: "2020-01-01T00:00:00Z" } }),
      items: [
        item("a", {
          active: [ref("j-1")],
          lastScheduleTime: "2024-01-01T00:05:00Z",
          lastSuccessfulTime: "2024-01-01T00:01:00Z",
        }),
        item("b"),
        item("c", { active: [ref("j-2")], lastScheduleTime: "2024-01-01T00:10:00Z" }),
        item("d", { lastScheduleTime: "2024-01-01T00:01:00Z", lastSuccessfulTime: "2024-01-01T00:02:00Z" }),
      ],
      want: {
        active: [ref("j-1"), ref("j-2")],
        lastScheduleTime: "2024-01-01T00:10:00Z",
        lastSuccessfulTime: "2024-01-01T00:02:00Z",
      },
    },
    {
      name: "nothing reported clears the fields",
      template: template("batch/v1", "CronJob", {
        status: { active: [ref("old")], lastScheduleTime: "2020-01-01T00:00:00Z" },
      }),
      items: [item("a", {})],
      want: {},
    },
  ]);
});

describe("aggregate: Pod", () => {
  const running = {
    phase: "Running",
    podIP: "10.1.1.1",
    containerStatuses: [
      {
        name: "app",
        ready: true,
        restartCount: 3,
        image: "nginx",
        state: { running: { startedAt: "2024-01-01T00:00:00Z" } },
      },
    ],
    initContainerStatuses: [
      { name: "init", ready: false, state: { terminated: { exitCode: 0, reason: "Completed" } } },
    ],
  };
  runCases([
    {
      name: "Running everywhere; container statuses reduced to readiness and state",
      template: template("v1", "Pod", {
        status: { phase: "Pending", conditions: [{ type: "PodScheduled" }] },
      }),
      items: [item("a", running), item("b", running)],
      want: {
        phase: "Running",
        containerStatuses: [
          { ready: true, state: { running: { startedAt: "2024-01-01T00:00:00Z" } } },
          { ready: true, state: { running: { startedAt: "2024-01-01T00:00:00Z" } } },
        ],
        initContainerStatuses: [
          { ready: false, state: { terminated: { exitCode: 0, reason: "Completed" } } },
          { ready: false, state: { terminated: { exitCode: 0, reason: "Completed" } } },
        ],
      },
    },
    {
      name: "Failed beats everything",
      template: template("v1", "Pod"),
      items: [
        item("a", { phase: "Succeeded" }),
        item("b", { phase: "Failed" }),
        item("c", { phase: "Pending" }),
      ],
      want: { phase: "Failed" },
    },
    {
      name: "a member that has not reported counts as Pending",
      template: template("v1", "Pod"),
      items: [item("a", { phase: "Running" }), item("b")],
      want: { phase: "Pending" },
    },
    {
      name: "Running beats Succeeded",
      template: template("v1", "Pod"),
      items: [
        item("a", { phase: "Succeeded" }),
        item("b", { phase: "Running", containerStatuses: [{ name: "c" }] }),
      ],
      want: { phase: "Running", containerStatuses: [{ ready: false, state: {} }] },
    },
    {
      name: "Succeeded everywhere",
      template: template("v1", "Pod"),
      items: [item("a", { phase: "Succeeded" })],
      want: { phase: "Succeeded" },
    },
    {
      name: "Unknown alone yields no phase",
      template: template("v1", "Pod"),
      items: [item("a", { phase: "Unknown" })],
      want: {},
    },
    {
      name: "no items at all leaves the Pod alone",
      template: template("v1", "Pod", { status: { phase: "Pending" } }),
      items: [],
      want: { phase: "Pending" },
    },
  ]);
});

describe("aggregate: PersistentVolume and PersistentVolumeClaim", () => {
  runCases([
    {
      name: "PV: Failed first",
      template: template("v1", "PersistentVolume"),
      items: [item("a", { phase: "Bound" }), item("b", { phase: "Failed", message: "x" })],
      want: { phase: "Failed" },
    },
    {
      name: "PV: unreported counts as Pending",
      template: template("v1", "PersistentVolume"),
      items: [item("a", { phase: "Available" }), item("b")],
      want: { phase: "Pending" },
    },
    {
      name: "PV: Available before Bound before Released",
      template: template("v1", "PersistentVolume", { status: { phase: "Released", reason: "r" } }),
      items: [
        item("a", { phase: "Released" }),
        item("b", { phase: "Bound" }),
        item("c", { phase: "Available" }),
      ],
      want: { phase: "Available" },
    },
    {
      name: "PV: Bound before Released",
      template: template("v1", "PersistentVolume"),
      items: [item("a", { phase: "Released" }), item("b", { phase: "Bound" })],
      want: { phase: "Bound" },
    },
    {
      name: "PV: no items, no phase",
      template: template("v1", "PersistentVolume"),
      items: [],
      want: {},
    },
    {
      name: "PVC: Bound everywhere (other status fields are not kept)",
      template: template("v1", "PersistentVolumeClaim", {
        status: { phase: "Pending", capacity: { storage: "1Gi" } },
      }),
      items: [item("a", { phase: "Bound" }), item("b", { phase: "Bound" })],
      want: { phase: "Bound" },
    },
    {
      name: "PVC: the last non-Bound phase wins",
      template: template("v1", "PersistentVolumeClaim"),
      items: [item("a", { phase: "Pending" }), item("b", { phase: "Bound" })],
      want: { phase: "Pending" },
    },
    {
      name: "PVC: Lost wins outright",
      template: template("v1", "PersistentVolumeClaim"),
      items: [item("a", { phase: "Lost" }), item("b", { phase: "Pending" })],
      want: { phase: "Lost" },
    },
    {
      name: "PVC: unreported members do not count",
      template: template("v1", "PersistentVolumeClaim"),
      items: [item("a", { phase: "Bound" }), item("b")],
      want: { phase: "Bound" },
    },
    {
      name: "PVC: no items is Bound",
      template: template("v1", "PersistentVolumeClaim"),
      items: [],
      want: { phase: "Bound" },
    },
  ]);
});

describe("aggregate: PodDisruptionBudget and HorizontalPodAutoscaler", () => {
  runCases([
    {
      name: "PDB sums the budget; disrupted pods keyed by cluster",
      template: template("policy/v1", "PodDisruptionBudget", { status: { observedGeneration: 1 } }),
      items: [
        item("a", {
          currentHealthy: 2,
          desiredHealthy: 1,
          expectedPods: 2,
          disruptionsAllowed: 1,
          disruptedPods: { "p-1": "2024-01-01T00:00:00Z" },
        }),
        item("b", { currentHealthy: 1, desiredHealthy: 1, expectedPods: 1, disruptionsAllowed: 0 }),
        item("c"),
      ],
      want: {
        currentHealthy: 3,
        desiredHealthy: 2,
        expectedPods: 3,
        disruptionsAllowed: 1,
        disruptedPods: { "a/p-1": "2024-01-01T00:00:00Z" },
      },
    },
    {
      name: "PDB with nothing reported",
      template: template("policy/v1", "PodDisruptionBudget"),
      items: [],
      want: { currentHealthy: 0, desiredHealthy: 0, expectedPods: 0, disruptionsAllowed: 0 },
    },
    {
      name: "HPA sums current and desired replicas",
      template: template("autoscaling/v2", "HorizontalPodAutoscaler", {
        status: { currentReplicas: 1, desiredReplicas: 1, conditions: [{ type: "AbleToScale" }] },
      }),
      items: [
        item("a", { currentReplicas: 2, desiredReplicas: 3 }),
        item("b", { currentReplicas: 1, desiredReplicas: 1 }),
      ],
      want: { currentReplicas: 3, desiredReplicas: 4 },
    },
    {
      name: "HPA with nothing reported",
      template: template("autoscaling/v2", "HorizontalPodAutoscaler"),
      items: [item("a")],
      want: { desiredReplicas: 0 },
    },
  ]);
});

describe("aggregate: kinds without a hook", () => {
  it("answers undefined", () => {
    for (const [apiVersion, kind] of [
      ["v1", "ConfigMap"],
      ["v1", "Secret"],
      ["autoscaling/v1", "HorizontalPodAutoscaler"],
      ["apps/v1beta2", "Deployment"],
    ] as const) {
      expect(nativeInterpreter.aggregateStatus(template(apiVersion, kind), [item("a", {})])).toBeUndefined();
    }
  });
});
