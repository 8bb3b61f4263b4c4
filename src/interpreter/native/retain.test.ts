import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../api/meta.ts";
import { nativeInterpreter } from "./index.ts";

const RETAIN = { "resourcetemplate.karmada.io/retain-replicas": "true" };

interface Case {
  name: string;
  desired: KubeObject;
  observed: KubeObject;
  want: KubeObject;
}

function runCases(cases: Case[]): void {
  for (const { name, desired, observed, want } of cases) {
    it(name, () => {
      const [desiredBefore, observedBefore] = [structuredClone(desired), structuredClone(observed)];
      expect(nativeInterpreter.retain(desired, observed)).toEqual(want);
      expect(desired).toEqual(desiredBefore);
      expect(observed).toEqual(observedBefore);
    });
  }
}

const deploy = (labels: Record<string, string> | undefined, spec: Record<string, unknown>): KubeObject => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "nginx", ...(labels ? { labels } : {}) },
  spec,
});

describe("retain: Deployment", () => {
  runCases([
    {
      name: "the member's replicas win with the retain-replicas label (HPA in the member)",
      desired: deploy(RETAIN, { replicas: 2 }),
      observed: deploy(undefined, { replicas: 5 }),
      want: deploy(RETAIN, { replicas: 5 }),
    },
    {
      name: "without the label the desired replicas stay",
      desired: deploy(undefined, { replicas: 2 }),
      observed: deploy(undefined, { replicas: 5 }),
      want: deploy(undefined, { replicas: 2 }),
    },
    {
      name: "a label value other than true does not count",
      desired: deploy({ "resourcetemplate.karmada.io/retain-replicas": "yes" }, { replicas: 2 }),
      observed: deploy(undefined, { replicas: 5 }),
      want: deploy({ "resourcetemplate.karmada.io/retain-replicas": "yes" }, { replicas: 2 }),
    },
  ]);

  it("fails when the label is set and the member has no replicas", () => {
    expect(() => nativeInterpreter.retain(deploy(RETAIN, { replicas: 2 }), deploy(undefined, {}))).toThrow(
      "failed to get spec.replicas from Deployment(/nginx)",
    );
  });
});

describe("retain: Pod", () => {
  const desired: KubeObject = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p" },
    spec: {
      containers: [
        { name: "app", image: "nginx:2", volumeMounts: [{ name: "mine", mountPath: "/m" }] },
        { name: "sidecar", image: "envoy" },
      ],
      initContainers: [{ name: "init", image: "busybox" }],
      volumes: [{ name: "mine", emptyDir: {} }],
      serviceAccountName: "desired-sa",
    },
  };
  const observed: KubeObject = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p" },
    spec: {
      nodeName: "node-1",
      serviceAccountName: "default",
      containers: [
        {
          name: "app",
          image: "nginx:1",
          volumeMounts: [
            { name: "mine", mountPath: "/m" },
            { name: "kube-api-access-x", mountPath: "/var/run/secrets/kubernetes.io/serviceaccount" },
          ],
        },
        { name: "gone", image: "x", volumeMounts: [{ name: "v", mountPath: "/v" }] },
      ],
      initContainers: [{ name: "init", image: "busybox", volumeMounts: [{ name: "kube-api-access-x" }] }],
      volumes: [
        { name: "mine", emptyDir: {} },
        { name: "kube-api-access-x", projected: { sources: [] } },
      ],
    },
  };
  runCases([
    {
      name: "node, service account, volumes and mounts come from the member",
      desired,
      observed,
      want: {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "p" },
        spec: {
          nodeName: "node-1",
          serviceAccountName: "default",
          containers: [
            {
              name: "app",
              image: "nginx:2",
              volumeMounts: [
                { name: "mine", mountPath: "/m" },
                { name: "kube-api-access-x", mountPath: "/var/run/secrets/kubernetes.io/serviceaccount" },
              ],
            },
            { name: "sidecar", image: "envoy" },
          ],
          initContainers: [{ name: "init", image: "busybox", volumeMounts: [{ name: "kube-api-access-x" }] }],
          volumes: [
            { name: "mine", emptyDir: {} },
            { name: "kube-api-access-x", projected: { sources: [] } },
          ],
        },
      },
    },
    {
      name: "fields the member does not have are cleared",
      desired,
      observed: {
        apiVersion: "v1",
        kind: "Pod",
        spec: { containers: [{ name: "app", image: "nginx:1" }] },
      },
      want: {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "p" },
        spec: {
          containers: [
            { name: "app", image: "nginx:2" },
            { name: "sidecar", image: "envoy" },
          ],
          initContainers: [{ name: "init", image: "busybox" }],
        },
      },
    },
  ]);
});

const service = (spec: Record<string, unknown>): KubeObject => ({ apiVersion: "v1", kind: "Service", spec });

describe("retain: Service", () => {
  runCases([
    {
      name: "cluster IP and health-check node port are the member's",
      desired: service({ type: "LoadBalancer", externalTrafficPolicy: "Local" }),
      observed: service({
        type: "LoadBalancer",
        clusterIP: "10.0.0.7",
        clusterIPs: ["10.0.0.7"],
        healthCheckNodePort: 32000,
        ports: [{ port: 80, nodePort: 30080 }],
      }),
      want: service({
        type: "LoadBalancer",
        externalTrafficPolicy: "Local",
        clusterIP: "10.0.0.7",
        healthCheckNodePort: 32000,
      }),
    },
    {
      name: "nothing allocated: desired unchanged",
      desired: service({ type: "ClusterIP", clusterIP: "None" }),
      observed: service({ type: "ClusterIP", clusterIP: "", healthCheckNodePort: 0 }),
      want: service({ type: "ClusterIP", clusterIP: "None" }),
    },
  ]);
});

describe("retain: ServiceAccount", () => {
  const sa = (fields: Record<string, unknown>): KubeObject => ({
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: { name: "sa" },
    ...fields,
  });
  runCases([
    {
      name: "desired entries first, then the member's new ones",
      desired: sa({ secrets: [{ name: "a" }], imagePullSecrets: [{ name: "pull" }] }),
      observed: sa({
        secrets: [{ name: "sa-token-x" }, { name: "a" }],
        imagePullSecrets: [{ name: "sa-dockercfg-y" }],
      }),
      want: sa({
        secrets: [{ name: "a" }, { name: "sa-token-x" }],
        imagePullSecrets: [{ name: "pull" }, { name: "sa-dockercfg-y" }],
      }),
    },
    {
      name: "neither side has any",
      desired: sa({}),
      observed: sa({}),
      want: sa({}),
    },
  ]);
});

describe("retain: volumes", () => {
  runCases([
    {
      name: "PVC keeps the volume the member bound it to",
      desired: { apiVersion: "v1", kind: "PersistentVolumeClaim", spec: { resources: {} } },
      observed: { apiVersion: "v1", kind: "PersistentVolumeClaim", spec: { volumeName: "pv-1" } },
      want: { apiVersion: "v1", kind: "PersistentVolumeClaim", spec: { resources: {}, volumeName: "pv-1" } },
    },
    {
      name: "PVC not bound yet",
      desired: { apiVersion: "v1", kind: "PersistentVolumeClaim", spec: {} },
      observed: { apiVersion: "v1", kind: "PersistentVolumeClaim", spec: { volumeName: "" } },
      want: { apiVersion: "v1", kind: "PersistentVolumeClaim", spec: {} },
    },
    {
      name: "PV keeps its claimRef",
      desired: { apiVersion: "v1", kind: "PersistentVolume", spec: { capacity: { storage: "1Gi" } } },
      observed: {
        apiVersion: "v1",
        kind: "PersistentVolume",
        spec: { claimRef: { namespace: "ns", name: "claim", uid: "u" } },
      },
      want: {
        apiVersion: "v1",
        kind: "PersistentVolume",
        spec: { capacity: { storage: "1Gi" }, claimRef: { namespace: "ns", name: "claim", uid: "u" } },
      },
    },
    {
      name: "PV without claimRef",
      desired: { apiVersion: "v1", kind: "PersistentVolume", spec: {} },
      observed: { apiVersion: "v1", kind: "PersistentVolume", spec: {} },
      want: { apiVersion: "v1", kind: "PersistentVolume", spec: {} },
    },
  ]);
});

const job = (spec: Record<string, unknown>): KubeObject => ({ apiVersion: "batch/v1", kind: "Job", spec });

describe("retain: Job", () => {
  runCases([
    {
      name: "selector and template labels are the member's",
      desired: job({ template: { metadata: { labels: { app: "x" } }, spec: {} } }),
      observed: job({
        selector: { matchLabels: { "batch.kubernetes.io/controller-uid": "u" } },
        template: {
          metadata: { labels: { app: "x", "batch.kubernetes.io/controller-uid": "u", "job-name": "j" } },
        },
      }),
      want: job({
        template: {
          metadata: { labels: { app: "x", "batch.kubernetes.io/controller-uid": "u", "job-name": "j" } },
          spec: {},
        },
        selector: { matchLabels: { "batch.kubernetes.io/controller-uid": "u" } },
      }),
    },
    {
      name: "member without selector or labels: desired unchanged",
      desired: job({ template: { metadata: { labels: { app: "x" } } } }),
      observed: job({ template: {} }),
      want: job({ template: { metadata: { labels: { app: "x" } } } }),
    },
  ]);
});

const secret = (type: string, data?: Record<string, string>): KubeObject => ({
  apiVersion: "v1",
  kind: "Secret",
  type,
  ...(data ? { data } : {}),
});

describe("retain: Secret", () => {
  runCases([
    {
      name: "a service-account token keeps the member's data",
      desired: { ...secret("kubernetes.io/service-account-token"), data: null },
      observed: secret("kubernetes.io/service-account-token", { token: "dG9r", "ca.crt": "Y2E=" }),
      want: secret("kubernetes.io/service-account-token", { token: "dG9r", "ca.crt": "Y2E=" }),
    },
    {
      name: "a token the member has not filled in yet",
      desired: secret("kubernetes.io/service-account-token"),
      observed: secret("kubernetes.io/service-account-token"),
      want: secret("kubernetes.io/service-account-token"),
    },
    {
      name: "other Secret types keep the desired data",
      desired: secret("kubernetes.io/tls", { "tls.crt": "bmV3" }),
      observed: secret("kubernetes.io/tls", { "tls.crt": "b2xk" }),
      want: secret("kubernetes.io/tls", { "tls.crt": "bmV3" }),
    },
  ]);
});

describe("retain: other kinds", () => {
  it("has no hook", () => {
    const cm: KubeObject = { apiVersion: "v1", kind: "ConfigMap", data: {} };
    expect(nativeInterpreter.retain(cm, cm)).toBeUndefined();
    const sts: KubeObject = { apiVersion: "apps/v1", kind: "StatefulSet", metadata: { labels: RETAIN } };
    expect(nativeInterpreter.retain(sts, sts)).toBeUndefined();
  });
});
