import { describe, expect, it } from "vitest";
import { FieldSelectorParseError, fieldsMatch, parseFieldSelector } from "./fields.ts";

describe("field selectors", () => {
  it("parses =, == and != joined by commas", () => {
    expect(parseFieldSelector("metadata.name=web,status.phase!=Failed,spec.nodeName==n1")).toEqual([
      { field: "metadata.name", operator: "=", value: "web" },
      { field: "status.phase", operator: "!=", value: "Failed" },
      { field: "spec.nodeName", operator: "=", value: "n1" },
    ]);
    expect(parseFieldSelector("")).toEqual([]);
    expect(parseFieldSelector("a=")).toEqual([{ field: "a", operator: "=", value: "" }]);
  });

  it("honours escapes", () => {
    expect(parseFieldSelector("a=x\\,y\\=z")).toEqual([{ field: "a", operator: "=", value: "x,y=z" }]);
  });

  it("rejects nonsense", () => {
    for (const bad of ["abc", "=x", "a=\\q"])
      expect(() => parseFieldSelector(bad)).toThrow(FieldSelectorParseError);
  });

  it("matches values, missing fields as empty", () => {
    const reqs = parseFieldSelector("metadata.name=web,status.phase!=Failed");
    expect(fieldsMatch(reqs, { "metadata.name": "web", "status.phase": "Running" })).toBe(true);
    expect(fieldsMatch(reqs, { "metadata.name": "web", "status.phase": "Failed" })).toBe(false);
    expect(fieldsMatch(reqs, { "metadata.name": "web" })).toBe(true);
  });
});
