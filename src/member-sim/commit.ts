/**
 * The writes every workload controller makes, written once: a status only when it changed,
 * pod creation and deletion that wait until the informer has seen them (read-your-writes),
 * and the requeue that brings a controller back when a pod turns available.
 */
import type { KubeObject, StoredObject } from "../api/meta.ts";
import { RESOURCES, type ResourceRef } from "../client/client.ts";
import { deepEqual } from "../machinery/equality.ts";
import { isNotFound } from "../machinery/errors.ts";
import type { ReconcileResult } from "../runtime/controller.ts";
import type { Informer } from "../runtime/informer.ts";
import { objectKey } from "../runtime/keys.ts";
import type { Sim } from "./context.ts";
import { untilAvailable } from "./workload.ts";

/** Writes `status` through `/status` when it differs from the object's; returns the object as it is now. */
export async function commitStatus(
  sim: Sim,
  res: ResourceRef,
  informer: Informer,
  obj: StoredObject,
  status: unknown,
): Promise<StoredObject> {
  if (deepEqual(obj.status ?? {}, status)) return obj;
  const written = await sim.client.updateStatus(res, { ...obj, status });
  await sim.caughtUp(informer, written);
  return written;
}

/** Creates pods, one event each; returns them once the pod informer has them. */
export async function createPods(
  sim: Sim,
  owner: StoredObject,
  pods: KubeObject[],
  event?: (created: StoredObject) => [reason: string, message: string],
): Promise<StoredObject[]> {
  const created: StoredObject[] = [];
  for (const pod of pods) {
    const c = await sim.client.create(RESOURCES.pods, pod);
    created.push(c);
    if (event) sim.events.event(owner, "Normal", ...event(c));
  }
  await sim.caughtUp(sim.informers.pods, created.at(-1));
  return created;
}

/** Deletes pods (graceful, guarded by uid); waits until the informer shows each terminating or gone. */
export async function deletePods(
  sim: Sim,
  pods: readonly StoredObject[],
  deleted?: (pod: StoredObject) => void,
): Promise<void> {
  for (const pod of pods) {
    try {
      const left = await sim.client.delete(RESOURCES.pods, pod.metadata.namespace, pod.metadata.name, {
        preconditions: { uid: pod.metadata.uid },
      });
      await (left
        ? sim.caughtUp(sim.informers.pods, left)
        : sim.gone(sim.informers.pods, objectKey(pod), pod.metadata.uid));
      deleted?.(pod);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}

/** Come back when the first ready pod has been ready for minReadySeconds. */
export function requeueUntilAvailable(
  pods: readonly StoredObject[],
  minReadySeconds: number,
  now: number,
): ReconcileResult {
  const waits = pods
    .map((p) => untilAvailable(p, minReadySeconds, now))
    .filter((w): w is number => w !== undefined);
  return waits.length > 0 ? { requeueAfterMs: Math.min(...waits) } : undefined;
}
