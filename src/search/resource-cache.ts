/**
 * One member cluster's copy of one kind, fed by list and watch, for the proxy and the search
 * API. Upstream's cache holds whole decoded objects (its issues #2518 and #7439: gigabytes for
 * a large fleet); this one holds each object as the one JSON text readers are served, without
 * managedFields and already annotated with its cluster, plus the few fields lookups need
 * (key, resourceVersion, labels shared between objects that carry the same ones). A list is
 * then a concatenation of texts, with no decoding at all.
 */
import type { StoredObject } from "../api/meta.ts";
import type { Client, ResourceRef, WatchEvent } from "../client/client.ts";
import type { Logger } from "../log.ts";
import { expired } from "../machinery/errors.ts";
import { ListWatchLoop } from "../runtime/list-watch.ts";

export const CACHED_FROM_CLUSTER = "resource.karmada.io/cached-from-cluster";

/** What one cached object costs beyond its text: the entry, its key and map slot (an estimate). */
const ENTRY_OVERHEAD_BYTES = 160;
/** Events kept so that a watch may resume from a recent resourceVersion. */
const HISTORY_EVENTS = 1000;

export interface CachedEntry {
  readonly key: string;
  readonly namespace: string;
  readonly name: string;
  /** The member's own resourceVersion. */
  readonly rv: string;
  readonly labels: Readonly<Record<string, string>> | undefined;
  /** The object as served: no managedFields, the cached-from-cluster annotation added. */
  readonly json: string;
}

export type CacheEventType = "ADDED" | "MODIFIED" | "DELETED";

export interface CacheEvent {
  type: CacheEventType;
  entry: CachedEntry;
  /** For MODIFIED, the object before (so a selector can tell an object leaving it). */
  previous?: CachedEntry;
  /** The member's resourceVersion after this event. */
  rv: string;
}

export interface CacheWatcher {
  /** Events, in order; `BOOKMARK`-like progress comes as `progress(rv)`. */
  events(events: CacheEvent[]): void;
  progress(rv: string): void;
  /** The cache ended this watch (stopped, relisted, or dropped from the view). */
  closed(): void;
}

/** Bytes every cache of one process may hold together; a cache that would cross it stops. */
export class CacheBudget {
  readonly limit: number;
  #used = 0;

  constructor(limit: number) {
    this.limit = limit;
  }

  get used(): number {
    return this.#used;
  }

  reserve(bytes: number): boolean {
    if (this.limit > 0 && this.#used + bytes > this.limit) return false;
    this.#used += bytes;
    return true;
  }

  release(bytes: number): void {
    this.#used = Math.max(0, this.#used - bytes);
  }
}

/** Label maps shared between the objects that carry equal ones (a Deployment's pods, say). */
class LabelInterner {
  #maps = new Map<string, { labels: Readonly<Record<string, string>>; refs: number }>();

  take(labels: Record<string, string> | undefined): Readonly<Record<string, string>> | undefined {
    if (!labels || Object.keys(labels).length === 0) return undefined;
    const key = JSON.stringify(labels);
    const found = this.#maps.get(key);
    if (found) {
      found.refs++;
      return found.labels;
    }
    const shared = Object.freeze({ ...labels });
    this.#maps.set(key, { labels: shared, refs: 1 });
    return shared;
  }

  drop(labels: Readonly<Record<string, string>> | undefined): void {
    if (!labels) return;
    const key = JSON.stringify(labels);
    const found = this.#maps.get(key);
    if (found && --found.refs === 0) this.#maps.delete(key);
  }
}

/** Namespace and name strings shared across caches (a fleet repeats the same few namespaces). */
const namespaceNames = new Map<string, string>();
function internNamespace(ns: string): string {
  const found = namespaceNames.get(ns);
  if (found !== undefined) return found;
  if (namespaceNames.size < 100_000) namespaceNames.set(ns, ns);
  return ns;
}

function rvNumber(rv: string): number {
  const n = Number(rv);
  return Number.isFinite(n) ? n : 0;
}

export interface ResourceCacheOptions {
  cluster: string;
  resource: ResourceRef;
  /** Namespaces to cache; empty: every namespace. */
  namespaces: ReadonlySet<string>;
  /** The member, with the control plane's credentials for it. */
  client: Client;
  budget: CacheBudget;
  log: Logger;
  /** The budget ran out: the cache has emptied itself and stopped. */
  onOverflow?: () => void;
}

export class ResourceCache {
  readonly cluster: string;
  readonly resource: ResourceRef;
  readonly namespaces: ReadonlySet<string>;
  #opts: ResourceCacheOptions;
  #items = new Map<string, CachedEntry>();
  #sortedKeys: string[] | undefined;
  #bytes = 0;
  #labels = new LabelInterner();
  #rv = "";
  #history: CacheEvent[] = [];
  /** The resourceVersion before the oldest event kept: watches from older versions are 410. */
  #floor = 0;
  #watchers = new Set<CacheWatcher>();
  #synced = false;
  #syncWaiters: Array<() => void> = [];
  #overflowed = false;
  #loop: ListWatchLoop;

  constructor(opts: ResourceCacheOptions) {
    this.cluster = opts.cluster;
    this.resource = opts.resource;
    this.namespaces = opts.namespaces;
    this.#opts = opts;
    const namespace = this.#memberNamespace();
    this.#loop = new ListWatchLoop(
      { client: opts.client, resource: opts.resource, ...(namespace ? { namespace } : {}) },
      {
        replace: (items, revision) => this.#replace(items, revision),
        apply: (e) => this.#apply(e),
        resourceVersion: () => this.#rv,
      },
      {
        log: opts.log,
        failureMessage: "search cache list/watch failed, retrying",
        baseBackoffMs: 200,
        maxBackoffExponent: 8,
      },
    );
  }

  start(): void {
    this.#loop.start();
  }

  /** Stops feeding, ends every watch and frees what the cache held. */
  stop(): void {
    this.#loop.stop();
    this.#closeWatchers();
    this.#clear();
  }

  get synced(): boolean {
    return this.#synced;
  }

  get overflowed(): boolean {
    return this.#overflowed;
  }

  waitForSync(): Promise<void> {
    if (this.#synced) return Promise.resolve();
    return new Promise((resolve) => this.#syncWaiters.push(resolve));
  }

  /** The member resourceVersion the cache reflects. */
  get resourceVersion(): string {
    return this.#rv;
  }

  get size(): number {
    return this.#items.size;
  }

  /** What the cached texts and entries take (an estimate of the heap they hold). */
  get bytes(): number {
    return this.#bytes;
  }

  /** Whether objects of this namespace are cached (every namespace when none were named). */
  covers(namespace: string | undefined): boolean {
    if (this.namespaces.size === 0 || !this.resource.namespaced) return true;
    return namespace === undefined || this.namespaces.has(namespace);
  }

  get(namespace: string | undefined, name: string): CachedEntry | undefined {
    return this.#items.get(namespace ? `${namespace}/${name}` : name);
  }

  /** Entries in key order (as kube-apiserver lists), from just after `afterKey`. */
  list(namespace: string | undefined, afterKey?: string): CachedEntry[] {
    this.#sortedKeys ??= [...this.#items.keys()].sort();
    const keys = this.#sortedKeys;
    let start = 0;
    if (afterKey !== undefined) start = upperBound(keys, afterKey);
    const out: CachedEntry[] = [];
    for (let i = start; i < keys.length; i++) {
      const e = this.#items.get(keys[i]!)!;
      if (namespace === undefined || e.namespace === namespace) out.push(e);
    }
    return out;
  }

  /**
   * Follows the cache from `rv`: "" or "0" starts with every object as ADDED; a version older
   * than the events kept is 410 Gone, as kube-apiserver's watch cache answers.
   */
  watch(rv: string, watcher: CacheWatcher): { stop(): void } {
    const stop = { stop: () => this.#watchers.delete(watcher) };
    if (!rv || rv === "0") {
      const initial = this.list(undefined).map((entry) => ({ type: "ADDED" as const, entry, rv: entry.rv }));
      if (initial.length > 0) watcher.events(initial);
    } else {
      const from = rvNumber(rv);
      if (from < this.#floor) {
        throw expired(`too old resource version: ${rv} (${this.#floor})`);
      }
      const missed = this.#history.filter((e) => rvNumber(e.rv) > from);
      if (missed.length > 0) watcher.events(missed);
    }
    this.#watchers.add(watcher);
    return stop;
  }

  /** The member namespace to list and watch: one named namespace is read alone, several are filtered here. */
  #memberNamespace(): string | undefined {
    if (!this.resource.namespaced || this.namespaces.size !== 1) return undefined;
    return [...this.namespaces][0];
  }

  /** A full list of the member: the cache becomes these objects, with a new history. */
  #replace(items: StoredObject[], revision: string): void {
    // A relist starts a new history: watchers that followed the old one relist too.
    if (this.#synced) this.#closeWatchers();
    this.#clear();
    for (const obj of items) {
      if (!this.covers(obj.metadata.namespace)) continue;
      if (!this.#put(obj)) return;
    }
    this.#rv = revision;
    this.#floor = rvNumber(revision);
    this.#history = [];
    if (!this.#synced) {
      this.#synced = true;
      for (const w of this.#syncWaiters.splice(0)) w();
    }
  }

  /** One member event into the cache; false when the cache must relist (410, an error event). */
  #apply(e: WatchEvent): boolean {
    if (e.type === "ERROR") {
      const status = e.object as { code?: number; message?: string };
      if (status.code !== 410) this.#opts.log.warn("search cache watch error", { message: status.message });
      return false;
    }
    const obj = e.object as StoredObject;
    const rv = obj.metadata?.resourceVersion ?? "";
    if (e.type === "BOOKMARK") {
      if (rv) this.#rv = rv;
      for (const w of this.#watchers) w.progress(rv);
      return true;
    }
    if (!this.covers(obj.metadata.namespace)) {
      if (rv) this.#rv = rv;
      return true;
    }
    let event: CacheEvent | undefined;
    if (e.type === "DELETED") {
      const old = this.#remove(keyOf(obj));
      if (old) event = { type: "DELETED", entry: { ...old, rv, json: old.json }, rv };
    } else {
      const previous = this.#items.get(keyOf(obj));
      const entry = this.#put(obj);
      if (!entry) return true;
      event = previous ? { type: "MODIFIED", entry, previous, rv } : { type: "ADDED", entry, rv };
    }
    if (rv) this.#rv = rv;
    if (!event) return true;
    this.#history.push(event);
    if (this.#history.length > HISTORY_EVENTS) {
      const dropped = this.#history.splice(0, this.#history.length - HISTORY_EVENTS);
      this.#floor = rvNumber(dropped[dropped.length - 1]!.rv);
    }
    for (const w of this.#watchers) w.events([event]);
    return true;
  }

  /** Stores the object as its entry; undefined (and the cache stopped) when the budget ran out. */
  #put(obj: StoredObject): CachedEntry | undefined {
    const entry = this.#entryOf(obj);
    const cost = entry.json.length + entry.key.length + ENTRY_OVERHEAD_BYTES;
    const old = this.#items.get(entry.key);
    const oldCost = old ? old.json.length + old.key.length + ENTRY_OVERHEAD_BYTES : 0;
    if (cost > oldCost && !this.#opts.budget.reserve(cost - oldCost)) {
      this.#labels.drop(entry.labels);
      this.#overflow();
      return undefined;
    }
    if (cost < oldCost) this.#opts.budget.release(oldCost - cost);
    this.#bytes += cost - oldCost;
    if (old) this.#labels.drop(old.labels);
    else this.#sortedKeys = undefined;
    this.#items.set(entry.key, entry);
    return entry;
  }

  #remove(key: string): CachedEntry | undefined {
    const old = this.#items.get(key);
    if (!old) return undefined;
    const cost = old.json.length + old.key.length + ENTRY_OVERHEAD_BYTES;
    this.#items.delete(key);
    this.#sortedKeys = undefined;
    this.#bytes -= cost;
    this.#opts.budget.release(cost);
    this.#labels.drop(old.labels);
    return old;
  }

  #entryOf(obj: StoredObject): CachedEntry {
    const meta = obj.metadata;
    const namespace = internNamespace(meta.namespace ?? "");
    const name = meta.name ?? "";
    const { managedFields: _dropped, ...kept } = meta as typeof meta & { managedFields?: unknown };
    const served = {
      ...obj,
      metadata: { ...kept, annotations: { ...meta.annotations, [CACHED_FROM_CLUSTER]: this.cluster } },
    };
    return {
      key: namespace ? `${namespace}/${name}` : name,
      namespace,
      name,
      rv: meta.resourceVersion ?? "",
      labels: this.#labels.take(meta.labels),
      json: JSON.stringify(served),
    };
  }

  #overflow(): void {
    this.#overflowed = true;
    this.#opts.log.warn("search cache limit reached, dropping this cache", {
      cluster: this.cluster,
      resource: this.resource.resource,
      limit: this.#opts.budget.limit,
    });
    this.stop();
    this.#opts.onOverflow?.();
  }

  #closeWatchers(): void {
    const watchers = [...this.#watchers];
    this.#watchers.clear();
    for (const w of watchers) w.closed();
  }

  #clear(): void {
    for (const key of [...this.#items.keys()]) this.#remove(key);
    this.#history = [];
  }
}

function keyOf(obj: StoredObject): string {
  const ns = obj.metadata.namespace;
  return ns ? `${ns}/${obj.metadata.name}` : (obj.metadata.name ?? "");
}

/** The first index whose key sorts after `key`. */
function upperBound(keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! <= key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A 410 for a continue token whose cluster no longer caches the kind, as kube-apiserver answers stale tokens. */
export function staleContinue(): Error {
  return expired("the provided continue parameter is too old to display a consistent list result");
}
