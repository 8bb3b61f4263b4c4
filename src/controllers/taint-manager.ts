/**
 * The taint manager (upstream's NoExecute taint manager, run by the `cluster` controller with
 * gate `Failover` and `--enable-taint-manager`): moves workloads off clusters with NoExecute
 * taints their placement does not tolerate (any longer).
 *
 * Per (cluster, binding) pair, with the tolerations of the binding's applied placement (what it
 * was scheduled with), as upstream's `needEviction` decides (pkg/controllers/cluster/
 * taint_manager.go, pkg/util/helper/taint.go): no applied placement, or a NoExecute taint that
 * no toleration tolerates → evict now; all tolerated → the earliest `timeAdded +
 * tolerationSeconds` over the tolerations used → evict when it has passed, else look again
 * then; no toleration with seconds → tolerated for good.
 *
 * Eviction (upstream's `GracefulEvictCluster`): the cluster leaves `spec.clusters`, and a
 * `gracefulEvictionTasks` entry {fromCluster, purgeMode, replicas, reason TaintUntolerated,
 * producer TaintManager} is appended unless one for that cluster exists. The purge mode is
 * `spec.failover.cluster.purgeMode` (old names accepted), else `Gracefully` (`Directly` with
 * the GracefulEviction gate off, as v1.12). The scheduler then places the workload elsewhere;
 * the graceful eviction controller drops the task later.
 *
 * Evictions are paced by `--resource-eviction-rate` (per second, over all bindings; 0 means
 * one per 30 minutes, as upstream).
 *
 * Beyond upstream:
 * - Only workloads are evicted (the binding has replicas, per-replica requirements or
 *   components, as the interpreter found them). Upstream evicts every binding on the cluster,
 *   ConfigMaps and Secrets included: the scheduler moves them too, and once the graceful
 *   eviction task ends, the Work on the old cluster is deleted, so a cluster that comes back
 *   loses its configuration objects (and a Duplicated one gets them back only when it is
 *   rescheduled there). Non-workloads have nothing to fail over: they stay where they are.
 * - Reactive instead of polling: a cluster's taints and a binding's placement trigger the check
 *   (upstream lists the cluster's bindings every 10 s while it has NoExecute taints).
 * - Shadow mode (`--failover-shadow-mode`): the decisions are recorded as `EvictionShadowed`
 *   events on the binding, and nothing is evicted.
 */
import { isObject, type StoredObject } from "../api/meta.ts";
import { RESOURCES } from "../client/client.ts";
import type { Binding } from "../karmada/bindings.ts";
import {
  evictCluster,
  preservedState,
  purgeModeOf,
  type StatePreservationRule,
} from "../karmada/failover.ts";
import { ANNOTATION } from "../karmada/names.ts";
import { KARMADA } from "../karmada/resources.ts";
import type { AggregatedStatusItem, BindingSpec, Placement, Taint, Toleration } from "../karmada/types.ts";
import { deepEqual } from "../machinery/equality.ts";
import { taintToString, tolerates } from "../machinery/tolerations.ts";
import { measured } from "../metrics/registry.ts";
import {
  type Controller,
  done,
  type ReconcileContext,
  type ReconcileResult,
  requeueAfter,
} from "../runtime/controller.ts";
import { tupleKey } from "../runtime/keys.ts";
import { isWorkload } from "../scheduler/core/binding.ts";
import type { ControllerContext } from "./context.ts";
import { writeEviction } from "./eviction.ts";
import { karmadaMetrics } from "./metrics.ts";

/** Upstream's controller name: the source of its events. */
export const TAINT_MANAGER = "taint-manager";
export const EVICTION_REASON_TAINT_UNTOLERATED = "TaintUntolerated";
export const EVICTION_PRODUCER_TAINT_MANAGER = "TaintManager";
/** Upstream's delay between evictions when `--resource-eviction-rate` is 0. */
const MAX_EVICTION_DELAY_MS = 1_800_000;

export type EvictionDecision =
  /** Evict now; `why` says which rule. */
  | { evict: true; why: string }
  /** Tolerated for now: look again after this long. */
  | { evict: false; recheckAfterMs: number }
  /** Nothing to do: no NoExecute taint, or all tolerated for good. */
  | { evict: false; recheckAfterMs?: undefined };

export function noExecuteTaints(taints: readonly Taint[] | undefined): Taint[] {
  return (taints ?? []).filter((t) => t.effect === "NoExecute");
}

/**
 * Whether a binding must leave a cluster with these taints, given the tolerations of its
 * applied placement (undefined: it has none, or it does not parse).
 */
export function evictionDecision(
  taints: readonly Taint[] | undefined,
  tolerations: readonly Toleration[] | undefined,
  now: number,
): EvictionDecision {
  const noExecute = noExecuteTaints(taints);
  if (noExecute.length === 0) return { evict: false };
  if (tolerations === undefined) return { evict: true, why: "the binding has no applied placement" };
  // Upstream's GetMatchingTolerations: the first toleration of each taint, or not all tolerated.
  const used: Toleration[] = [];
  for (const taint of noExecute) {
    const toleration = tolerations.find((t) => tolerates(t, taint));
    if (!toleration) return { evict: true, why: `taint ${taintToString(taint)} is not tolerated` };
    used.push(toleration);
  }
  // Upstream's GetMinTolerationTime: every used toleration with seconds, against every taint it tolerates.
  let earliest: { at: number; taint: Taint } | undefined;
  for (const toleration of used) {
    if (toleration.tolerationSeconds == null) continue;
    for (const taint of noExecute) {
      const added = taint.timeAdded ? Date.parse(taint.timeAdded) : Number.NaN;
      if (!Number.isFinite(added) || !tolerates(toleration, taint)) continue;
      const at = added + toleration.tolerationSeconds * 1000;
      if (!earliest || at < earliest.at) earliest = { at, taint };
    }
  }
  if (!earliest) return { evict: false };
  if (earliest.at <= now) {
    return { evict: true, why: `the toleration of taint ${taintToString(earliest.taint)} has run out` };
  }
  return { evict: false, recheckAfterMs: earliest.at - now };
}

/** The tolerations of the applied-placement annotation; undefined when it is missing or does not parse. */
export function appliedTolerations(
  annotations: Record<string, string> | undefined,
): Toleration[] | undefined {
  const raw = annotations?.[ANNOTATION.appliedPlacement];
  if (!raw) return undefined;
  try {
    const placement = JSON.parse(raw) as Placement | null;
    if (!isObject(placement)) return undefined;
    return Array.isArray(placement.clusterTolerations) ? placement.clusterTolerations : [];
  } catch {
    return undefined;
  }
}

/**
 * The purge mode of a taint eviction: the binding's cluster failover behaviour, else
 * `--no-execute-taint-eviction-purge-mode` (`Directly` whatever it says with GracefulEviction off,
 * as before that flag existed).
 */
export function clusterPurgeMode(
  failover: unknown,
  gracefulEviction: boolean,
  flagMode: "Directly" | "Gracefully" = "Gracefully",
): "Directly" | "Gracefully" {
  const cluster = isObject(failover) ? failover.cluster : undefined;
  if (isObject(cluster)) return purgeModeOf(cluster.purgeMode) === "Directly" ? "Directly" : "Gracefully";
  return gracefulEviction ? flagMode : "Directly";
}

/** `spec.failover.cluster.statePreservation.rules` of a binding, if any. */
function clusterStateRules(failover: unknown): StatePreservationRule[] | undefined {
  const cluster = isObject(failover) ? failover.cluster : undefined;
  const preservation = isObject(cluster) ? cluster.statePreservation : undefined;
  return isObject(preservation) && Array.isArray(preservation.rules)
    ? (preservation.rules as StatePreservationRule[])
    : undefined;
}

/**
 * Paces evictions at `ratePerSecond` (burst 1): `take` answers 0 and uses the turn, or how long
 * until the next one is free.
 */
export function evictionPacer(ratePerSecond: number): { take(now: number): number } {
  const intervalMs = ratePerSecond > 0 ? 1000 / ratePerSecond : MAX_EVICTION_DELAY_MS;
  let nextFree = Number.NEGATIVE_INFINITY;
  return {
    take(now) {
      if (now < nextFree) return Math.ceil(nextFree - now);
      nextFree = now + intervalMs;
      return 0;
    },
  };
}

function targetsOf(obj: StoredObject): string[] {
  const spec = isObject(obj.spec) ? obj.spec : {};
  const clusters = Array.isArray(spec.clusters) ? spec.clusters : [];
  return clusters.flatMap((c) => (isObject(c) && typeof c.name === "string" ? [c.name] : []));
}

function taintsOf(cluster: StoredObject | undefined): Taint[] {
  const spec = isObject(cluster?.spec) ? cluster.spec : {};
  return Array.isArray(spec.taints) ? (spec.taints as Taint[]) : [];
}

type BindingKind = "rb" | "crb";

/** A key names a (cluster, binding) pair: the binding by kind (`rb`, `crb`), namespace and name. */
const pairKeys = tupleKey(["kind", "cluster", "namespace", "name"]);

const pairKey = (kind: BindingKind, cluster: string, binding: StoredObject): string =>
  pairKeys.encode({ kind, cluster, namespace: binding.metadata.namespace, name: binding.metadata.name });

export function taintManagerController(ctx: ControllerContext): Controller {
  // The same index as the cluster controller's (the name shares it): bindings by target cluster.
  const byCluster = { byCluster: targetsOf };
  const rbs = ctx.informers.informer(KARMADA.resourceBindings, { indexers: byCluster });
  const crbs = ctx.informers.informer(KARMADA.clusterResourceBindings, { indexers: byCluster });
  const clusters = ctx.informers.informer(RESOURCES.clusters);
  const events = ctx.recorder(TAINT_MANAGER);
  const pacer = evictionPacer(ctx.options.resourceEvictionRate);
  const shadow = ctx.options.failoverShadowMode;
  const metrics = karmadaMetrics(ctx.metrics);
  /**
   * Upstream's eviction queues as its metrics show them (eviction_queue_depth{name},
   * eviction_kind_total): the pairs decided for eviction and waiting for their turn.
   */
  const waiting = new Map<string, { queue: string; cluster: string; kind: string }>();
  const queueName = (kind: BindingKind): string =>
    kind === "crb" ? "cluster-binding-eviction" : "binding-eviction";
  const depths = (): void => {
    for (const q of ["binding-eviction", "cluster-binding-eviction"]) {
      metrics.evictionQueueDepth(q, [...waiting.values()].filter((w) => w.queue === q).length);
    }
  };
  const wait = (key: string, kind: BindingKind, cluster: string, binding: Binding): void => {
    if (waiting.has(key)) return;
    const resourceKind = binding.spec.resource?.kind ?? "";
    waiting.set(key, { queue: queueName(kind), cluster, kind: resourceKind });
    metrics.evictionKind(cluster, resourceKind, 1);
    depths();
  };
  const leave = (key: string): void => {
    const w = waiting.get(key);
    if (!w) return;
    waiting.delete(key);
    metrics.evictionKind(w.cluster, w.kind, -1);
    depths();
  };
  /** Shadow mode: the pairs whose would-be eviction is recorded already (one event each). */
  const shadowed = new Set<string>();

  const tainted = (name: string): boolean =>
    noExecuteTaints(taintsOf(clusters.get(undefined, name))).length > 0;

  async function evict(
    rc: ReconcileContext,
    kind: BindingKind,
    binding: Binding,
    cluster: string,
  ): Promise<void> {
    const features = ctx.options.features;
    const before = (binding.spec.clusters ?? []).map((c) => c.name);
    const next = evictCluster(binding.spec, cluster, {
      purgeMode: clusterPurgeMode(
        binding.spec.failover,
        features.enabled("GracefulEviction"),
        ctx.options.noExecuteTaintEvictionPurgeMode,
      ),
      reason: EVICTION_REASON_TAINT_UNTOLERATED,
      producer: EVICTION_PRODUCER_TAINT_MANAGER,
      // Cluster failover's state relay (v1.12): evaluated now, on what the cluster last reported.
      ...preservedState(
        clusterStateRules(binding.spec.failover),
        (binding.status as { aggregatedStatus?: AggregatedStatusItem[] } | undefined)?.aggregatedStatus ?? [],
        cluster,
        before,
        features.enabled("StatefulFailoverInjection"),
      ),
    });
    if (!next) return;
    const ref = kind === "crb" ? KARMADA.clusterResourceBindings : KARMADA.resourceBindings;
    await writeEviction(ctx, events, ref, binding, next, [cluster]);
    rc.log.info("evicted the binding from a tainted cluster", { cluster });
  }

  async function reconcile(rc: ReconcileContext, key: string): Promise<ReconcileResult> {
    const parsed = pairKeys.parse(key);
    const { cluster, namespace, name } = parsed;
    if ((parsed.kind !== "rb" && parsed.kind !== "crb") || !cluster || !name) return done;
    const kind: BindingKind = parsed.kind;
    const binding = (kind === "crb" ? crbs : rbs).get(namespace, name) as Binding | undefined;
    const relevant =
      binding !== undefined &&
      !binding.metadata.deletionTimestamp &&
      targetsOf(binding).includes(cluster) &&
      isWorkload(binding.spec);
    const decision: EvictionDecision = relevant
      ? evictionDecision(
          taintsOf(clusters.get(undefined, cluster)),
          appliedTolerations(binding.metadata.annotations),
          ctx.now(),
        )
      : { evict: false };
    if (!decision.evict) {
      shadowed.delete(key);
      leave(key);
      return decision.recheckAfterMs !== undefined ? requeueAfter(decision.recheckAfterMs) : done;
    }
    const target = binding!;
    if (shadow) {
      if (shadowed.has(key)) return done;
      shadowed.add(key);
      rc.log.info("shadow mode: would evict the binding from a tainted cluster", { cluster });
      events.event(
        target,
        "Normal",
        "EvictionShadowed",
        `Would evict from cluster ${cluster} (failover shadow mode): ${decision.why}.`,
      );
      return done;
    }
    wait(key, kind, cluster, target);
    const turn = pacer.take(ctx.now());
    if (turn > 0) return requeueAfter(turn);
    await measured(
      () => evict(rc, kind, target, cluster),
      (err, seconds) => metrics.evictionProcessed(queueName(kind), err, seconds),
    );
    leave(key);
    return done;
  }

  const pairs = (kind: BindingKind) => (binding: StoredObject) =>
    targetsOf(binding)
      .filter(tainted)
      .map((cluster) => pairKey(kind, cluster, binding));
  const bindingsOn = (cluster: StoredObject): string[] => {
    const name = cluster.metadata.name;
    if (noExecuteTaints(taintsOf(cluster)).length === 0) return [];
    return [
      ...rbs.byIndex("byCluster", name).map((b) => pairKey("rb", name, b)),
      ...crbs.byIndex("byCluster", name).map((b) => pairKey("crb", name, b)),
    ];
  };
  // What the decision reads: targets (generation), the applied placement, deletion.
  const bindingChanged = (old: StoredObject, obj: StoredObject): boolean =>
    old.metadata.generation !== obj.metadata.generation ||
    old.metadata.annotations?.[ANNOTATION.appliedPlacement] !==
      obj.metadata.annotations?.[ANNOTATION.appliedPlacement] ||
    old.metadata.deletionTimestamp !== obj.metadata.deletionTimestamp;

  return {
    name: TAINT_MANAGER,
    // Upstream's concurrency for the eviction workers.
    workers: 3,
    watches: [
      {
        informer: clusters,
        updateFilter: (old, obj) => !deepEqual(taintsOf(old), taintsOf(obj)),
        map: bindingsOn,
      },
      { informer: rbs, map: pairs("rb"), updateFilter: bindingChanged },
      { informer: crbs, map: pairs("crb"), updateFilter: bindingChanged },
    ],
    reconcile,
  };
}
