/**
 * How the API server's own controllers learn what to reconcile: every key under a storage
 * prefix now (a list) and on every change after (a watch from the list's revision). A watch
 * that ends (compaction, a lost etcd connection) is followed by a fresh list a second later,
 * so no controller silently stops.
 */
import { isConflict, isNotFound } from "../../machinery/errors.ts";
import { type Controller, runController } from "../../runtime/controller.ts";
import type { WatchEvent } from "../../storage/store.ts";
import type { ServerContext } from "../context.ts";

export interface Following {
  stop(): void;
  /** Resolves once the first list has been handed to `onKey`. */
  synced: Promise<void>;
}

/**
 * Calls `onKey(key, value)` for each key under `prefix` (relative to it) as listed, then for
 * each change (`value` undefined for a deletion). After every list, `onListed` gets the keys
 * listed (so a follower can drop what vanished while its watch was down).
 */
export function followKeys(
  server: ServerContext,
  prefix: string,
  what: string,
  onKey: (key: string, value: string | undefined) => void,
  onListed?: (keys: ReadonlySet<string>) => void,
): Following {
  let markSynced: () => void = () => {};
  const synced = new Promise<void>((resolve) => {
    markSynced = resolve;
  });
  let watch: { close(): void } | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const retry = (): void => {
    if (stopped) return;
    timer = setTimeout(() => void start(), 1000);
    timer.unref();
  };
  const start = async (): Promise<void> => {
    let listed: Awaited<ReturnType<typeof server.store.list>>;
    try {
      listed = await server.store.list(prefix);
    } catch (err) {
      if (!stopped) server.log.error(err, "controller list failed", { controller: what });
      retry();
      return;
    }
    if (stopped) return;
    const keys = new Set<string>();
    for (const kv of listed.kvs) {
      const key = kv.key.slice(prefix.length);
      keys.add(key);
      onKey(key, kv.value);
    }
    onListed?.(keys);
    markSynced();
    watch = server.store.watch(prefix, listed.revision, {
      onEvents: (events: WatchEvent[]) => {
        for (const e of events)
          onKey(e.kv.key.slice(prefix.length), e.type === "put" ? e.kv.value : undefined);
      },
      onError: (err) => {
        if (stopped) return;
        server.log.warn("controller watch ended; listing again", {
          controller: what,
          err: (err as Error).message,
        });
        retry();
      },
    });
  };
  void start();
  return {
    synced,
    stop() {
      stopped = true;
      clearTimeout(timer);
      watch?.close();
      markSynced();
    },
  };
}

/** Where an API-server controller's keys come from: every key under a storage prefix. */
export interface StoreSource {
  prefix: string;
  /** The queue keys a listed or changed value concerns (`value` undefined: deleted). */
  keys(key: string, value: string | undefined): readonly string[];
}

/** A controller inside the API server: fed by the store itself rather than by informers. */
export interface StoreController extends Pick<Controller, "name" | "workers" | "reconcile"> {
  sources: StoreSource[];
  /** First retry delay (default 50 ms). */
  baseDelayMs?: number;
}

/**
 * Runs an API-server controller on the runner every controller uses (runtime/controller.ts):
 * the same queue, retries, logging and TerminalError; only its sources differ. Returns its stop.
 */
export function runStoreController(server: ServerContext, c: StoreController): () => void {
  const followers: Following[] = [];
  const running = runController(
    {
      name: c.name,
      ...(c.workers ? { workers: c.workers } : {}),
      baseDelayMs: c.baseDelayMs ?? 50,
      reconcile: c.reconcile,
      start: (enqueue) => {
        for (const s of c.sources)
          followers.push(
            followKeys(server, s.prefix, c.name, (key, value) => {
              for (const k of s.keys(key, value)) enqueue(k);
            }),
          );
      },
      stop: () => {
        for (const f of followers) f.stop();
      },
    },
    { log: server.log },
  );
  return () => running.stop();
}

/**
 * For a write's `.catch`: an object deleted or changed since it was read is no failure, since
 * the change that did it queues the key again.
 */
export function unlessGoneOrChanged(err: unknown): void {
  if (!isNotFound(err) && !isConflict(err)) throw err;
}
