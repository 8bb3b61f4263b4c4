/**
 * The controller loop, written once: informer events become keys on a work queue; workers
 * call `reconcile(ctx, key)`. A reconcile says how it ended in one of three ways:
 * - it returns `done` (or nothing): the key rests until something changes;
 * - it returns `requeueAfter(ms)`: the key comes back then (polling what no watch reports);
 * - it throws: a `TerminalError` is logged once and the key dropped (retrying cannot help:
 *   a spec that can never be applied); any other error is logged once, with the error, and
 *   the key retried with backoff (a conflict only means a cache was behind: logged at debug).
 * The context carries a logger already naming the controller, the key and the attempt.
 */
import type { StoredObject } from "../api/meta.ts";
import { type Logger, silentLogger } from "../log.ts";
import { isConflict, TerminalError } from "../machinery/errors.ts";
import type { Registry } from "../metrics/registry.ts";
import { type ReconcileMetrics, reconcileMetrics } from "./controller-metrics.ts";
import type { Informer } from "./informer.ts";
import { objectKey, parseObjectKey } from "./keys.ts";
import { type RequeueResult, WorkQueue } from "./queue.ts";
import { queueMetrics } from "./queue-metrics.ts";

export { TerminalError };

export interface ReconcileContext {
  /** Fields: controller, key, attempt. */
  log: Logger;
  /** Aborted when the controller stops. */
  signal: AbortSignal;
  /** 1 on a key's first try, growing with each consecutive failure. */
  attempt: number;
}

export type ReconcileResult = RequeueResult;

/** The key rests until one of the controller's sources reports a change. */
export const done: ReconcileResult = undefined;

/** The key comes back after `ms` (for what no watch reports: time passing, a remote state). */
export function requeueAfter(ms: number): ReconcileResult {
  return { requeueAfterMs: ms };
}

export interface Controller {
  name: string;
  /** The primary resource: its objects' keys (`namespace/name` or `name`) are reconciled. */
  for?: Informer;
  /**
   * Which updates of a primary object are worth a reconcile (default: all). Adds and deletes
   * always are. `generationChanged` is controller-runtime's GenerationChangedPredicate.
   */
  updateFilter?: (old: StoredObject, obj: StoredObject) => boolean;
  /** Other resources whose changes concern some primary keys. */
  watches?: Array<{
    informer: Informer;
    map: (obj: StoredObject) => string[];
    /** Which updates count (default: all). */
    updateFilter?: (old: StoredObject, obj: StoredObject) => boolean;
    /** Gather the keys this source yields for so long before reconciling (default: at once). */
    coalesceMs?: number;
  }>;
  workers?: number;
  /** The first retry's delay after a failure (default 5 ms), doubling per consecutive failure up to a minute. */
  baseDelayMs?: number;
  reconcile(ctx: ReconcileContext, key: string): Promise<ReconcileResult>;
  /**
   * Called once the queue exists, for controllers whose keys come from sources that appear
   * while they run (informers started on demand): `enqueue` adds a key; `queued` tells how
   * many keys wait (for a controller's own metrics); `retryFailing` brings back at once the
   * keys it selects that wait out a failure backoff (a member they could not reach answers again).
   */
  start?(
    enqueue: (key: string) => void,
    enqueueCoalesced: (key: string, windowMs: number) => void,
    queued: () => number,
    retryFailing: (matches: (key: string) => boolean) => void,
  ): void;
  /** Releases what the controller started on its own (timers, loops) when it is stopped. */
  stop?(): void;
}

export interface RunningController {
  readonly name: string;
  readonly queue: WorkQueue;
  enqueue(key: string): void;
  stop(): void;
}

/** Where a failed reconcile is logged, once: whether the key is retried. */
function retryOrDrop(log: Logger, err: unknown, attempt: number): boolean {
  if (err instanceof TerminalError) {
    log.error(err, "reconcile failed; not retrying", { attempt });
    return false;
  }
  // A conflict only means our cache was behind another writer: the retry reads the newer object.
  if (isConflict(err)) log.debug("reconcile conflicted; retrying", { attempt, err: (err as Error).message });
  else log.error(err, "reconcile failed; retrying", { attempt });
  return true;
}

/** Counts and times one reconcile as controller-runtime does. */
async function timed(
  metrics: ReconcileMetrics,
  reconcile: () => Promise<ReconcileResult>,
): Promise<ReconcileResult> {
  const start = performance.now();
  metrics.begin();
  try {
    const r = await reconcile();
    metrics.end(r ? "requeue_after" : "success", (performance.now() - start) / 1000);
    return r;
  } catch (err) {
    metrics.end(err instanceof TerminalError ? "terminal" : "error", (performance.now() - start) / 1000);
    throw err;
  }
}

/** Spec changes only: status and metadata writes leave `metadata.generation` alone. */
export function generationChanged(old: StoredObject, obj: StoredObject): boolean {
  return old.metadata.generation !== obj.metadata.generation;
}

/**
 * Runs a controller. With `ready`, keys are collected at once but reconciled only once it
 * resolves (controller-runtime's WaitForCacheSync): a reconcile must not act on caches that
 * have not listed yet, or it would take "not listed" for "not there" (a scheduler that sees
 * no clusters clears a binding's placement).
 */
export function runController(
  c: Controller,
  deps: { log?: Logger; ready?: Promise<void>; metrics?: Registry } = {},
): RunningController {
  const log = (deps.log ?? silentLogger).child({ controller: c.name });
  const abort = new AbortController();
  const workers = c.workers ?? 1;
  const registry = deps.metrics;
  const measured = registry ? reconcileMetrics(registry, c.name, workers) : undefined;
  // As controller-runtime's reconcile loggers: an object's namespace and name beside its key.
  const fields = (key: string): Record<string, unknown> => {
    if (!c.for) return { key };
    const { namespace, name } = parseObjectKey(key);
    return { key, ...(namespace ? { namespace } : {}), name };
  };
  const reconcile = (key: string, attempt: number) =>
    c.reconcile({ log: log.child({ ...fields(key), attempt }), signal: abort.signal, attempt }, key);
  const queue = new WorkQueue(
    measured ? (key, attempt) => timed(measured, () => reconcile(key, attempt)) : reconcile,
    {
      workers,
      paused: deps.ready !== undefined,
      baseDelayMs: c.baseDelayMs ?? 5,
      maxDelayMs: 60_000,
      onError: (key, err, attempt) => retryOrDrop(log.child(fields(key)), err, attempt),
      ...(registry ? { metrics: (state) => queueMetrics(registry, c.name, state) } : {}),
    },
  );
  void deps.ready?.then(() => queue.resume());
  const removers: Array<() => void> = [];
  const enqueueObject = (obj: StoredObject): void => queue.add(objectKey(obj));
  if (c.for)
    removers.push(
      c.for.addHandler({
        onAdd: enqueueObject,
        onUpdate: (old, obj) => {
          if (!c.updateFilter || c.updateFilter(old, obj)) enqueueObject(obj);
        },
        onDelete: enqueueObject,
      }),
    );
  for (const w of c.watches ?? []) {
    const enqueueMapped = (obj: StoredObject): void => {
      for (const key of w.map(obj)) {
        if (w.coalesceMs) queue.addCoalesced(key, w.coalesceMs);
        else queue.add(key);
      }
    };
    removers.push(
      w.informer.addHandler({
        onAdd: enqueueMapped,
        onUpdate: (old, obj) => {
          if (w.updateFilter && !w.updateFilter(old, obj)) return;
          enqueueMapped(old);
          enqueueMapped(obj);
        },
        onDelete: enqueueMapped,
      }),
    );
  }
  c.start?.(
    (key) => queue.add(key),
    (key, windowMs) => queue.addCoalesced(key, windowMs),
    () => queue.length,
    (matches) => queue.retryFailing(matches),
  );
  return {
    name: c.name,
    queue,
    enqueue: (key) => queue.add(key),
    stop: () => {
      abort.abort();
      for (const r of removers) r();
      queue.stop();
      c.stop?.();
    },
  };
}
