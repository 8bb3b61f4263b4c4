import { describe, expect, it } from "vitest";
import {
  evaluateJsonPath,
  goJson,
  JsonPathError,
  KUBECTL_OPTIONS,
  parseJsonPath,
  resultText,
} from "./jsonpath.ts";

const DATA = {
  kind: "List",
  items: [
    { metadata: { name: "a", labels: { x: "1", a: "0" } }, spec: { n: 1, on: true } },
    { metadata: { name: "b" }, spec: { n: 2.5, on: false } },
  ],
  jobStatus: { jobID: "4b1f", state: "RUNNING" },
  replicas: 3,
  big: 1e21,
  nothing: null,
};

describe("parseJsonPath", () => {
  it.each([
    ["{ .jobStatus.jobID }", "4b1f"],
    ["{.replicas}", "3"],
    ["{$.replicas}", "3"],
    ["{@.replicas}", "3"],
    ["replicas={.replicas}", "replicas=3"],
    ["no action at all", "no action at all"],
    ["{.items[*].metadata.name}", "a b"],
    ["{.items[0].metadata.labels}", '{"a":"0","x":"1"}'],
    ["{.items[-1].spec.n}", "2.5"],
    ["{.items[0:1].metadata.name}", "a"],
    ["{.items[::2].metadata.name}", "a"],
    ["{.items[1:1]}", ""],
    ["{.items[*]['metadata']['name']}", "a b"],
    ["{.items[*].metadata['name','labels']}", 'a b {"a":"0","x":"1"}'],
    ["{.items[?(@.spec.n > 2)].metadata.name}", "b"],
    ["{.items[?(@.spec.n == 1)].metadata.name}", "a"],
    ["{.items[?(@.metadata.name != 'a')].metadata.name}", "b"],
    ["{.items[?(@.spec.on == true)].metadata.name}", "a"],
    ["{.items[?(@.metadata.labels)].metadata.name}", "a"],
    ["{..name}", "a b"],
    ["{.jobStatus.*}", "4b1f RUNNING"],
    ["{range .items[*]}[{.metadata.name}]{end}", "[a][b]"],
    ['{range .items[*]}{.metadata.name}{"\\t"}{end}', "a\tb\t"],
    ["{.nothing}", "<nil>"],
    ["{.big}", "1e+21"],
  ])("%s", (template, expected) => {
    expect(parseJsonPath(template).execute(DATA)).toBe(expected);
  });

  it("{.} prints the whole object as JSON", () => {
    expect(JSON.parse(parseJsonPath("{.}").execute(DATA))).toEqual(DATA);
  });

  it.each([
    ["{.jobStatus.savepoint}", "savepoint is not found"],
    ["{.items[5]}", "array index out of bounds: index 5, length 2"],
    ["{.items[1:5]}", "array index out of bounds: index 4, length 2"],
    ["{.items[::0]}", "step must be > 0"],
    ["{.replicas[0]}", "float64 is not array or slice"],
    ["{.items[?(@.spec.n == 'x')]}", "incompatible types for comparison"],
  ])("%s fails: %s", (template, message) => {
    expect(() => parseJsonPath(template).execute(DATA)).toThrow(message);
  });

  it("missing keys print nothing when allowed", () => {
    expect(parseJsonPath("[{.jobStatus.savepoint}]").execute(DATA, { allowMissingKeys: true })).toBe("[]");
  });

  it.each([
    ["{.a", "unclosed action"],
    ["{end}", "not in range, nothing to end"],
    ["{range .items[*]}{.x}", "unclosed range"],
    ["{.items[?(@.a == 1]}", "unclosed filter"],
    ["{.items[x]}", "invalid array index x"],
  ])("%s does not parse: %s", (template, message) => {
    expect(() => parseJsonPath(template)).toThrow(message);
  });
});

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

/** A printer column's path, evaluated as the API server and kubectl do. */
const column = (path: string): unknown[] => evaluateJsonPath(path, work, KUBECTL_OPTIONS);

describe("evaluateJsonPath, as printer columns read it", () => {
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
    expect(column(path)).toEqual(expected);
  });

  it("splits a quoted key at its dots, as upstream does", () => {
    expect(column(".metadata.annotations['a.b/c']")).toEqual([]);
    expect(column(".metadata.annotations.a\\.b/c")).toEqual(["x"]);
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
    expect(() => column(path)).toThrow(message);
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

describe("findResults", () => {
  it("separates literal text from actions", () => {
    const results = parseJsonPath("name={.metadata.name} kind={.kind}").findResults(work);
    expect(results).toEqual([["name="], ["web-6d4b"], [" kind="], ["Work"]]);
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

describe("options and dialect", () => {
  it("compares numbers by value, or by Go's kinds as kubectl does", () => {
    const template = parseJsonPath("{.items[?(@.spec.n > 2)].metadata.name}");
    expect(template.execute(DATA)).toBe("b");
    expect(() => template.execute(DATA, KUBECTL_OPTIONS)).toThrow("incompatible types for comparison");
    expect(() => parseJsonPath("{.replicas[0]}").execute(DATA, KUBECTL_OPTIONS)).toThrow(
      "int64 is not array or slice",
    );
  });

  it("prints null as <nil> in a template and as <no value> in a printer column", () => {
    expect(parseJsonPath("{.nothing}").execute(DATA)).toBe("<nil>");
    expect(resultText(evaluateJsonPath(".nothing", DATA)[0])).toBe("<no value>");
  });

  it("gives one list of results per action and per range iteration", () => {
    const results = parseJsonPath("{range .items[*]}{.metadata.name}{end}{.kind}").findResults(DATA);
    expect(results).toEqual([["a"], ["b"], ["List"]]);
  });

  it("reads $ as the current object, as upstream does, also inside a range", () => {
    expect(parseJsonPath("{range .items[*]}{$.metadata.name};{end}").execute(DATA)).toBe("a;b;");
  });

  it("unquotes Go escapes in quoted text", () => {
    expect(parseJsonPath(String.raw`{"\x41\u00e9\101\""}`).execute(DATA)).toBe('AéA"');
  });
});
