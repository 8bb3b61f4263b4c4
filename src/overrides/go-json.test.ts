import { describe, expect, it } from "vitest";
import {
  compactGoJson,
  compareUtf8,
  formatGoJsonNumber,
  marshalGoJson,
  quoteGoJsonString,
  rawArrayItems,
  rawObjectMembers,
} from "./go-json.ts";

describe("quoteGoJsonString", () => {
  it.each([
    { name: "plain text", s: "hello", want: '"hello"' },
    { name: "quotes and backslashes", s: 'a"b\\c', want: '"a\\"b\\\\c"' },
    { name: "HTML characters", s: "<a & b>", want: '"\\u003ca \\u0026 b\\u003e"' },
    { name: "newline, return, tab", s: "a\nb\rc\td", want: '"a\\nb\\rc\\td"' },
    { name: "backspace and form feed (Go 1.22+)", s: "\b\f", want: '"\\b\\f"' },
    { name: "other control characters", s: "\u0000\u001f", want: '"\\u0000\\u001f"' },
    { name: "line and paragraph separators", s: "\u2028\u2029", want: '"\\u2028\\u2029"' },
    { name: "DEL and non-ASCII stay raw", s: "\u007fé😀\u0085", want: '"\u007fé😀\u0085"' },
    { name: "a lone surrogate becomes U+FFFD", s: "a\ud800b", want: '"a\\ufffdb"' },
  ])("$name", ({ s, want }) => {
    expect(quoteGoJsonString(s)).toBe(want);
  });

  it("writes \\b and \\f as \\u escapes for json-patch's fork of encoding/json", () => {
    expect(quoteGoJsonString("\b\f<", true)).toBe('"\\u0008\\u000c\\u003c"');
  });
});

describe("formatGoJsonNumber", () => {
  it.each([
    [0, "0"],
    [-0, "-0"],
    [5, "5"],
    [1.5, "1.5"],
    [1e20, "100000000000000000000"],
    [1e21, "1e+21"],
    [1e-6, "0.000001"],
    [1e-7, "1e-7"],
    [-1.25e-8, "-1.25e-8"],
  ])("%d -> %s", (n, want) => {
    expect(formatGoJsonNumber(n)).toBe(want);
  });

  it.each([
    [Number.NaN, "json: unsupported value: NaN"],
    [Number.POSITIVE_INFINITY, "json: unsupported value: +Inf"],
    [Number.NEGATIVE_INFINITY, "json: unsupported value: -Inf"],
  ])("refuses %d", (n, message) => {
    expect(() => formatGoJsonNumber(n)).toThrow(message);
  });
});

describe("marshalGoJson", () => {
  it.each([
    { name: "null and undefined", value: [null, undefined], want: "[null,null]" },
    {
      name: "keys sorted, nested",
      value: { b: 1, a: { d: true, c: "x" } },
      want: '{"a":{"c":"x","d":true},"b":1}',
    },
    {
      name: "UTF-8 byte order of keys",
      value: { "\uff01": 1, "😀": 2, a: 3, B: 4 },
      want: '{"B":4,"a":3,"！":1,"😀":2}',
    },
    { name: "undefined members left out", value: { a: undefined, b: 1 }, want: '{"b":1}' },
    {
      name: "bigint is a Go integer",
      value: { n: 12345678901234567890n },
      want: '{"n":12345678901234567890}',
    },
    {
      name: "Maps are objects",
      value: new Map<string, unknown>([
        ["z", 1],
        ["a", [2]],
      ]),
      want: '{"a":[2],"z":1}',
    },
    { name: "HTML in keys and values", value: { "<k>": "&" }, want: '{"\\u003ck\\u003e":"\\u0026"}' },
    { name: "empty containers", value: { a: {}, b: [] }, want: '{"a":{},"b":[]}' },
  ])("$name", ({ value, want }) => {
    expect(marshalGoJson(value)).toBe(want);
  });

  it("compares keys as UTF-8 bytes", () => {
    expect(compareUtf8("\uff01", "😀")).toBeLessThan(0);
    expect("\uff01" < "😀").toBe(false);
  });
});

describe("compactGoJson", () => {
  it.each([
    {
      name: "whitespace between tokens",
      raw: '{ "a" : [ 1 , 2 ] ,\n\t"b" : {} }',
      want: '{"a":[1,2],"b":{}}',
    },
    { name: "whitespace inside strings stays", raw: '[ "a b\\n" ]', want: '["a b\\n"]' },
    {
      name: "number spellings and escapes stay",
      raw: '[1.50, 1E3, -0, "\\u00e9\\/"]',
      want: '[1.50,1E3,-0,"\\u00e9\\/"]',
    },
    { name: "HTML characters escaped", raw: '"<&>"', want: '"\\u003c\\u0026\\u003e"' },
    { name: "separators escaped", raw: '"\u2028"', want: '"\\u2028"' },
    { name: "escaped quote does not end the string", raw: '["a\\" b", 1]', want: '["a\\" b",1]' },
  ])("$name", ({ raw, want }) => {
    expect(compactGoJson(raw)).toBe(want);
  });
});

describe("raw members and items", () => {
  it("splits an object into member texts", () => {
    expect(rawObjectMembers(' { "a" : 1.50 , "b\\"c": {"x": [1, "}"]}, "d":"" } ')).toEqual([
      { key: "a", keyRaw: '"a"', raw: "1.50" },
      { key: 'b"c', keyRaw: '"b\\"c"', raw: '{"x": [1, "}"]}' },
      { key: "d", keyRaw: '"d"', raw: '""' },
    ]);
    expect(rawObjectMembers("{}")).toEqual([]);
  });

  it("splits an array into element texts", () => {
    expect(rawArrayItems('[ 1 , "a,b" , [2, 3] , {"k": "]"} , null ]')).toEqual([
      "1",
      '"a,b"',
      "[2, 3]",
      '{"k": "]"}',
      "null",
    ]);
    expect(rawArrayItems("[ ]")).toEqual([]);
  });
});
