import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../api/meta.ts";
import { generatePolicyName } from "../../karmada/names.ts";
import { type DiscoveredResource, matchResourceType } from "../resource-types.ts";
import {
  buildPolicy,
  gvkString,
  gvrString,
  normalizePflagArgs,
  prepareTemplate,
  validatePromoteOptions,
} from "./promote.ts";

describe("generatePolicyName", () => {
  it.each([
    // upstream's names_test.go vectors
    ["ns-foo", "foo", "rand", "foo-b4978784"],
    ["ns-foo", "system:foo", "rand", "system.foo-b4978784"],
  ])("(%s, %s, %s) → %s", (namespace, name, gvk, want) => {
    expect(generatePolicyName(namespace, name, gvk)).toBe(want);
  });

  it("hashes the namespace with the GVK string and lower-cases the result", () => {
    const a = generatePolicyName("default", "Nginx", gvkString("apps/v1", "Deployment"));
    expect(a).toMatch(/^nginx-[bcdfghjklmnpqrstvwxz2456789]+$/);
    expect(generatePolicyName("other", "Nginx", gvkString("apps/v1", "Deployment"))).not.toBe(a);
    expect(generatePolicyName("default", "nginx", gvkString("apps/v1", "StatefulSet"))).not.toBe(a);
  });
});

describe("gvkString and gvrString", () => {
  it("write Go's schema String() forms", () => {
    expect(gvkString("apps/v1", "Deployment")).toBe("apps/v1, Kind=Deployment");
    expect(gvkString("v1", "ConfigMap")).toBe("/v1, Kind=ConfigMap");
    expect(gvrString({ group: "apps", version: "v1", resource: "deployments" })).toBe(
      "apps/v1, Resource=deployments",
    );
    expect(gvrString({ group: "", version: "v1", resource: "configmaps" })).toBe("/v1, Resource=configmaps");
  });
});

describe("validatePromoteOptions", () => {
  it.each([
    [
      { args: ["deployment"], cluster: "member1" },
      "incorrect command format, please use correct command format",
    ],
    [{ args: ["deployment", "a", "b"], cluster: "member1" }, "incorrect command format"],
    [{ args: ["deployment", "nginx"], cluster: "" }, "the cluster cannot be empty"],
    [
      { args: ["deployment", "nginx"], cluster: "member1", output: "xml" },
      "invalid output format: supported formats are json and yaml",
    ],
  ])("%j fails: %s", (opts, message) => {
    expect(() => validatePromoteOptions(opts)).toThrow(message);
  });

  it("accepts yaml, json or no output", () => {
    for (const output of ["yaml", "json", undefined]) {
      expect(() =>
        validatePromoteOptions({
          args: ["deployment", "nginx"],
          cluster: "member1",
          ...(output ? { output } : {}),
        }),
      ).not.toThrow();
    }
  });
});

describe("prepareTemplate", () => {
  const live: KubeObject = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: {
      name: "nginx",
      namespace: "default",
      uid: "1234",
      resourceVersion: "42",
      generation: 3,
      creationTimestamp: "2024-01-01T00:00:00Z",
      managedFields: [{ manager: "kubectl" }],
      annotations: { "deployment.kubernetes.io/revision": "1", keep: "me" },
      labels: { app: "nginx" },
    },
    spec: { replicas: 2 },
    status: { replicas: 2 },
  };

  it("drops what the member filled in and adds the overwrite conflict resolution", () => {
    expect(prepareTemplate(live)).toEqual({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: {
        name: "nginx",
        namespace: "default",
        annotations: { keep: "me", "work.karmada.io/conflict-resolution": "overwrite" },
        labels: { app: "nginx" },
      },
      spec: { replicas: 2 },
    });
    expect(live.metadata?.uid).toBe("1234");
  });

  it("keeps a conflict resolution the object already names", () => {
    const obj = {
      ...live,
      metadata: { name: "x", annotations: { "work.karmada.io/conflict-resolution": "abort" } },
    };
    expect(prepareTemplate(obj).metadata?.annotations).toEqual({
      "work.karmada.io/conflict-resolution": "abort",
    });
  });

  it("annotates an object without annotations", () => {
    expect(
      prepareTemplate({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" } }).metadata,
    ).toEqual({
      name: "c",
      annotations: { "work.karmada.io/conflict-resolution": "overwrite" },
    });
  });

  it("keeps a Job's ttlSecondsAfterFinished (Works drop it, promote does not)", () => {
    const job = {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { name: "j" },
      spec: { ttlSecondsAfterFinished: 60 },
    };
    expect(prepareTemplate(job).spec).toEqual({ ttlSecondsAfterFinished: 60 });
  });
});

describe("buildPolicy", () => {
  it("a PropagationPolicy selecting the object and placing it on the one cluster", () => {
    expect(
      buildPolicy({
        policyName: "nginx-abc",
        namespace: "default",
        apiVersion: "apps/v1",
        kind: "Deployment",
        name: "nginx",
        cluster: "member1",
        propagateDeps: false,
      }),
    ).toEqual({
      apiVersion: "policy.karmada.io/v1alpha1",
      kind: "PropagationPolicy",
      metadata: { name: "nginx-abc", namespace: "default" },
      spec: {
        resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "nginx" }],
        placement: { clusterAffinity: { clusterNames: ["member1"] } },
        conflictResolution: "Overwrite",
        preserveResourcesOnDeletion: true,
      },
    });
  });

  it("a ClusterPropagationPolicy for a cluster-scoped object, propagateDeps with --dependencies", () => {
    const cpp = buildPolicy({
      policyName: "reader-xyz",
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      name: "reader",
      cluster: "member2",
      propagateDeps: true,
    });
    expect(cpp.kind).toBe("ClusterPropagationPolicy");
    expect(cpp.metadata).toEqual({ name: "reader-xyz" });
    expect(cpp.spec).toMatchObject({ propagateDeps: true, conflictResolution: "Overwrite" });
  });
});

describe("matchResourceType", () => {
  const r = (
    group: string,
    version: string,
    resource: string,
    kind: string,
    extra: Partial<DiscoveredResource> = {},
  ): DiscoveredResource => ({ group, version, resource, kind, namespaced: true, preferred: true, ...extra });
  const resources = [
    r("", "v1", "configmaps", "ConfigMap", { singularName: "configmap", shortNames: ["cm"] }),
    r("apps", "v1", "deployments", "Deployment", { singularName: "deployment", shortNames: ["deploy"] }),
    r("apps", "v1beta1", "deployments", "Deployment", { preferred: false }),
    r("rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", { namespaced: false }),
    r("example.io", "v1", "deployments", "Deployment"),
  ];

  it.each([
    ["deployment", "apps/v1/deployments"],
    ["Deployments", "apps/v1/deployments"],
    ["deploy", "apps/v1/deployments"],
    ["cm", "/v1/configmaps"],
    ["ConfigMap", "/v1/configmaps"],
    ["deployment.v1.apps", "apps/v1/deployments"],
    ["deployment.v1beta1.apps", "apps/v1beta1/deployments"],
    ["deployments.example.io", "example.io/v1/deployments"],
    ["clusterroles.rbac", "rbac.authorization.k8s.io/v1/clusterroles"],
    ["clusterrole.rbac.authorization.k8s.io", "rbac.authorization.k8s.io/v1/clusterroles"],
  ])("%s → %s", (arg, want) => {
    const m = matchResourceType(resources, arg);
    expect(m && `${m.group}/${m.version}/${m.resource}`).toBe(want);
  });

  it("finds nothing for an unknown type or group", () => {
    expect(matchResourceType(resources, "gadgets")).toBeUndefined();
    expect(matchResourceType(resources, "deployments.nope")).toBeUndefined();
  });
});

describe("normalizePflagArgs", () => {
  const booleans = [
    { long: "dependencies", short: "d" },
    { long: "auto-create-policy" },
    { long: "dry-run" },
  ];
  it.each([
    [["-C=member1"], ["-C", "member1"]],
    [["-d=true"], ["--dependencies"]],
    [["-d=false"], ["--no-dependencies"]],
    [["--auto-create-policy=false"], ["--no-auto-create-policy"]],
    [["--dry-run=true"], ["--dry-run"]],
    [["--policy-name=x"], ["--policy-name=x"]],
    [["--dry-run=maybe"], ["--dry-run=maybe"]],
    [
      ["--", "-C=x"],
      ["--", "-C=x"],
    ],
    [
      ["deployment", "nginx", "-n", "default"],
      ["deployment", "nginx", "-n", "default"],
    ],
  ])("%j → %j", (argv, want) => {
    expect(normalizePflagArgs(argv, booleans)).toEqual(want);
  });
});
