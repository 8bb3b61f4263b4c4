import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../api/meta.ts";
import type { DependentObjectReference } from "../types.ts";
import { podSpecDependencies } from "./dependencies.ts";
import { nativeInterpreter } from "./index.ts";

const NS = "karmada-test";
const ref = (kind: string, name: string): DependentObjectReference => ({
  apiVersion: "v1",
  kind,
  namespace: NS,
  name,
});

/** Pod specs and what they depend on (upstream's table, plus the reference kinds it leaves out). */
const podSpecCases: Array<{ name: string; spec: unknown; want: DependentObjectReference[] }> = [
  { name: "nothing referenced", spec: { containers: [{ name: "c", image: "nginx" }] }, want: [] },
  {
    name: "volumes: configMap, secret, PVC; a named ServiceAccount",
    spec: {
      serviceAccountName: "test-serviceaccount",
      volumes: [
        { name: "initcontainer-volume-mount", configMap: { name: "test-configmap" } },
        { name: "cloud-secret-volume", secret: { secretName: "cloud-secret" } },
        { name: "container-volume-mount", persistentVolumeClaim: { claimName: "test-pvc" } },
      ],
    },
    want: [
      ref("ConfigMap", "test-configmap"),
      ref("Secret", "cloud-secret"),
      ref("ServiceAccount", "test-serviceaccount"),
      ref("PersistentVolumeClaim", "test-pvc"),
    ],
  },
  {
    name: "imagePullSecrets and init containers' env/envFrom, deduplicated",
    spec: {
      serviceAccountName: "test-serviceaccount",
      imagePullSecrets: [{ name: "test-secret" }],
      initContainers: [
        {
          envFrom: [
            { configMapRef: { name: "initcontainer-envfrom-configmap" }, secretRef: { name: "test-secret" } },
          ],
          env: [{ valueFrom: { secretKeyRef: { name: "test-secret" } } }],
        },
      ],
    },
    want: [
      ref("ConfigMap", "initcontainer-envfrom-configmap"),
      ref("Secret", "test-secret"),
      ref("ServiceAccount", "test-serviceaccount"),
    ],
  },
  {
    name: "a volume is read through its first source only (azureFile before persistentVolumeClaim's own list)",
    spec: {
      containers: [
        {
          envFrom: [{ configMapRef: { name: "test-configmap" } }],
          env: [{ valueFrom: { configMapKeyRef: { name: "test-configmap" } } }],
        },
      ],
      volumes: [
        {
          name: "container-volume-mount",
          persistentVolumeClaim: { claimName: "test-pvc" },
          azureFile: { secretName: "test-secret" },
          secret: { secretName: "shadowed" },
        },
      ],
    },
    want: [
      ref("ConfigMap", "test-configmap"),
      ref("Secret", "test-secret"),
      ref("PersistentVolumeClaim", "test-pvc"),
    ],
  },
  {
    name: "projected volumes, ephemeral containers and plugin secret refs; names sorted",
    spec: {
      ephemeralContainers: [{ name: "debug", envFrom: [{ secretRef: { name: "z-debug" } }] }],
      volumes: [
        {
          name: "p",
          projected: {
            sources: [
              { configMap: { name: "cm-b" } },
              { secret: { name: "s-proj" } },
              { serviceAccountToken: { path: "token" } },
            ],
          },
        },
        { name: "c", configMap: { name: "cm-a" } },
        { name: "csi", csi: { driver: "d", nodePublishSecretRef: { name: "s-csi" } } },
        { name: "ceph", cephfs: { monitors: [], secretRef: { name: "s-ceph" } } },
        { name: "rbd", rbd: { image: "i" } },
        { name: "iscsi", iscsi: { secretRef: { name: "s-iscsi" } } },
        { name: "flex", flexVolume: { driver: "d", secretRef: { name: "s-flex" } } },
        { name: "empty", emptyDir: {} },
      ],
    },
    want: [
      ref("ConfigMap", "cm-a"),
      ref("ConfigMap", "cm-b"),
      ref("Secret", "s-ceph"),
      ref("Secret", "s-csi"),
      ref("Secret", "s-flex"),
      ref("Secret", "s-iscsi"),
      ref("Secret", "s-proj"),
      ref("Secret", "z-debug"),
    ],
  },
  {
    name: "the default ServiceAccount and empty names are not dependencies",
    spec: {
      serviceAccountName: "default",
      imagePullSecrets: [{ name: "" }],
      volumes: [
        { name: "x", secret: {} },
        { name: "y", persistentVolumeClaim: { claimName: "" } },
      ],
      containers: [
        {
          env: [
            { name: "A", value: "b" },
            { name: "B", valueFrom: { fieldRef: { fieldPath: "x" } } },
          ],
        },
      ],
    },
    want: [],
  },
];

describe("podSpecDependencies", () => {
  for (const { name, spec, want } of podSpecCases) {
    it(name, () => expect(podSpecDependencies(spec, NS)).toEqual(want));
  }
});

describe("getDependencies: pod-template workloads", () => {
  const spec = podSpecCases[1]!.spec;
  const want = podSpecCases[1]!.want;
  const meta = { name: "w", namespace: NS };
  const cases: Array<[string, KubeObject]> = [
    [
      "Deployment",
      { apiVersion: "apps/v1", kind: "Deployment", metadata: meta, spec: { template: { spec } } },
    ],
    [
      "ReplicaSet",
      { apiVersion: "apps/v1", kind: "ReplicaSet", metadata: meta, spec: { template: { spec } } },
    ],
    ["DaemonSet", { apiVersion: "apps/v1", kind: "DaemonSet", metadata: meta, spec: { template: { spec } } }],
    [
      "StatefulSet",
      { apiVersion: "apps/v1", kind: "StatefulSet", metadata: meta, spec: { template: { spec } } },
    ],
    ["Job", { apiVersion: "batch/v1", kind: "Job", metadata: meta, spec: { template: { spec } } }],
    [
      "CronJob",
      {
        apiVersion: "batch/v1",
        kind: "CronJob",
        metadata: meta,
        spec: { jobTemplate: { spec: { template: { spec } } } },
      },
    ],
    ["Pod", { apiVersion: "v1", kind: "Pod", metadata: meta, spec }],
  ];
  for (const [kind, obj] of cases) {
    it(kind, () => expect(nativeInterpreter.getDependencies(obj)).toEqual(want));
  }

  it("a workload without a template has no dependencies", () => {
    expect(
      nativeInterpreter.getDependencies({ apiVersion: "apps/v1", kind: "Deployment", metadata: meta }),
    ).toEqual([]);
  });

  it("StatefulSet: claims from volumeClaimTemplates are not dependencies", () => {
    const sts: KubeObject = {
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      metadata: meta,
      spec: {
        template: {
          spec: {
            volumes: [
              { name: "data", persistentVolumeClaim: { claimName: "data" } },
              { name: "shared", persistentVolumeClaim: { claimName: "shared" } },
              { name: "cfg", configMap: { name: "data" } },
            ],
          },
        },
        volumeClaimTemplates: [{ metadata: { name: "data" } }],
      },
    };
    expect(nativeInterpreter.getDependencies(sts)).toEqual([
      ref("ConfigMap", "data"),
      ref("PersistentVolumeClaim", "shared"),
    ]);
  });
});

describe("getDependencies: Ingress and ServiceImport", () => {
  it("Ingress: TLS Secrets in spec order, without blanks or repeats", () => {
    const ingress: KubeObject = {
      apiVersion: "networking.k8s.io/v1",
      kind: "Ingress",
      metadata: { name: "ing", namespace: NS },
      spec: {
        tls: [
          { secretName: "z-cert", hosts: ["a"] },
          { hosts: ["default-cert"] },
          { secretName: "a-cert" },
          { secretName: "z-cert" },
        ],
        rules: [{ http: { paths: [{ backend: { service: { name: "svc" } } }] } }],
      },
    };
    expect(nativeInterpreter.getDependencies(ingress)).toEqual([
      ref("Secret", "z-cert"),
      ref("Secret", "a-cert"),
    ]);
  });

  it("Ingress without TLS", () => {
    expect(
      nativeInterpreter.getDependencies({
        apiVersion: "networking.k8s.io/v1",
        kind: "Ingress",
        metadata: {},
      }),
    ).toEqual([]);
  });

  it("ServiceImport: the derived Service and its EndpointSlices", () => {
    const si: KubeObject = {
      apiVersion: "multicluster.x-k8s.io/v1alpha1",
      kind: "ServiceImport",
      metadata: { name: "serve", namespace: NS },
    };
    expect(nativeInterpreter.getDependencies(si)).toEqual([
      { apiVersion: "v1", kind: "Service", namespace: NS, name: "derived-serve" },
      {
        apiVersion: "discovery.k8s.io/v1",
        kind: "EndpointSlice",
        namespace: NS,
        labelSelector: { matchLabels: { "kubernetes.io/service-name": "derived-serve" } },
      },
    ]);
  });

  it("other kinds have no hook", () => {
    for (const [apiVersion, kind] of [
      ["v1", "Service"],
      ["v1", "ConfigMap"],
      ["extensions/v1beta1", "Ingress"],
      ["batch/v1beta1", "CronJob"],
    ] as const) {
      expect(nativeInterpreter.getDependencies({ apiVersion, kind, metadata: {} })).toBeUndefined();
    }
  });
});
