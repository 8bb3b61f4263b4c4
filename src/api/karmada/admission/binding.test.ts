import { describe, expect, it } from "vitest";
import type { StoredObject } from "../../meta.ts";
import { object, rendered, testContext } from "./admission.fixtures.ts";
import {
  decodesAsDependencies,
  mutateClusterResourceBinding,
  mutateResourceBinding,
  validateResourceBinding,
} from "./binding.ts";
import { DEFAULT_FEATURES } from "./context.ts";

// The example of the reference (§5.5), as the detector creates it.
function rb(extra: Record<string, unknown> = {}, annotations?: Record<string, string>): StoredObject {
  return object(
    "work.karmada.io/v1alpha2",
    "ResourceBinding",
    {
      name: "nginx-deployment",
      namespace: "default",
      uid: "uid-nginx-deployment",
      labels: { "propagationpolicy.karmada.io/permanent-id": "0f1a" },
      ...(annotations ? { annotations } : {}),
    },
    {
      spec: {
        resource: { apiVersion: "apps/v1", kind: "Deployment", namespace: "default", name: "nginx" },
        replicas: 2,
        replicaRequirements: { resourceRequest: { cpu: "100m", memory: "128Mi" } },
        placement: { clusterAffinity: { clusterNames: ["member1", "member2"] } },
        schedulerName: "default-scheduler",
        conflictResolution: "Abort",
        clusters: [
          { name: "member1", replicas: 2 },
          { name: "member2", replicas: 2 },
        ],
        ...extra,
      },
    },
  );
}

describe("mutation", () => {
  it("stamps a permanent id on create, keeping other labels", () => {
    const b = rb();
    mutateResourceBinding(b, undefined, testContext());
    expect(b.metadata.labels).toEqual({
      "propagationpolicy.karmada.io/permanent-id": "0f1a",
      "resourcebinding.karmada.io/permanent-id": "uid-1",
    });
    expect(validateResourceBinding(b)).toEqual([]);
  });

  it("keeps an existing id, and does nothing on update", () => {
    const b = rb();
    b.metadata.labels = { "resourcebinding.karmada.io/permanent-id": "mine" };
    mutateResourceBinding(b, undefined, testContext());
    expect(b.metadata.labels).toEqual({ "resourcebinding.karmada.io/permanent-id": "mine" });
    const updated = rb();
    mutateResourceBinding(updated, rb(), testContext());
    expect(updated.metadata.labels).toEqual({ "propagationpolicy.karmada.io/permanent-id": "0f1a" });
  });

  it("stamps a ClusterResourceBinding with its own label", () => {
    const crb = object(
      "work.karmada.io/v1alpha2",
      "ClusterResourceBinding",
      { name: "c-clusterrole", uid: "uid-c-clusterrole" },
      { spec: {} },
    );
    mutateClusterResourceBinding(crb, undefined, testContext());
    expect(crb.metadata.labels).toEqual({ "clusterresourcebinding.karmada.io/permanent-id": "uid-1" });
  });
});

describe("validation", () => {
  const dependencies: Array<[string, boolean]> = [
    ['[{"apiVersion":"v1","kind":"ConfigMap","namespace":"default","name":"cm"}]', true],
    [
      '[{"apiVersion":"v1","kind":"Secret","labelSelector":{"matchLabels":{"a":"b"},"matchExpressions":[{"key":"k","operator":"In","values":["v"]}]}}]',
      true,
    ],
    ["null", true],
    ["[]", true],
    ["not json", false],
    ['{"apiVersion":"v1"}', false],
    ['[{"name":3}]', false],
    ['[{"labelSelector":{"matchLabels":{"a":1}}}]', false],
  ];
  it.each(dependencies)("dependencies annotation %s decodes: %s", (text, ok) => {
    expect(decodesAsDependencies(text)).toBe(ok);
  });

  it("reports an undecodable dependencies annotation", () => {
    const b = rb({}, { "resourcebinding.karmada.io/dependencies": "{" });
    expect(rendered(validateResourceBinding(b))).toEqual([
      'metadata.annotations.resourcebinding.karmada.io/dependencies: Invalid value: "{": annotation value must be a valid JSON',
    ]);
  });

  it("checks component names only with MultiplePodTemplatesScheduling", () => {
    const b = rb({
      components: [
        { name: "", replicas: 1 },
        { name: "jm", replicas: 1 },
        { name: "jm", replicas: 2 },
      ],
    });
    expect(validateResourceBinding(b)).toEqual([]);
    expect(
      rendered(
        validateResourceBinding(b, undefined, { ...DEFAULT_FEATURES, MultiplePodTemplatesScheduling: true }),
      ),
    ).toEqual([
      'spec.components[0].name: Invalid value: "": component names must be non-empty',
      'spec.components[2].name: Invalid value: "jm": component names must be unique',
    ]);
  });
});
