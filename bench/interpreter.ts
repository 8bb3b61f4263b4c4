/**
 * The resource interpreter's cost per call: a Lua health script on a Deployment-sized object,
 * and a Lua AggregateStatus over 100 clusters' status items (a CloneSet-like aggregation),
 * next to the native interpreter doing the same for a Deployment. Each figure is the best of
 * three rounds of N calls on one engine (scripts compiled once, as the controllers run them).
 */
import type { KubeObject } from "../src/api/meta.ts";
import { LuaEngine } from "../src/interpreter/lua/engine.ts";
import { luaInterpreter } from "../src/interpreter/lua/operations.ts";
import { nativeInterpreter } from "../src/interpreter/native/index.ts";
import type { AggregatedStatusItem } from "../src/karmada/types.ts";

const CLUSTERS = 100;

const HEALTH = `function InterpretHealth(observedObj)
  if observedObj.status == nil then return false end
  local s = observedObj.status
  if (s.observedGeneration or 0) < (observedObj.metadata.generation or 0) then return false end
  local want = observedObj.spec.replicas or 1
  return (s.updatedReplicas or 0) == want and (s.availableReplicas or 0) == want
end`;

const AGGREGATE = `function AggregateStatus(desiredObj, statusItems)
  if statusItems == nil then return desiredObj end
  local total = { replicas = 0, readyReplicas = 0, updatedReplicas = 0, availableReplicas = 0 }
  local generation = desiredObj.metadata.generation or 0
  local observed = generation
  for i = 1, #statusItems do
    local s = statusItems[i].status
    if s ~= nil then
      for k, _ in pairs(total) do total[k] = total[k] + (s[k] or 0) end
      if (s.observedGeneration or 0) < observed then observed = s.observedGeneration or 0 end
    end
  end
  total.observedGeneration = observed
  desiredObj.status = total
  return desiredObj
end`;

function deployment(): KubeObject {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: {
      name: "web",
      namespace: "default",
      generation: 3,
      labels: { app: "web", "karmada.io/managed": "true" },
      annotations: { "resourcetemplate.karmada.io/generation": "3" },
    },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: "web" } },
      template: {
        metadata: { labels: { app: "web" } },
        spec: {
          containers: [
            {
              name: "web",
              image: "nginx:1.25",
              ports: [{ containerPort: 80 }],
              resources: { requests: { cpu: "100m", memory: "64Mi" } },
            },
          ],
        },
      },
    },
    status: {
      observedGeneration: 3,
      replicas: 3,
      updatedReplicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
    },
  } as KubeObject;
}

function items(): AggregatedStatusItem[] {
  return Array.from({ length: CLUSTERS }, (_, i) => ({
    clusterName: `member${String(i).padStart(3, "0")}`,
    applied: true,
    health: "Healthy",
    status: {
      observedGeneration: 3,
      replicas: 2,
      updatedReplicas: 2,
      readyReplicas: 2,
      availableReplicas: 2,
    },
  }));
}

/** µs per call: the best of three rounds. */
function perCall(n: number, call: () => unknown): number {
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 3; round++) {
    const start = performance.now();
    for (let i = 0; i < n; i++) call();
    best = Math.min(best, ((performance.now() - start) * 1000) / n);
  }
  return best;
}

export interface InterpreterFigure {
  name: string;
  microseconds: number;
}

export async function benchInterpreter(calls = 5000): Promise<InterpreterFigure[]> {
  const engine = await LuaEngine.create();
  const lua = luaInterpreter(engine, {
    healthInterpretation: { luaScript: HEALTH },
    statusAggregation: { luaScript: AGGREGATE },
  });
  const obj = deployment();
  const statusItems = items();
  if (lua.interpretHealth!(obj) !== "Healthy") throw new Error("the health script does not answer Healthy");
  const aggregated = lua.aggregateStatus!(obj, statusItems) as { status?: { replicas?: number } };
  if (aggregated.status?.replicas !== 2 * CLUSTERS) throw new Error("the aggregation script sums wrongly");
  return [
    {
      name: "Lua InterpretHealth (Deployment-sized object)",
      microseconds: perCall(calls, () => lua.interpretHealth!(obj)),
    },
    {
      name: "native InterpretHealth (Deployment)",
      microseconds: perCall(calls, () => nativeInterpreter.interpretHealth(obj)),
    },
    {
      name: `Lua AggregateStatus over ${CLUSTERS} clusters`,
      microseconds: perCall(Math.ceil(calls / 10), () => lua.aggregateStatus!(obj, statusItems)),
    },
    {
      name: `native AggregateStatus over ${CLUSTERS} clusters (Deployment)`,
      microseconds: perCall(Math.ceil(calls / 10), () => nativeInterpreter.aggregateStatus(obj, statusItems)),
    },
  ];
}
