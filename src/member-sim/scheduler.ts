/**
 * The scheduler: binds pending pods (default scheduler, not gated) to nodes with
 * `schedulePod`; pods that fit nowhere stay Pending with PodScheduled=False/Unschedulable and
 * a FailedScheduling event carrying kube-scheduler's message. Unschedulable pods are retried
 * when nodes change, when a bound pod goes away, and every 30 s.
 *
 * Placements the informer has not shown yet are "assumed" (as kube-scheduler's cache does),
 * so back-to-back decisions see each other's pods.
 */
import type { StoredObject } from "../api/meta.ts";
import { RESOURCES } from "../client/client.ts";
import { findCondition } from "../machinery/conditions.ts";
import { isConflict, isNotFound } from "../machinery/errors.ts";
import type { Controller } from "../runtime/controller.ts";
import { objectKey } from "../runtime/keys.ts";
import type { BindPod } from "./binding.ts";
import type { Sim } from "./context.ts";
import { type Amounts, addPod, emptyUsage, type NodeUsage, podRequests, schedulePod } from "./scheduling.ts";
import { BY_NODE, isTerminal, podSpec, podStatus, timestamp } from "./workload.ts";

const RETRY_UNSCHEDULABLE_MS = 30_000;
const DEFAULT_SCHEDULER = "default-scheduler";

export function isPendingPod(pod: StoredObject): boolean {
  const spec = podSpec(pod);
  return (
    !spec.nodeName &&
    !pod.metadata.deletionTimestamp &&
    (spec.schedulerName ?? DEFAULT_SCHEDULER) === DEFAULT_SCHEDULER &&
    (spec.schedulingGates ?? []).length === 0 &&
    !isTerminal(pod)
  );
}

export function schedulerController(sim: Sim, bind: BindPod): Controller {
  const { pods, nodes } = sim.informers;
  const requestsOf = new WeakMap<StoredObject, Amounts>();
  const requests = (pod: StoredObject): Amounts => {
    let r = requestsOf.get(pod);
    if (!r) {
      r = podRequests(podSpec(pod));
      requestsOf.set(pod, r);
    }
    return r;
  };
  /** Pods bound by us that the cache still shows unbound, by key. */
  const assumed = new Map<string, { uid: string; node: string; requests: Amounts }>();
  const pendingKeys = (): string[] => pods.list().filter(isPendingPod).map(objectKey);

  const usageByNode = (): Map<string, NodeUsage> => {
    const usage = new Map<string, NodeUsage>();
    for (const node of nodes.list()) {
      const u = emptyUsage();
      for (const pod of pods.byIndex(BY_NODE, node.metadata.name))
        if (!isTerminal(pod)) addPod(u, requests(pod));
      usage.set(node.metadata.name, u);
    }
    for (const [key, a] of assumed) {
      const cached = pods.getByKey(key);
      if (!cached || cached.metadata.uid !== a.uid || podSpec(cached).nodeName) {
        assumed.delete(key);
        continue;
      }
      const u = usage.get(a.node);
      if (u) addPod(u, a.requests);
    }
    return usage;
  };

  const markUnschedulable = async (pod: StoredObject, message: string): Promise<void> => {
    const current = findCondition(podStatus(pod).conditions, "PodScheduled");
    if (current?.status === "False" && current.reason === "Unschedulable" && current.message === message)
      return;
    const conditions = [
      ...(podStatus(pod).conditions ?? []).filter((c) => c.type !== "PodScheduled"),
      {
        type: "PodScheduled",
        status: "False",
        reason: "Unschedulable",
        message,
        lastProbeTime: null,
        lastTransitionTime:
          current?.status === "False" && current.lastTransitionTime
            ? current.lastTransitionTime
            : timestamp(sim.now()),
      },
    ];
    await sim.client.patch(
      RESOURCES.pods,
      pod.metadata.namespace,
      pod.metadata.name,
      "merge",
      { metadata: { resourceVersion: pod.metadata.resourceVersion }, status: { conditions } },
      { subresource: "status", fieldManager: DEFAULT_SCHEDULER },
    );
    sim.events.event(pod, "Warning", "FailedScheduling", message);
  };

  return {
    name: "scheduler",
    for: pods,
    watches: [
      { informer: nodes, map: () => pendingKeys() },
      {
        // A bound pod finishing or going away frees room.
        informer: pods,
        map: (pod) => {
          if (!podSpec(pod).nodeName) return [];
          const gone = pods.getByKey(objectKey(pod))?.metadata.uid !== pod.metadata.uid;
          return gone || isTerminal(pod) || pod.metadata.deletionTimestamp ? pendingKeys() : [];
        },
      },
    ],
    async reconcile(_ctx, key) {
      const pod = pods.getByKey(key);
      if (!pod || !isPendingPod(pod) || assumed.get(key)?.uid === pod.metadata.uid) return undefined;
      const usage = usageByNode();
      const decision = schedulePod(
        pod,
        nodes.list().map((node) => ({ node, usage: usage.get(node.metadata.name) ?? emptyUsage() })),
      );
      if ("message" in decision) {
        try {
          await markUnschedulable(pod, decision.message);
        } catch (err) {
          if (!isConflict(err) && !isNotFound(err)) throw err;
        }
        return { requeueAfterMs: RETRY_UNSCHEDULABLE_MS };
      }
      try {
        await bind(
          { namespace: pod.metadata.namespace!, name: pod.metadata.name, uid: pod.metadata.uid },
          decision.node,
        );
      } catch (err) {
        // Deleted, or bound meanwhile: the informer brings the news.
        if (isConflict(err) || isNotFound(err)) return undefined;
        throw err;
      }
      assumed.set(key, { uid: pod.metadata.uid, node: decision.node, requests: requests(pod) });
      sim.events.event(
        pod,
        "Normal",
        "Scheduled",
        `Successfully assigned ${pod.metadata.namespace}/${pod.metadata.name} to ${decision.node}`,
      );
      return undefined;
    },
  };
}
