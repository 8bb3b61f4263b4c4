/**
 * Hostile Lua for the interpreter (ADR 0007): generated and hand-written scripts for every
 * hook a ResourceInterpreterCustomization scripts, run as the controllers run them and as
 * admission checks them. Properties: each run ends (a time budget on an injected clock that
 * moves per read, an instruction bound, a memory limit, and a refusal of pattern matches the
 * hook could not interrupt), a failure is a LuaError with a reason and a message (what the
 * webhook and admission report), never another exception; no script reaches the host (files,
 * processes, the real globals); the state's memory returns to its baseline.
 *
 * Seeded: FUZZ_SEED (default 20240917) and FUZZ_RUNS (default 150 per property) widen a run.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KubeObject } from "../../src/api/meta.ts";
import {
  LuaEngine,
  LuaError,
  type LuaErrorReason,
  type LuaLimits,
} from "../../src/interpreter/lua/engine.ts";
import {
  type CustomizationName,
  checkCustomizations,
  LUA_RULES,
  luaInterpreter,
} from "../../src/interpreter/lua/operations.ts";
import type { AggregatedStatusItem } from "../../src/karmada/types.ts";
import { ESCAPE_PROBES, generatedScript, HOSTILE_BODIES } from "./lua-scripts.ts";

const SEED = Number(process.env.FUZZ_SEED ?? 20240917);
const RUNS = Number(process.env.FUZZ_RUNS ?? 150);
const params = { seed: SEED, numRuns: RUNS };

const REASONS: readonly LuaErrorReason[] = [
  "argument",
  "compile",
  "runtime",
  "budget",
  "instructions",
  "memory",
  "function",
  "result",
];

// The clock moves on each time it is read, so the budget runs out after a fixed amount of
// work however loaded the machine is: 80 reads are 80,000 instructions.
let tick = 0;
let engine: LuaEngine;
const LIMITS: LuaLimits = { budgetMs: 80, maxMemory: 1024 * 1024, maxInstructions: 60_000 };

beforeAll(async () => {
  engine = await LuaEngine.create({ now: () => tick++, cacheSize: 64 });
});
afterAll(() => engine.close());

const workload: KubeObject = {
  apiVersion: "example.io/v1",
  kind: "Workload",
  metadata: { name: "web", namespace: "shop", labels: { app: "web" } },
  spec: { replicas: 3, template: { spec: { containers: [{ name: "c", image: "nginx:1.25" }] } } },
  status: { readyReplicas: 3 },
};

const statusItems: AggregatedStatusItem[] = [
  { clusterName: "member1", status: { readyReplicas: 1 }, applied: true },
  { clusterName: "member2", applied: false },
];

/** Objects as a user may write them: any JSON under the usual fields, some deeply nested or huge. */
const hostileObject: fc.Arbitrary<KubeObject> = fc
  .tuple(
    fc.jsonValue({ maxDepth: 4 }),
    fc.oneof(
      fc.constant<unknown>(null),
      fc.nat({ max: 2000 }).map((depth) => {
        let v: unknown = "leaf";
        for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { nested: v };
        return v;
      }),
      fc.constantFrom<unknown>("x".repeat(2_000_000), 2 ** 60, -(2 ** 53) - 2, Number.MAX_VALUE, {
        __index: "x",
        _G: 1,
      }),
    ),
  )
  .map(([spec, extra]) => ({
    ...workload,
    spec: { ...(workload.spec as object), extra: spec, more: extra },
  }));

/** Runs one customization's operation as the controllers call it; returns the error, if any. */
function runHook(name: CustomizationName, script: string, obj: KubeObject, limits: LuaLimits): unknown {
  const ops = luaInterpreter(engine, { [name]: { luaScript: script } }, limits);
  try {
    switch (name) {
      case "retention":
        ops.retain!(obj, workload);
        break;
      case "replicaResource":
        ops.getReplicas!(obj);
        break;
      case "componentResource":
        ops.getComponents!(obj);
        break;
      case "replicaRevision":
        ops.reviseReplica!(obj, 2);
        break;
      case "statusReflection":
        ops.reflectStatus!(obj);
        break;
      case "statusAggregation":
        ops.aggregateStatus!(obj, statusItems);
        break;
      case "healthInterpretation":
        ops.interpretHealth!(obj);
        break;
      case "dependencyInterpretation":
        ops.getDependencies!(obj);
        break;
    }
    return undefined;
  } catch (e) {
    return e;
  }
}

/** A failure is a LuaError with a known reason and a one-line-able message; the engine carries on. */
function expectCleanOutcome(err: unknown): void {
  if (err !== undefined) {
    if (!(err instanceof LuaError)) throw err;
    expect(REASONS).toContain(err.reason);
    expect(err.message).not.toBe("");
    expect(err.message).not.toMatch(/RuntimeError|RangeError|TypeError|unreachable|out of bounds/);
  }
  expect(engine.call("function F(x) return x + 1 end", "F", [41])).toEqual([42]);
}

const HOOKS = Object.keys(LUA_RULES) as CustomizationName[];

describe("Lua scripts from users (fuzzed)", () => {
  it("every generated script for every hook ends with a result or a clean LuaError", () => {
    fc.assert(
      fc.property(
        fc
          .constantFrom(...HOOKS)
          .chain((name) =>
            fc.tuple(fc.constant(name), generatedScript(LUA_RULES[name].functionName), fc.boolean()),
          ),
        ([name, script, countInstructions]) => {
          // Half the runs are stopped by the instruction bound, half by the clock.
          const limits = countInstructions ? LIMITS : { ...LIMITS, maxInstructions: 1e9 };
          expectCleanOutcome(runHook(name, script, workload, limits));
          const problems = checkCustomizations(engine, { [name]: { luaScript: script } }, limits);
          expect(
            problems.every((p) => p.startsWith(`InterpreterOperation(${LUA_RULES[name].operation})`)),
          ).toBe(true);
        },
      ),
      params,
    );
  });

  it("hostile objects reach scripts as clean values or clean errors", () => {
    const echo = (fn: string) =>
      `function ${fn}(a, b) if a ~= nil and a.spec then a.spec.seen = #tostring(a.spec.more) end return a end`;
    fc.assert(
      fc.property(fc.constantFrom(...HOOKS), hostileObject, (name, obj) => {
        expectCleanOutcome(runHook(name, echo(LUA_RULES[name].functionName), obj, LIMITS));
      }),
      { ...params, numRuns: Math.max(10, Math.floor(RUNS / 3)) },
    );
  });

  // Every hostile body in every hook, as explicit examples (each also a regression case).
  for (const name of HOOKS) {
    it(`known hostile bodies end cleanly in ${LUA_RULES[name].functionName}`, () => {
      const fn = LUA_RULES[name].functionName;
      for (const body of HOSTILE_BODIES) {
        const script = `kube = require('kube')\nfunction ${fn}(a, b)\n${body}\nend`;
        const err = runHook(name, script, workload, LIMITS);
        expectCleanOutcome(err);
        // At the top level too, where admission runs it.
        const problems = checkCustomizations(
          engine,
          { [name]: { luaScript: `${body}\nfunction ${fn}() end` } },
          LIMITS,
        );
        expect(problems.length).toBeLessThanOrEqual(1);
      }
    });
  }

  it("stops the loops by time or by instruction count, and the bombs by memory", () => {
    const reason = (body: string, limits: LuaLimits): unknown =>
      (
        runHook(
          "healthInterpretation",
          `function InterpretHealth(a)\n${body}\nend`,
          workload,
          limits,
        ) as LuaError
      )?.reason;
    expect(reason("while true do end", { ...LIMITS, maxInstructions: 1e9 })).toBe("budget");
    expect(reason("while true do end", { ...LIMITS, budgetMs: 1e9 })).toBe("instructions");
    expect(
      reason("local s = 'x' while true do s = s .. s end", {
        ...LIMITS,
        budgetMs: 1e9,
        maxInstructions: 1e9,
      }),
    ).toBe("memory");
    expect(
      reason("local t = {} while true do t = { t, t } end", {
        ...LIMITS,
        budgetMs: 1e9,
        maxInstructions: 1e9,
      }),
    ).toBe("memory");
    // Backtracking in C, where neither the clock nor the count is looked at: refused up front.
    const err = runHook(
      "healthInterpretation",
      "function InterpretHealth(a) local s = 'a' for i = 1, 14 do s = s .. s end return string.find(s, 'a*a*a*b') == nil end",
      workload,
      { budgetMs: 1e9, maxInstructions: 1e12 },
    ) as LuaError;
    expect(err.reason).toBe("runtime");
    expect(err.message).toMatch(/string\.find: the pattern is too costly/);
  });

  it("no escape: every host facility raises, inside pcall too, and the globals are upstream's", () => {
    for (const probe of ESCAPE_PROBES) {
      const err = runHook(
        "healthInterpretation",
        `function InterpretHealth(a) return ${probe} end`,
        workload,
        LIMITS,
      );
      expect(err, probe).toBeInstanceOf(LuaError);
      expect((err as LuaError).reason, probe).toBe("runtime");
      const [caught] = engine.call(
        `function F() return (pcall(function() return ${probe} end)) end`,
        "F",
        [],
      );
      expect(caught, probe).toBe(false);
    }
    const [globals] = engine.call(
      "function F() local g = {} for k in pairs(_G) do g[#g + 1] = k end table.sort(g) return g end",
      "F",
      [],
    );
    expect(globals).toEqual([
      "F",
      "_G",
      "_VERSION",
      "assert",
      "collectgarbage",
      "dofile",
      "error",
      "getfenv",
      "getmetatable",
      "ipairs",
      "load",
      "loadfile",
      "loadstring",
      "math",
      "module",
      "newproxy",
      "next",
      "os",
      "pairs",
      "pcall",
      "print",
      "rawequal",
      "rawget",
      "rawset",
      "require",
      "select",
      "setfenv",
      "setmetatable",
      "string",
      "table",
      "tonumber",
      "tostring",
      "type",
      "unpack",
      "xpcall",
    ]);
    const [os] = engine.call(
      "function F() local k = {} for n in pairs(os) do k[#k + 1] = n end table.sort(k) return k end",
      "F",
      [],
    );
    expect(os).toEqual(["date", "time"]);
    // A script that changes its globals changes nothing for the next one.
    engine.call("function F() string = nil os = { execute = print } _G.math = nil end", "F", []);
    expect(
      engine.call("function F() return type(string.upper), os.execute, type(math.floor) end", "F", [], {
        results: 3,
      }),
    ).toEqual(["function", null, "function"]);
  });

  it("the state's memory returns to its baseline after many failed and hostile runs", () => {
    const collect = () => {
      // A failing call ends with a full collection.
      expect(() => engine.call("function F() error('x') end", "F", [])).toThrow(LuaError);
      return engine.memoryUsed;
    };
    const baseline = collect();
    for (let round = 0; round < 3; round++) {
      for (const body of HOSTILE_BODIES)
        runHook("retention", `function Retain(a, b)\n${body}\nend`, workload, LIMITS);
    }
    // What stays is the compiled-script cache (64 small scripts here), not what the scripts built.
    expect(collect()).toBeLessThan(baseline + 2 * 1024 * 1024);
  });
});
