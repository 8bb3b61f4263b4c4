import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KubeObject } from "../../api/meta.ts";
import { LuaEngine, LuaError } from "./engine.ts";
import { type Customizations, checkCustomizations, LUA_RULES, luaInterpreter } from "./operations.ts";

let engine: LuaEngine;

beforeAll(async () => {
  engine = await LuaEngine.create();
});
afterAll(() => engine.close());

const workload: KubeObject = {
  apiVersion: "example.io/v1",
  kind: "Workload",
  metadata: { name: "web", namespace: "shop", labels: {} },
  spec: {
    replicas: 3,
    paused: false,
    ports: [],
    selector: {},
    template: { spec: { nodeSelector: { zone: "a" } } },
  },
  status: { readyReplicas: 3 },
};

const customizations: Customizations = {
  retention: {
    luaScript: `function Retain(desiredObj, observedObj)
      desiredObj.spec.paused = observedObj.spec.paused
      desiredObj.spec.extra = {}
      return desiredObj
    end`,
  },
  replicaResource: {
    luaScript: `function GetReplicas(obj)
      return obj.spec.replicas + 0.7, { nodeClaim = { nodeSelector = obj.spec.template.spec.nodeSelector },
        resourceRequest = { cpu = "1000m", memory = 1024 }, namespace = "" }
    end`,
  },
  componentResource: {
    luaScript: `function GetComponents(obj)
      return { { name = "main", replicas = obj.spec.replicas }, { name = "side", replicas = 1, replicaRequirements = {} } }
    end`,
  },
  replicaRevision: {
    luaScript: "function ReviseReplica(obj, replicas) obj.spec.replicas = replicas return obj end",
  },
  statusReflection: {
    luaScript:
      "function ReflectStatus(obj) return { readyReplicas = obj.status.readyReplicas, conditions = {} } end",
  },
  statusAggregation: {
    luaScript: `function AggregateStatus(obj, items)
      local ready = 0
      if items == nil then return obj end
      for _, item in ipairs(items) do
        ready = ready + item.status.readyReplicas
        assert(item.applied == nil or item.applied == true)
      end
      obj.status.readyReplicas = ready
      return obj
    end`,
  },
  healthInterpretation: {
    luaScript: "function InterpretHealth(obj) return obj.status.readyReplicas == obj.spec.replicas end",
  },
  dependencyInterpretation: {
    luaScript: `local kube = require("kube")
    function GetDependencies(obj)
      return { { apiVersion = "v1", kind = "Secret", namespace = obj.metadata.namespace, name = "b" },
        { apiVersion = "v1", kind = "ConfigMap", namespace = obj.metadata.namespace, name = "a" },
        { apiVersion = "v1", kind = "Secret", namespace = obj.metadata.namespace, name = "b" } }
    end`,
  },
};

describe("luaInterpreter", () => {
  const lua = () => luaInterpreter(engine, customizations);

  it("retains with upstream's empty-table repair", () => {
    const observed = { ...workload, spec: { ...(workload.spec as object), paused: true } };
    expect(lua().retain!(workload, observed)).toEqual({
      ...workload,
      spec: { ...(workload.spec as object), paused: true },
    });
  });

  it("interprets replicas, truncating them, and typed requirements", () => {
    expect(lua().getReplicas!(workload)).toEqual({
      replicas: 3,
      requirements: {
        nodeClaim: { nodeSelector: { zone: "a" } },
        resourceRequest: { cpu: "1", memory: "1024" },
      },
    });
  });

  it("interprets components", () => {
    expect(lua().getComponents!(workload)).toEqual([
      { name: "main", replicas: 3 },
      { name: "side", replicas: 1 },
    ]);
  });

  it("revises replicas", () => {
    expect(lua().reviseReplica!(workload, 5)).toMatchObject({
      spec: { replicas: 5, ports: [], selector: {} },
    });
  });

  it("reflects status, dropping empty tables it cannot place", () => {
    expect(lua().reflectStatus!(workload)).toEqual({ readyReplicas: 3 });
  });

  it("aggregates status items as upstream marshals them", () => {
    const items = [
      { clusterName: "a", applied: true, status: { readyReplicas: 2 } },
      { clusterName: "b", applied: false, status: { readyReplicas: 1 } },
    ];
    expect(lua().aggregateStatus!(workload, items)).toMatchObject({ status: { readyReplicas: 3 } });
    expect(lua().aggregateStatus!(workload, [])).toMatchObject({ status: { readyReplicas: 3 } });
  });

  it("maps health to Healthy and Unhealthy", () => {
    expect(lua().interpretHealth!(workload)).toBe("Healthy");
    expect(lua().interpretHealth!({ ...workload, status: { readyReplicas: 1 } })).toBe("Unhealthy");
  });

  it("verifies, de-duplicates and sorts dependencies", () => {
    expect(lua().getDependencies!(workload)).toEqual([
      { apiVersion: "v1", kind: "ConfigMap", namespace: "shop", name: "a" },
      { apiVersion: "v1", kind: "Secret", namespace: "shop", name: "b" },
    ]);
  });

  it("defines only the operations with a script", () => {
    const only = luaInterpreter(engine, {
      healthInterpretation: { luaScript: "function InterpretHealth() return true end" },
      retention: { luaScript: "" },
    });
    expect(Object.keys(only)).toEqual(["interpretHealth"]);
  });

  it.each([
    [
      "a health script returning nil",
      { healthInterpretation: { luaScript: "function InterpretHealth() end" } },
      "interpretHealth",
      /result type nil is not bool/,
    ],
    [
      "replicas that are not a number",
      { replicaResource: { luaScript: "function GetReplicas() return '3' end" } },
      "getReplicas",
      /result type string is not number/,
    ],
    [
      "an object without kind",
      { replicaRevision: { luaScript: "function ReviseReplica() return { spec = {} } end" } },
      "reviseReplica",
      /Object 'Kind' is missing/,
    ],
    [
      "a dependency without name or selector",
      {
        dependencyInterpretation: {
          luaScript: "function GetDependencies() return { { apiVersion = 'v1', kind = 'Secret' } } end",
        },
      },
      "getDependencies",
      /dependency can not leave name and labelSelector all empty/,
    ],
    [
      "a fractional component replica count",
      {
        componentResource: {
          luaScript: "function GetComponents() return { { name = 'x', replicas = 1.5 } } end",
        },
      },
      "getComponents",
      /cannot unmarshal number 1.5 into Go struct field Component.replicas of type int32/,
    ],
  ] as const)("rejects %s", (_name, rules, method, message) => {
    const interpreter = luaInterpreter(engine, rules as Customizations) as Record<
      string,
      (...args: unknown[]) => unknown
    >;
    const call = () => interpreter[method]!(workload, 1);
    expect(call).toThrow(LuaError);
    expect(call).toThrow(message);
  });
});

describe("checkCustomizations", () => {
  it("accepts scripts that compile and define their function", () => {
    expect(checkCustomizations(engine, customizations)).toEqual([]);
  });

  it("reports each failing rule in upstream's words", () => {
    const problems = checkCustomizations(engine, {
      retention: { luaScript: "function Retain(" },
      healthInterpretation: { luaScript: "function Healthy() return true end" },
    });
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^InterpreterOperation\(Retain\) Lua script error: <string>:1:/);
    expect(problems[1]).toBe(
      "InterpreterOperation(InterpretHealth) Lua script error: not found function InterpretHealth",
    );
  });

  it("names every operation's function as upstream does", () => {
    expect(Object.fromEntries(Object.entries(LUA_RULES).map(([k, v]) => [k, v.functionName]))).toEqual({
      retention: "Retain",
      replicaResource: "GetReplicas",
      componentResource: "GetComponents",
      replicaRevision: "ReviseReplica",
      statusReflection: "ReflectStatus",
      statusAggregation: "AggregateStatus",
      healthInterpretation: "InterpretHealth",
      dependencyInterpretation: "GetDependencies",
    });
  });
});
