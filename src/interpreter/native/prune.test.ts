import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../api/meta.ts";
import { prune } from "./prune.ts";

describe("prune", () => {
  const cases: Array<{ name: string; input: KubeObject; want: KubeObject }> = [
    {
      name: "drops what the API server populated, and the status",
      input: {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: {
          name: "cm",
          namespace: "default",
          labels: { app: "x" },
          annotations: { note: "kept" },
          creationTimestamp: "2023-03-13T05:00:41Z",
          deletionTimestamp: "2023-03-13T06:00:41Z",
          deletionGracePeriodSeconds: 10,
          generation: 2,
          managedFields: [{ apiVersion: "v1", fieldsType: "FieldsV1", manager: "name", operation: "Apply" }],
          resourceVersion: "22222",
          selfLink: "http://example.com",
          uid: "db56a4a6-0dff-465a-b046-2c1dea42a42b",
          ownerReferences: [{ apiVersion: "v1", kind: "Pod", name: "foo", uid: "fb11" }],
          finalizers: ["foregroundDeletion"],
        },
        data: { a: "b" },
        status: {},
      },
      want: {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "cm", namespace: "default", labels: { app: "x" }, annotations: { note: "kept" } },
        data: { a: "b" },
      },
    },
    {
      name: "Service: allocated cluster IPs go",
      input: {
        apiVersion: "v1",
        kind: "Service",
        spec: { clusterIP: "10.10.10.10", clusterIPs: ["10.10.10.10"], ports: [{ port: 80 }] },
      },
      want: { apiVersion: "v1", kind: "Service", spec: { ports: [{ port: 80 }] } },
    },
    {
      name: "Service: a headless Service keeps None",
      input: { apiVersion: "v1", kind: "Service", spec: { clusterIP: "None", clusterIPs: ["None"] } },
      want: { apiVersion: "v1", kind: "Service", spec: { clusterIP: "None", clusterIPs: ["None"] } },
    },
    {
      name: "Service: clusterIPs alone are left (only clusterIP decides)",
      input: { apiVersion: "v1", kind: "Service", spec: { clusterIPs: ["10.0.0.1"] } },
      want: { apiVersion: "v1", kind: "Service", spec: { clusterIPs: ["10.0.0.1"] } },
    },
    {
      name: "Job: generated selector labels and the TTL go",
      input: {
        apiVersion: "batch/v1",
        kind: "Job",
        spec: {
          selector: {
            matchLabels: {
              foo: "bar",
              "controller-uid": "ab11",
              "batch.kubernetes.io/controller-uid": "ab11",
            },
          },
          template: {
            metadata: {
              labels: {
                "controller-uid": "ab11",
                "job-name": "test-job",
                "batch.kubernetes.io/controller-uid": "ab11",
                "batch.kubernetes.io/job-name": "test-job",
                foo: "bar",
              },
            },
          },
          ttlSecondsAfterFinished: 10,
        },
      },
      want: {
        apiVersion: "batch/v1",
        kind: "Job",
        spec: {
          selector: { matchLabels: { foo: "bar" } },
          template: { metadata: { labels: { foo: "bar" } } },
        },
      },
    },
    {
      name: "Job: a manual selector is the user's, the TTL still goes",
      input: {
        apiVersion: "batch/v1",
        kind: "Job",
        spec: {
          manualSelector: true,
          selector: { matchLabels: { "controller-uid": "mine" } },
          template: { metadata: { labels: { "controller-uid": "mine", "job-name": "j" } } },
          ttlSecondsAfterFinished: 10,
        },
      },
      want: {
        apiVersion: "batch/v1",
        kind: "Job",
        spec: {
          manualSelector: true,
          selector: { matchLabels: { "controller-uid": "mine" } },
          template: { metadata: { labels: { "controller-uid": "mine", "job-name": "j" } } },
        },
      },
    },
    {
      name: "ServiceAccount: generated <sa>-token-* secrets go, others stay",
      input: {
        apiVersion: "v1",
        kind: "ServiceAccount",
        metadata: { name: "foo" },
        secrets: [
          { name: "foo-token-6pgxf" },
          { name: "foo-token-abcde" },
          { name: "foo-dockercfg-zdr2j" },
          { name: "bar-token-xyz" },
        ],
      },
      want: {
        apiVersion: "v1",
        kind: "ServiceAccount",
        metadata: { name: "foo" },
        secrets: [{ name: "foo-dockercfg-zdr2j" }, { name: "bar-token-xyz" }],
      },
    },
    {
      name: "Secret: a service-account token loses its SA uid and data",
      input: {
        apiVersion: "v1",
        kind: "Secret",
        metadata: {
          name: "t",
          annotations: {
            "kubernetes.io/service-account.uid": "123",
            "kubernetes.io/service-account.name": "sa",
          },
        },
        type: "kubernetes.io/service-account-token",
        data: { token: "abc" },
      },
      want: {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "t", annotations: { "kubernetes.io/service-account.name": "sa" } },
        type: "kubernetes.io/service-account-token",
        data: null,
      },
    },
    {
      name: "Secret: other types keep their data",
      input: {
        apiVersion: "v1",
        kind: "Secret",
        type: "kubernetes.io/basic-auth",
        data: { username: "Zm9v", password: "YmFy" },
      },
      want: {
        apiVersion: "v1",
        kind: "Secret",
        type: "kubernetes.io/basic-auth",
        data: { username: "Zm9v", password: "YmFy" },
      },
    },
    {
      name: "PVC: the selected-node annotation goes",
      input: {
        apiVersion: "v1",
        kind: "PersistentVolumeClaim",
        metadata: { annotations: { "volume.kubernetes.io/selected-node": "node1", keep: "me" } },
      },
      want: { apiVersion: "v1", kind: "PersistentVolumeClaim", metadata: { annotations: { keep: "me" } } },
    },
    {
      name: "Deployment: revision annotations go",
      input: {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: {
          annotations: {
            "deployment.kubernetes.io/revision": "1",
            "deployment.kubernetes.io/revision-history": "1,2",
            other: "x",
          },
        },
      },
      want: { apiVersion: "apps/v1", kind: "Deployment", metadata: { annotations: { other: "x" } } },
    },
  ];
  for (const { name, input, want } of cases) {
    it(name, () => {
      const before = structuredClone(input);
      expect(prune(input)).toEqual(want);
      expect(input).toEqual(before);
    });
  }

  it("keeps a Job's TTL when asked (karmadactl promote)", () => {
    const job: KubeObject = { apiVersion: "batch/v1", kind: "Job", spec: { ttlSecondsAfterFinished: 5 } };
    expect(prune(job, { keepJobTtlSecondsAfterFinished: true }).spec).toEqual({ ttlSecondsAfterFinished: 5 });
  });

  it("tolerates objects without metadata or spec", () => {
    expect(prune({ kind: "Service" })).toEqual({ kind: "Service" });
    expect(prune({ kind: "Job" })).toEqual({ kind: "Job" });
  });
});
