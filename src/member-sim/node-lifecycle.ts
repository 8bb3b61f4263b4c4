/**
 * The node lifecycle controller's taints: `node.kubernetes.io/unschedulable:NoSchedule` on
 * cordoned nodes, `not-ready` / `unreachable` NoSchedule and NoExecute taints while the Ready
 * condition is False / Unknown. Other taints are left alone. (Pods on such nodes are marked
 * not ready and evicted by the pod stages.)
 */
import type { StoredObject } from "../api/meta.ts";
import { RESOURCES } from "../client/client.ts";
import { deepEqual } from "../machinery/equality.ts";
import { isNotFound } from "../machinery/errors.ts";
import type { Controller } from "../runtime/controller.ts";
import type { Sim } from "./context.ts";
import type { NodeSpec, NodeStatus, Taint } from "./types.ts";
import { timestamp } from "./workload.ts";

const MANAGED = new Set([
  "node.kubernetes.io/unschedulable",
  "node.kubernetes.io/not-ready",
  "node.kubernetes.io/unreachable",
]);

/** The taints the node's state calls for (without timestamps). */
export function conditionTaints(node: StoredObject): Taint[] {
  const spec = (node.spec ?? {}) as NodeSpec;
  const ready = ((node.status ?? {}) as NodeStatus).conditions?.find((c) => c.type === "Ready")?.status;
  const taints: Taint[] = [];
  if (spec.unschedulable) taints.push({ key: "node.kubernetes.io/unschedulable", effect: "NoSchedule" });
  // A node that never reported (no Ready condition yet) is not tainted: it is still registering.
  const key =
    ready === "False"
      ? "node.kubernetes.io/not-ready"
      : ready === "Unknown"
        ? "node.kubernetes.io/unreachable"
        : undefined;
  if (key) taints.push({ key, effect: "NoSchedule" }, { key, effect: "NoExecute" });
  return taints;
}

/** The node's taints with the managed ones replaced by what its state calls for; undefined when unchanged. */
export function desiredTaints(node: StoredObject, now: string): Taint[] | undefined {
  const current = ((node.spec ?? {}) as NodeSpec).taints ?? [];
  const wanted = conditionTaints(node);
  const same = (a: Taint, b: Taint): boolean => a.key === b.key && a.effect === b.effect;
  const kept = current.filter((t) => !MANAGED.has(t.key) || wanted.some((w) => same(w, t)));
  const added = wanted.filter((w) => !current.some((t) => same(t, w))).map((w) => ({ ...w, timeAdded: now }));
  const next = [...kept, ...added];
  return deepEqual(next, current) ? undefined : next;
}

export function nodeLifecycleController(sim: Sim): Controller {
  const { nodes } = sim.informers;
  return {
    name: "node-lifecycle",
    for: nodes,
    async reconcile(_ctx, key) {
      const node = nodes.getByKey(key);
      if (!node) return undefined;
      const taints = desiredTaints(node, timestamp(sim.now()));
      if (!taints) return undefined;
      const spec = { ...(node.spec as NodeSpec) } as NodeSpec;
      if (taints.length > 0) spec.taints = taints;
      else delete spec.taints;
      try {
        const written = await sim.client.update(RESOURCES.nodes, { ...node, spec });
        await sim.caughtUp(nodes, written);
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
      return undefined;
    },
  };
}
