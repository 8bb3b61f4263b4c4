/**
 * Binding status aggregation (upstream's rb/crb status controllers): the status of each Work
 * of a binding becomes one `aggregatedStatus` item (applied, status, health), the
 * `FullyApplied` condition says whether every expected cluster applied, and the resource
 * template's own status is aggregated from the members' through the interpreter.
 */
import { isObject, rfc3339, type StoredObject } from "../api/meta.ts";
import type { Interpreter } from "../interpreter/index.ts";
import { clusterOfExecutionSpace, LABEL } from "../karmada/names.ts";
import { KARMADA } from "../karmada/resources.ts";
import type { AggregatedStatusItem, BindingSpec } from "../karmada/types.ts";
import { jsonEqual } from "../machinery/merge-patch.ts";
import type { Controller, ReconcileResult } from "../runtime/controller.ts";
import {
  bindingKeyOfWork,
  expectedClusters,
  resourceTemplate,
  WORKS_BY_BINDING,
  worksInformer,
} from "./binding.ts";
import { type Condition, setCondition } from "./cluster-status.ts";
import type { ControllerContext } from "./context.ts";
import { manifestsOf } from "./execution.ts";
import { identifierOf, STATUS_COALESCE_MS } from "./work-status.ts";

type Binding = StoredObject & { spec: BindingSpec };

/** Identifiers name the same manifest (the plural `resource` is the member's to fill in). */
function sameManifest(a: unknown, b: Record<string, unknown>): boolean {
  if (!isObject(a)) return false;
  const { resource: _r, ...rest } = a;
  return jsonEqual(rest, b);
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
    const applied = conditions.find((c) => c.type === "Applied");
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

export function fullyApplied(
  binding: Binding,
  items: readonly AggregatedStatusItem[],
): Omit<Condition, "lastTransitionTime"> {
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
  const bindingRef = clusterScoped ? KARMADA.clusterResourceBindings : KARMADA.resourceBindings;
  const idLabel = clusterScoped ? LABEL.crbPermanentId : LABEL.rbPermanentId;
  const bindings = ctx.informers.informer(bindingRef);
  const works = worksInformer(ctx);

  async function aggregateTemplate(binding: Binding, items: AggregatedStatusItem[]): Promise<void> {
    const r = binding.spec.resource;
    const template = await resourceTemplate(ctx, r);
    if (!template || (template.metadata.uid !== r.uid && r.uid)) return;
    const ref = await ctx.client.resourceFor(r.apiVersion, r.kind);
    const aggregated = await interpreter.aggregateStatus(template, items);
    if (!aggregated || jsonEqual(aggregated.status ?? {}, template.status ?? {})) return;
    await ctx.client.updateStatus(ref, { ...template, status: aggregated.status });
    events.event(
      template,
      "Normal",
      "AggregateStatusSucceed",
      "Update Resource with AggregatedStatus successfully.",
    );
  }

  async function reconcile(key: string): Promise<ReconcileResult> {
    const [ns, name] = key.includes("/") ? (key.split("/") as [string, string]) : [undefined, key];
    const binding = bindings.get(ns, name) as Binding | undefined;
    if (!binding || binding.metadata.deletionTimestamp) return undefined;
    const id = binding.metadata.labels?.[idLabel];
    const own = id ? works.byIndex(WORKS_BY_BINDING, id) : [];
    const items = aggregatedItems(binding, own);
    const status = isObject(binding.status) ? binding.status : {};
    const conditions = setCondition(
      (Array.isArray(status.conditions) ? status.conditions : []) as Condition[],
      fullyApplied(binding, items),
      rfc3339(ctx.now()),
    );
    const next = { ...status, aggregatedStatus: items, conditions };
    if (items.length === 0) delete (next as Record<string, unknown>).aggregatedStatus;
    if (!jsonEqual(next, status)) {
      await ctx.client.updateStatus(bindingRef, { ...binding, status: next });
      events.event(
        binding,
        "Normal",
        "AggregateStatusSucceed",
        `Update ${clusterScoped ? "ClusterResourceBinding" : "ResourceBinding"}(${key}) with AggregatedStatus successfully.`,
      );
    }
    if (items.length > 0) await aggregateTemplate(binding, items);
    return undefined;
  }

  return {
    name: clusterScoped ? "crb-status" : "rb-status",
    for: bindings,
    workers: 4,
    // A template change reaches the binding as a new spec.resource.resourceVersion (generation).
    updateFilter: (old, obj) => old.metadata.generation !== obj.metadata.generation,
    watches: [
      {
        informer: works,
        updateFilter: (old, obj) =>
          !jsonEqual(old.status, obj.status) ||
          old.metadata.deletionTimestamp !== obj.metadata.deletionTimestamp,
        map: (w) => bindingKeyOfWork(w, clusterScoped),
        // Works of one binding report in bursts (every member at once): one status write per burst.
        coalesceMs: STATUS_COALESCE_MS,
      },
    ],
    reconcile: (_rctx, key) => reconcile(key),
  };
}
