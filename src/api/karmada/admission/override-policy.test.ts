import { describe, expect, it } from "vitest";
import { validateObject } from "../../../machinery/structural.ts";
import type { StoredObject } from "../../meta.ts";
import { clusterOverridePolicyCrd, overridePolicyCrd } from "../policy.ts";
import { defaulted, loadSample, rendered, testContext } from "./admission.fixtures.ts";
import {
  mutateOverridePolicy,
  validateClusterOverridePolicy,
  validateOverridePolicy,
} from "./override-policy.ts";

function op(spec: Record<string, unknown>): StoredObject {
  return defaulted(overridePolicyCrd, {
    apiVersion: "policy.karmada.io/v1alpha1",
    kind: "OverridePolicy",
    metadata: { name: "o", namespace: "default" },
    spec,
  });
}

function rule(
  overriders: Record<string, unknown>,
  targetCluster?: Record<string, unknown>,
): Record<string, unknown> {
  return targetCluster ? { targetCluster, overriders } : { overriders };
}

// The example of the reference (§4.5), using every overrider.
const REFERENCE_EXAMPLE = {
  resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "nginx" }],
  overrideRules: [
    rule(
      {
        imageOverrider: [{ component: "Registry", operator: "replace", value: "registry.example.com" }],
        labelsOverrider: [{ operator: "add", value: { env: "prod" } }],
        plaintext: [{ path: "/spec/replicas", operator: "replace", value: 3 }],
      },
      { clusterNames: ["member1"] },
    ),
    rule({
      fieldOverrider: [
        {
          fieldPath: "/data/test.yaml",
          yaml: [{ subPath: "/key/key1", operator: "replace", value: "updated_value" }],
        },
        {
          fieldPath: "/data/db-config.json",
          json: [{ subPath: "/spec/template/spec/containers/0/image", operator: "remove" }],
        },
      ],
      imageOverrider: [
        {
          predicate: { path: "/spec/template/spec/containers/0/image" },
          component: "Tag",
          operator: "replace",
          value: "v2",
        },
      ],
    }),
  ],
};

describe("valid policies pass after mutation", () => {
  const cases: Array<[string, StoredObject]> = [
    ["nginx sample", defaulted(overridePolicyCrd, { ...loadSample("nginx/overridepolicy.yaml")[0]! })],
    [
      "guestbook sample",
      defaulted(overridePolicyCrd, { ...loadSample("guestbook/guestbooks-overridepolicy.yaml")[0]! }),
    ],
    ["reference example", op(REFERENCE_EXAMPLE)],
  ];
  it.each(cases)("%s", (_name, policy) => {
    policy.metadata.namespace = "default";
    mutateOverridePolicy(policy, undefined, testContext());
    expect(validateObject(policy, overridePolicyCrd.spec.versions[0]!.schema!.openAPIV3Schema)).toEqual([]);
    expect(validateOverridePolicy(policy)).toEqual([]);
  });

  it("fills empty selector namespaces, and leaves set ones", () => {
    const policy = op({
      resourceSelectors: [
        { apiVersion: "v1", kind: "ConfigMap" },
        { apiVersion: "v1", kind: "Secret", namespace: "default" },
      ],
    });
    mutateOverridePolicy(policy, undefined, testContext());
    expect((policy.spec as { resourceSelectors: unknown }).resourceSelectors).toEqual([
      { apiVersion: "v1", kind: "ConfigMap", namespace: "default" },
      { apiVersion: "v1", kind: "Secret", namespace: "default" },
    ]);
  });
});

const NOT_POINTER = 'JSON pointer must be empty or start with a "/"\nJSON pointer error';

describe("spec rules", () => {
  const cases: Array<[string, Record<string, unknown>, string[]]> = [
    [
      "legacy targetCluster with overrideRules, with a bad field selector",
      {
        targetCluster: {
          fieldSelector: { matchExpressions: [{ key: "name", operator: "In", values: ["a"] }] },
        },
        overrideRules: [],
      },
      [
        'spec.targetCluster.fieldSelector: Invalid value: {"matchExpressions":[{"key":"name","operator":"In","values":["a"]}]}: unsupported key "name", must be provider, region, or zone',
        'spec.targetCluster: Invalid value: {"fieldSelector":{"matchExpressions":[{"key":"name","operator":"In","values":["a"]}]}}: overrideRules and targetCluster can\'t co-exist',
      ],
    ],
    [
      "legacy overriders with overrideRules",
      { overriders: { plaintext: [{ path: "/a", operator: "remove" }] }, overrideRules: [] },
      [
        'spec.overriders: Invalid value: {"plaintext":[{"path":"/a","operator":"remove"}]}: overrideRules and overriders can\'t co-exist',
      ],
    ],
    [
      "annotation keys",
      { overrideRules: [rule({ annotationsOverrider: [{ operator: "add", value: { "a/b/c": "x" } }] })] },
      [
        "spec.overrideRules[0].overriders.annotationsOverrider[0].value: Invalid value: \"a/b/c\": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
      ],
    ],
    [
      "label values",
      { overrideRules: [rule({ labelsOverrider: [{ operator: "add", value: { env: "a b" } }] })] },
      [
        "spec.overrideRules[0].overriders.labelsOverrider[0].value: Invalid value: \"a b\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
      ],
    ],
    [
      "image predicate path",
      {
        overrideRules: [
          rule({ imageOverrider: [{ predicate: { path: "spec/x" }, component: "Tag", operator: "remove" }] }),
        ],
      },
      [
        `spec.overrideRules[0].overriders.imageOverrider[0].predicate.path: Invalid value: "spec/x": ${NOT_POINTER}`,
      ],
    ],
    [
      "field overrider with both JSON and YAML",
      {
        overrideRules: [
          rule({
            fieldOverrider: [
              {
                fieldPath: "/data/x",
                json: [{ subPath: "/a", operator: "remove" }],
                yaml: [{ subPath: "/a", operator: "remove" }],
              },
            ],
          }),
        ],
      },
      [
        'spec.overrideRules[0].overriders.fieldOverrider[0]: Invalid value: {"fieldPath":"/data/x","json":[{"subPath":"/a","operator":"remove"}],"yaml":[{"subPath":"/a","operator":"remove"}]}: FieldOverrider has both YAML and JSON set. Only one is allowed',
      ],
    ],
    [
      "field overrider with neither, and a bad field path",
      { overrideRules: [rule({ fieldOverrider: [{ fieldPath: "data" }] })] },
      [
        "spec.overrideRules[0].overriders.fieldOverrider[0]: Required value: FieldOverrider must have either JSON or YAML set",
        `spec.overrideRules[0].overriders.fieldOverrider[0].fieldPath: Invalid value: "data": ${NOT_POINTER}`,
      ],
    ],
    [
      "patch operations: bad sub path, missing and forbidden values",
      {
        overrideRules: [
          rule({
            fieldOverrider: [
              {
                fieldPath: "/data/x",
                json: [
                  { subPath: "a", operator: "add", value: 1 },
                  { subPath: "/b", operator: "replace" },
                  { subPath: "/c", operator: "remove", value: "x" },
                ],
              },
              { fieldPath: "/data/y", yaml: [{ subPath: "/d", operator: "add" }] },
            ],
          }),
        ],
      },
      [
        `spec.overrideRules[0].overriders.fieldOverrider[0].json[0].subPath: Invalid value: "a": ${NOT_POINTER}`,
        "spec.overrideRules[0].overriders.fieldOverrider[0].json[1].value: Invalid value: null: value is required for add or replace operation",
        'spec.overrideRules[0].overriders.fieldOverrider[0].json[2].value: Invalid value: "x": value is not allowed for remove operation',
        "spec.overrideRules[0].overriders.fieldOverrider[1].yaml[0].value: Invalid value: null: value is required for add or replace operation",
      ],
    ],
    [
      "rule target cluster field selector",
      {
        overrideRules: [
          rule(
            {},
            { fieldSelector: { matchExpressions: [{ key: "provider", operator: "Gt", values: ["1"] }] } },
          ),
        ],
      },
      [
        'spec.overrideRules[0].targetCluster.fieldSelector: Invalid value: {"matchExpressions":[{"key":"provider","operator":"Gt","values":["1"]}]}: unsupported operator "Gt", must be In or NotIn',
      ],
    ],
    [
      "selector in another namespace",
      { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", namespace: "other" }] },
      [
        'spec.resourceSelectors[0].namespace: Invalid value: "other": namespace of resource selector must be the same as the namespace of the policy',
      ],
    ],
  ];
  it.each(cases)("%s", (_name, spec, expected) => {
    expect(rendered(validateOverridePolicy(op(spec)))).toEqual(expected);
  });

  it("allows the legacy pair alone, and legacy field overriders next to rules (upstream ignores them)", () => {
    expect(
      validateOverridePolicy(op({ targetCluster: { clusterNames: ["m1"] }, overriders: { plaintext: [] } })),
    ).toEqual([]);
    expect(
      validateOverridePolicy(
        op({ overriders: { fieldOverrider: [{ fieldPath: "/x" }] }, overrideRules: [] }),
      ),
    ).toEqual([]);
  });

  it("does not check selector namespaces of a ClusterOverridePolicy", () => {
    const policy = defaulted(clusterOverridePolicyCrd, {
      apiVersion: "policy.karmada.io/v1alpha1",
      kind: "ClusterOverridePolicy",
      metadata: { name: "c" },
      spec: { resourceSelectors: [{ apiVersion: "v1", kind: "ConfigMap", namespace: "x" }] },
    });
    expect(validateClusterOverridePolicy(policy)).toEqual([]);
  });
});
