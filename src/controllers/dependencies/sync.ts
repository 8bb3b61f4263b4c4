/**
 * Upstream's syncScheduleResultToAttachedBindings: the independent binding records its
 * dependencies (annotation and finalizer); attached bindings whose object is no longer a
 * dependency let go of it; then each dependency object's attached binding is created, or
 * merged with the independent binding's current snapshot (its scheduled clusters).
 */
import type { Client } from "../../client/client.ts";
import type { DependentObjectReference } from "../../interpreter/types.ts";
import type { Binding, NewBinding } from "../../karmada/bindings.ts";
import { ANNOTATION, FINALIZER } from "../../karmada/names.ts";
import { KARMADA } from "../../karmada/resources.ts";
import { deepEqual } from "../../machinery/equality.ts";
import { isAlreadyExists } from "../../machinery/errors.ts";
import { cloneJson } from "../../machinery/merge-patch.ts";
import { addFinalizer, commit } from "../../runtime/commit.ts";
import { done, type ReconcileResult, requeueAfter } from "../../runtime/controller.ts";
import type { EventRecorder } from "../../runtime/events.ts";
import { dependenciesAnnotation } from "./annotation.ts";
import { buildAttachedBinding, mergeAttachedBinding } from "./attached.ts";
import { type CleanupDeps, release } from "./cleanup.ts";
import { attachedOf, referencingResolver } from "./dependents.ts";
import { isOrphanAttached, needsLabels } from "./match.ts";
import type { DependencyObjects } from "./resolve.ts";

export interface SyncDeps extends CleanupDeps {
  client: Client;
  events: EventRecorder;
  objects: DependencyObjects;
}

/**
 * Records the dependencies (and the finalizer) on the independent binding, the one being
 * reconciled; returns it as stored, undefined when it is gone. Other controllers write the
 * binding too while it is young: a conflict is retried by the loop from the newer copy (and
 * one deleted or no longer propagating meanwhile then takes the cleanup path).
 */
export async function recordDependencies(
  io: Pick<SyncDeps, "client">,
  binding: Binding,
  deps: readonly DependentObjectReference[],
): Promise<Binding | undefined> {
  const next = cloneJson(binding);
  next.metadata.annotations = {
    ...next.metadata.annotations,
    [ANNOTATION.dependencies]: dependenciesAnnotation(deps),
  };
  addFinalizer(next, FINALIZER.dependenciesDistributor);
  return (await commit(io.client, KARMADA.resourceBindings, binding, next)) as Binding | undefined;
}

/** Creates or updates one attached binding; "wait" while an old one is still being deleted. */
async function ensureAttached(
  io: SyncDeps,
  independent: Binding,
  desired: NewBinding,
  written: Map<string, Binding>,
): Promise<"wait" | undefined> {
  const ns = desired.metadata.namespace!;
  const name = desired.metadata.name;
  const resolve = referencingResolver(io.rbs, independent);
  let existing = written.get(name) ?? (io.rbs.get(ns, name) as Binding | undefined);
  if (!existing) {
    const { binding } = mergeAttachedBinding(undefined, desired, resolve);
    try {
      written.set(name, (await io.client.create(KARMADA.resourceBindings, binding)) as Binding);
      return undefined;
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      existing = (await io.client.get(KARMADA.resourceBindings, ns, name)) as Binding;
    }
  }
  if (existing.metadata.deletionTimestamp) return "wait";
  const owner = existing.metadata.ownerReferences?.find((o) => o.controller);
  if (owner && owner.uid !== desired.metadata.ownerReferences![0]!.uid) {
    throw new Error(
      `failed to update resourceBinding(${ns}/${name}) due to different owner reference UID, will try again later after binding is garbage collected`,
    );
  }
  const { binding, conflict } = mergeAttachedBinding(existing, desired, resolve);
  if (conflict) io.events.event(existing, "Warning", "DependencyPolicyConflict", conflict);
  if (!deepEqual(binding, existing))
    written.set(name, (await io.client.update(KARMADA.resourceBindings, binding)) as Binding);
  return undefined;
}

/** The attached bindings of `independent` none of `deps` names or selects any more. */
async function orphansOf(
  io: SyncDeps,
  independent: Binding,
  deps: readonly DependentObjectReference[],
): Promise<Binding[]> {
  const out: Binding[] = [];
  for (const a of attachedOf(io.rbs, independent)) {
    const r = a.spec.resource;
    let labels: Record<string, string> | undefined;
    if (needsLabels(r, deps)) {
      const o = await io.objects.object(r.apiVersion, r.kind, r.namespace, r.name);
      labels = o ? (o.metadata.labels ?? {}) : undefined;
    }
    if (isOrphanAttached(r, deps, labels)) out.push(a);
  }
  return out;
}

/** Releases the orphans, then writes the attached binding of every dependency object. */
export async function syncAttached(
  io: SyncDeps,
  b: Binding,
  deps: readonly DependentObjectReference[],
): Promise<ReconcileResult> {
  await release(io, b, await orphansOf(io, b, deps));
  const errors: string[] = [];
  const written = new Map<string, Binding>();
  let wait = false;
  for (const dep of deps) {
    try {
      for (const obj of await io.objects.objectsOf(dep)) {
        if ((await ensureAttached(io, b, buildAttachedBinding(b, obj), written)) === "wait") wait = true;
      }
    } catch (err) {
      errors.push((err as Error).message);
    }
  }
  if (errors.length > 0) throw new Error(errors.join("; "));
  // An attached binding of the same name is still being deleted: create it anew once it is gone.
  return wait ? requeueAfter(1_000) : done;
}
