/**
 * The binding controllers (upstream's pkg/controllers/binding): for every target cluster of a
 * ResourceBinding or ClusterResourceBinding, one Work in `karmada-es-<cluster>` carrying the
 * template tailored for that cluster (its share of the replicas, then override policies), with
 * upstream's names, labels and annotations. Works of clusters no longer targeted are deleted;
 * a binding being deleted first loses all its Works, then its finalizer.
 */

import { randomUUID } from "node:crypto";
import type { KubeObject, StoredObject } from "../api/meta.ts";
import { RESOURCES, type ResourceRef } from "../client/client.ts";
import type { Interpreter } from "../interpreter/index.ts";
import { type Binding, bindingIdOf, bindingKeyOfWork, bindingResource } from "../karmada/bindings.ts";
import { labelsToInject, purgesDirectly } from "../karmada/failover.ts";
import {
  ANNOTATION,
  clusterOfExecutionSpace,
  executionSpace,
  FINALIZER,
  LABEL,
  workName,
} from "../karmada/names.ts";
import { KARMADA } from "../karmada/resources.ts";
import type { BindingSpec, ClusterObject, OverrideSpec } from "../karmada/types.ts";
import { deepEqual } from "../machinery/equality.ts";
import { isNotFound } from "../machinery/errors.ts";
import { cloneJson } from "../machinery/merge-patch.ts";
import { measured } from "../metrics/registry.ts";
import { appliedOverridesAnnotation, applyOverrides } from "../overrides/index.ts";
import { commit, hasFinalizer, removeFinalizer } from "../runtime/commit.ts";
import { type Controller, done, type ReconcileResult, requeueAfter } from "../runtime/controller.ts";
import type { Informer } from "../runtime/informer.ts";
import { objectKey, objectKeys, parseObjectKey } from "../runtime/keys.ts";
import type { ControllerContext } from "./context.ts";
import { karmadaMetrics } from "./metrics.ts";
import { createOrUpdateWork, workManifest } from "./work.ts";

export const BINDING_CONTROLLER = "binding-controller";
export const CLUSTER_BINDING_CONTROLLER = "cluster-resource-binding-controller";
export const WORKS_BY_BINDING = "binding";

type OverridePolicy = { metadata: { name: string; namespace?: string }; spec: OverrideSpec };

/** How often a binding waiting for a directly purged copy to go looks again (upstream: 5 s). */
const DIRECT_PURGE_RECHECK_MS = 500;

/** Works indexed by the permanent id of their binding. */
export function worksInformer(ctx: ControllerContext): Informer {
  return ctx.informers.informer(KARMADA.works, {
    indexers: { [WORKS_BY_BINDING]: (w) => [bindingIdOf(w)].filter((v): v is string => !!v) },
  });
}

/**
 * The template a binding was made from, read from the informer the detector keeps (as upstream
 * reads its lister), with a GET when the cache has not caught up with the binding yet. Undefined
 * when the template or its kind is gone. The cached object is shared: callers must not modify it.
 */
export async function resourceTemplate(
  ctx: ControllerContext,
  r: BindingSpec["resource"],
): Promise<StoredObject | undefined> {
  let ref: ResourceRef;
  try {
    ref = await ctx.client.resourceFor(r.apiVersion, r.kind);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
  const informer = ctx.informers.informer(ref);
  if (informer.hasSynced()) {
    const cached = informer.get(r.namespace, r.name);
    const fresh =
      cached && (!r.resourceVersion || Number(cached.metadata.resourceVersion) >= Number(r.resourceVersion));
    if (fresh && (!r.uid || cached.metadata.uid === r.uid)) return cached;
  }
  try {
    return await ctx.client.get(ref, r.namespace, r.name);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/**
 * The clusters a binding's Works belong in: its target clusters, those of bindings that
 * require it, and clusters being evicted gracefully (their copy stays until the new one is up).
 */
export function expectedClusters(spec: BindingSpec): Set<string> {
  const out = new Set<string>();
  for (const c of spec.clusters ?? []) out.add(c.name);
  for (const r of spec.requiredBy ?? []) for (const c of r.clusters ?? []) out.add(c.name);
  for (const t of spec.gracefulEvictionTasks ?? []) if (!purgesDirectly(t)) out.add(t.fromCluster);
  return out;
}

/** The conflict resolution a Work gets: the template's annotation when valid, else the binding's. */
function conflictResolution(template: StoredObject, spec: BindingSpec): "overwrite" | "abort" {
  const fromTemplate = template.metadata.annotations?.[ANNOTATION.conflictResolution];
  if (fromTemplate === "overwrite" || fromTemplate === "abort") return fromTemplate;
  return spec.conflictResolution === "Overwrite" ? "overwrite" : "abort";
}

export function bindingController(
  ctx: ControllerContext,
  interpreter: Interpreter,
  clusterScoped: boolean,
): Controller {
  const name = clusterScoped ? CLUSTER_BINDING_CONTROLLER : BINDING_CONTROLLER;
  const events = ctx.recorder(name);
  const bindingRef = bindingResource(clusterScoped);
  const finalizer = clusterScoped ? FINALIZER.clusterBinding : FINALIZER.binding;
  const idLabel = clusterScoped ? LABEL.crbPermanentId : LABEL.rbPermanentId;
  const bindings = ctx.informers.informer(bindingRef);
  const works = worksInformer(ctx);
  const clusters = ctx.informers.informer(RESOURCES.clusters);
  const ops = ctx.informers.informer(KARMADA.overridePolicies);
  const cops = ctx.informers.informer(KARMADA.clusterOverridePolicies);
  const metrics = karmadaMetrics(ctx.metrics);

  /** Whether this call deleted the Work (false: it was going or gone already). */
  async function deleteWork(work: StoredObject): Promise<boolean> {
    if (work.metadata.deletionTimestamp) return false;
    try {
      await ctx.client.delete(KARMADA.works, work.metadata.namespace, work.metadata.name);
      return true;
    } catch (err) {
      if (!isNotFound(err)) throw err;
      return false;
    }
  }

  /** The manifest of `template` for one cluster, and the Work annotations that record how it was made. */
  async function manifestFor(
    binding: Binding,
    tmpl: StoredObject,
    cluster: string,
    replicas: number | undefined,
    workId: string,
    resolution: string,
    injected: Record<string, string> | undefined,
  ): Promise<{ manifest: KubeObject; annotations: Record<string, string> }> {
    let obj: KubeObject = cloneJson(tmpl);
    const spec = binding.spec;
    const workload = (spec.replicas ?? 0) > 0 || spec.replicaRequirements !== undefined;
    if (workload) obj = (await interpreter.reviseReplica(obj, replicas ?? 0)) ?? obj;

    const clusterObj = (clusters.get(undefined, cluster) as ClusterObject | undefined) ?? {
      apiVersion: "cluster.karmada.io/v1alpha1",
      kind: "Cluster",
      metadata: { name: cluster, uid: "" },
    };
    const namespace = tmpl.metadata.namespace;
    const overridden = applyOverrides(obj, clusterObj, {
      cluster: cops.list() as unknown as OverridePolicy[],
      namespaced: namespace ? (ops.list(namespace) as unknown as OverridePolicy[]) : [],
    });
    obj = overridden.object;
    const workAnnotations: Record<string, string> = {};
    const appliedCluster = appliedOverridesAnnotation(overridden.appliedClusterOverrides ?? []);
    const applied = appliedOverridesAnnotation(overridden.appliedOverrides ?? []);
    if (appliedCluster) workAnnotations[ANNOTATION.appliedClusterOverrides] = appliedCluster;
    if (applied) workAnnotations[ANNOTATION.appliedOverrides] = applied;

    obj.metadata ??= {};

    const meta = obj.metadata;
    const bindingId = binding.metadata.labels?.[idLabel] ?? "";
    const generation = tmpl.metadata.generation ?? 0;
    const bindingAnnotations: Record<string, string> = clusterScoped
      ? { [ANNOTATION.crbName]: binding.metadata.name }
      : {
          [ANNOTATION.rbNamespace]: binding.metadata.namespace!,
          [ANNOTATION.rbName]: binding.metadata.name,
        };
    // Stateful failover's preserved state comes after the overrides, so it wins.
    meta.labels = { ...meta.labels, ...injected, [idLabel]: bindingId, [LABEL.managed]: "true" };
    meta.annotations = {
      ...meta.annotations,
      ...(generation > 0 ? { [ANNOTATION.templateGeneration]: String(generation) } : {}),
      ...bindingAnnotations,
      [ANNOTATION.templateUid]: tmpl.metadata.uid,
      [ANNOTATION.workName]: workName(tmpl.kind, tmpl.metadata.name, namespace),
      [ANNOTATION.workNamespace]: executionSpace(cluster),
      [ANNOTATION.conflictResolution]: resolution,
    };
    return {
      manifest: workManifest(obj, workId),
      annotations: { ...bindingAnnotations, ...workAnnotations },
    };
  }

  /** Whether the Work was created or changed. */
  async function ensureWork(
    binding: Binding,
    tmpl: StoredObject,
    cluster: string,
    replicas: number | undefined,
    injected: Record<string, string> | undefined,
  ): Promise<boolean> {
    const spec = binding.spec;
    const ns = executionSpace(cluster);
    const wname = workName(tmpl.kind, tmpl.metadata.name, tmpl.metadata.namespace);
    const existing = works.get(ns, wname);
    const workId = existing?.metadata.labels?.[LABEL.workPermanentId] ?? randomUUID();
    const resolution = conflictResolution(tmpl, spec);
    const { manifest, annotations } = await manifestFor(
      binding,
      tmpl,
      cluster,
      replicas,
      workId,
      resolution,
      injected,
    );
    const suspended =
      spec.suspension?.dispatching === true ||
      (spec.suspension?.dispatchingOnClusters?.clusterNames ?? []).includes(cluster);
    const workSpec: Record<string, unknown> = {
      workload: { manifests: [manifest] },
      ...(suspended ? { suspendDispatching: true } : {}),
      ...(spec.preserveResourcesOnDeletion ? { preserveResourcesOnDeletion: true } : {}),
    };
    const labels = { [idLabel]: binding.metadata.labels?.[idLabel] ?? "", [LABEL.workPermanentId]: workId };
    const allAnnotations = { ...annotations, [ANNOTATION.conflictResolution]: resolution };
    return createOrUpdateWork(ctx, existing, {
      namespace: ns,
      name: wname,
      labels,
      annotations: allAnnotations,
      spec: workSpec,
    });
  }

  async function reconcile(key: string): Promise<ReconcileResult> {
    const { namespace: ns, name: bname } = parseObjectKey(key);
    const binding = bindings.get(ns, bname) as Binding | undefined;
    if (!binding) return done;
    const id = binding.metadata.labels?.[idLabel];
    const own = id ? works.byIndex(WORKS_BY_BINDING, id) : [];

    if (binding.metadata.deletionTimestamp) {
      if (!hasFinalizer(binding, finalizer)) return done;
      for (const w of own) await deleteWork(w);
      if (own.length > 0) return requeueAfter(1_000);
      const next = cloneJson(binding);
      removeFinalizer(next, finalizer);
      await commit(ctx.client, bindingRef, binding, next);
      return done;
    }

    return measured(() => syncWorks(key, binding, own), metrics.syncedWorks);
  }

  /**
   * Deletes the Works of clusters the binding no longer names: whether one was deleted now, and
   * whether one of them is a copy purged directly (the new copies wait until it is gone).
   */
  async function deleteUntargeted(
    binding: Binding,
    own: StoredObject[],
  ): Promise<{ deleted: boolean; awaitingPurge: boolean }> {
    const expected = expectedClusters(binding.spec);
    const purgedDirectly = new Set(
      (binding.spec.gracefulEvictionTasks ?? []).filter(purgesDirectly).map((t) => t.fromCluster),
    );
    let deleted = false;
    let awaitingPurge = false;
    for (const w of own) {
      const cluster = clusterOfExecutionSpace(w.metadata.namespace);
      if (!cluster || expected.has(cluster)) continue;
      if (await deleteWork(w)) deleted = true;
      if (purgedDirectly.has(cluster)) awaitingPurge = true;
    }
    return { deleted, awaitingPurge };
  }

  /** Upstream's syncBinding: the Works of the clusters the binding names, and no others. */
  async function syncWorks(key: string, binding: Binding, own: StoredObject[]): Promise<ReconcileResult> {
    const { deleted, awaitingPurge } = await deleteUntargeted(binding, own);
    // As upstream: a copy purged directly is gone before the new copies are written (a
    // stateful workload never runs twice).
    if (awaitingPurge) return requeueAfter(DIRECT_PURGE_RECHECK_MS);
    const tmpl = await resourceTemplate(ctx, binding.spec.resource);
    if (!tmpl) return done;

    const targets = new Map<string, number | undefined>();
    for (const c of binding.spec.clusters ?? []) targets.set(c.name, c.replicas);
    for (const r of binding.spec.requiredBy ?? [])
      for (const c of r.clusters ?? []) if (!targets.has(c.name)) targets.set(c.name, c.replicas);
    const inject = ctx.options.features.enabled("StatefulFailoverInjection");
    // The Works of one binding are written side by side: each write waits for the store's next
    // commit, and one after the other made a ten-member binding ten commits long.
    const sorted = [...targets].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const outcomes = await Promise.allSettled(
      sorted.map(([cluster, replicas]) =>
        ensureWork(
          binding,
          tmpl,
          cluster,
          replicas,
          inject ? labelsToInject(binding.spec, cluster, targets.size) : undefined,
        ),
      ),
    );
    const failures = outcomes.flatMap((o, i) =>
      o.status === "rejected" ? [`cluster(${sorted[i]![0]}): ${(o.reason as Error).message}`] : [],
    );
    const what = `${clusterScoped ? "ClusterResourceBinding" : "ResourceBinding"}(${key})`;
    if (failures.length > 0) {
      const message = `Failed to sync work of ${what}: ${failures.join("; ")}`;
      events.event(binding, "Warning", "SyncWorkFailed", message);
      events.event(tmpl, "Warning", "SyncWorkFailed", message);
      throw new Error(message);
    }
    // Only a sync that wrote is worth an Event: a resync that found every Work as it should be
    // (each binding after a restart) would otherwise write two Events per binding for nothing.
    const written = deleted || outcomes.some((o) => o.status === "fulfilled" && o.value);
    if (targets.size > 0 && written) {
      events.event(binding, "Normal", "SyncWorkSucceed", `Sync work of ${what} successful.`);
      events.event(tmpl, "Normal", "SyncWorkSucceed", `Sync work of ${what} successful.`);
    }
    return done;
  }

  /** An override policy change concerns the bindings it may apply to. */
  const byOverridePolicy = (clusterWide: boolean) => (p: StoredObject) =>
    bindings.list(clusterWide ? undefined : p.metadata.namespace).map(objectKey);

  return {
    name,
    for: bindings,
    workers: 4,
    updateFilter: (old, obj) =>
      old.metadata.generation !== obj.metadata.generation ||
      old.metadata.deletionTimestamp !== obj.metadata.deletionTimestamp ||
      !deepEqual(old.metadata.labels, obj.metadata.labels),
    watches: [
      { informer: ops, map: byOverridePolicy(false) },
      { informer: cops, map: byOverridePolicy(true) },
      {
        // A Work being deleted behind our back is recreated once it is gone.
        informer: works,
        map: (w) => (w.metadata.deletionTimestamp ? bindingKeyOfWork(w, clusterScoped) : []),
      },
    ],
    reconcile: (_rctx, key) => reconcile(key),
  };
}
