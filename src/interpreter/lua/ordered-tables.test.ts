import { describe, expect, it } from "vitest";
import { ORDERED_HELPER, orderTableConstructors, tokenize } from "./ordered-tables.ts";

const H = ORDERED_HELPER;
const PREFIX = `local ${H} = ...; `;

describe("orderTableConstructors", () => {
  it.each([
    ["an empty constructor", "local t = {}", `local t = ${H}({})`],
    [
      "named fields, in order",
      "return { b = 1, a = { c = 2 } }",
      `return ${H}({ b = 1, a = ${H}({ c = 2 }, "c") }, "b", "a")`,
    ],
    [
      "positional and computed fields",
      `x = { 1, [k] = 2, y = 3; z = 4 }`,
      `x = ${H}({ 1, [k] = 2, y = 3; z = 4 }, "y", "z")`,
    ],
    ["a call with a table argument", `f{ a = 1 }`, `f(${H}({ a = 1 }, "a"))`],
    ["a method call with a table argument", `o:m { a = 1 }`, `o:m (${H}({ a = 1 }, "a"))`],
    ["a comparison inside a field", `t = { a = x == 1 }`, `t = ${H}({ a = x == 1 }, "a")`],
    [
      "assignments inside a function body in a constructor",
      "t = { f = function() local x = 1; y = 2 end, g = 3 }",
      `t = ${H}({ f = function() local x = 1; y = 2 end, g = 3 }, "f", "g")`,
    ],
    ["braces in strings and comments", `s = "{a=1}" -- {b=2}\nt = [[{]]`, `s = "{a=1}" -- {b=2}\nt = [[{]]`],
    ["keyword before a constructor", "return {}", `return ${H}({})`],
  ])("rewrites %s", (_name, source, rewritten) => {
    expect(orderTableConstructors(source)).toBe(PREFIX + rewritten);
  });

  it("keeps every line break, so error lines stay the script's", () => {
    const source = "function F()\n  local t = {\n    a = 1,\n  }\n  return t\nend\n";
    expect(orderTableConstructors(source)!.split("\n")).toHaveLength(source.split("\n").length);
  });

  it.each([
    ["an unterminated string", `s = "abc`],
    ["an unterminated long comment", "--[[ never closed"],
    ["unbalanced braces", "t = { a = 1"],
    ["unbalanced blocks", "function f() t = {}"],
  ])("gives up on %s", (_name, source) => {
    expect(orderTableConstructors(source)).toBeUndefined();
  });
});

describe("tokenize", () => {
  it("reads Lua's numbers, long strings and symbols", () => {
    const tokens = tokenize("x = 0x1p-2 + 3e+5 .. [==[a]]b]==] ~= ...")!;
    expect(tokens.map((t) => t.text)).toEqual([
      "x",
      "=",
      "0x1p-2",
      "+",
      "3e+5",
      "..",
      "[==[a]]b]==]",
      "~=",
      "...",
    ]);
  });
});
