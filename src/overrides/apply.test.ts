import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { KubeObject } from "../api/meta.ts";
import type { ClusterAffinity, ClusterObject, Overriders } from "../karmada/types.ts";
import { appliedOverridesAnnotation } from "./applied-annotation.ts";
import {
  applyOverriders,
  applyOverrides,
  matchingOverriders,
  OverrideError,
  type OverridePolicyObject,
} from "./apply.ts";

function cluster(name: string, extra: Partial<ClusterObject> = {}): ClusterObject {
  return {
    apiVersion: "cluster.karmada.io/v1alpha1",
    kind: "Cluster",
    metadata: { name, uid: `uid-${name}` },
    ...extra,
  };
}

function deployment(labels: Record<string, string> = { app: "nginx" }): KubeObject {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "nginx", namespace: "default", labels },
    spec: { replicas: 1, template: { spec: { containers: [{ name: "nginx", image: "nginx:1.19.0" }] } } },
  };
}

function policy(name: string, spec: OverridePolicyObject["spec"], namespace?: string): OverridePolicyObject {
  return { metadata: namespace === undefined ? { name } : { name, namespace }, spec };
}

const addLabel = (key: string, value: string): Overriders => ({
  labelsOverrider: [{ operator: "add", value: { [key]: value } }],
});

describe("the seed example", () => {
  const policyYaml = `
apiVersion: policy.karmada.io/v1alpha1
kind: OverridePolicy
metadata: {name: example, namespace: default}
spec:
  resourceSelectors: [{apiVersion: v1, kind: ConfigMap, name: example-configmap}]
  overrideRules:
    - targetCluster: {clusterNames: [member1]}
      overriders:
        fieldOverrider:
          - fieldPath: /data/config.yaml
            yaml:
              - {subPath: /app/database/port, operator: replace, value: "3306"}
`;
  const configYaml =
    "app:\n  database:\n    port: 5432\n    ip: 127.0.0.1\n    name: example\n    zone: zone1\n";
  const configMap = (): KubeObject => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "example-configmap", namespace: "default" },
    data: { "config.yaml": configYaml },
  });
  const op = parse(policyYaml) as OverridePolicyObject;

  it("gives member1 the port as the string 3306, written back by go-yaml (keys sorted, value quoted)", () => {
    const result = applyOverrides(configMap(), cluster("member1"), { cluster: [], namespaced: [op] });
    expect(result.object).toEqual({
      ...configMap(),
      data: {
        "config.yaml":
          'app:\n  database:\n    ip: 127.0.0.1\n    name: example\n    port: "3306"\n    zone: zone1\n',
      },
    });
    expect(result.appliedClusterOverrides).toBeUndefined();
    expect(result.appliedOverrides).toEqual([
      { policyName: "example", overriders: op.spec.overrideRules![0]!.overriders },
    ]);
    expect(appliedOverridesAnnotation(result.appliedOverrides ?? [])).toBe(
      '[{"policyName":"example","overriders":{"fieldOverrider":[{"fieldPath":"/data/config.yaml",' +
        '"yaml":[{"subPath":"/app/database/port","operator":"replace","value":"3306"}]}]}}]',
    );
  });

  it("leaves member2's copy untouched", () => {
    const result = applyOverrides(configMap(), cluster("member2"), { cluster: [], namespaced: [op] });
    expect(result.object).toEqual(configMap());
    expect(result.appliedOverrides).toBeUndefined();
  });
});

describe("upstream's Test_overrideManagerImpl_ApplyLabelAnnotationOverriderPolicies", () => {
  const overriders: Overriders = {
    labelsOverrider: [{ operator: "add", value: { testAddLabel: "testAddLabel" } }],
    annotationsOverrider: [{ operator: "add", value: { testAddAnnotation: "testAddAnnotation" } }],
  };
  const meta = { labels: { testLabel: "testLabel" }, annotations: { testAnnotation: "testAnnotation" } };
  const wantMeta = {
    labels: { testLabel: "testLabel", testAddLabel: "testAddLabel" },
    annotations: { testAnnotation: "testAnnotation", testAddAnnotation: "testAddAnnotation" },
  };

  it("applies an OverridePolicy to a Deployment", () => {
    const template: KubeObject = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "test1", namespace: "default", ...meta },
    };
    const op = policy(
      "test1",
      {
        resourceSelectors: [
          { apiVersion: "apps/v1", kind: "Deployment", namespace: "default", name: "test1" },
        ],
        overrideRules: [{ targetCluster: { clusterNames: ["test1"] }, overriders }],
      },
      "default",
    );
    const result = applyOverrides(template, cluster("test1"), { cluster: [], namespaced: [op] });
    expect(result.appliedClusterOverrides).toBeUndefined();
    expect(result.appliedOverrides).toEqual([{ policyName: "test1", overriders }]);
    expect(result.object.metadata).toMatchObject(wantMeta);
  });

  it("applies a ClusterOverridePolicy to a ClusterRole, and no OverridePolicy", () => {
    const template: KubeObject = {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: "test2", ...meta },
    };
    const cop = policy("test2", {
      resourceSelectors: [{ apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", name: "test2" }],
      overrideRules: [{ targetCluster: { clusterNames: ["test2"] }, overriders }],
    });
    const everything = policy(
      "everything",
      { overrideRules: [{ overriders: addLabel("op", "applied") }] },
      "default",
    );
    const result = applyOverrides(template, cluster("test2"), { cluster: [cop], namespaced: [everything] });
    expect(result.appliedClusterOverrides).toEqual([{ policyName: "test2", overriders }]);
    expect(result.appliedOverrides).toBeUndefined();
    expect(result.object.metadata).toEqual({ name: "test2", ...wantMeta });
  });
});

describe("matchingOverriders (upstream's TestGetMatchingOverridePolicies)", () => {
  const plaintext = (value: string): Overriders => ({
    plaintext: [{ path: "/metadata/annotations", operator: "add", value }],
  });
  const o1 = plaintext("foo: bar");
  const o2 = plaintext("aaa: bbb");
  const o3 = plaintext("hello: world");
  const both: ClusterAffinity = { clusterNames: ["cluster1", "cluster2"] };
  const overridePolicy1 = policy(
    "overridePolicy1",
    {
      resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "nginx" }],
      overrideRules: [
        { targetCluster: both, overriders: o1 },
        { targetCluster: { clusterNames: ["cluster2"] }, overriders: o2 },
      ],
    },
    "default",
  );
  const overridePolicy2 = policy(
    "overridePolicy2",
    { overrideRules: [{ targetCluster: both, overriders: o3 }] },
    "default",
  );
  const overridePolicy3 = policy(
    "overridePolicy3",
    { resourceSelectors: [], overrideRules: [{ targetCluster: both, overriders: o3 }] },
    "default",
  );
  const oldOverridePolicy = policy("oldOverridePolicy", {
    targetCluster: { clusterNames: ["cluster1"] },
    overriders: o3,
  });

  it.each([
    {
      name: "OverrideRules test 1",
      policies: [overridePolicy1, overridePolicy2],
      cluster: "cluster1",
      want: [
        [overridePolicy2, o3],
        [overridePolicy1, o1],
      ],
    },
    {
      name: "OverrideRules test 2",
      policies: [overridePolicy1, overridePolicy2],
      cluster: "cluster2",
      want: [
        [overridePolicy2, o3],
        [overridePolicy1, o1],
        [overridePolicy1, o2],
      ],
    },
    {
      name: "OverrideRules test 3",
      policies: [overridePolicy3],
      cluster: "cluster2",
      want: [[overridePolicy3, o3]],
    },
    {
      name: "TargetCluster and Overriders test",
      policies: [oldOverridePolicy],
      cluster: "cluster1",
      want: [[oldOverridePolicy, o3]],
    },
    { name: "legacy form for another cluster", policies: [oldOverridePolicy], cluster: "cluster2", want: [] },
  ] as const)("$name", ({ policies, cluster: name, want }) => {
    expect(matchingOverriders(deployment(), cluster(name), policies)).toEqual(
      want.map(([p, overriders]) => ({ policy: p, overriders })),
    );
  });
});

describe("order between policies", () => {
  it("applies cluster policies first, so a namespaced policy wins", () => {
    const cop = policy("cop", { overrideRules: [{ overriders: addLabel("env", "from-cop") }] });
    const op = policy("op", { overrideRules: [{ overriders: addLabel("env", "from-op") }] }, "default");
    const result = applyOverrides(deployment(), cluster("member1"), { cluster: [cop], namespaced: [op] });
    expect(result.object.metadata?.labels).toEqual({ app: "nginx", env: "from-op" });
    expect(result.appliedClusterOverrides?.map((a) => a.policyName)).toEqual(["cop"]);
    expect(result.appliedOverrides?.map((a) => a.policyName)).toEqual(["op"]);
  });

  it("sorts by implicit priority (match-all < label selector < name), then by name", () => {
    const sel = { apiVersion: "apps/v1", kind: "Deployment" };
    const policies = [
      policy(
        "a-name",
        {
          resourceSelectors: [{ ...sel, name: "nginx" }],
          overrideRules: [{ overriders: addLabel("winner", "a-name") }],
        },
        "default",
      ),
      policy(
        "b-label",
        {
          resourceSelectors: [{ ...sel, labelSelector: { matchLabels: { app: "nginx" } } }],
          overrideRules: [{ overriders: addLabel("winner", "b-label") }],
        },
        "default",
      ),
      policy(
        "d-kind",
        { resourceSelectors: [sel], overrideRules: [{ overriders: addLabel("winner", "d-kind") }] },
        "default",
      ),
      policy("c-all", { overrideRules: [{ overriders: addLabel("winner", "c-all") }] }, "default"),
      policy(
        "e-mixed",
        {
          resourceSelectors: [
            sel,
            { ...sel, name: "other" },
            { ...sel, labelSelector: { matchLabels: { app: "nginx" } } },
          ],
          overrideRules: [{ overriders: addLabel("winner", "e-mixed") }],
        },
        "default",
      ),
    ];
    const result = applyOverrides(deployment(), cluster("member1"), { cluster: [], namespaced: policies });
    expect(result.appliedOverrides?.map((a) => a.policyName)).toEqual([
      "c-all",
      "d-kind",
      "b-label",
      "e-mixed",
      "a-name",
    ]);
    expect(result.object.metadata?.labels?.winner).toBe("a-name");
  });

  it("skips policies whose selectors do not match", () => {
    const sel = { apiVersion: "apps/v1", kind: "Deployment" };
    const policies = [
      policy(
        "other-name",
        {
          resourceSelectors: [{ ...sel, name: "other" }],
          overrideRules: [{ overriders: addLabel("x", "1") }],
        },
        "default",
      ),
      policy(
        "other-kind",
        {
          resourceSelectors: [{ apiVersion: "v1", kind: "Service" }],
          overrideRules: [{ overriders: addLabel("x", "2") }],
        },
        "default",
      ),
      policy(
        "other-namespace",
        {
          resourceSelectors: [{ ...sel, namespace: "prod" }],
          overrideRules: [{ overriders: addLabel("x", "3") }],
        },
        "default",
      ),
      policy(
        "other-labels",
        {
          resourceSelectors: [{ ...sel, labelSelector: { matchLabels: { app: "web" } } }],
          overrideRules: [{ overriders: addLabel("x", "4") }],
        },
        "default",
      ),
    ];
    const result = applyOverrides(deployment(), cluster("member1"), {
      cluster: policies,
      namespaced: policies,
    });
    expect(result.object).toEqual(deployment());
    expect(result).not.toHaveProperty("appliedOverrides");
    expect(result).not.toHaveProperty("appliedClusterOverrides");
  });

  it("matches namespaced policies against the template as the cluster policies left it", () => {
    const cop = policy("cop", { overrideRules: [{ overriders: addLabel("tier", "web") }] });
    const op = policy(
      "op",
      {
        resourceSelectors: [
          { apiVersion: "apps/v1", kind: "Deployment", labelSelector: { matchLabels: { tier: "web" } } },
        ],
        overrideRules: [{ overriders: addLabel("seen", "true") }],
      },
      "default",
    );
    const result = applyOverrides(deployment(), cluster("member1"), { cluster: [cop], namespaced: [op] });
    expect(result.object.metadata?.labels).toEqual({ app: "nginx", tier: "web", seen: "true" });
  });

  it("applies the rules of one policy in list order", () => {
    const p = policy(
      "p",
      {
        overrideRules: [
          { overriders: addLabel("x", "first") },
          { targetCluster: { clusterNames: ["member2"] }, overriders: addLabel("x", "not-here") },
          { overriders: addLabel("x", "last") },
        ],
      },
      "default",
    );
    const result = applyOverrides(deployment(), cluster("member1"), { cluster: [], namespaced: [p] });
    expect(result.object.metadata?.labels?.x).toBe("last");
    expect(result.appliedOverrides).toEqual([
      { policyName: "p", overriders: addLabel("x", "first") },
      { policyName: "p", overriders: addLabel("x", "last") },
    ]);
  });
});

describe("order within a rule", () => {
  const image = (obj: KubeObject, i = 0) =>
    (obj.spec as { template: { spec: { containers: Array<{ image: string }> } } }).template.spec.containers[i]
      ?.image;

  it("runs plaintext after the image overrider", () => {
    const out = applyOverriders(deployment(), {
      plaintext: [{ path: "/spec/template/spec/containers/0/image", operator: "replace", value: "final:1" }],
      imageOverrider: [{ component: "Registry", operator: "replace", value: "r.io" }],
    });
    expect(image(out)).toBe("final:1");
  });

  it("runs the image overrider before plaintext adds a container", () => {
    const out = applyOverriders(deployment(), {
      plaintext: [
        {
          path: "/spec/template/spec/containers/-",
          operator: "add",
          value: { name: "side", image: "busybox" },
        },
      ],
      imageOverrider: [{ component: "Registry", operator: "replace", value: "r.io" }],
    });
    expect([image(out, 0), image(out, 1)]).toEqual(["r.io/nginx:1.19.0", "busybox"]);
  });

  it("runs command before args, and both before plaintext", () => {
    const out = applyOverriders(deployment(), {
      plaintext: [{ path: "/spec/template/spec/containers/0/args/0", operator: "replace", value: "--plain" }],
      argsOverrider: [{ containerName: "nginx", operator: "add", value: ["--args"] }],
      commandOverrider: [{ containerName: "nginx", operator: "add", value: ["nginx"] }],
    });
    expect(
      (out.spec as { template: { spec: { containers: unknown[] } } }).template.spec.containers[0],
    ).toEqual({
      name: "nginx",
      image: "nginx:1.19.0",
      command: ["nginx"],
      args: ["--plain"],
    });
  });

  it("runs labels before annotations, and the field overrider before plaintext", () => {
    const cm: KubeObject = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "c" },
      data: { f: '{"a":0}' },
    };
    const out = applyOverriders(cm, {
      plaintext: [
        { path: "/data/f", operator: "replace", value: '{"a":1}' },
        { path: "/metadata/annotations", operator: "add", value: { copied: "yes" } },
      ],
      fieldOverrider: [{ fieldPath: "/data/f", json: [{ subPath: "/a", operator: "replace", value: 2 }] }],
      annotationsOverrider: [{ operator: "replace", value: { l: "from-annotations" } }],
      labelsOverrider: [{ operator: "add", value: { l: "label" } }],
    });
    // Plaintext, last, overwrote the field overrider's result; the annotations map did not
    // exist when the annotations overrider ran, so its replace did nothing.
    expect(out).toEqual({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "c", labels: { l: "label" }, annotations: { copied: "yes" } },
      data: { f: '{"a":1}' },
    });
  });
});

describe("targetCluster", () => {
  const member = cluster("member1", {
    metadata: { name: "member1", uid: "uid-member1", labels: { env: "prod" } },
    spec: { provider: "aws", region: "us-east-1", zones: ["us-east-1a"] },
  });
  it.each<{ name: string; target: ClusterAffinity | undefined; applies: boolean }>([
    { name: "absent: every cluster", target: undefined, applies: true },
    { name: "empty affinity: every cluster", target: {}, applies: true },
    { name: "listed by name", target: { clusterNames: ["member2", "member1"] }, applies: true },
    { name: "not listed", target: { clusterNames: ["member2"] }, applies: false },
    { name: "excluded", target: { exclude: ["member1"] }, applies: false },
    { name: "label selector", target: { labelSelector: { matchLabels: { env: "prod" } } }, applies: true },
    {
      name: "label selector mismatch",
      target: { labelSelector: { matchLabels: { env: "dev" } } },
      applies: false,
    },
    {
      name: "field selector",
      target: { fieldSelector: { matchExpressions: [{ key: "provider", operator: "In", values: ["aws"] }] } },
      applies: true,
    },
    {
      name: "field selector on zones",
      target: {
        fieldSelector: { matchExpressions: [{ key: "zone", operator: "NotIn", values: ["us-east-1a"] }] },
      },
      applies: false,
    },
    {
      name: "everything ANDed",
      target: {
        clusterNames: ["member1"],
        labelSelector: { matchLabels: { env: "prod" } },
        exclude: ["member1"],
      },
      applies: false,
    },
  ])("$name", ({ target, applies }) => {
    const rule =
      target === undefined
        ? { overriders: addLabel("hit", "yes") }
        : { targetCluster: target, overriders: addLabel("hit", "yes") };
    const p = policy("p", { overrideRules: [rule] }, "default");
    const result = applyOverrides(deployment(), member, { cluster: [], namespaced: [p] });
    expect(result.object.metadata?.labels?.hit).toBe(applies ? "yes" : undefined);
    // The deprecated single-rule form behaves the same.
    const legacy = policy(
      "legacy",
      { ...(target ? { targetCluster: target } : {}), overriders: addLabel("hit", "yes") },
      "default",
    );
    expect(
      applyOverrides(deployment(), member, { cluster: [], namespaced: [legacy] }).object.metadata?.labels
        ?.hit,
    ).toBe(applies ? "yes" : undefined);
  });
});

describe("namespaces", () => {
  const everything = (name: string, namespace?: string) =>
    policy(name, { overrideRules: [{ overriders: addLabel(name, "yes") }] }, namespace);

  it("ignores OverridePolicies for cluster-scoped templates", () => {
    const ns: KubeObject = { apiVersion: "v1", kind: "Namespace", metadata: { name: "team-a" } };
    const result = applyOverrides(ns, cluster("member1"), {
      cluster: [everything("cop")],
      namespaced: [everything("op", "team-a")],
    });
    expect(result.object.metadata?.labels).toEqual({ cop: "yes" });
  });

  it("ignores OverridePolicies of another namespace", () => {
    const result = applyOverrides(deployment(), cluster("member1"), {
      cluster: [],
      namespaced: [everything("mine", "default"), everything("theirs", "prod")],
    });
    expect(result.object.metadata?.labels).toEqual({ app: "nginx", mine: "yes" });
  });
});

describe("applyOverrides", () => {
  it("never modifies the template and always returns a new object", () => {
    const template = deployment();
    const result = applyOverrides(template, cluster("member1"), { cluster: [], namespaced: [] });
    expect(result).toEqual({ object: deployment() });
    expect(result.object).not.toBe(template);
    const changed = applyOverrides(template, cluster("member1"), {
      cluster: [
        policy("c", {
          overrideRules: [
            { overriders: { plaintext: [{ path: "/spec/replicas", operator: "replace", value: 5 }] } },
          ],
        }),
      ],
      namespaced: [],
    });
    expect((changed.object.spec as { replicas: number }).replicas).toBe(5);
    expect(template).toEqual(deployment());
  });

  it("does not share the applied overriders with the policies", () => {
    const p = policy("p", { overrideRules: [{ overriders: addLabel("x", "1") }] }, "default");
    const result = applyOverrides(deployment(), cluster("member1"), { cluster: [], namespaced: [p] });
    expect(result.appliedOverrides?.[0]?.overriders).toEqual(p.spec.overrideRules?.[0]?.overriders);
    expect(result.appliedOverrides?.[0]?.overriders).not.toBe(p.spec.overrideRules?.[0]?.overriders);
  });

  it.each([
    {
      name: "an OverridePolicy",
      policies: {
        cluster: [],
        namespaced: [
          policy(
            "bad",
            {
              overrideRules: [
                {
                  overriders: {
                    plaintext: [{ path: "/spec/paused", operator: "replace" as const, value: true }],
                  },
                },
              ],
            },
            "default",
          ),
        ],
      },
      message:
        "Apply override policy(default/bad) for cluster(member1) failed: replace operation does not apply: doc is missing key: /spec/paused: missing value",
      clusterPolicy: false,
    },
    {
      name: "a ClusterOverridePolicy",
      policies: {
        cluster: [
          policy("bad", {
            overrideRules: [
              {
                overriders: {
                  imageOverrider: [
                    { component: "Tag" as const, operator: "add" as const, predicate: { path: "/nope" } },
                  ],
                },
              },
            ],
          }),
        ],
        namespaced: [],
      },
      message:
        "Apply cluster override policy(bad) for cluster(member1) failed: failed to obtain imageValue with predicate path(/nope), error: failed to convert path(nope) to string",
      clusterPolicy: true,
    },
  ])("names $name that fails, and what failed", ({ policies, message, clusterPolicy }) => {
    let error: unknown;
    try {
      applyOverrides(deployment(), cluster("member1"), policies);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(OverrideError);
    const e = error as OverrideError;
    expect(e.message).toBe(message);
    expect(e.policy.name).toBe("bad");
    expect(e.cluster).toBe("member1");
    expect(e.clusterPolicy).toBe(clusterPolicy);
    expect(e.cause).toBeInstanceOf(Error);
  });
});
