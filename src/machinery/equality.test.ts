import { describe, expect, it } from "vitest";
import { deepEqual } from "./equality.ts";

describe("deepEqual (JSON values)", () => {
  it.each<[string, unknown, unknown, boolean]>([
    ["same scalar", "a", "a", true],
    ["different scalars", 1, "1", false],
    ["null and null", null, null, true],
    ["null and an object", null, {}, false],
    ["null and undefined", null, undefined, false],
    ["key order does not matter", { a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 }, true],
    ["array order does", [1, 2], [2, 1], false],
    ["arrays of other lengths", [1], [1, 1], false],
    ["an array is not an object", [], {}, false],
    ["an object is not an array", { 0: "a", length: 1 }, ["a"], false],
    ["a missing key", { a: 1 }, { a: 1, b: 2 }, false],
    ["a key holding undefined is absent", { a: 1, b: undefined }, { a: 1 }, true],
    ["undefined against null is not equal", { a: undefined }, { a: null }, false],
    ["nested difference", { a: { b: [1, { c: 2 }] } }, { a: { b: [1, { c: 3 }] } }, false],
  ])("%s", (_name, a, b, want) => {
    expect(deepEqual(a, b)).toBe(want);
    expect(deepEqual(b, a)).toBe(want);
  });
});
