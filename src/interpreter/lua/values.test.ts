import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restoreEmptyTables } from "./empty-tables.ts";
import { LuaEngine, LuaError } from "./engine.ts";
import { formatLuaNumber } from "./numbers.ts";

let engine: LuaEngine;

beforeAll(async () => {
  engine = await LuaEngine.create();
});
afterAll(() => engine.close());

const identity = "function F(...) return ... end";

/** Sends `value` into Lua and back. */
function roundTrip(value: unknown): unknown {
  return engine.call(identity, "F", [value])[0];
}

function run(script: string, results = 1): unknown[] {
  return engine.call(script, "F", [], { results });
}

describe("JSON into Lua and back", () => {
  it.each([
    ["integers", 3, 3],
    ["negative integers", -42, -42],
    ["floats", 2.5, 2.5],
    ["strings", "héllo ✓", "héllo ✓"],
    ["booleans", false, false],
    ["null", null, null],
    [
      "nested arrays",
      [
        [1, 2],
        [3, [4]],
      ],
      [
        [1, 2],
        [3, [4]],
      ],
    ],
    ["objects with sorted keys", { b: 1, a: { c: [true] } }, { a: { c: [true] }, b: 1 }],
    ["empty objects, as []", { a: {} }, { a: [] }],
    ["empty arrays", [], []],
    ["null members, left out", { a: null, b: 1 }, { b: 1 }],
    ["null elements, dropped", [1, null, 3], [1, 3]],
  ])("%s", (_name, input, output) => {
    expect(roundTrip(input)).toEqual(output);
  });

  it("hands integral numbers to scripts as integers and the rest as floats", () => {
    const script = "function F(a, b) return math.type(a), math.type(b), a .. '' end";
    expect(engine.call(script, "F", [3, 0.5], { results: 3 })).toEqual(["integer", "float", "3"]);
  });

  it("returns a float with an integral value as a plain number", () => {
    expect(run("function F() return 6 / 2, 2^10 end", 2)).toEqual([3, 1024]);
  });

  it.each([
    ["mixed keys", "function F() return { 1, a = 2 } end", /mixed or invalid key types/],
    ["sparse arrays", "function F() return { [1] = 'a', [3] = 'c' } end", /sparse array/],
    ["non-string keys", "function F() return { [true] = 1 } end", /mixed or invalid key types/],
    ["functions", "function F() return { f = print } end", /cannot encode function to JSON/],
    ["NaN", "function F() return { x = 0/0 } end", /unsupported value: NaN/],
    ["infinity", "function F() return math.huge end", /unsupported value: \+Inf/],
    ["cycles", "function F() local t = {} t.self = t return t end", /recursively nested/],
    [
      "a table used twice, as upstream",
      "function F() local c = {} return { a = c, b = c } end",
      /recursively nested/,
    ],
  ])("refuses %s in results", (_name, script, message) => {
    const e = (() => {
      try {
        run(script);
      } catch (err) {
        return err;
      }
      return undefined;
    })();
    expect(e).toBeInstanceOf(LuaError);
    expect((e as LuaError).reason).toBe("result");
    expect((e as LuaError).message).toMatch(message);
  });
});

describe("restoreEmptyTables", () => {
  it("turns an empty result into {} or [] by what the operation returns", () => {
    expect(restoreEmptyTables([], "object")).toEqual({});
    expect(restoreEmptyTables([], "list")).toEqual([]);
  });

  it("restores {} and keeps [] where the references have them, and deletes other empty fields", () => {
    const reference = { spec: { selector: {}, ports: [], template: { metadata: { labels: {} } } } };
    const result = {
      spec: { selector: [], ports: [], added: [], template: { metadata: { labels: [] } } },
    };
    expect(restoreEmptyTables(result, "object", [reference])).toEqual({
      spec: { selector: {}, ports: [], template: { metadata: { labels: {} } } },
    });
  });

  it("matches fields inside lists without their index", () => {
    const reference = { rules: [{ names: [], match: {} }, { names: ["a"] }] };
    const result = {
      rules: [
        { names: [], match: [] },
        { names: [], match: [] },
      ],
    };
    expect(restoreEmptyTables(result, "object", [reference])).toEqual({
      rules: [
        { names: [], match: {} },
        { names: [], match: {} },
      ],
    });
  });

  it("drops empty elements of a list that the references do not explain", () => {
    expect(restoreEmptyTables({ items: [[], 1, [], 2] }, "object")).toEqual({ items: [1, 2] });
  });

  it("uses every reference", () => {
    const result = { a: [], b: [] };
    expect(restoreEmptyTables(result, "object", [{ a: {} }, { b: [] }])).toEqual({ a: {}, b: [] });
  });
});

describe("formatLuaNumber", () => {
  it.each([
    [3, "3"],
    [-0, "0"],
    [0.1, "0.1"],
    [123456.5, "123456.5"],
    [1234567.5, "1.2345675e+06"],
    [2 ** 62, "4611686018427387904"],
    [1e21, "1e+21"],
    [2 ** 64, "1.8446744073709552e+19"],
    [0.00001, "1e-05"],
  ])("%d prints as %s", (n, text) => {
    expect(formatLuaNumber(n)).toBe(text);
  });
});
