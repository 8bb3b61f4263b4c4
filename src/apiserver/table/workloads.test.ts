import { describe, expect, it } from "vitest";
import { ago, cells, DAY, HOUR, header, MINUTE, SECOND } from "./table.fixtures.ts";

const template = {
  metadata: { labels: { app: "web" } },
  spec: {
    containers: [
      { name: "nginx", image: "nginx:1.25" },
      { name: "exporter", image: "nginx/nginx-prometheus-exporter:1.1" },
    ],
  },
};

describe("Deployment", () => {
  it("3/3 ready with wide containers, images and selector", () => {
    expect(header("apps/Deployment")).toEqual([
      "Name",
      "Ready",
      "Up-to-date",
      "Available",
      "Age",
      "Containers*",
      "Images*",
      "Selector*",
    ]);
    const deploy = {
      metadata: { name: "web", namespace: "default", creationTimestamp: ago(5 * DAY) },
      spec: {
        replicas: 3,
        selector: {
          matchLabels: { app: "web" },
          matchExpressions: [{ key: "env", operator: "In", values: ["prod", "canary"] }],
        },
        template,
      },
      status: { replicas: 3, readyReplicas: 3, updatedReplicas: 3, availableReplicas: 3 },
    };
    expect(cells("apps/Deployment", deploy)).toEqual([
      "web",
      "3/3",
      3,
      3,
      "5d",
      "nginx,exporter",
      "nginx:1.25,nginx/nginx-prometheus-exporter:1.1",
      "app=web,env in (canary,prod)",
    ]);
  });

  it("a fresh deployment: replicas default to 1, empty selector is empty", () => {
    const deploy = { metadata: { name: "new", creationTimestamp: ago(4 * SECOND) }, spec: { template } };
    expect(cells("apps/Deployment", deploy).slice(0, 5)).toEqual(["new", "0/1", 0, 0, "4s"]);
    expect(cells("apps/Deployment", deploy)[7]).toBe("");
  });
});

describe("ReplicaSet, StatefulSet, DaemonSet, ControllerRevision", () => {
  it("ReplicaSet", () => {
    expect(header("apps/ReplicaSet")).toEqual([
      "Name",
      "Desired",
      "Current",
      "Ready",
      "Age",
      "Containers*",
      "Images*",
      "Selector*",
    ]);
    const rs = {
      metadata: { name: "web-6d4b9c", creationTimestamp: ago(5 * DAY) },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: "web", "pod-template-hash": "6d4b9c" } },
        template,
      },
      status: { replicas: 3, readyReplicas: 2 },
    };
    expect(cells("apps/ReplicaSet", rs)).toEqual([
      "web-6d4b9c",
      3,
      3,
      2,
      "5d",
      "nginx,exporter",
      "nginx:1.25,nginx/nginx-prometheus-exporter:1.1",
      "app=web,pod-template-hash=6d4b9c",
    ]);
    const scaledDown = { ...rs, spec: { ...rs.spec, replicas: 0, selector: {} }, status: {} };
    expect(cells("apps/ReplicaSet", scaledDown).slice(1, 4)).toEqual([0, 0, 0]);
    expect(cells("apps/ReplicaSet", scaledDown)[7]).toBe("<none>");
  });

  it("StatefulSet", () => {
    expect(header("apps/StatefulSet")).toEqual(["Name", "Ready", "Age", "Containers*", "Images*"]);
    const sts = {
      metadata: { name: "etcd", creationTimestamp: ago(3 * HOUR) },
      spec: {
        replicas: 3,
        template: { spec: { containers: [{ name: "etcd", image: "registry.k8s.io/etcd:3.5.16-0" }] } },
      },
      status: { replicas: 3, readyReplicas: 2 },
    };
    expect(cells("apps/StatefulSet", sts)).toEqual([
      "etcd",
      "2/3",
      "3h",
      "etcd",
      "registry.k8s.io/etcd:3.5.16-0",
    ]);
  });

  it("DaemonSet", () => {
    expect(header("apps/DaemonSet")).toEqual([
      "Name",
      "Desired",
      "Current",
      "Ready",
      "Up-to-date",
      "Available",
      "Node Selector",
      "Age",
      "Containers*",
      "Images*",
      "Selector*",
    ]);
    const ds = {
      metadata: { name: "kube-proxy", namespace: "kube-system", creationTimestamp: ago(40 * DAY) },
      spec: {
        selector: { matchLabels: { "k8s-app": "kube-proxy" } },
        template: {
          spec: {
            nodeSelector: { "kubernetes.io/os": "linux" },
            containers: [{ name: "kube-proxy", image: "registry.k8s.io/kube-proxy:v1.32.2" }],
          },
        },
      },
      status: {
        desiredNumberScheduled: 3,
        currentNumberScheduled: 3,
        numberReady: 3,
        updatedNumberScheduled: 3,
        numberAvailable: 3,
      },
    };
    expect(cells("apps/DaemonSet", ds)).toEqual([
      "kube-proxy",
      3,
      3,
      3,
      3,
      3,
      "kubernetes.io/os=linux",
      "40d",
      "kube-proxy",
      "registry.k8s.io/kube-proxy:v1.32.2",
      "k8s-app=kube-proxy",
    ]);
  });

  it("ControllerRevision names its controller with kind and group", () => {
    const revision = {
      metadata: {
        name: "etcd-5f6b7c",
        creationTimestamp: ago(3 * HOUR),
        ownerReferences: [
          { apiVersion: "apps/v1", kind: "StatefulSet", name: "etcd", controller: true, uid: "u" },
        ],
      },
      revision: 2,
    };
    expect(cells("apps/ControllerRevision", revision)).toEqual([
      "etcd-5f6b7c",
      "statefulset.apps/etcd",
      2,
      "3h",
    ]);
  });
});

describe("Job", () => {
  it("a complete job with completions and duration", () => {
    expect(header("batch/Job")).toEqual([
      "Name",
      "Status",
      "Completions",
      "Duration",
      "Age",
      "Containers*",
      "Images*",
      "Selector*",
    ]);
    const job = {
      metadata: { name: "pi", namespace: "default", creationTimestamp: ago(10 * MINUTE) },
      spec: {
        completions: 5,
        parallelism: 2,
        selector: { matchLabels: { "batch.kubernetes.io/controller-uid": "7e2c" } },
        template: { spec: { containers: [{ name: "pi", image: "perl:5.34.0" }] } },
      },
      status: {
        succeeded: 5,
        startTime: ago(10 * MINUTE),
        completionTime: ago(10 * MINUTE - 42 * SECOND),
        conditions: [
          { type: "SuccessCriteriaMet", status: "True" },
          { type: "Complete", status: "True" },
        ],
      },
    };
    expect(cells("batch/Job", job)).toEqual([
      "pi",
      "Complete",
      "5/5",
      "42s",
      "10m",
      "pi",
      "perl:5.34.0",
      "batch.kubernetes.io/controller-uid=7e2c",
    ]);
  });

  it("running, parallel without completions, failed, suspended, terminating", () => {
    const base = {
      metadata: { name: "j", creationTimestamp: ago(3 * MINUTE) },
      spec: { template: { spec: { containers: [] } } },
    };
    const runningJob = { ...base, status: { active: 1, startTime: ago(3 * MINUTE + 5 * SECOND) } };
    expect(cells("batch/Job", runningJob).slice(1, 4)).toEqual(["Running", "0/1", "3m5s"]);
    const parallel = { ...base, spec: { ...base.spec, parallelism: 3 }, status: { succeeded: 1 } };
    expect(cells("batch/Job", parallel).slice(1, 4)).toEqual(["Running", "1/1 of 3", ""]);
    const failed = {
      ...base,
      status: {
        conditions: [
          { type: "FailureTarget", status: "True" },
          { type: "Failed", status: "True" },
        ],
      },
    };
    expect(cells("batch/Job", failed)[1]).toBe("Failed");
    const suspended = { ...base, status: { conditions: [{ type: "Suspended", status: "True" }] } };
    expect(cells("batch/Job", suspended)[1]).toBe("Suspended");
    const terminating = {
      ...base,
      metadata: { ...base.metadata, deletionTimestamp: ago(SECOND) },
      status: {},
    };
    expect(cells("batch/Job", terminating)[1]).toBe("Terminating");
  });
});

describe("CronJob", () => {
  it("with a last schedule and time zone", () => {
    expect(header("batch/CronJob")).toEqual([
      "Name",
      "Schedule",
      "Timezone",
      "Suspend",
      "Active",
      "Last Schedule",
      "Age",
      "Containers*",
      "Images*",
      "Selector*",
    ]);
    const cronJob = {
      metadata: { name: "backup", creationTimestamp: ago(30 * DAY) },
      spec: {
        schedule: "*/15 * * * *",
        timeZone: "Europe/Berlin",
        suspend: false,
        jobTemplate: {
          spec: { template: { spec: { containers: [{ name: "backup", image: "restic/restic:0.17" }] } } },
        },
      },
      status: { active: [{ kind: "Job", name: "backup-28640610" }], lastScheduleTime: ago(7 * MINUTE) },
    };
    expect(cells("batch/CronJob", cronJob)).toEqual([
      "backup",
      "*/15 * * * *",
      "Europe/Berlin",
      "False",
      1,
      "7m",
      "30d",
      "backup",
      "restic/restic:0.17",
      "<none>",
    ]);
  });

  it("never scheduled, suspended, no time zone", () => {
    const cronJob = {
      metadata: { name: "n", creationTimestamp: ago(MINUTE) },
      spec: { schedule: "@daily", suspend: true, jobTemplate: { spec: {} } },
    };
    expect(cells("batch/CronJob", cronJob).slice(0, 7)).toEqual([
      "n",
      "@daily",
      "<none>",
      "True",
      0,
      "<none>",
      "60s",
    ]);
  });
});

describe("HorizontalPodAutoscaler", () => {
  it("v2 metrics as current/target", () => {
    expect(header("autoscaling/HorizontalPodAutoscaler")).toEqual([
      "Name",
      "Reference",
      "Targets",
      "MinPods",
      "MaxPods",
      "Replicas",
      "Age",
    ]);
    const hpa = {
      apiVersion: "autoscaling/v2",
      metadata: { name: "web", creationTimestamp: ago(2 * HOUR) },
      spec: {
        scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
        minReplicas: 2,
        maxReplicas: 10,
        metrics: [
          {
            type: "Resource",
            resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } },
          },
          {
            type: "Resource",
            resource: { name: "memory", target: { type: "AverageValue", averageValue: "200Mi" } },
          },
          {
            type: "Pods",
            pods: { metric: { name: "rps" }, target: { type: "AverageValue", averageValue: "1k" } },
          },
        ],
      },
      status: {
        currentReplicas: 3,
        currentMetrics: [
          {
            type: "Resource",
            resource: { name: "cpu", current: { averageUtilization: 45, averageValue: "230m" } },
          },
          { type: "Resource", resource: { name: "memory", current: { averageValue: "120Mi" } } },
        ],
      },
    };
    expect(cells("autoscaling/HorizontalPodAutoscaler", hpa)).toEqual([
      "web",
      "Deployment/web",
      "cpu: 45%/80%, memory: 120Mi/200Mi + 1 more...",
      "2",
      10,
      3,
      "120m",
    ]);
  });

  it("unknown current values, external and object metrics, defaults", () => {
    const hpa = {
      metadata: { name: "q", creationTimestamp: ago(MINUTE) },
      spec: {
        scaleTargetRef: { kind: "Deployment", name: "worker" },
        maxReplicas: 5,
        metrics: [
          {
            type: "External",
            external: { metric: { name: "queue" }, target: { type: "AverageValue", averageValue: "30" } },
          },
          { type: "Object", object: { metric: { name: "hits" }, target: { type: "Value", value: "10k" } } },
        ],
      },
    };
    expect(cells("autoscaling/HorizontalPodAutoscaler", hpa).slice(2, 6)).toEqual([
      "<unknown>/30 (avg), <unknown>/10k",
      "1",
      5,
      0,
    ]);
    const bare = {
      metadata: { name: "b" },
      spec: { scaleTargetRef: { kind: "Deployment", name: "b" }, maxReplicas: 3 },
    };
    expect(cells("autoscaling/HorizontalPodAutoscaler", bare)[2]).toBe("cpu: <unknown>/80%");
    const v1 = {
      apiVersion: "autoscaling/v1",
      metadata: { name: "v1" },
      spec: {
        scaleTargetRef: { kind: "Deployment", name: "v1" },
        maxReplicas: 3,
        targetCPUUtilizationPercentage: 50,
      },
      status: { currentCPUUtilizationPercentage: 12 },
    };
    expect(cells("autoscaling/HorizontalPodAutoscaler", v1)[2]).toBe("cpu: 12%/50%");
  });
});

describe("PodDisruptionBudget and PriorityClass", () => {
  it("PodDisruptionBudget", () => {
    expect(header("policy/PodDisruptionBudget")).toEqual([
      "Name",
      "Min Available",
      "Max Unavailable",
      "Allowed Disruptions",
      "Age",
    ]);
    const pdb = {
      metadata: { name: "web", creationTimestamp: ago(DAY) },
      spec: { minAvailable: 2 },
      status: { disruptionsAllowed: 1 },
    };
    expect(cells("policy/PodDisruptionBudget", pdb)).toEqual(["web", "2", "N/A", 1, "24h"]);
    const pct = { metadata: { name: "p", creationTimestamp: ago(DAY) }, spec: { maxUnavailable: "25%" } };
    expect(cells("policy/PodDisruptionBudget", pct).slice(1, 4)).toEqual(["N/A", "25%", 0]);
  });

  it("PriorityClass", () => {
    expect(header("scheduling.k8s.io/PriorityClass")).toEqual([
      "Name",
      "Value",
      "Global-Default",
      "Age",
      "PreemptionPolicy",
    ]);
    const pc = {
      metadata: { name: "system-cluster-critical", creationTimestamp: ago(100 * DAY) },
      value: 2000000000,
    };
    expect(cells("scheduling.k8s.io/PriorityClass", pc)).toEqual([
      "system-cluster-critical",
      2000000000,
      false,
      "100d",
      "PreemptLowerPriority",
    ]);
  });
});
