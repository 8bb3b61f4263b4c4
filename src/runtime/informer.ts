/**
 * Shared informers: list then watch a resource, keep a read-only cache with indexes, tell
 * handlers what changed, resume watches from the last revision, relist after 410 Gone,
 * resync periodically. One informer per (resource, namespace, selectors) via the factory.
 */
import type { StoredObject } from "../api/meta.ts";
import type { Client, ResourceRef, WatchEvent } from "../client/client.ts";
import { type Logger, silentLogger } from "../log.ts";
import { objectKey } from "./keys.ts";
import { ListWatchLoop } from "./list-watch.ts";

export interface EventHandlers {
  onAdd?(obj: StoredObject): void;
  onUpdate?(old: StoredObject, obj: StoredObject): void;
  onDelete?(obj: StoredObject): void;
}

/** Returns the index values of an object (e.g. owner uids, the clusters a binding targets). */
export type IndexFunc = (obj: StoredObject) => string[];

export interface InformerOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Re-deliver every cached object as an update this often (0: never). */
  resyncMs?: number;
  indexers?: Record<string, IndexFunc>;
  /**
   * Applied to every object before it is cached (client-go's SetTransform): keep only what the
   * readers need when caching a whole kind of a big cluster. It must keep the metadata's name,
   * namespace and resourceVersion.
   */
  transform?: (obj: StoredObject) => StoredObject;
  /** Deep-freeze cached objects so that mutating them throws (tests and development). */
  freeze?: boolean;
  /** How long each watch request lasts before the informer re-watches (default: random 5-10 minutes). */
  watchTimeoutSeconds?: number;
  log?: Logger;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as object)) deepFreeze(v);
  }
  return value;
}

export class Informer {
  readonly resource: ResourceRef;
  #opts: InformerOptions;
  #log: Logger;
  #items = new Map<string, StoredObject>();
  #indexers: Record<string, IndexFunc> = {};
  #indexes = new Map<string, Map<string, Set<string>>>();
  #handlers = new Set<EventHandlers>();
  #resourceVersion = "";
  #synced = false;
  #syncWaiters: Array<() => void> = [];
  #loop: ListWatchLoop;
  #resyncTimer: NodeJS.Timeout | undefined;

  constructor(client: Client, resource: ResourceRef, opts: InformerOptions = {}) {
    this.resource = resource;
    this.#opts = opts;
    this.#log = (opts.log ?? silentLogger).child({ resource: resource.resource, group: resource.group });
    for (const [name, fn] of Object.entries(opts.indexers ?? {})) this.addIndexer(name, fn);
    this.#loop = new ListWatchLoop(
      {
        client,
        resource,
        ...(opts.namespace ? { namespace: opts.namespace } : {}),
        ...(opts.labelSelector ? { labelSelector: opts.labelSelector } : {}),
        ...(opts.fieldSelector ? { fieldSelector: opts.fieldSelector } : {}),
        ...(opts.watchTimeoutSeconds !== undefined ? { watchTimeoutSeconds: opts.watchTimeoutSeconds } : {}),
      },
      {
        replace: (items, revision) => this.#replace(items, revision),
        apply: (e) => this.#handle(e) !== "expired",
        resourceVersion: () => this.#resourceVersion,
      },
      {
        log: this.#log,
        failureMessage: "list/watch failed, retrying",
        baseBackoffMs: 100,
        maxBackoffExponent: 10,
      },
    );
  }

  /** Starts listing and watching; idempotent. */
  start(): void {
    if (!this.#loop.stopped) return;
    this.#loop.start();
    const resync = this.#opts.resyncMs ?? 0;
    if (resync > 0) {
      this.#resyncTimer = setInterval(() => {
        for (const obj of this.#items.values()) for (const h of this.#handlers) h.onUpdate?.(obj, obj);
      }, resync);
      this.#resyncTimer.unref();
    }
  }

  stop(): void {
    this.#loop.stop();
    if (this.#resyncTimer) clearInterval(this.#resyncTimer);
  }

  hasSynced(): boolean {
    return this.#synced;
  }

  /** Resolves once the first list is in the cache. */
  waitForSync(): Promise<void> {
    if (this.#synced) return Promise.resolve();
    return new Promise((resolve) => this.#syncWaiters.push(resolve));
  }

  /** The revision the cache reflects. */
  get resourceVersion(): string {
    return this.#resourceVersion;
  }

  /** Adds handlers; a late handler first gets every cached object as an add. Returns a remover. */
  addHandler(h: EventHandlers): () => void {
    this.#handlers.add(h);
    if (this.#synced) for (const obj of this.#items.values()) h.onAdd?.(obj);
    return () => this.#handlers.delete(h);
  }

  get(namespace: string | undefined, name: string): StoredObject | undefined {
    return this.#items.get(namespace ? `${namespace}/${name}` : name);
  }

  getByKey(key: string): StoredObject | undefined {
    return this.#items.get(key);
  }

  list(namespace?: string): StoredObject[] {
    const all = [...this.#items.values()];
    return namespace === undefined ? all : all.filter((o) => o.metadata.namespace === namespace);
  }

  keys(): string[] {
    return [...this.#items.keys()];
  }

  /** Adds an index (a no-op when one of that name exists), built over what is cached already. */
  addIndexer(name: string, fn: IndexFunc): void {
    if (this.#indexes.has(name)) return;
    this.#indexers[name] = fn;
    this.#indexes.set(name, new Map());
    for (const [key, obj] of this.#items) this.#indexInto(name, fn, key, obj);
  }

  byIndex(index: string, value: string): StoredObject[] {
    const keys = this.#indexes.get(index)?.get(value);
    if (!keys) return [];
    return [...keys].map((k) => this.#items.get(k)!).filter(Boolean);
  }

  /** A full list: the cache becomes exactly these objects, handlers told what changed. */
  #replace(items: StoredObject[], revision: string): void {
    const fresh = new Map<string, StoredObject>();
    for (const item of items) fresh.set(objectKey(item), this.#own(item));
    for (const [key, old] of this.#items) {
      if (!fresh.has(key)) this.#remove(key, old);
    }
    for (const [key, obj] of fresh) this.#upsert(key, obj);
    this.#resourceVersion = revision;
    if (!this.#synced) {
      this.#synced = true;
      const waiters = this.#syncWaiters;
      this.#syncWaiters = [];
      for (const w of waiters) w();
    }
  }

  #handle(e: WatchEvent): "expired" | undefined {
    if (e.type === "ERROR") {
      const status = e.object as { code?: number; message?: string };
      if (status.code === 410) return "expired";
      this.#log.warn("watch error event", { code: status.code, message: status.message });
      return "expired";
    }
    const obj = e.object as StoredObject;
    const rv = obj.metadata?.resourceVersion;
    if (rv) this.#resourceVersion = rv;
    if (e.type === "BOOKMARK") return undefined;
    const key = objectKey(obj);
    if (e.type === "DELETED") {
      const old = this.#items.get(key);
      if (old) this.#remove(key, old, this.#own(obj));
    } else {
      this.#upsert(key, this.#own(obj));
    }
    return undefined;
  }

  #own(obj: StoredObject): StoredObject {
    const kept = this.#opts.transform ? this.#opts.transform(obj) : obj;
    return this.#opts.freeze ? deepFreeze(kept) : kept;
  }

  #upsert(key: string, obj: StoredObject): void {
    const old = this.#items.get(key);
    if (old && old.metadata.resourceVersion === obj.metadata.resourceVersion) return;
    this.#items.set(key, obj);
    this.#reindex(key, old, obj);
    for (const h of this.#handlers) {
      if (old) h.onUpdate?.(old, obj);
      else h.onAdd?.(obj);
    }
  }

  #remove(key: string, old: StoredObject, last?: StoredObject): void {
    this.#items.delete(key);
    this.#reindex(key, old, undefined);
    for (const h of this.#handlers) h.onDelete?.(last ?? old);
  }

  #reindex(key: string, old: StoredObject | undefined, obj: StoredObject | undefined): void {
    for (const [name, fn] of Object.entries(this.#indexers)) {
      const index = this.#indexes.get(name)!;
      if (old) {
        for (const v of fn(old)) {
          const set = index.get(v);
          set?.delete(key);
          if (set?.size === 0) index.delete(v);
        }
      }
      if (obj) this.#indexInto(name, fn, key, obj);
    }
  }

  #indexInto(name: string, fn: IndexFunc, key: string, obj: StoredObject): void {
    const index = this.#indexes.get(name)!;
    for (const v of fn(obj)) {
      const set = index.get(v) ?? new Set<string>();
      set.add(key);
      index.set(v, set);
    }
  }
}

/**
 * The object without `metadata.managedFields`: what controllers' caches keep (upstream's
 * controller manager strips them from its caches too, fedinformer.StripUnusedFields). No
 * controller reads them, an update that leaves them out keeps the server's, and for a Work
 * they are a fieldsV1 tree of its whole manifest: a large share of the cache.
 */
export function withoutManagedFields(obj: StoredObject): StoredObject {
  if (!obj.metadata.managedFields) return obj;
  const { managedFields: _, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

/** One informer per resource, namespace and selectors, shared by every controller that asks. */
export class InformerFactory {
  #client: Client;
  #defaults: InformerOptions;
  #informers = new Map<string, Informer>();
  #started = false;

  constructor(client: Client, defaults: InformerOptions = {}) {
    this.#client = client;
    this.#defaults = defaults;
  }

  get client(): Client {
    return this.#client;
  }

  informer(resource: ResourceRef, opts: Omit<InformerOptions, "log" | "freeze"> = {}): Informer {
    const key = JSON.stringify([
      resource.group,
      resource.version,
      resource.resource,
      opts.namespace ?? "",
      opts.labelSelector ?? "",
      opts.fieldSelector ?? "",
    ]);
    let inf = this.#informers.get(key);
    if (!inf) {
      inf = new Informer(this.#client, resource, { ...this.#defaults, ...opts });
      this.#informers.set(key, inf);
      if (this.#started) inf.start();
    } else {
      for (const [name, fn] of Object.entries(opts.indexers ?? {})) inf.addIndexer(name, fn);
    }
    return inf;
  }

  start(): void {
    this.#started = true;
    for (const inf of this.#informers.values()) inf.start();
  }

  async waitForSync(): Promise<void> {
    await Promise.all([...this.#informers.values()].map((i) => i.waitForSync()));
  }

  /** Whether every informer made so far has listed. */
  hasSynced(): boolean {
    for (const i of this.#informers.values()) if (!i.hasSynced()) return false;
    return true;
  }

  stop(): void {
    for (const inf of this.#informers.values()) inf.stop();
  }
}
