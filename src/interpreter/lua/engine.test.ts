import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LuaEngine, LuaError, type LuaErrorReason } from "./engine.ts";

let engine: LuaEngine;

// A clock that moves on each time it is read: the budget runs out after a fixed amount of
// work, however fast the machine is.
let tick = 0;

beforeAll(async () => {
  engine = await LuaEngine.create({ budgetMs: 50, maxMemory: 8 * 1024 * 1024, now: () => tick++ });
});
afterAll(() => engine.close());

/** Runs `F` from `script`; returns its first result. */
function run(script: string, ...args: unknown[]): unknown {
  return engine.call(script, "F", args)[0];
}

function failure(fn: () => unknown): LuaError {
  try {
    fn();
  } catch (e) {
    if (e instanceof LuaError) return e;
    throw e;
  }
  throw new Error("expected a LuaError");
}

function expectFailure(fn: () => unknown, reason: LuaErrorReason, message?: RegExp): void {
  const e = failure(fn);
  expect(e.reason).toBe(reason);
  if (message) expect(e.message).toMatch(message);
  // The engine carries on after any failure.
  expect(run("function F(x) return x + 1 end", 41)).toBe(42);
}

describe("LuaEngine", () => {
  it("calls the named function with JSON arguments and returns JSON results", () => {
    const script = `function Sum(obj, n) return obj.spec.replicas + n, obj.metadata.name .. "!" end`;
    const out = engine.call(script, "Sum", [{ spec: { replicas: 2 }, metadata: { name: "web" } }, 3], {
      results: 3,
    });
    expect(out).toEqual([5, "web!", null]);
  });

  it("runs the script's top level afresh on every call, with fresh globals", () => {
    const script = "calls = (calls or 0) + 1\nfunction F() return calls end";
    expect(run(script)).toBe(1);
    expect(run(script)).toBe(1);
    expect(run("function F() return calls end")).toBeNull();
  });

  it("lets a script replace or clear a global for the rest of its call", () => {
    expect(run("function F() error = nil return error end")).toBeNull();
    expect(run("function F() return type(error) end")).toBe("function");
  });

  it("stops an infinite loop with a budget error", () => {
    expectFailure(() => run("function F() while true do end end"), "budget", /time budget of 50 ms/);
  });

  it("stops a loop that catches the budget error with pcall", () => {
    const script = "function F() while true do pcall(function() while true do end end) end end";
    expectFailure(() => run(script), "budget");
  });

  it("stops an infinite loop in the script's top level", () => {
    expectFailure(() => run("while true do end"), "budget");
  });

  // A generous budget, so the memory limit is what stops these.
  const small = { maxMemory: 256 * 1024, budgetMs: 1e9 };

  it("stops runaway string growth with a memory error", () => {
    const script = "function F() local s = 'x' while true do s = s .. s end end";
    expectFailure(() => engine.call(script, "F", [], small), "memory", /memory limit of 262144 bytes/);
  });

  it("stops runaway table growth with a memory error", () => {
    const script = "function F() local t = {} local i = 0 while true do i = i + 1 t[i] = { i } end end";
    expectFailure(() => engine.call(script, "F", [], small), "memory");
  });

  it("returns to its baseline memory once failed calls are collected", () => {
    const before = engine.memoryUsed;
    const script = "function F() local t = {} for i = 1, 1e9 do t[i] = 'x' .. i end end";
    expect(
      failure(() => engine.call(script, "F", [], { maxMemory: 4 * 1024 * 1024, budgetMs: 1e9 })).reason,
    ).toBe("memory");
    expect(engine.memoryUsed).toBeLessThan(before + 1024 * 1024);
  });

  it("has no io, no os.execute, no debug and no package", () => {
    expectFailure(() => run("function F() return os.execute('ls') end"), "runtime", /field 'execute'/);
    expectFailure(() => run("function F() return io.open('/etc/passwd') end"), "runtime", /global 'io'/);
    expect(run("function F() return debug == nil and package == nil and coroutine == nil end")).toBe(true);
  });

  it("requires kube and the sandbox libraries only", () => {
    expect(run("local kube = require('kube') function F() return type(kube.resourceAdd) end")).toBe(
      "function",
    );
    expect(run("function F() return require('os').execute == nil and require('os').time ~= nil end")).toBe(
      true,
    );
    expectFailure(() => run("function F() return require('io') end"), "runtime", /module 'io' not found/);
    expectFailure(() => run("local x = require('x') function F() end"), "runtime", /module 'x' not found/);
  });

  it("refuses upstream's disabled functions with upstream's message", () => {
    for (const fn of [
      "load",
      "loadstring",
      "dofile",
      "getmetatable",
      "setmetatable",
      "rawget",
      "rawset",
      "collectgarbage",
    ]) {
      expectFailure(
        () => run(`function F() return ${fn}({}) end`),
        "runtime",
        new RegExp(`call function ${fn} is not supported`),
      );
    }
    for (const fn of ["rep", "gsub", "dump"]) {
      expectFailure(
        () => run(`function F() return string.${fn}('x', 'y', 'z') end`),
        "runtime",
        /is not supported by Karmada/,
      );
    }
    expectFailure(
      () => run("function F() return ('x'):rep(3) end"),
      "runtime",
      /string.rep is not supported/,
    );
  });

  it("keeps the shared libraries read-only", () => {
    expectFailure(() => run("function F() string.upper = nil end"), "runtime", /read-only/);
    expect(run("function F() return string.upper('a') end")).toBe("A");
  });

  it("refuses precompiled (binary) chunks", () => {
    expectFailure(() => engine.call("\u001bLua\u0054\u0000", "F", []), "compile", /binary chunk/);
  });

  it("reports a syntax error as a compile error", () => {
    expectFailure(() => run("function F( return 1 end"), "compile", /<string>:1:/);
  });

  it("reports a missing or mistyped function", () => {
    expectFailure(() => engine.call("function G() end", "F", []), "function", /^not found function F$/);
    expectFailure(() => engine.call("F = 1", "F", []), "function", /F is not a function: number/);
  });

  it("reports runtime errors with the script's line", () => {
    expectFailure(
      () => run("function F(obj)\n  return obj.status.replicas\nend", {}),
      "runtime",
      /<string>:2: attempt to index a nil value/,
    );
  });

  it("prints numbers as upstream's gopher-lua does", () => {
    const script = `function F(x)
      return { tostring(6 / 2), tostring(x), tostring(0.5), tostring(1e20), tostring(1234567.5), tostring(1e-5),
        string.format("%s/%d", 4 / 2, 3.0), tostring(0/0) }
    end`;
    expect(run(script, 7)).toEqual(["3", "7", "0.5", "1e+20", "1.2345675e+06", "1e-05", "2/3", "NaN"]);
  });

  it("iterates tables the script builds in insertion order, as gopher-lua does", () => {
    const script = `function F()
      local t = { zeta = 1, alpha = 2 }
      t.mid = 3
      t.beta = 4
      t.alpha = nil
      t.alpha = 5
      local keys = {}
      for k in pairs(t) do keys[#keys + 1] = k end
      local list = { "a", "b" }
      list[3] = "c"
      for i, v in pairs(list) do keys[#keys + 1] = i .. v end
      return keys
    end`;
    expect(run(script)).toEqual(["zeta", "alpha", "mid", "beta", "1a", "2b", "3c"]);
  });

  it("checks scripts for admission", () => {
    expect(() =>
      engine.checkScript("function InterpretHealth(o) return true end", "InterpretHealth"),
    ).not.toThrow();
    expect(
      failure(() => engine.checkScript("function InterpretHealth(o) return true", "InterpretHealth")).reason,
    ).toBe("compile");
    const missing = failure(() => engine.checkScript("function Other() end", "InterpretHealth"));
    expect(missing.reason).toBe("function");
    expect(missing.message).toBe("not found function InterpretHealth");
  });

  it("evicts compiled scripts beyond its cache size and still runs them", async () => {
    const small = await LuaEngine.create({ cacheSize: 2 });
    try {
      for (let round = 0; round < 2; round++) {
        for (let i = 0; i < 5; i++) expect(small.call(`function F() return ${i} end`, "F", [])).toEqual([i]);
      }
    } finally {
      small.close();
    }
  });

  // A budget the clock never reaches, so the instruction bound is what stops these.
  const counted = { maxInstructions: 20_000, budgetMs: 1e9 };

  it("stops a call at its instruction bound, also when the script catches the error", () => {
    expectFailure(
      () => engine.call("function F() while true do end end", "F", [], counted),
      "instructions",
      /bound of 20000 instructions/,
    );
    const catching = "function F() while true do pcall(function() while true do end end) end end";
    expectFailure(() => engine.call(catching, "F", [], counted), "instructions");
    // Below the bound a call runs to its end.
    const loop = "function F() local n = 0 for i = 1, 1000 do n = n + i end return n end";
    expect(engine.call(loop, "F", [], counted)).toEqual([500500]);
  });

  it("refuses pattern matches the hook could not interrupt, before running them", () => {
    // Each would backtrack for seconds to hours in C, where the count hook never fires.
    for (const [length, pattern] of [
      [100_000, "a*b"],
      [50_000, ".-b"],
      [4_000, "a*a*b"],
      [1_000, "(a*)%1b"],
      [1_000, "a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?b"],
    ] as const) {
      for (const fn of ["find", "match", "gmatch"]) {
        const script = `function F(n, p) local s = "a" while #s < n do s = s .. s end
          return string.${fn}(s:sub(1, n), p) end`;
        expectFailure(
          () => engine.call(script, "F", [length, pattern], { budgetMs: 1e9 }),
          "runtime",
          new RegExp(
            `string\\.${fn}: the pattern is too costly to match against a string of ${length} bytes`,
          ),
        );
      }
    }
    // What scripts match in practice (short subjects, anchored patterns, plain finds) still runs.
    expect(run("function F(s) return s:match('^(%d+)%.(%d+)') end", "1.25.3")).toBe("1");
    expect(
      run("function F(s) return (string.find(s, 'Ready', 1, true)) end", `${"x".repeat(500_000)}Ready`),
    ).toBe(500_001);
    expect(run("function F(s) return s:match('^[^:]+:(.*)$') end", `image:${"v".repeat(5000)}`)).toHaveLength(
      5000,
    );
  });

  it("refuses an argument nested past the conversion depth with a LuaError", () => {
    let deep: unknown = "leaf";
    for (let i = 0; i < 600; i++) deep = i % 2 ? [deep] : { nested: deep };
    expectFailure(() => run("function F(x) return 1 end", { spec: deep }), "argument", /nested too deeply/);
  });

  it("refuses calls once closed", async () => {
    const closed = await LuaEngine.create();
    closed.close();
    expect(() => closed.call("function F() end", "F", [])).toThrow(/closed/);
  });
});
