import { describe, expect, it } from "vitest";
import {
  canonicalQuantity,
  canonicalResourceQuantity,
  compareQuantities,
  parseQuantity,
} from "./quantity.ts";

describe("canonical quantities", () => {
  const cases: Array<[unknown, string]> = [
    ["1000m", "1"],
    ["0.5", "500m"],
    ["1.5", "1500m"],
    [1, "1"],
    [0.25, "250m"],
    ["1024Mi", "1Gi"],
    ["1536Mi", "1536Mi"],
    ["0.5Gi", "512Mi"],
    ["512", "512"],
    ["1000", "1k"],
    ["1500", "1500"],
    ["2000000", "2M"],
    ["1e3", "1e3"],
    ["0", "0"],
    ["100Ki", "100Ki"],
    ["-2", "-2"],
  ];
  for (const [input, want] of cases) {
    it(`${String(input)} -> ${want}`, () => expect(canonicalQuantity(input)).toBe(want));
  }
  it("rounds resource lists up to milli-units", () => {
    expect(canonicalResourceQuantity("0.0001")).toBe("1m");
    expect(canonicalResourceQuantity("100m")).toBe("100m");
  });
  it("rejects malformed quantities", () => {
    for (const bad of ["", "abc", "1.2.3", "1Kb", "--1", true]) expect(parseQuantity(bad)).toBeUndefined();
  });
  it("compares across formats", () => {
    const q = (s: string) => parseQuantity(s)!;
    expect(compareQuantities(q("1Gi"), q("1G"))).toBe(1);
    expect(compareQuantities(q("500m"), q("0.5"))).toBe(0);
    expect(compareQuantities(q("1"), q("2"))).toBe(-1);
  });
});
