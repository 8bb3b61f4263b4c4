import { describe, expect, it } from "vitest";
import { JsonDecodeLimitError, MAX_JSON_DEPTH, nestedDeeperThan, scanJson } from "./json-scan.ts";

describe("scanJson", () => {
  it.each([
    ["no duplicates", '{"a":1,"b":{"a":2}}', []],
    ["a repeated key", '{"a":1,"b":2,"a":3}', ["a"]],
    ["nested, each once, in order", '{"s":{"p":1,"p":2,"x":[{"n":1,"n":2}]},"s":0}', ["p", "n", "s"]],
    ["escaped keys compared decoded", '{"\\u0061":1,"a":2}', ["a"]],
    ["strings holding braces and quotes", '{"a":"{\\"a\\":1,","b":"]"}', []],
    ["keys in arrays of objects are per object", '[{"a":1},{"a":2}]', []],
    ["safe integers", '{"a":9007199254740991,"b":-9007199254740991,"c":123456789012345}', []],
    ["floats keep their rounding", '{"a":0.1,"b":1.7976931348623157e308,"c":1e2}', []],
  ])("%s", (_name, text, want) => {
    expect(scanJson(text).duplicates).toEqual(want);
  });

  it.each([
    [
      "an integer past 2^53",
      '{"spec":{"big":9007199254740993}}',
      /9007199254740993 at spec.big cannot be stored exactly/,
    ],
    ["int64 max", '{"a":[1,9223372036854775807]}', /at a\[1\]/],
    ["2^53, exact but past the safe range", '{"a":9007199254740992}', /cannot be stored exactly/],
    ["2^60, exact but not written back the same", '{"a":1152921504606846976}', /cannot be stored exactly/],
    ["a float past the range", '{"a":1e400}', /1e400 at a is out of range/],
    ["a negative float past the range", "[-1e400]", /out of range/],
  ])("refuses %s", (_name, text, message) => {
    expect(() => scanJson(text)).toThrow(JsonDecodeLimitError);
    expect(() => scanJson(text)).toThrow(message);
  });

  it("allows MAX_JSON_DEPTH levels and refuses one more, without recursion", () => {
    const at = (n: number) => "[".repeat(n) + "]".repeat(n);
    expect(scanJson(at(MAX_JSON_DEPTH)).duplicates).toEqual([]);
    expect(() => scanJson(at(MAX_JSON_DEPTH + 1))).toThrow(`exceeded max depth of ${MAX_JSON_DEPTH}`);
    expect(() =>
      scanJson(`{"a":${'{"b":'.repeat(MAX_JSON_DEPTH)}1${"}".repeat(MAX_JSON_DEPTH + 1)}`),
    ).toThrow("exceeded max depth");
    expect(() => scanJson(at(100_000))).toThrow("exceeded max depth");
  });

  it("measures the nesting of values", () => {
    const deep = (n: number): unknown => (n === 0 ? 1 : { a: [deep(n - 1)] });
    expect(nestedDeeperThan(deep(5), 10)).toBe(false);
    expect(nestedDeeperThan(deep(5), 9)).toBe(true);
    expect(nestedDeeperThan("x", 0)).toBe(false);
    expect(nestedDeeperThan({}, 0)).toBe(true);
    let v: unknown = 1;
    for (let i = 0; i < 50_000; i++) v = [v];
    expect(nestedDeeperThan(v)).toBe(true);
  });
});
