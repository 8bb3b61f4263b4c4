/**
 * Letting go: an independent binding is taken out of attached bindings (the ones it no longer
 * depends on, or all of them when it stops propagating dependencies or goes away); an attached
 * binding nothing requires any more and no policy claims is deleted. Once it has let go of
 * all, the independent binding's finalizer goes.
 */
import type { Client } from "../../client/client.ts";
import type { Binding } from "../../karmada/bindings.ts";
import { FINALIZER } from "../../karmada/names.ts";
import { KARMADA } from "../../karmada/resources.ts";
import { deepEqual } from "../../machinery/equality.ts";
import { isNotFound } from "../../machinery/errors.ts";
import { cloneJson } from "../../machinery/merge-patch.ts";
import { commit, hasFinalizer, removeFinalizer } from "../../runtime/commit.ts";
import type { Informer } from "../../runtime/informer.ts";
import { releaseAttachedBinding } from "./attached.ts";
import { referencingResolver } from "./dependents.ts";

export interface CleanupDeps {
  client: Client;
  rbs: Informer;
}

/** Takes `independent` out of each attached binding; deletes those nothing requires and no policy claims. */
export async function release(
  io: CleanupDeps,
  independent: Binding,
  attached: readonly Binding[],
): Promise<void> {
  const errors: string[] = [];
  const resolve = referencingResolver(io.rbs, independent);
  for (const a of attached) {
    if (a.metadata.deletionTimestamp) continue;
    try {
      const { binding, remove } = releaseAttachedBinding(
        a,
        independent.metadata.namespace!,
        independent.metadata.name,
        resolve,
      );
      if (remove) {
        await io.client.delete(KARMADA.resourceBindings, a.metadata.namespace, a.metadata.name, {
          preconditions: { resourceVersion: a.metadata.resourceVersion! },
        });
      } else if (!deepEqual(binding, a)) {
        await io.client.update(KARMADA.resourceBindings, binding);
      }
    } catch (err) {
      if (!isNotFound(err))
        errors.push(`binding(${a.metadata.namespace}/${a.metadata.name}): ${(err as Error).message}`);
    }
  }
  if (errors.length > 0) throw new Error(errors.join("; "));
}

/** Drops the distributor's finalizer from the independent binding (the one being reconciled). */
export async function dropFinalizer(io: Pick<CleanupDeps, "client">, b: Binding): Promise<void> {
  // Most bindings never had it (every binding comes by at a controller manager's start).
  if (!hasFinalizer(b, FINALIZER.dependenciesDistributor)) return;
  const next = cloneJson(b);
  removeFinalizer(next, FINALIZER.dependenciesDistributor);
  await commit(io.client, KARMADA.resourceBindings, b, next);
}
