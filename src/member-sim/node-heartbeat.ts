/**
 * The kubelets' heartbeats: every node's Lease in `kube-node-lease` is renewed every
 * `leaseRenewMs`, and its conditions get a fresh `lastHeartbeatTime` every `nodeStatusMs`.
 * A node under the node-not-ready fault stops both, and its conditions turn Unknown at once
 * (what the node lifecycle controller writes after its grace period). Nodes created by
 * users (`kubectl create -f node.yaml`) are simulated too; missing capacity gets defaults.
 */
import { rfc3339Micro, type StoredObject } from "../api/meta.ts";
import { RESOURCES } from "../client/client.ts";
import { isAlreadyExists, isConflict, isNotFound } from "../machinery/errors.ts";
import type { Controller } from "../runtime/controller.ts";
import type { Sim } from "./context.ts";
import { healthyConditions, nodeCapacity, unknownConditions } from "./nodes.ts";
import type { NodeStatus } from "./types.ts";
import { timestamp } from "./workload.ts";

const LEASE_DURATION_SECONDS = 40;

export function nodeHeartbeatController(
  sim: Sim,
  defaults: { cpu: string; memory: string; pods: number },
  monotonic: () => number,
): Controller {
  const { nodes } = sim.informers;
  const lastStatus = new Map<string, number>();
  const lastLease = new Map<string, number>();
  const leases = new Map<string, StoredObject>();

  /** Renews the node's Lease (the last one written is kept, so a renewal is one update). */
  const renewLease = async (node: StoredObject, retry = true): Promise<void> => {
    const name = node.metadata.name;
    const spec = {
      holderIdentity: name,
      leaseDurationSeconds: LEASE_DURATION_SECONDS,
      renewTime: rfc3339Micro(sim.now()),
    };
    const known = leases.get(name);
    try {
      const written = known
        ? await sim.client.update(RESOURCES.leases, {
            ...known,
            spec: { ...(known.spec as object), ...spec },
          })
        : await sim.client.create(RESOURCES.leases, {
            apiVersion: "coordination.k8s.io/v1",
            kind: "Lease",
            metadata: {
              name,
              namespace: "kube-node-lease",
              ownerReferences: [{ apiVersion: "v1", kind: "Node", name, uid: node.metadata.uid }],
            },
            spec,
          });
      leases.set(name, written);
    } catch (err) {
      if (!retry || !(isAlreadyExists(err) || isConflict(err) || isNotFound(err))) throw err;
      // Written by someone else, or by an earlier run on a persistent store: start from what is there.
      leases.delete(name);
      try {
        leases.set(name, await sim.client.get(RESOURCES.leases, "kube-node-lease", name));
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
      await renewLease(node, false);
    }
  };

  const postStatus = async (node: StoredObject, notReady: boolean): Promise<void> => {
    const prev = (node.status ?? {}) as NodeStatus;
    const now = timestamp(sim.now());
    const status: NodeStatus = {
      ...prev,
      conditions: notReady
        ? unknownConditions(now, prev.conditions ?? [])
        : healthyConditions(now, prev.conditions),
    };
    if (!prev.capacity) status.capacity = nodeCapacity(defaults);
    if (!prev.allocatable) status.allocatable = { ...(status.capacity ?? prev.capacity) };
    await sim.client.updateStatus(RESOURCES.nodes, { ...node, status });
  };

  return {
    name: "node-heartbeat",
    for: nodes,
    async reconcile(_ctx, key) {
      const node = nodes.getByKey(key);
      if (!node) {
        lastStatus.delete(key);
        lastLease.delete(key);
        leases.delete(key);
        return undefined;
      }
      const t = monotonic();
      const notReady = sim.faults.nodeNotReady(key);
      const conditions = ((node.status ?? {}) as NodeStatus).conditions ?? [];
      const ready = conditions.find((c) => c.type === "Ready")?.status;
      const wrongState = notReady ? ready !== "Unknown" : ready !== "True";
      const statusDue = (lastStatus.get(key) ?? -Infinity) + sim.timing.nodeStatusMs <= t;
      if (wrongState || (!notReady && statusDue)) {
        await postStatus(node, notReady);
        lastStatus.set(key, t);
      }
      if (!notReady && (lastLease.get(key) ?? -Infinity) + sim.timing.leaseRenewMs <= t) {
        await renewLease(node);
        lastLease.set(key, t);
      }
      const nextStatus = (lastStatus.get(key) ?? t) + sim.timing.nodeStatusMs - t;
      const nextLease = (lastLease.get(key) ?? t) + sim.timing.leaseRenewMs - t;
      return { requeueAfterMs: Math.max(1, Math.min(nextStatus, nextLease)) };
    },
  };
}
