import { describe, expect, it } from "vitest";
import { warningHeader } from "./warnings.ts";

const asSent = (s: string) => Buffer.from(s, "utf8").toString("latin1");

describe("warningHeader", () => {
  it.each([
    ["none", [], undefined],
    ["one", ['unknown field "bogus"'], '299 - "unknown field \\"bogus\\""'],
    ["duplicates once", ["a", "b", "a"], '299 - "a", 299 - "b"'],
    ["backslashes escaped", ["a\\b"], '299 - "a\\\\b"'],
    ["empty and control characters left out", ["", "line\nbreak", "tab\there", "ok"], '299 - "ok"'],
    ["lone surrogates left out", ["\ud800x", "ok"], '299 - "ok"'],
    // A body's invalid UTF-8 decodes to U+FFFD; the header carries its UTF-8 bytes, as Go's does.
    [
      "non-ASCII as UTF-8 bytes",
      ['unknown field "\ufffdkind"'],
      asSent('299 - "unknown field \\"\ufffdkind\\""'),
    ],
  ])("%s", (_name, warnings, want) => {
    expect(warningHeader(warnings)).toBe(want);
  });

  it("cuts every text to 256 characters and drops the rest once past 4096 in all", () => {
    const many = Array.from({ length: 100 }, (_, i) => `${"x".repeat(300)}${i}`);
    const value = warningHeader(many)!;
    const items = value.split(", 299 - ");
    expect(items).toHaveLength(16);
    expect(items[1]).toBe(`"${"x".repeat(256)}"`);
  });

  it("keeps everything under the total", () => {
    const some = Array.from({ length: 10 }, (_, i) => `${"y".repeat(300)}${i}`);
    expect(warningHeader(some)!.split(", ")).toHaveLength(10);
  });
});
