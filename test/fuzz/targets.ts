/**
 * The kinds the fuzzers attack, each with its collection URL and a valid object to start
 * from: built-in kinds, Karmada kinds and a CRD's custom resources (see harness.ts's CRD).
 */

export interface Target {
  name: string;
  apiVersion: string;
  kind: string;
  /** The collection URL (namespaced ones in `fuzz`, Works in an execution namespace). */
  collection: string;
  /** The object updates and patches aim at (seeded before the properties run). */
  seedName: string;
  /** Built-in kinds take protobuf bodies and strategic merge patches. */
  builtin: boolean;
  subresources: readonly ("status" | "scale")[];
  /** A valid object of this kind named `name`. */
  base(name: string): Record<string, unknown>;
}

const meta = (name: string, labels: Record<string, string> = { app: "fuzz" }) => ({ name, labels });

const podSpec = () => ({
  containers: [
    {
      name: "app",
      image: "nginx:1.27",
      ports: [{ containerPort: 80, protocol: "TCP" }],
      resources: { requests: { cpu: "100m", memory: "64Mi" } },
    },
  ],
  terminationGracePeriodSeconds: 30,
});

export const TARGETS: readonly Target[] = [
  {
    name: "Namespace",
    apiVersion: "v1",
    kind: "Namespace",
    collection: "/api/v1/namespaces",
    seedName: "fuzz-seed",
    builtin: true,
    subresources: ["status"],
    base: (name) => ({ apiVersion: "v1", kind: "Namespace", metadata: meta(name) }),
  },
  {
    name: "ConfigMap",
    apiVersion: "v1",
    kind: "ConfigMap",
    collection: "/api/v1/namespaces/fuzz/configmaps",
    seedName: "seed",
    builtin: true,
    subresources: [],
    base: (name) => ({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: meta(name),
      data: { "game.properties": "lives=3\n", mode: "easy" },
    }),
  },
  {
    name: "Pod",
    apiVersion: "v1",
    kind: "Pod",
    collection: "/api/v1/namespaces/fuzz/pods",
    seedName: "seed",
    builtin: true,
    subresources: ["status"],
    base: (name) => ({ apiVersion: "v1", kind: "Pod", metadata: meta(name), spec: podSpec() }),
  },
  {
    name: "Service",
    apiVersion: "v1",
    kind: "Service",
    collection: "/api/v1/namespaces/fuzz/services",
    seedName: "seed",
    builtin: true,
    subresources: ["status"],
    base: (name) => ({
      apiVersion: "v1",
      kind: "Service",
      metadata: meta(name),
      spec: { selector: { app: "fuzz" }, ports: [{ name: "http", port: 80, targetPort: 8080 }] },
    }),
  },
  {
    name: "Deployment",
    apiVersion: "apps/v1",
    kind: "Deployment",
    collection: "/apis/apps/v1/namespaces/fuzz/deployments",
    seedName: "seed",
    builtin: true,
    subresources: ["status", "scale"],
    base: (name) => ({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: meta(name),
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: "fuzz" } },
        template: { metadata: { labels: { app: "fuzz" } }, spec: podSpec() },
      },
    }),
  },
  {
    name: "PropagationPolicy",
    apiVersion: "policy.karmada.io/v1alpha1",
    kind: "PropagationPolicy",
    collection: "/apis/policy.karmada.io/v1alpha1/namespaces/fuzz/propagationpolicies",
    seedName: "seed",
    builtin: false,
    subresources: [],
    base: (name) => ({
      apiVersion: "policy.karmada.io/v1alpha1",
      kind: "PropagationPolicy",
      metadata: meta(name),
      spec: {
        resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "nginx" }],
        placement: {
          clusterAffinity: { clusterNames: ["member1", "member2"] },
          replicaScheduling: {
            replicaSchedulingType: "Divided",
            replicaDivisionPreference: "Weighted",
            weightPreference: {
              staticWeightList: [
                { targetCluster: { clusterNames: ["member1"] }, weight: 1 },
                { targetCluster: { clusterNames: ["member2"] }, weight: 1 },
              ],
            },
          },
        },
      },
    }),
  },
  {
    name: "OverridePolicy",
    apiVersion: "policy.karmada.io/v1alpha1",
    kind: "OverridePolicy",
    collection: "/apis/policy.karmada.io/v1alpha1/namespaces/fuzz/overridepolicies",
    seedName: "seed",
    builtin: false,
    subresources: [],
    base: (name) => ({
      apiVersion: "policy.karmada.io/v1alpha1",
      kind: "OverridePolicy",
      metadata: meta(name),
      spec: {
        resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "nginx" }],
        overrideRules: [
          {
            targetCluster: { clusterNames: ["member1"] },
            overriders: {
              plaintext: [{ path: "/spec/replicas", operator: "replace", value: 1 }],
              imageOverrider: [{ component: "Tag", operator: "replace", value: "1.28" }],
            },
          },
        ],
      },
    }),
  },
  {
    name: "ResourceBinding",
    apiVersion: "work.karmada.io/v1alpha2",
    kind: "ResourceBinding",
    collection: "/apis/work.karmada.io/v1alpha2/namespaces/fuzz/resourcebindings",
    seedName: "seed",
    builtin: false,
    subresources: ["status"],
    base: (name) => ({
      apiVersion: "work.karmada.io/v1alpha2",
      kind: "ResourceBinding",
      metadata: meta(name),
      spec: {
        resource: { apiVersion: "apps/v1", kind: "Deployment", namespace: "fuzz", name: "nginx" },
        replicas: 2,
        clusters: [{ name: "member1", replicas: 2 }],
      },
    }),
  },
  {
    name: "Cluster",
    apiVersion: "cluster.karmada.io/v1alpha1",
    kind: "Cluster",
    collection: "/apis/cluster.karmada.io/v1alpha1/clusters",
    seedName: "fuzz-seed",
    builtin: false,
    subresources: ["status"],
    base: (name) => ({
      apiVersion: "cluster.karmada.io/v1alpha1",
      kind: "Cluster",
      metadata: meta(name),
      spec: {
        syncMode: "Push",
        apiEndpoint: "https://127.0.0.1:6443",
        taints: [{ key: "fuzz", effect: "NoSchedule" }],
      },
    }),
  },
  {
    name: "Work",
    apiVersion: "work.karmada.io/v1alpha1",
    kind: "Work",
    collection: "/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-member1/works",
    seedName: "seed",
    builtin: false,
    subresources: ["status"],
    base: (name) => ({
      apiVersion: "work.karmada.io/v1alpha1",
      kind: "Work",
      metadata: meta(name),
      spec: {
        workload: {
          manifests: [
            { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm", namespace: "fuzz" }, data: {} },
          ],
        },
      },
    }),
  },
  {
    name: "Widget (CRD)",
    apiVersion: "fuzz.example.com/v1",
    kind: "Widget",
    collection: "/apis/fuzz.example.com/v1/namespaces/fuzz/widgets",
    seedName: "seed",
    builtin: false,
    subresources: ["status", "scale"],
    base: (name) => ({
      apiVersion: "fuzz.example.com/v1",
      kind: "Widget",
      metadata: meta(name),
      spec: { size: "M", replicas: 1, ratio: 0.5, tags: ["a"], ports: [{ name: "http", port: 80 }] },
    }),
  },
];
