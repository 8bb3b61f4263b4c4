import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LuaEngine, LuaError } from "./engine.ts";

let engine: LuaEngine;

beforeAll(async () => {
  engine = await LuaEngine.create();
});
afterAll(() => engine.close());

/** Calls `kube.<call>` from a script; `args` are passed as the script's arguments a, b. */
function kube(call: string, ...args: unknown[]): unknown {
  const script = `local kube = require("kube")\nfunction F(a, b) local r = kube.${call} return r end`;
  return engine.call(script, "F", args)[0];
}

function kubeError(call: string, ...args: unknown[]): string {
  try {
    kube(call, ...args);
  } catch (e) {
    if (e instanceof LuaError) return e.message;
    throw e;
  }
  throw new Error("expected a LuaError");
}

const podTemplate = {
  metadata: { labels: { app: "web" } },
  spec: {
    nodeSelector: { zone: "a" },
    serviceAccountName: "runner",
    containers: [
      {
        name: "web",
        resources: { requests: { cpu: "250m" }, limits: { cpu: "1", memory: "1Gi" } },
        envFrom: [{ configMapRef: { name: "settings" } }],
        env: [{ name: "TOKEN", valueFrom: { secretKeyRef: { name: "token", key: "t" } } }],
      },
    ],
    volumes: [
      { name: "data", persistentVolumeClaim: { claimName: "data" } },
      { name: "tmp", emptyDir: {} },
    ],
  },
};

describe("the kube module", () => {
  it("adds quantities into a canonical quantity", () => {
    expect(kube("resourceAdd('100m', '200m', '1')")).toBe("1300m");
    expect(kube("resourceAdd('1Gi', '512Mi')")).toBe("1536Mi");
    expect(kube("resourceAdd(nil, '2')")).toBe("2");
    expect(kube("resourceAdd()")).toBe("0");
  });

  it("refuses numbers and malformed quantities in resourceAdd", () => {
    expect(kubeError("resourceAdd('1', 2)")).toMatch(
      /bad argument #2 to resourceAdd \(string expected, got number\)/,
    );
    expect(kubeError("resourceAdd('lots')")).toMatch(/cannot parse 'lots': quantities must match/);
  });

  it("reads a quantity as a number", () => {
    expect(kube("getResourceQuantity('250m')")).toBe(0.25);
    expect(kube("getResourceQuantity('2Gi')")).toBe(2 * 1024 ** 3);
    expect(kube("getResourceQuantity(nil)")).toBe(0);
    expect(
      engine.call(
        "local kube = require('kube') function F() return math.type(kube.getResourceQuantity('3')) end",
        "F",
        [],
      ),
    ).toEqual(["integer"]);
    expect(kubeError("getResourceQuantity('-1')")).toMatch(/negative value/);
    expect(kubeError("getResourceQuantity('1', '2')")).toMatch(/only accepts one argument/);
  });

  it("computes a pod template's requirements", () => {
    expect(kube("accuratePodRequirements(a)", podTemplate)).toEqual({
      nodeClaim: { nodeSelector: { zone: "a" } },
      resourceRequest: { cpu: "250m", memory: "1Gi" },
    });
    expect(kube("accuratePodRequirements(a)", { spec: { containers: [{ name: "c" }] } })).toBeNull();
    expect(kubeError("accuratePodRequirements('x')")).toMatch(/table expected, got string/);
  });

  it("lists a pod template's dependencies, nil when there are none", () => {
    expect(kube("getPodDependencies(a, b)", podTemplate, "shop")).toEqual([
      { apiVersion: "v1", kind: "ConfigMap", namespace: "shop", name: "settings" },
      { apiVersion: "v1", kind: "Secret", namespace: "shop", name: "token" },
      { apiVersion: "v1", kind: "ServiceAccount", namespace: "shop", name: "runner" },
      { apiVersion: "v1", kind: "PersistentVolumeClaim", namespace: "shop", name: "data" },
    ]);
    expect(kube("getPodDependencies(a, nil)", { spec: { serviceAccountName: "x" } })).toEqual([
      { apiVersion: "v1", kind: "ServiceAccount", namespace: "default", name: "x" },
    ]);
    expect(kube("getPodDependencies(a, 'ns')", { spec: { containers: [{ name: "c" }] } })).toBeNull();
    expect(kubeError("getPodDependencies(a)", podTemplate)).toMatch(/only accepts two argument/);
  });
});
