import { describe, expect, it } from "vitest";
import { isLabelKey, isLabelValue, jsonPointerError, validateAnnotationMap } from "./formats.ts";

const NAME_RULE =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

describe("label keys and values (apimachinery v0.36 wording)", () => {
  const keys: Array<[string, string[]]> = [
    ["app", []],
    ["karmada.io/managed", []],
    ["/app", ["prefix part must be non-empty"]],
    [
      "Karmada.io/app",
      [
        "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      ],
    ],
    ["k".repeat(64), ["name part must be no more than 63 bytes"]],
    [
      "a/b/c",
      [
        `a valid label key ${NAME_RULE} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
      ],
    ],
    ["-a", [`name part ${NAME_RULE}`]],
  ];
  it.each(keys)("key %j", (key, expected) => {
    expect(isLabelKey(key)).toEqual(expected);
  });

  it("values", () => {
    expect(isLabelValue("")).toEqual([]);
    expect(isLabelValue("v".repeat(64))).toEqual(["must be no more than 63 bytes"]);
  });

  it("annotation keys ignore case and the total size is bounded", () => {
    expect(validateAnnotationMap({ "Example.com/Key": "v" }, "a")).toEqual([]);
    expect(validateAnnotationMap({ big: "x".repeat(256 * 1024) }, "a")).toEqual([
      { type: "FieldValueTooLong", field: "a", detail: "may not be more than 262144 bytes" },
    ]);
  });
});

describe("jsonPointerError", () => {
  it.each(["", "/", "/a/b", "/a~1b"])("accepts %j", (p) => {
    expect(jsonPointerError(p)).toBeUndefined();
  });
  it("refuses a pointer without a leading slash", () => {
    expect(jsonPointerError("a/b")).toBe(
      'JSON pointer must be empty or start with a "/"\nJSON pointer error',
    );
  });
});
