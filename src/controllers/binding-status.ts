/**
 * Binding status aggregation (upstream's rb/crb status controllers): the status of each Work
 * of a binding becomes one `aggregatedStatus` item (applied, status, health), the
 * `FullyApplied` condition says whether every expected cluster applied, and the resource
 * template's own status is aggregated from the members' through the interpreter.
 */
import { isObject, rfc3339, type StoredObject } from "../api/meta.ts";
import type { Interpreter } from "../interpreter/index.ts";
import { type Binding, bindingKeyOfWork, bindingResource } from "../karmada/bindings.ts";
import { clusterOfExecutionSpace, LABEL } from "../karmada/names.ts";
import { KARMADA } from "../karmada/resources.ts";
import type { AggregatedStatusItem, BindingSpec } from "../karmada/types.ts";
import {
  type Condition,
  type ConditionUpdate,
  findCondition,
  setCondition,
} from "../machinery/conditions.ts";
import { deepEqual } from "../machinery/equality.ts";
import { cloneJson } from "../machinery/merge-patch.ts";
import { commit } from "../runtime/commit.ts";
import { type Controller, done, type ReconcileResult } from "../runtime/controller.ts";
import { parseObjectKey } from "../runtime/keys.ts";
import { expectedClusters, resourceTemplate, WORKS_BY_BINDING, worksInformer } from "./binding.ts";
import type { ControllerContext } from "./context.ts";
import { manifestsOf } from "./execution.ts";
import { identifierOf, STATUS_COALESCE_MS } from "./work-status.ts";

/** Identifiers name the same manifest (the plural `resource` is the member's to fill in). */
function sameManifest(a: unknown, b: Record<string, unknown>): boolean {
  if (!isObject(a)) return false;
  const { resource: _r, ...rest } = a;
  return deepEqual(rest, b);
}

/** One aggregatedStatus item per Work, as upstream assembles them. */
export function aggregatedItems(binding: Binding, works: readonly StoredObject[]): AggregatedStatusItem[] {
  const items: AggregatedStatusItem[] = [];
  const r = binding.spec.resource;
  for (const w of works) {
    if (w.metadata.deletionTimestamp) continue;
    const clusterName = clusterOfExecutionSpace(w.metadata.namespace);
    if (!clusterName) continue;
    const status = isObject(w.status) ? w.status : {};
    const conditions = (Array.isArray(status.conditions) ? status.conditions : []) as Condition[];
    const applied = findCondition(conditions, "Applied");
    if (applied?.status !== "True") {
      items.push({
        clusterName,
        applied: false,
        ...(applied?.message ? { appliedMessage: applied.message } : {}),
        health: "Unknown",
      });
      continue;
    }
    // The manifest that is the template (not a dependency riding along).
    const ordinal = manifestsOf(w).findIndex((m) => m.kind === r.kind && m.metadata?.name === r.name);
    const manifest = manifestsOf(w)[ordinal];
    const want = manifest ? identifierOf(manifest, ordinal) : undefined;
    const found = (
      (Array.isArray(status.manifestStatuses) ? status.manifestStatuses : []) as Array<
        Record<string, unknown>
      >
    ).find((s) => want && sameManifest(s.identifier, want));
    items.push({
      clusterName,
      ...(isObject(found?.status) ? { status: found.status } : {}),
      applied: true,
      health: (found?.health as AggregatedStatusItem["health"]) ?? "Unknown",
    });
  }
  return items.sort((a, b) => (a.clusterName < b.clusterName ? -1 : a.clusterName > b.clusterName ? 1 : 0));
}

export function fullyApplied(binding: Binding, items: readonly AggregatedStatusItem[]): ConditionUpdate {
  const expected = expectedClusters(binding.spec);
  const ok =
    expected.size > 0 &&
    expected.size === items.length &&
    items.every((i) => i.applied && expected.has(i.clusterName));
  return ok
    ? {
        type: "FullyApplied",
        status: "True",
        reason: "FullyAppliedSuccess",
        message: "All works have been successfully applied",
      }
    : {
        type: "FullyApplied",
        status: "False",
        reason: "FullyAppliedFailed",
        message: "Failed to apply all works, see status.aggregatedStatus for details",
      };
}

export function bindingStatusController(
  ctx: ControllerContext,
  interpreter: Interpreter,
  clusterScoped: boolean,
): Controller {
  const events = ctx.recorder(clusterScoped ? "crb-status-controller" : "rb-status-controller");
  const bindingRef = bindingResource(clusterScoped);
  const idLabel = clusterScoped ? LABEL.crbPermanentId : LABEL.rbPermanentId;
  const bindings = ctx.informers.informer(bindingRef);
  const works = worksInformer(ctx);

  async function aggregateTemplate(binding: Binding, items: AggregatedStatusItem[]): Promise<void> {
    const r = binding.spec.resource;
    const template = await resourceTemplate(ctx, r);
    if (!template || (template.metadata.uid !== r.uid && r.uid)) return;
    const ref = await ctx.client.resourceFor(r.apiVersion, r.kind);
    const aggregated = await interpreter.aggregateStatus(template, items);
    if (!aggregated || deepEqual(aggregated.status ?? {}, template.status ?? {})) return;
    await ctx.client.updateStatus(ref, { ...template, status: aggregated.status });
    events.event(
      template,
      "Normal",
      "AggregateStatusSucceed",
      "Update Resource with AggregatedStatus successfully.",
    );
  }

  async function reconcile(key: string): Promise<ReconcileResult> {
    const { namespace: ns, name } = parseObjectKey(key);
    const binding = bindings.get(ns, name) as Binding | undefined;
    if (!binding || binding.metadata.deletionTimestamp) return done;
    const id = binding.metadata.labels?.[idLabel];
    const own = id ? works.byIndex(WORKS_BY_BINDING, id) : [];
    const items = aggregatedItems(binding, own);
    const next = cloneJson(binding);
    const status: Record<string, unknown> = isObject(next.status) ? next.status : {};
    const conditions = (Array.isArray(status.conditions) ? status.conditions : []) as Condition[];
    setCondition(conditions, fullyApplied(binding, items), rfc3339(ctx.now()));
    status.conditions = conditions;
    if (items.length > 0) status.aggregatedStatus = items;
    else delete status.aggregatedStatus;
    next.status = status;
    const written = await commit(ctx.client, bindingRef, binding, next);
    if (!written) return done;
    // `commit` hands back the cached binding itself when there was nothing to write.
    if (written !== binding) {
      events.event(
        binding,
        "Normal",
        "AggregateStatusSucceed",
        `Update ${clusterScoped ? "ClusterResourceBinding" : "ResourceBinding"}(${key}) with AggregatedStatus successfully.`,
      );
    }
    if (items.length > 0) await aggregateTemplate(binding, items);
    return done;
  }

  return {
    name: clusterScoped ? "cluster-resource-binding-status-controller" : "resource-binding-status-controller",
    for: bindings,
    workers: 4,
    // A template change reaches the binding as a new spec.resource.resourceVersion (generation).
    updateFilter: (old, obj) => old.metadata.generation !== obj.metadata.generation,
    watches: [
      {
        informer: works,
        updateFilter: (old, obj) =>
          !deepEqual(old.status, obj.status) ||
          old.metadata.deletionTimestamp !== obj.metadata.deletionTimestamp,
        map: (w) => bindingKeyOfWork(w, clusterScoped),
        // Works of one binding report in bursts (every member at once): one status write per burst.
        coalesceMs: STATUS_COALESCE_MS,
      },
    ],
    reconcile: (_rctx, key) => reconcile(key),
  };
}
