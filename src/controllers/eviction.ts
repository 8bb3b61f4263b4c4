/**
 * Writing an eviction, shared by its producers (the taint manager, application failover): the
 * binding's new targets and eviction tasks under an optimistic lock (a binding changed
 * meanwhile is decided again from the newer copy), and upstream's events per evicted cluster
 * on the binding and its template. Upstream records only failures at this point (the success
 * when the task ends); we record the success at once too, so that `kubectl describe` shows
 * when the workload started to move.
 */
import type { StoredObject } from "../api/meta.ts";
import type { ResourceRef } from "../client/client.ts";
import { templateRef } from "../karmada/template-ref.ts";
import type { BindingSpec } from "../karmada/types.ts";
import { isConflict } from "../machinery/errors.ts";
import { cloneJson } from "../machinery/merge-patch.ts";
import { commit } from "../runtime/commit.ts";
import type { EventRecorder } from "../runtime/events.ts";
import type { ControllerContext } from "./context.ts";

export async function writeEviction(
  ctx: ControllerContext,
  events: EventRecorder,
  ref: ResourceRef,
  binding: StoredObject & { spec: BindingSpec },
  next: Pick<BindingSpec, "clusters" | "gracefulEvictionTasks">,
  evicted: readonly string[],
): Promise<void> {
  const report = (type: "Normal" | "Warning", reason: string, message: string): void => {
    events.event(binding, type, reason, message);
    events.event(templateRef(binding), type, reason, message);
  };
  const copy = cloneJson(binding);
  if (next.clusters && next.clusters.length > 0) copy.spec.clusters = next.clusters;
  else delete copy.spec.clusters;
  if (next.gracefulEvictionTasks !== undefined) copy.spec.gracefulEvictionTasks = next.gracefulEvictionTasks;
  try {
    // A binding deleted meanwhile has nothing left to evict.
    if (!(await commit(ctx.client, ref, binding, copy))) return;
  } catch (err) {
    if (!isConflict(err))
      for (const c of evicted)
        report("Warning", "EvictWorkloadFromClusterFailed", `Evict from cluster ${c} failed.`);
    throw err;
  }
  for (const c of evicted)
    report("Normal", "EvictWorkloadFromClusterSucceed", `Evict from cluster ${c} succeed.`);
}
