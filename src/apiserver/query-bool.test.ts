import { describe, expect, it } from "vitest";
import { parseQueryBool } from "./request-info.ts";

describe("parseQueryBool", () => {
  // Go's strconv.ParseBool spellings.
  it.each(["1", "t", "T", "TRUE", "true", "True"])("%j is true", (value) => {
    expect(parseQueryBool(value)).toBe(true);
  });
  it.each(["0", "f", "F", "FALSE", "false", "False"])("%j is false", (value) => {
    expect(parseQueryBool(value)).toBe(false);
  });

  // Anything else: false only for a case-insensitive "false", true otherwise (`?watch`, `?watch=yes`).
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
