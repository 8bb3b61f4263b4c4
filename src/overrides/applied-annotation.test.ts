import { describe, expect, it } from "vitest";
import { appliedOverridesAnnotation, overridersJson } from "./applied-annotation.ts";

describe("appliedOverridesAnnotation", () => {
  it("is undefined when nothing applied", () => {
    expect(appliedOverridesAnnotation([])).toBeUndefined();
  });

  it("sorts by policy name (upstream's TestAppliedOverrides_AscendOrder)", () => {
    const applied = ["bbb", "aaa", "ccc"].map((policyName) => ({ policyName, overriders: {} }));
    expect(appliedOverridesAnnotation(applied)).toBe(
      '[{"policyName":"aaa","overriders":{}},{"policyName":"bbb","overriders":{}},{"policyName":"ccc","overriders":{}}]',
    );
  });

  it("keeps the rules of one policy in order", () => {
    const applied = [
      { policyName: "p", overriders: { plaintext: [{ path: "/a", operator: "remove" as const }] } },
      { policyName: "a", overriders: {} },
      { policyName: "p", overriders: { plaintext: [{ path: "/b", operator: "remove" as const }] } },
    ];
    expect(appliedOverridesAnnotation(applied)).toBe(
      '[{"policyName":"a","overriders":{}},' +
        '{"policyName":"p","overriders":{"plaintext":[{"path":"/a","operator":"remove","value":null}]}},' +
        '{"policyName":"p","overriders":{"plaintext":[{"path":"/b","operator":"remove","value":null}]}}]',
    );
  });
});

describe("overridersJson", () => {
  it("writes the Go struct: field order, empty lists left out, values as Go marshals them", () => {
    expect(
      overridersJson({
        fieldOverrider: [
          { fieldPath: "/data/a.yaml", yaml: [{ subPath: "/x", operator: "remove" }], json: [] },
          {
            fieldPath: "/data/b.json",
            json: [{ subPath: "/y", operator: "add", value: { z: 1, a: [true] } }],
          },
        ],
        annotationsOverrider: [{ operator: "remove" }],
        labelsOverrider: [{ operator: "add", value: { zone: "b", env: "prod" } }],
        argsOverrider: [{ containerName: "nginx", operator: "remove", value: [] }],
        commandOverrider: [{ containerName: "nginx", operator: "add", value: ["&& echo 'hello karmada'"] }],
        imageOverrider: [
          { component: "Registry", operator: "remove", value: "" },
          {
            predicate: { path: "/spec/containers/0/image" },
            component: "Tag",
            operator: "replace",
            value: "1.0",
          },
        ],
        plaintext: [{ path: "/spec/replicas", operator: "replace", value: 3 }],
      }),
    ).toBe(
      "{" +
        '"plaintext":[{"path":"/spec/replicas","operator":"replace","value":3}],' +
        '"imageOverrider":[{"component":"Registry","operator":"remove"},' +
        '{"predicate":{"path":"/spec/containers/0/image"},"component":"Tag","operator":"replace","value":"1.0"}],' +
        '"commandOverrider":[{"containerName":"nginx","operator":"add","value":["\\u0026\\u0026 echo \'hello karmada\'"]}],' +
        '"argsOverrider":[{"containerName":"nginx","operator":"remove"}],' +
        '"labelsOverrider":[{"operator":"add","value":{"env":"prod","zone":"b"}}],' +
        '"annotationsOverrider":[{"operator":"remove","value":null}],' +
        '"fieldOverrider":[{"fieldPath":"/data/a.yaml","yaml":[{"subPath":"/x","operator":"remove","value":null}]},' +
        '{"fieldPath":"/data/b.json","json":[{"subPath":"/y","operator":"add","value":{"a":[true],"z":1}}]}]' +
        "}",
    );
  });

  it("leaves out empty lists", () => {
    expect(overridersJson({ plaintext: [], imageOverrider: [] })).toBe("{}");
  });
});
