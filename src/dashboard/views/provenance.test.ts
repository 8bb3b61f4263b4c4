import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../api/meta.ts";
import type { ClusterObject } from "../../karmada/types.ts";
import { appliedOverridesAnnotation } from "../../overrides/applied-annotation.ts";
import { applyOverrides, type OverridePolicyObject } from "../../overrides/apply.ts";
import {
  applicationOrder,
  diffJson,
  formatPath,
  isBookkeeping,
  manifestProvenance,
  parseApplied,
  shortValue,
} from "./provenance.ts";

const template: KubeObject = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: {
    name: "web",
    namespace: "shop",
    uid: "u-1",
    resourceVersion: "42",
    generation: 3,
    labels: { app: "web", "propagationpolicy.karmada.io/permanent-id": "p-1" },
  },
  spec: {
    replicas: 4,
    template: { spec: { containers: [{ name: "web", image: "nginx:1.25", args: ["--port=80"] }] } },
  },
  status: { readyReplicas: 4 },
};

const cluster: ClusterObject = {
  apiVersion: "cluster.karmada.io/v1alpha1",
  kind: "Cluster",
  metadata: { name: "member1", uid: "c-1", labels: { tier: "gold" } },
};

const op = (name: string, spec: OverridePolicyObject["spec"], namespace?: string): OverridePolicyObject => ({
  metadata: namespace ? { name, namespace } : { name },
  spec,
});

/** What the binding controller writes for `cluster`: replicas revised first, then the overrides, plus bookkeeping. */
function work(
  policies: { cluster: OverridePolicyObject[]; namespaced: OverridePolicyObject[] },
  replicas: number,
) {
  const revised = structuredClone(template) as KubeObject & { spec: { replicas: number } };
  revised.spec.replicas = replicas;
  const result = applyOverrides(revised, cluster, policies);
  const manifest = structuredClone(result.object);
  manifest.metadata = {
    ...manifest.metadata,
    labels: {
      ...manifest.metadata?.labels,
      "resourcebinding.karmada.io/permanent-id": "b-1",
      "karmada.io/managed": "true",
    },
    annotations: { ...manifest.metadata?.annotations, "work.karmada.io/name": "web-abc" },
  };
  delete manifest.status;
  return {
    manifest,
    cluster: appliedOverridesAnnotation(result.appliedClusterOverrides ?? []),
    namespaced: appliedOverridesAnnotation(result.appliedOverrides ?? []),
  };
}

describe("diffJson", () => {
  it.each([
    ["equal values", { a: 1 }, { a: 1 }, []],
    [
      "a changed leaf",
      { a: { b: 1 } },
      { a: { b: 2 } },
      [{ path: ["a", "b"], op: "changed", before: 1, after: 2 }],
    ],
    [
      "an added map, key by key",
      {},
      { labels: { x: "1", y: "2" } },
      [
        { path: ["labels", "x"], op: "added", after: "1" },
        { path: ["labels", "y"], op: "added", after: "2" },
      ],
    ],
    ["a removed key", { a: 1, b: 2 }, { a: 1 }, [{ path: ["b"], op: "removed", before: 2 }]],
    [
      "arrays by index",
      { c: [1, 2] },
      { c: [1, 3, 4] },
      [
        { path: ["c", 1], op: "changed", before: 2, after: 3 },
        { path: ["c", 2], op: "added", after: 4 },
      ],
    ],
    ["a type change", { a: "1" }, { a: 1 }, [{ path: ["a"], op: "changed", before: "1", after: 1 }]],
  ])("%s", (_, a, b, want) => {
    expect(diffJson(a, b)).toEqual(want);
  });
});

describe("formatting", () => {
  it.each([
    [["spec", "template", "spec", "containers", 0, "image"], "spec.template.spec.containers[0].image"],
    [["metadata", "labels", "app.kubernetes.io/name"], 'metadata.labels["app.kubernetes.io/name"]'],
    [["metadata", "annotations", "env"], "metadata.annotations.env"],
  ])("%j → %s", (path, want) => {
    expect(formatPath(path)).toBe(want);
  });

  it("keeps values short", () => {
    expect(shortValue("nginx")).toBe("nginx");
    expect(shortValue({ a: 1 })).toBe('{"a":1}');
    expect(shortValue("x".repeat(500)).length).toBe(160);
  });

  it.each([
    [["metadata", "labels", "karmada.io/managed"], true],
    [["metadata", "annotations", "work.karmada.io/name"], true],
    [["metadata", "labels", "resourcebinding.karmada.io/permanent-id"], true],
    [["metadata", "labels", "app"], false],
    [["spec", "replicas"], false],
  ])("bookkeeping %j: %s", (path, want) => {
    expect(isBookkeeping(path)).toBe(want);
  });
});

describe("parseApplied", () => {
  it("reads the annotation, and nothing from junk", () => {
    expect(parseApplied('[{"policyName":"a","overriders":{"plaintext":[]}}]')).toEqual([
      { policyName: "a", overriders: { plaintext: [] } },
    ]);
    expect(parseApplied(undefined)).toEqual([]);
    expect(parseApplied("{not json")).toEqual([]);
    expect(parseApplied('{"policyName":"a"}')).toEqual([]);
  });
});

describe("applicationOrder", () => {
  it("orders by implicit priority (match-all < label selector < name), then name, as the override engine applies", () => {
    const records = [
      { policyName: "a-by-name", overriders: {} },
      { policyName: "b-all", overriders: {} },
      { policyName: "c-labels", overriders: {} },
    ];
    const policies = [
      op("a-by-name", { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "web" }] }),
      op("b-all", {}),
      op("c-labels", {
        resourceSelectors: [
          { apiVersion: "apps/v1", kind: "Deployment", labelSelector: { matchLabels: { app: "web" } } },
        ],
      }),
    ];
    expect(applicationOrder(records, template, policies).map((r) => r.policyName)).toEqual([
      "b-all",
      "c-labels",
      "a-by-name",
    ]);
  });
});

describe("manifestProvenance", () => {
  it("attributes each changed field to its policy and overrider, and the replicas to the scheduler", () => {
    const policies = {
      cluster: [
        op("registry", {
          overrideRules: [
            {
              targetCluster: { clusterNames: ["member1"] },
              overriders: {
                imageOverrider: [{ component: "Registry", operator: "replace", value: "mirror.local" }],
              },
            },
          ],
        }),
      ],
      namespaced: [
        op(
          "web-op",
          {
            overrideRules: [
              {
                overriders: {
                  labelsOverrider: [{ operator: "add", value: { env: "prod" } }],
                  argsOverrider: [{ containerName: "web", operator: "add", value: ["--verbose"] }],
                },
              },
            ],
          },
          "shop",
        ),
      ],
    };
    const w = work(policies, 1);
    const result = manifestProvenance({
      template,
      manifest: w.manifest,
      clusterOverrides: parseApplied(w.cluster),
      overrides: parseApplied(w.namespaced),
      assignedReplicas: 1,
    });
    expect(result.note).toBeUndefined();
    expect(result.changes).toEqual([
      {
        path: "spec.replicas",
        op: "changed",
        before: "4",
        after: "1",
        by: { source: "Scheduler", note: "1 replica assigned to this cluster" },
      },
      {
        path: "spec.template.spec.containers[0].image",
        op: "changed",
        before: "nginx:1.25",
        after: "mirror.local/nginx:1.25",
        by: { source: "ClusterOverridePolicy", policy: "registry", overrider: "imageOverrider" },
      },
      {
        path: "spec.template.spec.containers[0].args[1]",
        op: "added",
        after: "--verbose",
        by: { source: "OverridePolicy", policy: "shop/web-op", overrider: "argsOverrider" },
      },
      {
        path: "metadata.labels.env",
        op: "added",
        after: "prod",
        by: { source: "OverridePolicy", policy: "shop/web-op", overrider: "labelsOverrider" },
      },
    ]);
  });

  it("does not credit the scheduler with replicas an override set", () => {
    const policies = {
      cluster: [],
      namespaced: [
        op(
          "five",
          {
            overrideRules: [
              { overriders: { plaintext: [{ path: "/spec/replicas", operator: "replace", value: 5 }] } },
            ],
          },
          "shop",
        ),
      ],
    };
    const w = work(policies, 2);
    const result = manifestProvenance({
      template,
      manifest: w.manifest,
      clusterOverrides: [],
      overrides: parseApplied(w.namespaced),
      assignedReplicas: 2,
    });
    expect(result.changes.map((c) => [c.path, c.before, c.after, c.by.source])).toEqual([
      ["spec.replicas", "4", "5", "OverridePolicy"],
    ]);
  });

  it("says so when the manifest differs for other reasons (a template changed since), and credits relayed state to failover", () => {
    const w = work({ cluster: [], namespaced: [] }, 4);
    const manifest = structuredClone(w.manifest);
    manifest.metadata!.labels = { ...manifest.metadata!.labels, "failover-jobid": "j-7" };
    (manifest.spec as { template: { spec: { containers: Array<{ image: string }> } } }).template.spec
      .containers[0]!.image = "nginx:1.24";
    const result = manifestProvenance({
      template,
      manifest,
      clusterOverrides: [],
      overrides: [],
      injectedLabels: { "failover-jobid": "j-7" },
    });
    expect(result.changes).toEqual([
      {
        path: "metadata.labels.failover-jobid",
        op: "added",
        after: "j-7",
        by: { source: "Failover", note: "state preserved from the cluster it failed over from" },
      },
    ]);
    expect(result.note).toMatch(
      /differs from the current template .* in 1 field \(spec\.template\.spec\.containers\[0\]\.image\)/,
    );
  });

  it("stops with a note when an overrider no longer applies to the template", () => {
    const result = manifestProvenance({
      template,
      manifest: template,
      clusterOverrides: [],
      overrides: [
        {
          policyName: "broken",
          overriders: { plaintext: [{ path: "/spec/nothing/here", operator: "replace", value: 1 }] },
        },
      ],
    });
    expect(result.note).toMatch(/Re-applying plaintext of OverridePolicy shop\/broken .* failed/);
  });
});
