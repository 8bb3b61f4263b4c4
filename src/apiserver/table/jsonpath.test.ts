import { describe, expect, it } from "vitest";
import { evaluateJsonPath, goJson, JsonPathError, parseJsonPathTemplate, resultText } from "./jsonpath.ts";

const work = {
  apiVersion: "work.karmada.io/v1alpha1",
  kind: "Work",
  metadata: {
    name: "web-6d4b",
    labels: { "app.kubernetes.io/name": "web", tier: "frontend" },
    annotations: { "a.b/c": "x" },
  },
  spec: {
    replicas: 3,
    weight: 0.5,
    workload: {
      manifests: [
        { kind: "Deployment", metadata: { name: "web" }, spec: { replicas: 3 } },
        { kind: "Service", metadata: { name: "web" } },
        { kind: "ConfigMap", metadata: { name: "web-config" } },
      ],
    },
    empty: [],
    nothing: null,
  },
  status: {
    conditions: [
      { type: "Applied", status: "True", observedGeneration: 2 },
      { type: "Available", status: "False", reason: "Pending" },
    ],
    ports: [
      { name: "http", port: 80 },
      { name: "https", port: 443 },
      { name: "admin", port: 8443 },
    ],
  },
};

describe("evaluateJsonPath", () => {
  it.each<[string, unknown[]]>([
    [".spec.replicas", [3]],
    [".metadata.name", ["web-6d4b"]],
    [".metadata.labels.app\\.kubernetes\\.io/name", ["web"]],
    [".metadata.labels.tier", ["frontend"]],
    [".spec.workload.manifests[*].kind", ["Deployment", "Service", "ConfigMap"]],
    [".spec.workload.manifests[0].kind", ["Deployment"]],
    [".spec.workload.manifests[-1].kind", ["ConfigMap"]],
    [".spec.workload.manifests[1:3].kind", ["Service", "ConfigMap"]],
    [".spec.workload.manifests[:2].kind", ["Deployment", "Service"]],
    [".spec.workload.manifests[::2].kind", ["Deployment", "ConfigMap"]],
    [".spec.workload.manifests[0,2].kind", ["Deployment", "ConfigMap"]],
    [".spec.workload.manifests[0]['kind']", ["Deployment"]],
    ['.status.conditions[?(@.type=="Applied")].status', ["True"]],
    [".status.conditions[?(@.type == 'Available')].reason", ["Pending"]],
    ['.status.conditions[?(@.type!="Applied")].type', ["Available"]],
    [".status.conditions[?(@.reason)].type", ["Available"]],
    [".status.ports[?(@.port>=443)].name", ["https", "admin"]],
    [".status.ports[?(@.port<443)].name", ["http"]],
    [".status.conditions[?(@.observedGeneration==2)].type", ["Applied"]],
    ["..replicas", [3, 3]],
    [".metadata.labels.*", ["web", "frontend"]],
    [".spec.missing", []],
    [".spec.missing.deeper", []],
    [".spec.nothing", [null]],
    [".spec.nothing.below", []],
    [".spec.workload.manifests.kind", []],
    ['.status.conditions[?(@.type=="Nope")].status', []],
    [".spec.empty[0:0]", []],
  ])("%s", (path, expected) => {
    expect(evaluateJsonPath(path, work)).toEqual(expected);
  });

  it("splits a quoted key at its dots, as upstream does", () => {
    expect(evaluateJsonPath(".metadata.annotations['a.b/c']", work)).toEqual([]);
    expect(evaluateJsonPath(".metadata.annotations.a\\.b/c", work)).toEqual(["x"]);
  });

  it.each([
    [".spec.workload.manifests[5].kind", /out of bounds/],
    [".spec.empty[0]", /out of bounds/],
    [".spec.replicas[0]", /not array/],
    [".spec[?(@.a)]", /cannot be filtered/],
    ['.status.ports[?(@.port=="80")].name', /incompatible types/],
    [".status.ports[?(@.port==80.0)].name", /incompatible types/],
    [".status.ports[?(@.port=80)].name", /unrecognized filter operator/],
  ])("%s fails", (path, message) => {
    expect(() => evaluateJsonPath(path, work)).toThrow(message);
  });

  it("reports missing keys when asked to", () => {
    expect(() => evaluateJsonPath(".spec.missing", work, { allowMissingKeys: false })).toThrow(
      /missing is not found/,
    );
  });

  it.each(["{.spec", ".spec[0", ".spec[?(@.a", "....a", ".spec[x]", " ^", "'open", ".spec[1.5]"])(
    "%s does not parse",
    (path) => {
      expect(() => evaluateJsonPath(path, work)).toThrow(JsonPathError);
    },
  );
});

describe("parseJsonPathTemplate", () => {
  it("separates literal text from actions", () => {
    const segments = parseJsonPathTemplate("name={.metadata.name} kind={.kind}");
    expect(segments.map((s) => s.kind)).toEqual(["literal", "action", "literal", "action"]);
  });
});

describe("resultText", () => {
  it("prints scalars as Go does and structures as compact JSON with sorted keys", () => {
    expect(resultText("x")).toBe("x");
    expect(resultText(3)).toBe("3");
    expect(resultText(0.5)).toBe("0.5");
    expect(resultText(1234567.5)).toBe("1.2345675e+06");
    expect(resultText(0.00001)).toBe("1e-05");
    expect(resultText(true)).toBe("true");
    expect(resultText(null)).toBe("<no value>");
    expect(resultText({ b: 1, a: ["<x>"] })).toBe('{"a":["\\u003cx\\u003e"],"b":1}');
    expect(goJson([1, { z: null, y: "&" }])).toBe('[1,{"y":"\\u0026","z":null}]');
  });
});
