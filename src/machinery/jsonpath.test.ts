import { describe, expect, it } from "vitest";
import { parseJsonPath } from "./jsonpath.ts";

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
