import type { Watch, WatchEvent, WatchHandlers } from "./store.ts";

interface Watcher {
  prefix: string;
  /** Highest revision handed to this watcher; later duplicates are skipped. */
  lastRevision: number;
  /** Replayed history not yet delivered. */
  history: WatchEvent[] | undefined;
  handlers: WatchHandlers;
  closed: boolean;
}

/**
 * In-process fan-out of store events for the backends that own their writes (memory,
 * SQLite). Writers publish after commit; delivery happens in a microtask, batched, in
 * revision order, each watcher seeing its replayed history before any live event.
 */
export class WatchHub {
  #watchers = new Set<Watcher>();
  #pending: WatchEvent[] = [];
  #scheduled = false;

  add(prefix: string, afterRevision: number, history: WatchEvent[], handlers: WatchHandlers): Watch {
    const watcher: Watcher = { prefix, lastRevision: afterRevision, history, handlers, closed: false };
    this.#watchers.add(watcher);
    queueMicrotask(() => this.#deliverHistory(watcher));
    return {
      close: () => {
        watcher.closed = true;
        this.#watchers.delete(watcher);
      },
    };
  }

  publish(event: WatchEvent): void {
    this.#pending.push(event);
    if (!this.#scheduled) {
      this.#scheduled = true;
      queueMicrotask(() => this.#flush());
    }
  }

  /** Sends a progress notice (the store's current revision) to every watcher. */
  progress(revision: number): void {
    for (const w of this.#watchers) {
      if (w.history === undefined && revision > w.lastRevision) w.handlers.onProgress?.(revision);
    }
  }

  closeAll(err: Error): void {
    for (const w of this.#watchers) {
      w.closed = true;
      w.handlers.onError(err);
    }
    this.#watchers.clear();
  }

  get size(): number {
    return this.#watchers.size;
  }

  #deliverHistory(w: Watcher): void {
    const history = w.history;
    if (history === undefined || w.closed) return;
    w.history = undefined;
    if (history.length > 0) {
      w.lastRevision = history[history.length - 1]!.kv.modRevision;
      w.handlers.onEvents(history);
    }
  }

  #flush(): void {
    this.#scheduled = false;
    const events = this.#pending;
    this.#pending = [];
    for (const w of this.#watchers) {
      if (w.closed) continue;
      this.#deliverHistory(w);
      let batch: WatchEvent[] | undefined;
      for (const e of events) {
        if (e.kv.modRevision <= w.lastRevision || !e.kv.key.startsWith(w.prefix)) continue;
        batch ??= [];
        batch.push(e);
      }
      if (batch) {
        w.lastRevision = batch[batch.length - 1]!.kv.modRevision;
        try {
          w.handlers.onEvents(batch);
        } catch (err) {
          w.closed = true;
          this.#watchers.delete(w);
          w.handlers.onError(err instanceof Error ? err : new Error(String(err)));
        }
      }
    }
  }
}
