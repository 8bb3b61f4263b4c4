import { describe, expect, it } from "vitest";
import type { StoredObject } from "../../meta.ts";
import { loadSample, object, testContext } from "./admission.fixtures.ts";
import { mutateWork, removeIrrelevantFields } from "./work.ts";

function work(manifests: unknown[], labels?: Record<string, string>): StoredObject {
  return object(
    "work.karmada.io/v1alpha1",
    "Work",
    {
      name: "nginx-687f7fb96f",
      namespace: "karmada-es-member1",
      uid: "uid-nginx-687f7fb96f",
      ...(labels ? { labels } : {}),
    },
    { spec: { workload: { manifests } } },
  );
}

const SERVER_METADATA = {
  creationTimestamp: "2024-01-01T00:00:00Z",
  deletionTimestamp: "2024-01-01T00:00:00Z",
  deletionGracePeriodSeconds: 30,
  generation: 3,
  managedFields: [{ manager: "kubectl" }],
  resourceVersion: "42",
  selfLink: "/x",
  uid: "u",
  ownerReferences: [{ apiVersion: "v1", kind: "X", name: "x", uid: "y" }],
  finalizers: ["f"],
};

describe("mutateWork", () => {
  it("cleans the nginx sample Deployment and records what it carries", () => {
    const deployment = loadSample("nginx/deployment.yaml")[0]!;
    deployment.metadata = {
      ...deployment.metadata,
      namespace: "default",
      ...SERVER_METADATA,
      annotations: { "deployment.kubernetes.io/revision": "2", keep: "me" },
    };
    deployment.status = { replicas: 2 };
    const w = work([deployment]);
    mutateWork(w, undefined, testContext());
    expect(w.metadata.labels).toEqual({ "work.karmada.io/permanent-id": "uid-1" });
    const [manifest] = (w.spec as { workload: { manifests: StoredObject[] } }).workload.manifests;
    expect(manifest).toEqual({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: {
        name: "nginx",
        namespace: "default",
        labels: { app: "nginx", "work.karmada.io/permanent-id": "uid-1" },
        annotations: {
          keep: "me",
          "resourcetemplate.karmada.io/managed-annotations":
            "keep,resourcetemplate.karmada.io/managed-annotations,resourcetemplate.karmada.io/managed-labels",
          "resourcetemplate.karmada.io/managed-labels": "app,work.karmada.io/permanent-id",
        },
      },
      spec: deployment.spec,
    });
  });

  it("keeps an existing id and is idempotent", () => {
    const w = work([{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" } }], {
      "work.karmada.io/permanent-id": "w1",
    });
    mutateWork(w, undefined, testContext());
    const once = structuredClone(w);
    mutateWork(w, once, testContext());
    expect(w).toEqual(once);
    expect((w.spec as { workload: { manifests: StoredObject[] } }).workload.manifests[0]!.metadata).toEqual({
      name: "c",
      labels: { "work.karmada.io/permanent-id": "w1" },
      annotations: {
        "resourcetemplate.karmada.io/managed-annotations":
          "resourcetemplate.karmada.io/managed-annotations,resourcetemplate.karmada.io/managed-labels",
        "resourcetemplate.karmada.io/managed-labels": "work.karmada.io/permanent-id",
      },
    });
  });
});

describe("removeIrrelevantFields", () => {
  const cases: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
    [
      "Job: TTL and generated selector labels",
      {
        kind: "Job",
        metadata: { name: "pi" },
        spec: {
          ttlSecondsAfterFinished: 100,
          selector: {
            matchLabels: { "controller-uid": "1", "batch.kubernetes.io/controller-uid": "1", keep: "x" },
          },
          template: {
            metadata: {
              labels: {
                "controller-uid": "1",
                "job-name": "pi",
                "batch.kubernetes.io/controller-uid": "1",
                "batch.kubernetes.io/job-name": "pi",
                app: "pi",
              },
            },
          },
        },
      },
      {
        kind: "Job",
        metadata: { name: "pi" },
        spec: { selector: { matchLabels: { keep: "x" } }, template: { metadata: { labels: { app: "pi" } } } },
      },
    ],
    [
      "Job with a manual selector keeps it (but not its TTL)",
      {
        kind: "Job",
        metadata: { name: "pi" },
        spec: {
          ttlSecondsAfterFinished: 1,
          manualSelector: true,
          selector: { matchLabels: { "controller-uid": "1" } },
        },
      },
      {
        kind: "Job",
        metadata: { name: "pi" },
        spec: { manualSelector: true, selector: { matchLabels: { "controller-uid": "1" } } },
      },
    ],
    [
      "service-account token Secret",
      {
        kind: "Secret",
        type: "kubernetes.io/service-account-token",
        metadata: {
          name: "s",
          annotations: {
            "kubernetes.io/service-account.uid": "u",
            "kubernetes.io/service-account.name": "sa",
          },
        },
        data: { token: "x" },
      },
      {
        kind: "Secret",
        type: "kubernetes.io/service-account-token",
        metadata: { name: "s", annotations: { "kubernetes.io/service-account.name": "sa" } },
        data: null,
      },
    ],
    [
      "other Secrets keep their data",
      { kind: "Secret", type: "Opaque", metadata: { name: "s" }, data: { a: "b" } },
      { kind: "Secret", type: "Opaque", metadata: { name: "s" }, data: { a: "b" } },
    ],
    [
      "ServiceAccount token secrets",
      {
        kind: "ServiceAccount",
        metadata: { name: "sa" },
        secrets: [{ name: "sa-token-abc" }, { name: "pull" }, { name: "sa-token-def" }],
      },
      { kind: "ServiceAccount", metadata: { name: "sa" }, secrets: [{ name: "pull" }] },
    ],
    [
      "Service cluster IPs",
      { kind: "Service", metadata: { name: "s" }, spec: { clusterIP: "10.0.0.1", clusterIPs: ["10.0.0.1"] } },
      { kind: "Service", metadata: { name: "s" }, spec: {} },
    ],
    [
      "headless Service",
      { kind: "Service", metadata: { name: "s" }, spec: { clusterIP: "None", clusterIPs: ["None"] } },
      { kind: "Service", metadata: { name: "s" }, spec: { clusterIP: "None", clusterIPs: ["None"] } },
    ],
    [
      "PersistentVolumeClaim selected node",
      {
        kind: "PersistentVolumeClaim",
        metadata: { name: "p", annotations: { "volume.kubernetes.io/selected-node": "n1" } },
      },
      { kind: "PersistentVolumeClaim", metadata: { name: "p", annotations: {} } },
    ],
    [
      "server metadata and status of any kind",
      { kind: "ConfigMap", metadata: { name: "c", ...SERVER_METADATA }, status: {} },
      { kind: "ConfigMap", metadata: { name: "c" } },
    ],
  ];
  it.each(cases)("%s", (_name, manifest, expected) => {
    removeIrrelevantFields(manifest);
    expect(manifest).toEqual(expected);
  });
});
