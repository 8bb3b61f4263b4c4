/**
 * The execution controller (upstream's pkg/controllers/execution): applies each Work's
 * manifests to its member cluster over the member's API, keeping what the member owns
 * (resourceVersion, finalizers, owner references, labels and annotations others set, and the
 * interpreter's Retain fields), refusing to take over objects Karmada did not create unless
 * the Work says `overwrite`. A Work being deleted removes its member objects (or, with
 * `preserveResourcesOnDeletion`, strips Karmada's marks from them) before its finalizer goes.
 *
 * In the controller manager it serves Push clusters; in an agent, its own Pull cluster. Each
 * member has its own connection and concurrency limit, so a slow member only slows its Works.
 */
import { isObject, type KubeObject, rfc3339, type StoredObject } from "../api/meta.ts";
import { RESOURCES, type ResourceRef } from "../client/client.ts";
import type { MemberConnection } from "../cluster/connections.ts";
import type { Interpreter } from "../interpreter/index.ts";
import { prune } from "../interpreter/native/prune.ts";
import { ANNOTATION, clusterOfExecutionSpace, executionSpace, FINALIZER, LABEL } from "../karmada/names.ts";
import { KARMADA } from "../karmada/resources.ts";
import type { ClusterObject } from "../karmada/types.ts";
import {
  type Condition,
  type ConditionUpdate,
  isConditionTrue,
  setCondition,
} from "../machinery/conditions.ts";
import { deepEqual } from "../machinery/equality.ts";
import { isAlreadyExists, isConflict, isNotFound } from "../machinery/errors.ts";
import { cloneJson } from "../machinery/merge-patch.ts";
import { measured } from "../metrics/registry.ts";
import { commit, hasFinalizer, removeFinalizer } from "../runtime/commit.ts";
import { type Controller, done, type ReconcileContext, type ReconcileResult } from "../runtime/controller.ts";
import type { Informer } from "../runtime/informer.ts";
import { objectKey, parseObjectKey } from "../runtime/keys.ts";
import type { ControllerContext } from "./context.ts";
import { karmadaMetrics, manifestType } from "./metrics.ts";

export const EXECUTION_CONTROLLER = "execution-controller";

/** Labels and annotations Karmada puts on member objects (removed when resources are preserved). */
const KARMADA_LABELS = [
  LABEL.ppPermanentId,
  LABEL.cppPermanentId,
  LABEL.rbPermanentId,
  LABEL.crbPermanentId,
  LABEL.workPermanentId,
  LABEL.managed,
];
const KARMADA_ANNOTATIONS = [
  ANNOTATION.ppNamespace,
  ANNOTATION.ppName,
  ANNOTATION.cppName,
  ANNOTATION.managedAnnotations,
  ANNOTATION.managedLabels,
  ANNOTATION.rbNamespace,
  ANNOTATION.rbName,
  ANNOTATION.crbName,
  ANNOTATION.templateUid,
  ANNOTATION.templateGeneration,
  ANNOTATION.workName,
  ANNOTATION.workNamespace,
  ANNOTATION.conflictResolution,
];

/** Whether a member object changed in more than its status and bookkeeping. */
function editedBeyondStatus(old: StoredObject, obj: StoredObject): boolean {
  const strip = (o: StoredObject) => {
    const { status: _s, ...rest } = o;
    const { managedFields: _m, resourceVersion: _r, generation: _g, ...meta } = o.metadata;
    return { ...rest, metadata: meta };
  };
  return !deepEqual(strip(old), strip(obj));
}

export function isClusterReady(cluster: ClusterObject | undefined): boolean {
  return !!cluster?.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True");
}

/** Whether this controller instance serves the cluster: Push clusters, or the agent's own one. */
export function servesCluster(cluster: ClusterObject | undefined, pullCluster: string | undefined): boolean {
  if (!cluster) return false;
  return pullCluster
    ? cluster.metadata.name === pullCluster && cluster.spec?.syncMode === "Pull"
    : cluster.spec?.syncMode !== "Pull";
}

function workConditions(work: StoredObject): Condition[] {
  const status = isObject(work.status) ? work.status : {};
  return (Array.isArray(status.conditions) ? status.conditions : []) as Condition[];
}

export function manifestsOf(work: StoredObject): KubeObject[] {
  const spec = isObject(work.spec) ? work.spec : {};
  const workload = isObject(spec.workload) ? spec.workload : {};
  return (Array.isArray(workload.manifests) ? workload.manifests : []).filter(isObject) as KubeObject[];
}

/**
 * What to send for an object that exists in the member: the manifest, plus everything the
 * member owns. Labels and annotations set by others are kept; ones Karmada managed before but
 * no longer wants are dropped.
 */
export async function desiredOver(
  manifest: KubeObject,
  observed: StoredObject,
  interpreter: Interpreter,
): Promise<KubeObject> {
  const desired = cloneJson(manifest);
  desired.metadata ??= {};
  const meta = desired.metadata;
  const om = observed.metadata;
  if (om.resourceVersion) meta.resourceVersion = om.resourceVersion;
  if (om.finalizers) meta.finalizers = om.finalizers;
  if (om.ownerReferences) meta.ownerReferences = om.ownerReferences;
  const merge = (
    mine: Record<string, string> | undefined,
    theirs: Record<string, string> | undefined,
    record: string | undefined,
  ) => {
    const managedBefore = new Set((record ?? "").split(",").filter(Boolean));
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(theirs ?? {})) if (!managedBefore.has(k)) out[k] = v;
    return { ...out, ...mine };
  };
  meta.labels = merge(meta.labels, om.labels, om.annotations?.[ANNOTATION.managedLabels]);
  meta.annotations = merge(meta.annotations, om.annotations, om.annotations?.[ANNOTATION.managedAnnotations]);
  return (await interpreter.retain(desired, observed)) ?? desired;
}

const WORKERS = 16;
/** At most this many workers wait on one member at a time. */
const PER_CLUSTER_WORKERS = 6;

export function executionController(
  ctx: ControllerContext,
  interpreter: Interpreter,
  agent: { pullCluster?: string } = {},
): Controller {
  const events = ctx.recorder(EXECUTION_CONTROLLER);
  const works: Informer = ctx.informers.informer(
    KARMADA.works,
    // An agent sees only its own execution space.
    agent.pullCluster ? { namespace: executionSpace(agent.pullCluster) } : {},
  );
  const clusters = ctx.informers.informer(RESOURCES.clusters);
  const metrics = karmadaMetrics(ctx.metrics);

  /** A write to a member, counted as upstream counts it (create/update/delete_resource_*_cluster). */
  async function counted<T>(
    op: "create" | "update" | "delete",
    cluster: ClusterObject,
    manifest: KubeObject,
    write: () => Promise<T>,
    detail?: { recreate?: boolean; operationResult?: string },
  ): Promise<T> {
    const target = { ...manifestType(manifest), cluster: cluster.metadata.name };
    return measured(write, (err) => metrics.memberWrite(op, err, target, detail));
  }

  async function memberRef(conn: MemberConnection, obj: KubeObject) {
    return conn.client.resourceFor(String(obj.apiVersion), String(obj.kind));
  }

  async function getMember(conn: MemberConnection, obj: KubeObject): Promise<StoredObject | undefined> {
    const ref = await memberRef(conn, obj);
    try {
      return await conn.client.get(
        ref,
        ref.namespaced ? obj.metadata?.namespace : undefined,
        obj.metadata!.name!,
      );
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /**
   * The member's copy as its watch has it (upstream reads its member informers too), or
   * "unknown" while that watch has not listed yet. Only copies Karmada manages are watched: an
   * object of the same name it does not manage shows up when creating it fails.
   */
  async function cachedMember(
    cluster: ClusterObject,
    manifest: KubeObject,
  ): Promise<StoredObject | undefined | "unknown"> {
    const watch = await ctx.memberWatches.watch(cluster, manifest);
    if (!watch.informer.hasSynced()) return "unknown";
    return watch.informer.get(
      watch.ref.namespaced ? manifest.metadata?.namespace : undefined,
      manifest.metadata!.name!,
    );
  }

  /** The member's copy to apply the manifest over, or undefined when it was just created. */
  async function observeOrCreate(
    conn: MemberConnection,
    ref: ResourceRef,
    cluster: ClusterObject,
    manifest: KubeObject,
    live: boolean,
    recreate: boolean,
  ): Promise<StoredObject | undefined> {
    const cached = live ? "unknown" : await cachedMember(cluster, manifest);
    const observed = cached === "unknown" ? await getMember(conn, manifest) : cached;
    if (observed) return observed;
    try {
      await counted("create", cluster, manifest, () => conn.client.create(ref, manifest), { recreate });
      return undefined;
    } catch (err) {
      // The cache had not seen it yet, or Karmada does not manage it: look at it as it is.
      if (cached === "unknown" || !isAlreadyExists(err)) throw err;
      const current = await getMember(conn, manifest);
      if (!current) throw err;
      return current;
    }
  }

  /** `recreate`: the Work was applied before, so a missing copy is made again. */
  async function apply(
    conn: MemberConnection,
    cluster: ClusterObject,
    manifest: KubeObject,
    recreate: boolean,
    live = false,
  ): Promise<void> {
    const ref = await memberRef(conn, manifest);
    const observed = await observeOrCreate(conn, ref, cluster, manifest, live, recreate);
    if (!observed) return;
    const managed = observed.metadata.labels?.[LABEL.managed] === "true";
    const resolution = manifest.metadata?.annotations?.[ANNOTATION.conflictResolution];
    if (!managed && resolution !== "overwrite") {
      const where = observed.metadata.namespace
        ? `${observed.metadata.namespace}/${observed.metadata.name}`
        : observed.metadata.name;
      throw new Error(
        `resource(kind=${manifest.kind}, ${where}) already exists in the cluster ${cluster.metadata.name} and the ${ANNOTATION.conflictResolution} strategy value is empty, Karmada will not manage this resource`,
      );
    }
    const desired = await desiredOver(manifest, observed, interpreter);
    const current = prune(observed);
    const wanted = prune(desired);
    if (deepEqual(current, wanted)) return;
    try {
      await counted("update", cluster, manifest, () => conn.client.update(ref, desired), {
        operationResult: "updated",
      });
    } catch (err) {
      // The cached copy was behind the member's: once more from a fresh read.
      if (live || !isConflict(err)) throw err;
      await apply(conn, cluster, manifest, recreate, true);
    }
  }

  async function removeFromMember(
    conn: MemberConnection,
    cluster: ClusterObject,
    manifest: KubeObject,
    preserve: boolean,
  ): Promise<void> {
    const observed = await getMember(conn, manifest);
    if (!observed) return;
    const ref = await memberRef(conn, manifest);
    if (preserve) {
      const labels = Object.fromEntries(
        KARMADA_LABELS.filter((k) => observed.metadata.labels?.[k] !== undefined).map((k) => [k, null]),
      );
      const annotations = Object.fromEntries(
        KARMADA_ANNOTATIONS.filter((k) => observed.metadata.annotations?.[k] !== undefined).map((k) => [
          k,
          null,
        ]),
      );
      await conn.client.patch(ref, observed.metadata.namespace, observed.metadata.name, "merge", {
        metadata: { labels, annotations },
      });
      return;
    }
    // Objects Karmada did not create are left alone.
    if (observed.metadata.labels?.[LABEL.managed] !== "true") return;
    try {
      await counted("delete", cluster, manifest, () =>
        conn.client.delete(ref, observed.metadata.namespace, observed.metadata.name, {
          propagationPolicy: "Background",
        }),
      );
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  async function setConditions(work: StoredObject, updates: ConditionUpdate[]): Promise<void> {
    // Decided on a copy of the list (setCondition replaces a condition, never changes it): the
    // Work, manifests and all, is copied only when there is something to write.
    const had = isObject(work.status) && Array.isArray(work.status.conditions) ? work.status.conditions : [];
    const conditions = [...had] as Condition[];
    const stamp = rfc3339(ctx.now());
    let changed = false;
    for (const c of updates) changed = setCondition(conditions, c, stamp) || changed;
    if (!changed) return;
    const next = cloneJson(work);
    next.status = { ...(isObject(next.status) ? next.status : {}), conditions };
    await commit(ctx.client, KARMADA.works, work, next);
  }

  /** Removes the Work's copies from its member, then its finalizer; false while the member is not Ready. */
  async function finalize(work: StoredObject, cluster: ClusterObject | undefined): Promise<boolean> {
    if (!hasFinalizer(work, FINALIZER.execution)) return true;
    const spec = isObject(work.spec) ? work.spec : {};
    if (cluster && !cluster.metadata.deletionTimestamp) {
      if (!isClusterReady(cluster)) return false;
      const conn = await ctx.members.connect(cluster);
      for (const m of manifestsOf(work))
        await removeFromMember(conn, cluster, m, spec.preserveResourcesOnDeletion === true);
    }
    // PUT, not patch: upstream's RBAC for Pull clusters lets an agent update its Works, not patch them.
    const next = cloneJson(work);
    removeFinalizer(next, FINALIZER.execution);
    await commit(ctx.client, KARMADA.works, work, next, { update: true });
    return true;
  }

  /** Applies in flight per member cluster. */
  const inflight = new Map<string, number>();
  /**
   * Works that found their member's slots taken, by cluster, queued again one by one as slots
   * free up. (A retry on a timer instead had every such Work come round ten times a second:
   * after a restart, with thousands of Works per member queued at once, thirty reconciles a Work
   * for nothing.) A Work waits here only while its member has applies in flight, and each of
   * them hands one waiting Work back to the queue when it ends.
   */
  const waiting = new Map<string, { keys: string[]; head: number; has: Set<string> }>();
  let enqueue: (key: string) => void = () => {};
  function wait(clusterName: string, key: string): void {
    let w = waiting.get(clusterName);
    if (!w) {
      w = { keys: [], head: 0, has: new Set() };
      waiting.set(clusterName, w);
    }
    if (w.has.has(key)) return;
    w.has.add(key);
    w.keys.push(key);
  }
  function release(clusterName: string): void {
    const left = (inflight.get(clusterName) ?? 1) - 1;
    if (left > 0) inflight.set(clusterName, left);
    else inflight.delete(clusterName);
    // First in, first out, by index: taking the first of a Set again and again walks the holes
    // its deletions leave, and a member may have thousands waiting.
    const w = waiting.get(clusterName);
    if (!w) return;
    const next = w.keys[w.head++]!;
    w.has.delete(next);
    if (w.head === w.keys.length) waiting.delete(clusterName);
    else if (w.head >= 1024 && w.head * 2 >= w.keys.length) {
      w.keys = w.keys.slice(w.head);
      w.head = 0;
    }
    enqueue(next);
  }

  async function reconcile(rctx: ReconcileContext, key: string): Promise<ReconcileResult> {
    const { namespace: ns, name } = parseObjectKey(key);
    const clusterName = clusterOfExecutionSpace(ns);
    if (!clusterName) return done;
    const work = works.get(ns, name);
    if (!work) return done;
    const cluster = clusters.get(undefined, clusterName) as ClusterObject | undefined;
    if (agent.pullCluster ? clusterName !== agent.pullCluster : cluster?.spec?.syncMode === "Pull")
      return done;
    if (work.metadata.deletionTimestamp) {
      // A member that is not Ready keeps the Work until it is: the cluster watch brings it back.
      if (!(await finalize(work, cluster)))
        rctx.log.debug("cluster not ready; deletion waits", { clusterName });
      return done;
    }
    if (!cluster || !servesCluster(cluster, agent.pullCluster)) return done;
    const spec = isObject(work.spec) ? work.spec : {};
    if (spec.suspendDispatching === true) {
      await setConditions(work, [
        {
          type: "Dispatching",
          status: "False",
          reason: "SuspendDispatching",
          message: "Work dispatching is in a suspended state.",
        },
      ]);
      return done;
    }
    const dispatching: ConditionUpdate = {
      type: "Dispatching",
      status: "True",
      reason: "Dispatching",
      message: "Work is being dispatched to member clusters.",
    };
    // Upstream retries with an error; here the cluster watch brings the Work back once the cluster is Ready.
    if (!isClusterReady(cluster)) {
      rctx.log.debug("cluster not ready; dispatch waits", { clusterName });
      return done;
    }
    // A member that answers slowly (or not at all, until the request timeout) may hold only
    // part of the workers: the other members' Works keep flowing.
    const busy = inflight.get(clusterName) ?? 0;
    if (busy >= PER_CLUSTER_WORKERS) {
      wait(clusterName, key);
      return done;
    }
    inflight.set(clusterName, busy + 1);
    try {
      return await dispatch(work, cluster, dispatching);
    } finally {
      release(clusterName);
    }
  }

  async function dispatch(
    work: StoredObject,
    cluster: ClusterObject,
    dispatching: ConditionUpdate,
  ): Promise<ReconcileResult> {
    // As upstream's, a sync that could not reach the member counts too.
    return measured(() => applyManifests(work, cluster, dispatching), metrics.syncedWorkload);
  }

  async function applyManifests(
    work: StoredObject,
    cluster: ClusterObject,
    dispatching: ConditionUpdate,
  ): Promise<ReconcileResult> {
    const conn = await ctx.members.connect(cluster);
    const manifests = manifestsOf(work);
    const recreate = isConditionTrue(workConditions(work), "Applied");
    const errors: string[] = [];
    for (const m of manifests) {
      try {
        await apply(conn, cluster, m, recreate);
      } catch (err) {
        errors.push((err as { status?: { message?: string } }).status?.message ?? (err as Error).message);
      }
    }
    const applied: ConditionUpdate =
      errors.length === 0
        ? {
            type: "Applied",
            status: "True",
            reason: "AppliedSuccessful",
            message: "Manifest has been successfully applied",
          }
        : {
            type: "Applied",
            status: "False",
            reason: "AppliedFailed",
            message: `Failed to apply all manifests (${manifests.length - errors.length}/${manifests.length}): ${errors.join(", ")}`,
          };
    await setConditions(work, [dispatching, applied]);
    if (errors.length > 0) {
      events.event(work, "Warning", "SyncFailed", applied.message);
      throw new Error(applied.message);
    }
    return done;
  }

  let unsubscribe: () => void = () => {};
  return {
    name: EXECUTION_CONTROLLER,
    for: works,
    // Drift: a member copy deleted, or edited beyond its status, is put back (upstream's
    // execution controller does the same from its member informers).
    start(add, _coalesced, _queued, retryFailing) {
      enqueue = add;
      const fromWatches = ctx.memberWatches.subscribe((workKey, change) => {
        if (
          change.type === "delete" ||
          (change.type === "update" && change.old && editedBeyondStatus(change.old, change.obj))
        )
          add(workKey);
      });
      // A member that restarted quicker than the cluster status notices stays Ready, so no
      // cluster event brings its Works back: those that failed to reach it retry once it answers.
      const fromMembers = ctx.members.onRecovered?.((clusterName) => {
        const prefix = `${executionSpace(clusterName)}/`;
        retryFailing((key) => key.startsWith(prefix));
      });
      unsubscribe = () => {
        fromWatches();
        fromMembers?.();
      };
    },
    stop() {
      unsubscribe();
    },
    workers: WORKERS,
    // Status writes (ours and work-status') do not call for another apply.
    updateFilter: (old, obj) =>
      old.metadata.generation !== obj.metadata.generation ||
      old.metadata.deletionTimestamp !== obj.metadata.deletionTimestamp,
    watches: [
      {
        // A cluster turning Ready gets its Works applied.
        informer: clusters,
        updateFilter: (old, obj) =>
          isClusterReady(old as ClusterObject) !== isClusterReady(obj as ClusterObject),
        map: (c) =>
          isClusterReady(c as ClusterObject)
            ? works.list(executionSpace(c.metadata.name)).map(objectKey)
            : [],
      },
    ],
    reconcile,
  };
}
