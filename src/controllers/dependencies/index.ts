/**
 * The dependencies distributor (upstream's pkg/dependenciesdistributor, feature gate
 * PropagateDeps): a ResourceBinding with `spec.propagateDeps` (the "independent" binding)
 * gets its template's dependencies from the interpreter (ConfigMaps, Secrets,
 * ServiceAccounts, PVCs the pod template names, or objects picked by a label selector),
 * records them in its `resourcebinding.karmada.io/dependencies` annotation, and keeps one
 * "attached" ResourceBinding per dependency object whose `spec.requiredBy` carries the
 * independent binding's name and scheduled clusters. The binding controller sends the
 * dependency wherever any binding requiring it is scheduled (plus its own placement when a
 * policy claims it too); the scheduler leaves attached bindings alone (no claim label).
 *
 * Informers for the dependency kinds start on demand; a change of a dependency object
 * re-syncs the independent bindings whose annotation names or selects it, so the attached
 * binding's `spec.resource.resourceVersion` follows the object (and the Works with it).
 *
 * Unlike upstream, an attached binding nobody requires any more and no policy claims is
 * deleted (upstream keeps it, empty, until the dependency object itself is deleted).
 *
 * A reconcile runs, in order: resolve.ts (the template and its dependencies), sync.ts (record
 * them, release orphans, write attached bindings), or cleanup.ts when the binding stops
 * propagating dependencies. The pure parts: annotation.ts, match.ts, attached.ts, strategy.ts.
 */
import type { Interpreter } from "../../interpreter/index.ts";
import type { Binding } from "../../karmada/bindings.ts";
import { KARMADA } from "../../karmada/resources.ts";
import type { BindingSpec } from "../../karmada/types.ts";
import { type Controller, done, type ReconcileResult } from "../../runtime/controller.ts";
import { parseObjectKey } from "../../runtime/keys.ts";
import type { ControllerContext } from "../context.ts";
import { dropFinalizer, release } from "./cleanup.ts";
import { attachedOf, bindingIndexers, dependentsOf } from "./dependents.ts";
import { dependenciesOf, dependencyObjects } from "./resolve.ts";
import { recordDependencies, type SyncDeps, syncAttached } from "./sync.ts";

export { dependenciesAnnotation, formatDependencies, recordedDependencies } from "./annotation.ts";
export {
  type AttachedUpdate,
  type BindingSnapshot,
  buildAttachedBinding,
  deleteBindingFromSnapshot,
  dependedByLabelKey,
  mergeAttachedBinding,
  mergeBindingSnapshot,
  releaseAttachedBinding,
} from "./attached.ts";
export { isOrphanAttached, matchesDependencies, needsLabels, type ObjectIdentity } from "./match.ts";
export {
  generatedByDependencies,
  policyConflictMessage,
  resolveConflictResolution,
  resolvePreserveOnDeletion,
} from "./strategy.ts";

export const DEPENDENCIES_DISTRIBUTOR = "dependencies-distributor";

export function dependenciesDistributor(ctx: ControllerContext, interpreter: Interpreter): Controller {
  const events = ctx.recorder(DEPENDENCIES_DISTRIBUTOR);
  const rbs = ctx.informers.informer(KARMADA.resourceBindings, { indexers: bindingIndexers });
  let enqueue: (key: string) => void = () => {};
  const objects = dependencyObjects(ctx, (apiVersion, kind, obj) => {
    for (const key of dependentsOf(rbs, ctx.log, apiVersion, kind, obj)) enqueue(key);
  });
  const io: SyncDeps = { client: ctx.client, events, rbs, objects };

  async function reconcile(key: string): Promise<ReconcileResult> {
    const { namespace, name } = parseObjectKey(key);
    if (!namespace) return done;
    const binding = rbs.get(namespace, name) as Binding | undefined;
    if (!binding) return done;

    // propagateDeps turned off, or the binding going away: its attached bindings let go of it.
    if (!binding.spec.propagateDeps || binding.metadata.deletionTimestamp) {
      await release(io, binding, attachedOf(rbs, binding));
      await dropFinalizer(io, binding);
      return done;
    }

    // Gone template: the binding follows it (owner reference); its deletion brings it back here.
    const template = await objects.templateOf(binding);
    if (!template) return done;
    const deps = await dependenciesOf(interpreter, events, template);
    if (deps === undefined) return done;

    const current = await recordDependencies(io, binding, deps);
    if (!current) return done;
    try {
      const result = await syncAttached(io, current, deps);
      events.event(
        current,
        "Normal",
        "SyncScheduleResultToDependenciesSucceed",
        "Sync schedule results to dependencies succeed.",
      );
      return result;
    } catch (err) {
      events.event(current, "Warning", "SyncScheduleResultToDependenciesFailed", (err as Error).message);
      throw err;
    }
  }

  return {
    name: DEPENDENCIES_DISTRIBUTOR,
    for: rbs,
    workers: 2,
    // Upstream reacts to generation changes of bindings that propagate (or propagated) dependencies.
    updateFilter: (old, obj) =>
      (old.metadata.generation !== obj.metadata.generation ||
        old.metadata.deletionTimestamp !== obj.metadata.deletionTimestamp) &&
      !!(
        (old.spec as Partial<BindingSpec> | undefined)?.propagateDeps ||
        (obj.spec as Partial<BindingSpec> | undefined)?.propagateDeps
      ),
    start(add) {
      enqueue = add;
    },
    stop() {
      objects.stop();
    },
    reconcile: (_rctx, key) => reconcile(key),
  };
}
