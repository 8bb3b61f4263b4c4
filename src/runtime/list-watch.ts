/**
 * The reflector loop every cache of a remote resource runs (client-go's ListAndWatch): list
 * (all pages), then watch from the list's revision until the stream ends, again and again;
 * a 410 or an error event means list again; other failures back off exponentially. Stopping
 * ends the watch, wakes a sleeping backoff, and keeps a list that was running from starting a
 * watch nobody would stop. Informers and the search caches keep their own stores and feed them
 * through `list` and `apply`.
 */

import type { StoredObject } from "../api/meta.ts";
import type { Client, ListOptions, ResourceRef, WatchEvent, WatchHandle } from "../client/client.ts";
import type { Logger } from "../log.ts";
import { isExpired } from "../machinery/errors.ts";

const LIST_PAGE = 500;

export interface ListWatchSource {
  client: Client;
  resource: ResourceRef;
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** How long each watch request lasts (default: random 5 to 10 minutes). */
  watchTimeoutSeconds?: number;
}

export interface ListWatchSink {
  /** Every object the list returned, at `revision`: the cache becomes exactly this. */
  replace(items: StoredObject[], revision: string): void;
  /** One watch event; false ends the stream and lists again (a 410, an error event). */
  apply(event: WatchEvent): boolean;
  /** The revision the cache reflects, which the next watch starts from. */
  resourceVersion(): string;
}

export interface ListWatchTuning {
  log: Logger;
  /** The warning logged for each failed attempt. */
  failureMessage: string;
  /** First backoff in ms (doubled per consecutive failure up to `maxBackoffExponent`, then up to twice that at random), at most 30 s. */
  baseBackoffMs: number;
  maxBackoffExponent: number;
}

const MAX_BACKOFF_MS = 30_000;

export class ListWatchLoop {
  #source: ListWatchSource;
  #sink: ListWatchSink;
  #tuning: ListWatchTuning;
  #stopped = true;
  #watch: WatchHandle | undefined;
  #backoff: { timer: NodeJS.Timeout; wake: () => void } | undefined;

  constructor(source: ListWatchSource, sink: ListWatchSink, tuning: ListWatchTuning) {
    this.#source = source;
    this.#sink = sink;
    this.#tuning = tuning;
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    void this.#run();
  }

  stop(): void {
    this.#stopped = true;
    this.#watch?.stop();
    if (this.#backoff) {
      clearTimeout(this.#backoff.timer);
      this.#backoff.wake();
      this.#backoff = undefined;
    }
  }

  async #run(): Promise<void> {
    let relist = true;
    let failures = 0;
    while (!this.#stopped) {
      try {
        if (relist) {
          await this.#list();
          relist = false;
          if (this.#stopped) return;
        }
        relist = await this.#watchOnce();
        failures = 0;
      } catch (err) {
        if (this.#stopped) return;
        if (isExpired(err)) {
          relist = true;
          continue;
        }
        failures++;
        const t = this.#tuning;
        t.log.warn(t.failureMessage, { err: (err as Error).message, failures });
        // Jittered up to twice the step, as client-go's reflector backs off (jitter 1.0), so
        // informers that failed together (an API server restarting) do not return together.
        const step = t.baseBackoffMs * 2 ** Math.min(failures, t.maxBackoffExponent);
        await this.#sleep(Math.min(MAX_BACKOFF_MS, step * (1 + Math.random())));
      }
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      timer.unref();
      this.#backoff = { timer, wake: resolve };
    });
  }

  #selectors(): Pick<ListOptions, "labelSelector" | "fieldSelector"> {
    const s = this.#source;
    return {
      ...(s.labelSelector ? { labelSelector: s.labelSelector } : {}),
      ...(s.fieldSelector ? { fieldSelector: s.fieldSelector } : {}),
    };
  }

  async #list(): Promise<void> {
    const items: StoredObject[] = [];
    let cont: string | undefined;
    let revision = "";
    do {
      const page = await this.#source.client.list(this.#source.resource, this.#source.namespace, {
        limit: LIST_PAGE,
        ...(cont ? { continue: cont } : {}),
        ...this.#selectors(),
      });
      items.push(...page.items);
      revision = page.metadata.resourceVersion ?? revision;
      cont = page.metadata.continue;
    } while (cont && !this.#stopped);
    if (this.#stopped) return;
    this.#sink.replace(items, revision);
  }

  /** Watches from the cache's revision until the stream ends; true when the cache must list again. */
  async #watchOnce(): Promise<boolean> {
    let relist = false;
    const handle = this.#source.client.watch(
      this.#source.resource,
      this.#source.namespace,
      {
        resourceVersion: this.#sink.resourceVersion(),
        allowWatchBookmarks: true,
        timeoutSeconds: this.#source.watchTimeoutSeconds ?? 300 + Math.floor(Math.random() * 300),
        ...this.#selectors(),
      },
      (e) => {
        if (this.#stopped || relist) return;
        if (!this.#sink.apply(e)) {
          relist = true;
          handle.stop();
        }
      },
    );
    this.#watch = handle;
    try {
      await handle.done;
    } finally {
      this.#watch = undefined;
    }
    return relist;
  }
}
