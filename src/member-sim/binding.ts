/**
 * Binding a pod to a node, as kube-apiserver's `pods/binding` storage does it: one guarded
 * write that sets `spec.nodeName` and the PodScheduled condition, past the pod update
 * validation that forbids changing `spec.nodeName` (which is right for clients, not for the
 * binding). Our API server does not serve `pods/binding` yet, so the in-process scheduler
 * binds through this function.
 */
import { rfc3339, type StoredObject } from "../api/meta.ts";
import type { ServerContext } from "../apiserver/context.ts";
import { decodeStored, encodeForStorage } from "../apiserver/objects.ts";
import { storageKey } from "../apiserver/resource-type.ts";
import { conflict, notFound } from "../machinery/errors.ts";
import { cloneJson } from "../machinery/merge-patch.ts";
import { RevisionMismatchError } from "../storage/store.ts";
import { setWorkloadCondition } from "./conditions.ts";
import type { PodSpec, PodStatus } from "./types.ts";

export type BindPod = (
  pod: { namespace: string; name: string; uid: string },
  node: string,
) => Promise<StoredObject>;

const ATTEMPTS = 10;

export function storeBinder(server: ServerContext): BindPod {
  const rt = server.registry.get("", "v1", "pods")!;
  const ref = { group: "", resource: "pods" };
  return async (pod, node) => {
    const key = storageKey(rt, pod.namespace, pod.name);
    for (let attempt = 1; ; attempt++) {
      const { kv } = await server.store.get(key);
      if (!kv) throw notFound(ref, pod.name);
      const current = decodeStored(rt, kv);
      if (current.metadata.uid !== pod.uid) throw notFound(ref, pod.name);
      const spec = (current.spec ?? {}) as PodSpec;
      if (current.metadata.deletionTimestamp) {
        throw conflict(ref, pod.name, `pod ${pod.name} is being deleted, cannot be assigned to a host`);
      }
      if (spec.nodeName) {
        throw conflict(ref, pod.name, `pod ${pod.name} is already assigned to node "${spec.nodeName}"`);
      }
      const next = cloneJson(current);
      (next.spec as PodSpec).nodeName = node;
      const status = (next.status ?? {}) as PodStatus;
      status.conditions = setWorkloadCondition(status.conditions, {
        type: "PodScheduled",
        status: "True",
        lastProbeTime: null,
        lastTransitionTime: rfc3339(server.clock.now()),
      });
      next.status = status;
      try {
        const written = await server.store.update(key, encodeForStorage(rt, next), kv.modRevision);
        next.metadata.resourceVersion = String(written.modRevision);
        server.afterWrite?.(rt, next, current);
        return next;
      } catch (err) {
        if (err instanceof RevisionMismatchError && attempt < ATTEMPTS) continue;
        throw err;
      }
    }
  };
}
