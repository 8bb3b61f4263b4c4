import { describe, expect, it } from "vitest";
import type { StoredObject } from "../../api/meta.ts";
import {
  affinityText,
  claimsByPolicy,
  overridePolicyRow,
  placementText,
  propagationPolicyRow,
  rulesText,
  selectorText,
} from "./policies.ts";

const obj = (kind: string, name: string, spec: object, namespace?: string): StoredObject =>
  ({
    apiVersion: "policy.karmada.io/v1alpha1",
    kind,
    metadata: { name, uid: name, ...(namespace ? { namespace } : {}) },
    spec,
  }) as StoredObject;

const rb = (name: string, resource: object, annotations: Record<string, string>): StoredObject =>
  ({
    apiVersion: "work.karmada.io/v1alpha2",
    kind: "ResourceBinding",
    metadata: { name, namespace: "default", uid: name, annotations },
    spec: { resource },
  }) as StoredObject;

describe("texts", () => {
  it.each([
    [
      { apiVersion: "apps/v1", kind: "Deployment", namespace: "default", name: "nginx" },
      "apps/v1 Deployment default/nginx",
    ],
    [
      { apiVersion: "apps/v1", kind: "Deployment", labelSelector: { matchLabels: { app: "web" } } },
      "apps/v1 Deployment with labels app=web",
    ],
    [{ apiVersion: "v1", kind: "ConfigMap" }, "v1 ConfigMap (all)"],
    [{ apiVersion: "v1", kind: "ConfigMap", namespace: "team" }, "v1 ConfigMap team/*"],
  ])("selector %j", (s, want) => {
    expect(selectorText(s)).toBe(want);
  });

  it.each([
    [undefined, "all clusters"],
    [{ clusterNames: ["member1", "member2"] }, "member1, member2"],
    [
      { labelSelector: { matchLabels: { tier: "gold" } }, exclude: ["member3"] },
      "labels tier=gold; except member3",
    ],
    [
      { fieldSelector: { matchExpressions: [{ key: "region", operator: "In", values: ["eu"] }] } },
      "region In (eu)",
    ],
  ])("affinity %j", (a, want) => {
    expect(affinityText(a)).toBe(want);
  });

  it("reads a placement in short lines", () => {
    expect(
      placementText({
        resourceSelectors: [],
        propagateDeps: true,
        placement: {
          clusterAffinity: { clusterNames: ["member1", "member2"] },
          spreadConstraints: [{ spreadByField: "region", minGroups: 1, maxGroups: 2 }],
          replicaScheduling: {
            replicaSchedulingType: "Divided",
            replicaDivisionPreference: "Weighted",
            weightPreference: {
              staticWeightList: [
                { targetCluster: { clusterNames: ["member1"] }, weight: 1 },
                { targetCluster: { clusterNames: ["member2"] }, weight: 2 },
              ],
            },
          },
        },
        failover: { application: { decisionConditions: { tolerationSeconds: 30 }, purgeMode: "Never" } },
      }),
    ).toEqual([
      "Clusters: member1, member2",
      "Spread by region: 1 to 2",
      "Replicas: divided by static weight member1=1, member2=2",
      "Application failover after 30s unhealthy, purge Never",
      "Propagates dependencies (ConfigMaps, Secrets ... it uses)",
    ]);
    expect(
      placementText({
        resourceSelectors: [],
        placement: { replicaScheduling: { replicaSchedulingType: "Duplicated" } },
      }),
    ).toEqual(["Clusters: all clusters", "Replicas: duplicated (every cluster runs all)"]);
  });

  it("reads override rules, the deprecated single rule too", () => {
    expect(
      rulesText({
        overrideRules: [
          {
            targetCluster: { clusterNames: ["member2"] },
            overriders: {
              labelsOverrider: [
                { operator: "add", value: {} },
                { operator: "add", value: {} },
              ],
            },
          },
          { overriders: { imageOverrider: [{ component: "Registry", operator: "replace", value: "x" }] } },
        ],
      }),
    ).toEqual(["member2: labelsOverrider ×2", "all clusters: imageOverrider"]);
    expect(
      rulesText({
        targetCluster: { clusterNames: ["a"] },
        overriders: { plaintext: [{ path: "/x", operator: "remove" }] },
      }),
    ).toEqual(["a: plaintext"]);
  });
});

describe("rows", () => {
  const nginx = { apiVersion: "apps/v1", kind: "Deployment", namespace: "default", name: "nginx" };
  const web = { apiVersion: "apps/v1", kind: "Deployment", namespace: "default", name: "web" };
  const bindings = [
    rb("nginx-deployment", nginx, {
      "propagationpolicy.karmada.io/name": "pp",
      "propagationpolicy.karmada.io/namespace": "default",
    }),
    rb("web-deployment", web, { "clusterpropagationpolicy.karmada.io/name": "cpp" }),
  ];

  it("lists what each propagation policy claims, from the bindings' claim annotations", () => {
    const claims = claimsByPolicy(bindings);
    const pp = propagationPolicyRow(
      "PropagationPolicy",
      obj("PropagationPolicy", "pp", { resourceSelectors: [nginx], priority: 5 }, "default"),
      claims,
    );
    const cpp = propagationPolicyRow(
      "ClusterPropagationPolicy",
      obj("ClusterPropagationPolicy", "cpp", { resourceSelectors: [] }),
      claims,
    );
    expect(pp).toMatchObject({
      key: "PropagationPolicy/default/pp",
      priority: 5,
      selectors: ["apps/v1 Deployment default/nginx"],
      claims: [{ key: "rb/default/nginx-deployment", label: "Deployment default/nginx" }],
    });
    expect(cpp.claims).toEqual([{ key: "rb/default/web-deployment", label: "Deployment default/web" }]);
  });

  it("lists the workloads an override policy's selectors name, in its namespace", () => {
    const named = overridePolicyRow(
      "OverridePolicy",
      obj(
        "OverridePolicy",
        "op",
        { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "nginx" }] },
        "default",
      ),
      bindings,
    );
    const everything = overridePolicyRow(
      "ClusterOverridePolicy",
      obj("ClusterOverridePolicy", "cop", {}),
      bindings,
    );
    const elsewhere = overridePolicyRow("OverridePolicy", obj("OverridePolicy", "op", {}, "other"), bindings);
    expect(named.claims.map((c) => c.label)).toEqual(["Deployment default/nginx"]);
    expect(everything.selectors).toEqual(["every resource"]);
    expect(everything.claims).toHaveLength(2);
    expect(elsewhere.claims).toEqual([]);
  });
});
