import { describe, expect, it } from "vitest";
import { parseQueryBool } from "./request-info.ts";

describe("parseQueryBool", () => {
  // kube's Convert_Slice_string_To_bool: false only for "0" or a case-insensitive "false".
  it.each(["1", "t", "T", "f", "F", "TRUE", "true", "True"])("%j is true", (value) => {
    expect(parseQueryBool(value)).toBe(true);
  });
  it.each(["0", "FALSE", "false", "False"])("%j is false", (value) => {
    expect(parseQueryBool(value)).toBe(false);
  });

  it.each([
    { value: "fALSE", want: false },
    { value: "FaLsE", want: false },
    { value: "", want: true },
    { value: "yes", want: true },
    { value: "no", want: true },
    { value: "tRUE", want: true },
    { value: "2", want: true },
    { value: " false", want: true },
    { value: "00", want: true },
  ])("fallback: $value → $want", ({ value, want }) => {
    expect(parseQueryBool(value)).toBe(want);
  });
});
