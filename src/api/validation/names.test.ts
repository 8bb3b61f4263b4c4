import { describe, expect, it } from "vitest";
import { checkName, isConfigMapKey, isQualifiedName, isValidLabelValue, isValidPortName } from "./names.ts";

describe("name rules print apimachinery's messages", () => {
  const cases: Array<{
    rule: Parameters<typeof checkName>[0];
    name: string;
    prefix?: boolean;
    want: string[];
  }> = [
    {
      rule: "subdomain",
      name: "Foo",
      want: [
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      ],
    },
    { rule: "subdomain", name: "a.b-c", want: [] },
    { rule: "subdomain", name: `${"a".repeat(254)}`, want: ["must be no more than 253 characters"] },
    {
      rule: "label",
      name: "My_Name",
      want: [
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
      ],
    },
    { rule: "label", name: "a.b", want: ["must not contain dots"] },
    { rule: "label", name: "web-", prefix: true, want: [] },
    {
      rule: "dns1035",
      name: "1web",
      want: [
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      ],
    },
    { rule: "path-segment", name: "system:controller:x", want: [] },
    { rule: "path-segment", name: "..", want: ["may not be '..'"] },
    { rule: "path-segment", name: "a/b%c", want: ["may not contain '/'", "may not contain '%'"] },
  ];
  for (const c of cases) {
    it(`${c.rule} ${JSON.stringify(c.name).slice(0, 30)}`, () =>
      expect(checkName(c.rule, c.name, c.prefix ?? false)).toEqual(c.want));
  }
});

describe("qualified names, label values, keys, ports", () => {
  it("qualified names", () => {
    expect(isQualifiedName("example.com/my-label")).toEqual([]);
    expect(isQualifiedName("/x")).toEqual(["prefix part must be non-empty"]);
    expect(isQualifiedName("a/b/c")).toEqual([
      "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ]);
    expect(isQualifiedName(`${"x".repeat(64)}`)).toEqual(["name part must be no more than 63 characters"]);
  });
  it("label values", () => {
    expect(isValidLabelValue("")).toEqual([]);
    expect(isValidLabelValue("-bad")).toEqual([
      "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    ]);
  });
  it("config keys", () => {
    expect(isConfigMapKey("..a")).toEqual(["must not start with '..'"]);
    expect(isConfigMapKey("a b")[0]).toContain("a valid config key must consist of alphanumeric characters");
  });
  it("port names", () => {
    expect(isValidPortName("http")).toEqual([]);
    expect(isValidPortName("80")).toEqual(["must contain at least one letter (a-z)"]);
    expect(isValidPortName("a--b")).toEqual(["must not contain consecutive hyphens"]);
  });
});
