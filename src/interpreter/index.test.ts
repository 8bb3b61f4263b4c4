import { describe, expect, it } from "vitest";
import type { KubeObject } from "../api/meta.ts";
import { Interpreter } from "./index.ts";
import { nativeInterpreter } from "./native/index.ts";
import type { InterpreterOperation, InterpreterSource } from "./types.ts";

/** A source answering InterpretHealth for the kinds it names, with its own name as a marker. */
function source(name: string, kinds: string[], health: "Healthy" | "Unhealthy"): InterpreterSource {
  const fail = () => Promise.reject(new Error(`${name}: not asked`));
  return {
    name,
    handles: (op: InterpreterOperation, _apiVersion: string, kind: string) =>
      op === "InterpretHealth" && kinds.includes(kind),
    interpretHealth: async () => health,
    getReplicas: fail,
    reviseReplica: fail,
    retain: fail,
    reflectStatus: fail,
    aggregateStatus: fail,
    getDependencies: fail,
  };
}

const obj = (kind: string): KubeObject => ({
  apiVersion: kind === "Deployment" ? "apps/v1" : "example.io/v1",
  kind,
  metadata: { name: "x", generation: 1 },
  spec: { replicas: 1 },
  status: { observedGeneration: 1, replicas: 1, updatedReplicas: 1, availableReplicas: 1 },
});

describe("Interpreter precedence", () => {
  const interpreter = new Interpreter(nativeInterpreter, [
    source("customization", ["Deployment", "A"], "Unhealthy"),
    source("webhook", ["A", "B"], "Healthy"),
    source("thirdparty", ["B", "C"], "Unhealthy"),
  ]);

  it("the first source with a hook answers, the native interpreter last", async () => {
    expect((await interpreter.sourceFor("InterpretHealth", obj("A")))?.name).toBe("customization");
    expect((await interpreter.sourceFor("InterpretHealth", obj("B")))?.name).toBe("webhook");
    expect((await interpreter.sourceFor("InterpretHealth", obj("C")))?.name).toBe("thirdparty");
    // A customization overrides even a built-in kind.
    expect(await interpreter.interpretHealth(obj("Deployment"))).toBe("Unhealthy");
    expect(await interpreter.interpretHealth(obj("B"))).toBe("Healthy");
    // Per operation: nobody scripts replicas for a Deployment, so the native interpreter does.
    expect(await interpreter.getReplicas(obj("Deployment"))).toMatchObject({ replicas: 1 });
    // Nobody at all: undefined, the caller's fallback.
    expect(await interpreter.interpretHealth(obj("D"))).toBeUndefined();
  });

  it("operations wait for the sources to be loaded", async () => {
    const late = new Interpreter(nativeInterpreter);
    let release: () => void = () => {};
    late.waitFor(
      new Promise<void>((resolve) => {
        release = () => {
          late.setSources([source("customization", ["Deployment"], "Unhealthy")]);
          resolve();
        };
      }),
    );
    const answer = late.interpretHealth(obj("Deployment"));
    release();
    expect(await answer).toBe("Unhealthy");
  });
});
