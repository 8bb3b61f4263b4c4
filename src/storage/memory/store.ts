import {
  CompactedError,
  FutureRevisionError,
  type GetResult,
  KeyExistsError,
  KeyNotFoundError,
  type KeyValue,
  type ListOptions,
  type ListResult,
  RevisionMismatchError,
  type Store,
  type Watch,
  type WatchEvent,
  type WatchHandlers,
} from "../store.ts";
import { WatchHub } from "../watch-hub.ts";

/**
 * The in-memory backend: current values in a map with a sorted key index, plus the log of
 * every change since the last compaction (for reads at past revisions and watch replay).
 * For tests and simulated members; nothing survives the process.
 */
export class MemoryStore implements Store {
  readonly backend = "memory";
  #current = new Map<string, KeyValue>();
  #sortedKeys: string[] = [];
  #log: WatchEvent[] = [];
  #revision = 1;
  #compacted = 1;
  #hub = new WatchHub();
  #closed = false;

  async get(key: string, options: { revision?: number } = {}): Promise<GetResult> {
    const revision = this.#readRevision(options.revision);
    if (revision === this.#revision) return { kv: this.#current.get(key), revision };
    return { kv: this.#valueAt(key, revision), revision };
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    const revision = this.#readRevision(options.revision);
    const start = options.startKey && options.startKey > prefix ? options.startKey : prefix;
    const keys = revision === this.#revision ? this.#sortedKeys : this.#keysAt(revision);
    const out: KeyValue[] = [];
    let i = lowerBound(keys, start);
    let remaining = 0;
    const limit = options.limit && options.limit > 0 ? options.limit : Number.POSITIVE_INFINITY;
    for (; i < keys.length; i++) {
      const key = keys[i]!;
      if (!key.startsWith(prefix)) break;
      const kv = revision === this.#revision ? this.#current.get(key) : this.#valueAt(key, revision);
      if (!kv) continue;
      if (out.length < limit) out.push(kv);
      else remaining++;
    }
    return { kvs: out, more: remaining > 0, remaining, revision };
  }

  async count(prefix: string): Promise<number> {
    let n = 0;
    for (let i = lowerBound(this.#sortedKeys, prefix); i < this.#sortedKeys.length; i++) {
      if (!this.#sortedKeys[i]!.startsWith(prefix)) break;
      n++;
    }
    return n;
  }

  async create(key: string, value: string): Promise<KeyValue> {
    this.#checkOpen();
    if (this.#current.has(key)) throw new KeyExistsError(key);
    const revision = ++this.#revision;
    const kv: KeyValue = { key, value, createRevision: revision, modRevision: revision };
    this.#current.set(key, kv);
    this.#sortedKeys.splice(lowerBound(this.#sortedKeys, key), 0, key);
    this.#append({ type: "put", kv });
    return kv;
  }

  async update(key: string, value: string, expectedRevision: number): Promise<KeyValue> {
    this.#checkOpen();
    const prev = this.#current.get(key);
    if (!prev) throw new KeyNotFoundError(key);
    if (prev.modRevision !== expectedRevision) throw new RevisionMismatchError(key, prev);
    const revision = ++this.#revision;
    const kv: KeyValue = { key, value, createRevision: prev.createRevision, modRevision: revision };
    this.#current.set(key, kv);
    this.#append({ type: "put", kv, prevKv: prev });
    return kv;
  }

  async delete(key: string, expectedRevision?: number): Promise<KeyValue> {
    this.#checkOpen();
    const prev = this.#current.get(key);
    if (!prev) throw new KeyNotFoundError(key);
    if (expectedRevision !== undefined && prev.modRevision !== expectedRevision) {
      throw new RevisionMismatchError(key, prev);
    }
    const revision = ++this.#revision;
    this.#current.delete(key);
    this.#sortedKeys.splice(lowerBound(this.#sortedKeys, key), 1);
    const tombstone: KeyValue = {
      key,
      value: "",
      createRevision: prev.createRevision,
      modRevision: revision,
    };
    this.#append({ type: "delete", kv: tombstone, prevKv: prev });
    return { ...prev, modRevision: revision };
  }

  watch(prefix: string, afterRevision: number, handlers: WatchHandlers): Watch {
    if (afterRevision < this.#compacted && afterRevision !== 0) {
      const err = new CompactedError(afterRevision, this.#compacted);
      queueMicrotask(() => handlers.onError(err));
      return { close() {} };
    }
    const from = afterRevision === 0 ? this.#revision : afterRevision;
    const history = this.#log.filter((e) => e.kv.modRevision > from && e.kv.key.startsWith(prefix));
    return this.#hub.add(prefix, from, history, handlers);
  }

  async currentRevision(): Promise<number> {
    return this.#revision;
  }

  async compactedRevision(): Promise<number> {
    return this.#compacted;
  }

  notifyProgress(): void {
    const revision = this.#revision;
    queueMicrotask(() => this.#hub.progress(revision));
  }

  async compact(revision: number): Promise<void> {
    if (revision <= this.#compacted) return;
    if (revision > this.#revision) throw new FutureRevisionError(revision, this.#revision);
    this.#compacted = revision;
    const keep = lowerBoundRevision(this.#log, revision + 1);
    this.#log = this.#log.slice(keep);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#hub.closeAll(new Error("store closed"));
  }

  #checkOpen(): void {
    if (this.#closed) throw new Error("store is closed");
  }

  #append(event: WatchEvent): void {
    this.#log.push(event);
    this.#hub.publish(event);
  }

  #readRevision(requested: number | undefined): number {
    if (!requested) return this.#revision;
    if (requested < this.#compacted) throw new CompactedError(requested, this.#compacted);
    if (requested > this.#revision) throw new FutureRevisionError(requested, this.#revision);
    return requested;
  }

  /** The value of `key` at `revision`, undoing later log entries. */
  #valueAt(key: string, revision: number): KeyValue | undefined {
    let kv = this.#current.get(key);
    for (let i = this.#log.length - 1; i >= 0; i--) {
      const e = this.#log[i]!;
      if (e.kv.modRevision <= revision) break;
      if (e.kv.key === key) kv = e.prevKv;
    }
    return kv;
  }

  /** Every key that existed at `revision` (plus some that did not; callers check values). */
  #keysAt(revision: number): string[] {
    const keys = new Set(this.#sortedKeys);
    for (let i = this.#log.length - 1; i >= 0; i--) {
      const e = this.#log[i]!;
      if (e.kv.modRevision <= revision) break;
      keys.add(e.kv.key);
    }
    return [...keys].sort(compareKeys);
  }
}

function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function lowerBound(keys: string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function lowerBoundRevision(log: WatchEvent[], revision: number): number {
  let lo = 0;
  let hi = log.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (log[mid]!.kv.modRevision < revision) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
