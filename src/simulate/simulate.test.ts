import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { cluster, SERVED_APIS } from "../../test/support/scheduler-fixtures.ts";
import type { Binding } from "../karmada/bindings.ts";
import { ANNOTATION, LABEL } from "../karmada/names.ts";
import type { ClusterObject } from "../karmada/types.ts";
import { parseFleetChanges, SimulationInputError } from "./changes.ts";
import { type Manifest, parseManifests } from "./manifests.ts";
import { simulate } from "./simulate.ts";
import type { Fleet, Policy, TemplateResult } from "./types.ts";

const NOW = Date.UTC(2026, 0, 2, 3, 4, 5);
const NGINX = new URL("../../../shared/conformance/karmada/samples/nginx/", import.meta.url);
const sample = (file: string): Manifest[] => parseManifests(readFileSync(new URL(file, NGINX), "utf8"), file);
const nginxSample = (): Manifest[] => [...sample("deployment.yaml"), ...sample("propagationpolicy.yaml")];

const MORE_APIS = [
  ...SERVED_APIS,
  { groupVersion: "example.io/v1", resources: [{ name: "widgets", kind: "Widget" }] },
];
const status = { apiEnablements: MORE_APIS, resourceSummary: { allocatable: { cpu: "8", pods: "110" } } };
const clusters: ClusterObject[] = [
  cluster("member1", { labels: { env: "prod" }, status }),
  cluster("member2", { labels: { env: "prod" }, status }),
  cluster("member3", { status }),
];

function fleetOf(parts: Partial<Fleet> = {}): Fleet {
  return {
    clusters,
    resourceBindings: [],
    clusterResourceBindings: [],
    propagationPolicies: [],
    clusterPropagationPolicies: [],
    overridePolicies: [],
    clusterOverridePolicies: [],
    customizations: [],
    webhookConfigurations: [],
    warnings: [],
    ...parts,
  };
}

/** Discovery of the test fleet: built-ins and example.io Widgets (namespaced). */
const SCOPES: Record<string, boolean> = {
  "apps/v1|Deployment": true,
  "v1|ConfigMap": true,
  "v1|Namespace": false,
  "example.io/v1|Widget": true,
};
const scopeOf = async (apiVersion: string, kind: string): Promise<boolean | undefined> =>
  SCOPES[`${apiVersion}|${kind}`];

async function place(manifests: Manifest[], fleet = fleetOf(), changes = {}): Promise<TemplateResult[]> {
  const report = await simulate(fleet, changes, { manifests, scopeOf, now: NOW });
  return report.templates!.results;
}

const yaml = (text: string) => parseManifests(text, "test.yaml");

const ppFor = (name: string, placement: string, extra = "") =>
  `apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: ${name}}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: ${name}}]
  placement: ${placement}
${extra}
`;
const deployment = (name: string, replicas?: number, ns?: string) =>
  `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}${ns ? `, namespace: ${ns}` : ""}}
spec:
  ${replicas !== undefined ? `replicas: ${replicas}` : "paused: false"}
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec: {containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m}}}]}
`;

describe("simulate with templates", () => {
  it("places upstream's nginx sample 1:1 on member1 and member2, saying why member3 is left out", async () => {
    const [r] = await place(nginxSample());
    expect(r).toMatchObject({
      source: "deployment.yaml",
      kind: "Deployment",
      namespace: "default",
      name: "nginx",
      outcome: "Scheduled",
      policy: { kind: "PropagationPolicy", namespace: "default", name: "nginx-propagation", fromFile: true },
      binding: { kind: "ResourceBinding", namespace: "default", name: "nginx-deployment", exists: false },
      replicas: 2,
      workload: true,
      trigger: "PlacementChanged",
      placement: [
        { name: "member1", replicas: 1 },
        { name: "member2", replicas: 1 },
      ],
    });
    expect(r!.clusters.map((c) => [c.name, c.replicas ?? c.filteredBy, c.reason])).toEqual([
      ["member1", 1, undefined],
      ["member2", 1, undefined],
      ["member3", "ClusterAffinity", "cluster(s) did not match the placement cluster affinity constraint"],
    ]);
  });

  it("a cordoned cluster is filtered out by TaintToleration", async () => {
    const [r] = await place(nginxSample(), fleetOf(), parseFleetChanges({ cordon: ["member1"] }));
    expect(r?.placement).toEqual([{ name: "member2", replicas: 2 }]);
    expect(r?.clusters[0]).toMatchObject({
      name: "member1",
      filteredBy: "TaintToleration",
      reason: "cluster(s) had untolerated taint {cluster.karmada.io/unschedulable:NoSchedule}",
    });
  });

  it("a Deployment without replicas has the API server's default of 1", async () => {
    const [r] = await place(
      yaml(`${deployment("web")}---\n${ppFor("web", "{clusterAffinity: {clusterNames: [member3]}}")}`),
    );
    expect(r).toMatchObject({ replicas: 1, placement: [{ name: "member3", replicas: 1 }] });
  });

  it("says when nothing places a template, and why", async () => {
    const results = await place(
      yaml(
        [
          deployment("orphan", 1),
          deployment("system", 1, "kube-system"),
          "apiVersion: example.io/v2\nkind: Gadget\nmetadata: {name: g}\n",
          `${ppFor("needs-op", "{}", "  dependentOverrides: [missing-op]")}`,
          deployment("needs-op", 1),
        ].join("---\n"),
      ),
    );
    expect(results.map((r) => [r.name, r.outcome, r.message])).toEqual([
      ["orphan", "NotPropagated", "no PropagationPolicy or ClusterPropagationPolicy selects it"],
      ["system", "NotPropagated", "namespace kube-system is not propagated by Karmada"],
      [
        "g",
        "NotPropagated",
        'the control plane does not serve Gadget in example.io/v2 (no matches for kind "Gadget" in version "example.io/v2")',
      ],
      ["needs-op", "NotPropagated", "waiting for dependent overrides: missing-op"],
    ]);
  });

  it("a dependent override given in the files counts", async () => {
    const [r] = await place(
      yaml(
        [
          ppFor("needs-op", "{clusterAffinity: {clusterNames: [member1]}}", "  dependentOverrides: [op]"),
          "apiVersion: policy.karmada.io/v1alpha1\nkind: OverridePolicy\nmetadata: {name: op}\nspec: {}\n",
          deployment("needs-op", 1),
        ].join("---\n"),
      ),
    );
    expect(r?.outcome).toBe("Scheduled");
  });

  it("reports upstream's fit error when no cluster fits", async () => {
    const [r] = await place(
      yaml(`${deployment("web", 2)}---\n${ppFor("web", "{clusterAffinity: {clusterNames: [member3]}}")}`),
      fleetOf(),
      parseFleetChanges({ withoutCluster: ["member3"] }),
    );
    expect(r).toMatchObject({
      outcome: "Unschedulable",
      message:
        "0/3 clusters are available: 2 cluster(s) did not match the placement cluster affinity constraint.",
      failure: { reason: "NoClusterFit" },
      placement: [],
    });
    expect(r?.clusters.find((c) => c.name === "member3")).toMatchObject({ deleting: true });
  });

  it("a policy in the files replaces the live one of the same name; a higher priority live one still wins elsewhere", async () => {
    const live = yaml(ppFor("web", "{clusterAffinity: {clusterNames: [member1]}}"))[0]!.object as Policy;
    live.metadata.namespace = "default";
    live.metadata.labels = { [LABEL.ppPermanentId]: "live-id" };
    const [r] = await place(
      yaml(`${deployment("web", 2)}---\n${ppFor("web", "{clusterAffinity: {clusterNames: [member2]}}")}`),
      fleetOf({ propagationPolicies: [live] }),
    );
    expect(r?.policy).toEqual({
      kind: "PropagationPolicy",
      namespace: "default",
      name: "web",
      fromFile: true,
    });
    expect(r?.placement).toEqual([{ name: "member2", replicas: 2 }]);
    const [byLive] = await place(yaml(deployment("web", 2)), fleetOf({ propagationPolicies: [live] }));
    expect(byLive?.policy?.fromFile).toBe(false);
    expect(byLive?.placement).toEqual([{ name: "member1", replicas: 2 }]);
  });

  it("a template that exists keeps its placement unless the scheduler would look at it again", async () => {
    const placement = {
      clusterAffinity: { clusterNames: ["member1", "member2"] },
      replicaScheduling: { replicaSchedulingType: "Divided", replicaDivisionPreference: "Weighted" },
      clusterTolerations: [
        {
          key: "cluster.karmada.io/not-ready",
          operator: "Exists",
          effect: "NoExecute",
          tolerationSeconds: 300,
        },
        {
          key: "cluster.karmada.io/unreachable",
          operator: "Exists",
          effect: "NoExecute",
          tolerationSeconds: 300,
        },
      ],
    };
    const [pp] = yaml(ppFor("nginx", JSON.stringify(placement)));
    const policy = pp!.object as Policy;
    policy.metadata.namespace = "default";
    policy.metadata.labels = { [LABEL.ppPermanentId]: "id-1" };
    const binding: Binding = {
      apiVersion: "work.karmada.io/v1alpha2",
      kind: "ResourceBinding",
      metadata: {
        name: "nginx-deployment",
        namespace: "default",
        uid: "rb",
        generation: 1,
        labels: { [LABEL.ppPermanentId]: "id-1" },
        annotations: {
          [ANNOTATION.ppName]: "nginx",
          [ANNOTATION.ppNamespace]: "default",
          [ANNOTATION.appliedPlacement]: JSON.stringify(placement),
        },
      },
      spec: {
        resource: { apiVersion: "apps/v1", kind: "Deployment", namespace: "default", name: "nginx" },
        replicas: 2,
        placement: placement as never,
        clusters: [
          { name: "member1", replicas: 1 },
          { name: "member2", replicas: 1 },
        ],
      },
      status: { schedulerObservedGeneration: 1 },
    };
    const fleet = fleetOf({ propagationPolicies: [policy], resourceBindings: [binding] });
    const [same] = await place(yaml(deployment("nginx", 2)), fleet);
    expect(same).toMatchObject({
      outcome: "Unchanged",
      binding: { exists: true },
      placement: binding.spec.clusters,
    });
    const [moved] = await place(
      yaml(deployment("nginx", 2)),
      fleet,
      parseFleetChanges({ withoutCluster: ["member2"] }),
    );
    expect(moved).toMatchObject({
      outcome: "Scheduled",
      trigger: "TerminatingTarget",
      placement: [{ name: "member1", replicas: 2 }],
    });
    const [scaled] = await place(yaml(deployment("nginx", 4)), fleet);
    expect(scaled).toMatchObject({
      outcome: "Scheduled",
      trigger: "ReplicasChanged",
      placement: [
        { name: "member1", replicas: 2 },
        { name: "member2", replicas: 2 },
      ],
    });
  });

  it("reads replicas with the interpreter customizations, given ones and live ones", async () => {
    const ric = `apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata: {name: widgets}
spec:
  target: {apiVersion: example.io/v1, kind: Widget}
  customizations:
    replicaResource:
      luaScript: |
        function GetReplicas(obj)
          return obj.spec.size, {resourceRequest = {cpu = "1"}}
        end
`;
    const widget = `apiVersion: example.io/v1
kind: Widget
metadata: {name: w}
spec: {size: 3}
---
apiVersion: policy.karmada.io/v1alpha1
kind: ClusterPropagationPolicy
metadata: {name: widgets}
spec:
  resourceSelectors: [{apiVersion: example.io/v1, kind: Widget}]
  placement:
    clusterAffinity: {clusterNames: [member1]}
    replicaScheduling: {replicaSchedulingType: Divided, replicaDivisionPreference: Aggregated}
`;
    const [given] = await place(yaml(`${ric}---\n${widget}`));
    expect(given).toMatchObject({
      namespace: "default",
      outcome: "Scheduled",
      policy: { kind: "ClusterPropagationPolicy", name: "widgets", fromFile: true },
      replicas: 3,
      placement: [{ name: "member1", replicas: 3 }],
    });
    expect(given?.explanation?.attempts[0]?.needs).toEqual({ replicas: 3, request: { cpu: "1" } });
    const [live] = await place(yaml(widget), fleetOf({ customizations: [yaml(ric)[0]!.object] }));
    expect(live?.replicas).toBe(3);
    const [none] = await place(yaml(widget));
    expect(none?.workload).toBe(false);
  });

  it("a CustomResourceDefinition in the files gives its kind's scope", async () => {
    const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.io}
spec:
  group: example.io
  scope: Cluster
  names: {kind: Gadget, plural: gadgets}
  versions: [{name: v2, served: true, storage: true}]
`;
    const results = await place(
      yaml(`${crd}---\napiVersion: example.io/v2\nkind: Gadget\nmetadata: {name: g, namespace: ignored}`),
    );
    expect(results[1]).toMatchObject({
      name: "g",
      outcome: "NotPropagated",
      message: "no PropagationPolicy or ClusterPropagationPolicy selects it",
    });
    expect(results[1]?.namespace).toBeUndefined();
  });

  it("refuses an invalid policy as the API server would, and files with no templates", async () => {
    const bad = `apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: bad}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]
  preemption: Always
`;
    await expect(place(yaml(`${bad}---\n${deployment("web", 1)}`))).rejects.toThrow(
      'test.yaml: PropagationPolicy.policy.karmada.io "bad" is invalid: spec.resourceSelectors[0].name: Invalid value: "": name cannot be empty if preemption is Always, the empty name may cause unexpected resources preemption',
    );
    await expect(place(yaml(bad.replace("  preemption: Always\n", "")))).rejects.toThrow(
      SimulationInputError,
    );
  });
});

describe("simulate without templates", () => {
  it("replays the bindings and says which changes were made", async () => {
    const report = await simulate(
      fleetOf(),
      parseFleetChanges({ withoutCluster: ["member3"], taint: ["member1=x:NoExecute"] }),
      { now: NOW },
    );
    expect(report).toEqual({
      changes: ["cluster member3 removed", "cluster member1 tainted x:NoExecute"],
      features: { Failover: false, PropagationPolicyPreemption: false },
      warnings: [
        "NoExecute taints evict nothing: the controller manager's Failover gate is taken as off (upstream's default); say --feature-gates=Failover=true if yours runs with it",
      ],
      bindings: { changes: [], summary: { bindings: 0, moved: 0, unschedulable: 0 } },
    });
  });
});

describe("parseManifests", () => {
  it("reads YAML documents, Lists and JSON", () => {
    const text = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n---\n{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b"}}]}\n`;
    expect(parseManifests(text, "f.yaml").map((m) => [m.source, m.object.metadata.name])).toEqual([
      ["f.yaml", "a"],
      ["f.yaml", "b"],
    ]);
  });

  it.each([
    ["a: [", "error parsing f.yaml: "],
    ["- 1\n- 2", "error parsing f.yaml: a document must be an object"],
    ["kind: ConfigMap\nmetadata: {name: a}", "error validating f.yaml: apiVersion not set"],
    ["apiVersion: v1\nmetadata: {name: a}", "error validating f.yaml: kind not set"],
    [
      "apiVersion: v1\nkind: ConfigMap\n---\napiVersion: v1\nkind: ConfigMap",
      "error validating f.yaml (document 1): ConfigMap has no metadata.name",
    ],
  ])("refuses %j", (text, message) => {
    expect(() => parseManifests(text, "f.yaml")).toThrow(message);
  });
});
