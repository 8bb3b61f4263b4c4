/**
 * The work status controller (upstream's work_status_controller): watches the objects Karmada
 * applied in each member (label `karmada.io/managed=true`, one informer per cluster and
 * resource, started when a Work first needs it) and records in their Work what the member
 * reports: the reflected status and the health, through the resource interpreter.
 * In the controller manager it serves Push clusters; in an agent, its own Pull cluster.
 */
import { isObject, type KubeObject, type StoredObject } from "../api/meta.ts";
import { RESOURCES } from "../client/client.ts";
import type { Interpreter } from "../interpreter/index.ts";
import type { Health } from "../interpreter/types.ts";
import { clusterOfExecutionSpace, executionSpace } from "../karmada/names.ts";
import { KARMADA } from "../karmada/resources.ts";
import type { ClusterObject } from "../karmada/types.ts";
import type { Logger } from "../log.ts";
import { deepEqual } from "../machinery/equality.ts";
import { cloneJson } from "../machinery/merge-patch.ts";
import { commit } from "../runtime/commit.ts";
import { type Controller, done, type ReconcileContext, type ReconcileResult } from "../runtime/controller.ts";
import type { Informer } from "../runtime/informer.ts";
import { objectKey, parseObjectKey } from "../runtime/keys.ts";
import type { ControllerContext } from "./context.ts";
import { isClusterReady, manifestsOf, servesCluster } from "./execution.ts";

export const WORK_STATUS_CONTROLLER = "work-status-controller";

/** How long status changes of one object are gathered before they are written (member object → Work, Works → binding). */
export const STATUS_COALESCE_MS = 100;

/** How long a Work waits for a member watch to list before it is looked at again anyway. */
const MEMBER_SYNC_RECHECK_MS = 10_000;

/** `manifestStatuses[].identifier` of a manifest, as upstream builds it. */
export function identifierOf(
  manifest: KubeObject,
  ordinal: number,
  resource?: string,
): Record<string, unknown> {
  const [group, version] = String(manifest.apiVersion).includes("/")
    ? String(manifest.apiVersion).split("/")
    : ["", String(manifest.apiVersion)];
  return {
    ordinal,
    group,
    version,
    kind: manifest.kind,
    ...(resource ? { resource } : {}),
    ...(manifest.metadata?.namespace ? { namespace: manifest.metadata.namespace } : {}),
    name: manifest.metadata?.name,
  };
}

export function workStatusController(
  ctx: ControllerContext,
  interpreter: Interpreter,
  agent: { pullCluster?: string } = {},
): Controller {
  const works = ctx.informers.informer(
    KARMADA.works,
    // An agent sees only its own execution space.
    agent.pullCluster ? { namespace: executionSpace(agent.pullCluster) } : {},
  );
  const clusters = ctx.informers.informer(RESOURCES.clusters);
  let enqueue: (key: string) => void = () => {};
  let unsubscribe: () => void = () => {};
  /**
   * Works that found a member watch still listing, by watch: queued again once it has listed
   * (or after MEMBER_SYNC_RECHECK_MS, should it never list: a member that does not answer, a
   * watch replaced meanwhile). A retry on a short timer instead had every Work of a listing
   * member come round five times a second: after a restart with 75,000 Works, millions of
   * reconciles while the members' lists were still arriving.
   */
  const awaitingSync = new Map<Informer, Set<string>>();
  function afterSync(informer: Informer, key: string): void {
    let keys = awaitingSync.get(informer);
    if (!keys) {
      const waiting = new Set<string>();
      keys = waiting;
      awaitingSync.set(informer, waiting);
      let timer: NodeJS.Timeout | undefined;
      const recheck = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, MEMBER_SYNC_RECHECK_MS);
        timer.unref();
      });
      void Promise.race([informer.waitForSync(), recheck]).then(() => {
        clearTimeout(timer);
        awaitingSync.delete(informer);
        for (const k of waiting) enqueue(k);
      });
    }
    keys.add(key);
  }

  async function statusOf(
    log: Logger,
    observed: StoredObject,
  ): Promise<{ status?: Record<string, unknown>; health: Health }> {
    let reflected: Record<string, unknown> | null | undefined;
    try {
      reflected = await interpreter.reflectStatus(observed);
    } catch (err) {
      // Upstream retries forever here (e.g. a member object without the template-generation
      // annotation); we record the health and leave the status out until it can be read.
      log.debug("status not reflected", {
        name: observed.metadata.name,
        err: (err as Error).message,
      });
      reflected = null;
    }
    const status =
      reflected === undefined
        ? isObject(observed.status)
          ? observed.status
          : undefined
        : (reflected ?? undefined);
    let health: Health;
    try {
      health = (await interpreter.interpretHealth(observed)) ?? "Healthy";
    } catch {
      health = "Unknown";
    }
    return { ...(status && Object.keys(status).length > 0 ? { status } : {}), health };
  }

  async function reconcile(rctx: ReconcileContext, key: string): Promise<ReconcileResult> {
    const { namespace: ns, name } = parseObjectKey(key);
    const clusterName = clusterOfExecutionSpace(ns);
    if (!clusterName) return done;
    const work = works.get(ns, name);
    const cluster = clusters.get(undefined, clusterName) as ClusterObject | undefined;
    if (!work || work.metadata.deletionTimestamp || !cluster || !servesCluster(cluster, agent.pullCluster))
      return done;
    if (!isClusterReady(cluster)) return done;
    const manifestStatuses: unknown[] = [];
    let waiting = false;
    for (const [ordinal, m] of manifestsOf(work).entries()) {
      const watch = await ctx.memberWatches.watch(cluster, m);
      if (!watch.informer.hasSynced()) {
        waiting = true;
        afterSync(watch.informer, key);
        continue;
      }
      const observed = watch.informer.get(
        watch.ref.namespaced ? m.metadata?.namespace : undefined,
        m.metadata!.name!,
      );
      if (!observed) continue;
      manifestStatuses.push({
        identifier: identifierOf(m, ordinal, watch.ref.resource),
        ...(await statusOf(rctx.log, observed)),
      });
    }
    if (waiting) return done;
    const status = isObject(work.status) ? work.status : {};
    if (deepEqual(status.manifestStatuses ?? [], manifestStatuses)) return done;
    const next = cloneJson(work);
    const nextStatus: Record<string, unknown> = isObject(next.status) ? next.status : {};
    if (manifestStatuses.length > 0) nextStatus.manifestStatuses = manifestStatuses;
    else delete nextStatus.manifestStatuses;
    next.status = nextStatus;
    await commit(ctx.client, KARMADA.works, work, next);
    return done;
  }

  return {
    name: WORK_STATUS_CONTROLLER,
    for: works,
    workers: 8,
    start(add, addCoalesced) {
      enqueue = add;
      // A member object moves through several states quickly (a rollout): one Work write per burst.
      unsubscribe = ctx.memberWatches.subscribe((workKey) => addCoalesced(workKey, STATUS_COALESCE_MS));
      clusters.addHandler({ onDelete: (c) => ctx.memberWatches.stopCluster(c.metadata.name) });
      // Status and health read differently under a new or edited customization.
      interpreter.onChange((kinds) => {
        for (const work of works.list()) {
          const affected = manifestsOf(work).some(
            (m) => kinds === "all" || kinds.has(`${m.apiVersion}|${m.kind}`),
          );
          if (affected) addCoalesced(objectKey(work), STATUS_COALESCE_MS);
        }
      });
    },
    stop() {
      unsubscribe();
    },
    reconcile,
  };
}
