import { statSync } from "node:fs";
import Database from "better-sqlite3";
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
import { CREATE_SCHEMA, SCHEMA_VERSION, SQL } from "./schema.ts";

export interface SqliteStoreOptions {
  /** How long to wait for a lock held by another connection before failing, in ms. Default 5000. */
  busyTimeoutMs?: number;
  /** Log rows examined per compaction transaction; the event loop breathes between batches. Default 1000. */
  compactBatchSize?: number;
  /** Send idle watchers a progress notice this often, in ms (0: only on `notifyProgress()`). Default 0. */
  progressIntervalMs?: number;
}

export interface SqliteStoreStats {
  revision: number;
  compactedRevision: number;
  /** Bytes in the main database file (pages in use and free). */
  fileBytes: number;
  /** Bytes in the write-ahead log, which a checkpoint folds back into the main file. */
  walBytes: number;
  /** Pages on the free list: space compaction released that new writes will reuse. */
  freePages: number;
  pageSize: number;
}

interface HeadRow {
  id: number;
  deleted: number;
  create_revision: number;
  value: string | null;
}

interface ValueRow {
  id: number;
  name: string;
  create_revision: number;
  value: string;
}

interface LogRow {
  id: number;
  name: string;
  created: number;
  deleted: number;
  create_revision: number;
  prev_revision: number;
  value: string | null;
  old_value: string | null;
}

/**
 * Binding a BLOB as the upper bound of a key range means "no upper bound": SQLite orders
 * every TEXT value before every BLOB, and the bound still drives an index range scan.
 */
const NO_UPPER_BOUND = Buffer.alloc(0);

/**
 * The embedded backend: kine's log table in one SQLite file, owned by one process.
 *
 * This process is the only writer (the file is opened with an exclusive lock), so revisions
 * are assigned inside each write transaction from an in-memory counter and events go to
 * in-process watchers through a `WatchHub` right after commit; no polling. Watchers that
 * resume from the past replay the log table. WAL with `synchronous=NORMAL` keeps commits
 * off fsync: a process crash loses nothing committed, a power cut may lose the last few.
 */
export class SqliteStore implements Store {
  readonly backend = "sqlite";
  readonly path: string;
  #db: Database.Database;
  #hub = new WatchHub();
  #revision: number;
  #compacted: number;
  #compactBatchSize: number;
  #compaction: Promise<void> = Promise.resolve();
  #inTransaction: (fn: () => WatchEvent) => WatchEvent;
  #inBatch: (fn: () => void) => void;
  /** Writes waiting for the next group commit. */
  #pending: Array<{
    op: () => WatchEvent;
    resolve: (e: WatchEvent) => void;
    reject: (err: unknown) => void;
  }> = [];
  #flushScheduled = false;
  #progressTimer: NodeJS.Timeout | undefined;
  #closed = false;

  #headStmt: Database.Statement<[string], HeadRow>;
  #headAtStmt: Database.Statement<[string, number], HeadRow>;
  #insertStmt: Database.Statement<
    [number, string, number, number, number, number, string | null, string | null]
  >;
  #listStmt: Database.Statement<[string, string | Buffer, number, number], ValueRow>;
  #countStmt: Database.Statement<[string, string | Buffer, number], number>;
  #historyStmt: Database.Statement<[number, string, string | Buffer], LogRow>;
  #metaStmt: Database.Statement<[string], number>;
  #setMetaStmt: Database.Statement<[number, string]>;
  #pruneSupersededStmt: Database.Statement<[number, number]>;
  #pruneTombstonesStmt: Database.Statement<[number, number]>;

  constructor(path: string, options: SqliteStoreOptions = {}) {
    this.path = path;
    this.#compactBatchSize = Math.max(1, options.compactBatchSize ?? 1000);
    const db = new Database(path, { timeout: options.busyTimeoutMs ?? 5000 });
    this.#db = db;
    try {
      // The exclusive lock makes "one writer process" a fact rather than a hope: a second
      // process opening the file fails instead of writing behind our revision counter and
      // our watchers. It also lets WAL run without a shared-memory index.
      db.pragma("locking_mode = EXCLUSIVE");
      db.pragma("journal_mode = WAL");
      db.pragma("synchronous = NORMAL");
      db.transaction(() => db.exec(CREATE_SCHEMA))();
    } catch (err) {
      db.close();
      if (err instanceof Database.SqliteError && err.code.startsWith("SQLITE_BUSY")) {
        throw new Error(
          `sqlite store ${path} is locked: another process has it open (one process at a time serves a SQLite store: stop it first)`,
        );
      }
      throw err;
    }

    const meta = db.prepare<[string], number>(SQL.meta).pluck();
    const version = meta.get("schema_version") ?? 0;
    if (version > SCHEMA_VERSION) {
      db.close();
      throw new Error(
        `sqlite store ${path} has schema version ${version}, newer than this build's ${SCHEMA_VERSION}`,
      );
    }
    this.#compacted = meta.get("compact_revision") ?? 1;
    const maxId = db.prepare<[], number | null>(SQL.maxRevision).pluck().get() ?? null;
    // Compaction may prune the newest row (a tombstone), so the log alone can trail the
    // revision; the compacted revision never exceeds it.
    this.#revision = Math.max(maxId ?? 1, this.#compacted);

    this.#metaStmt = meta;
    this.#setMetaStmt = db.prepare(SQL.setMeta);
    this.#headStmt = db.prepare(SQL.head);
    this.#headAtStmt = db.prepare(SQL.headAt);
    this.#insertStmt = db.prepare(SQL.insert);
    this.#listStmt = db.prepare(SQL.list);
    this.#countStmt = db.prepare<[string, string | Buffer, number], number>(SQL.count).pluck();
    this.#historyStmt = db.prepare(SQL.history);
    this.#pruneSupersededStmt = db.prepare(SQL.pruneSuperseded);
    this.#pruneTombstonesStmt = db.prepare(SQL.pruneTombstones);
    this.#inTransaction = db.transaction((fn: () => WatchEvent) => fn());
    this.#inBatch = db.transaction((fn: () => void) => fn());

    if (options.progressIntervalMs && options.progressIntervalMs > 0) {
      this.#progressTimer = setInterval(() => this.notifyProgress(), options.progressIntervalMs);
      this.#progressTimer.unref();
    }
  }

  async get(key: string, options: { revision?: number } = {}): Promise<GetResult> {
    this.#checkOpen();
    const revision = this.#readRevision(options.revision);
    const row = revision === this.#revision ? this.#headStmt.get(key) : this.#headAtStmt.get(key, revision);
    if (!row || row.deleted) return { kv: undefined, revision };
    return {
      kv: { key, value: row.value ?? "", createRevision: row.create_revision, modRevision: row.id },
      revision,
    };
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    this.#checkOpen();
    const revision = this.#readRevision(options.revision);
    const start = options.startKey && options.startKey > prefix ? options.startKey : prefix;
    const end = rangeEnd(prefix);
    const limit = options.limit && options.limit > 0 ? options.limit : -1;
    const rows = this.#listStmt.all(start, end, revision, limit);
    const kvs = rows.map(
      (r): KeyValue => ({
        key: r.name,
        value: r.value,
        createRevision: r.create_revision,
        modRevision: r.id,
      }),
    );
    let remaining = 0;
    if (limit > 0 && kvs.length === limit) {
      // The smallest key after the last one returned is that key followed by NUL.
      remaining = this.#countStmt.get(`${kvs[kvs.length - 1]!.key}\u0000`, end, revision) ?? 0;
    }
    return { kvs, more: remaining > 0, remaining, revision };
  }

  async count(prefix: string): Promise<number> {
    this.#checkOpen();
    return this.#countStmt.get(prefix, rangeEnd(prefix), this.#revision) ?? 0;
  }

  async create(key: string, value: string): Promise<KeyValue> {
    this.#checkOpen();
    const event = await this.#write((): WatchEvent => {
      const head = this.#headStmt.get(key);
      if (head && !head.deleted) throw new KeyExistsError(key);
      const revision = this.#revision + 1;
      this.#insert(revision, key, 1, 0, revision, head?.id ?? 0, value, null);
      return { type: "put", kv: { key, value, createRevision: revision, modRevision: revision } };
    });
    return event.kv;
  }

  async update(key: string, value: string, expectedRevision: number): Promise<KeyValue> {
    this.#checkOpen();
    const event = await this.#write((): WatchEvent => {
      const prev = this.#current(key);
      if (!prev) throw new KeyNotFoundError(key);
      if (prev.modRevision !== expectedRevision) throw new RevisionMismatchError(key, prev);
      const revision = this.#revision + 1;
      this.#insert(revision, key, 0, 0, prev.createRevision, prev.modRevision, value, prev.value);
      const kv = { key, value, createRevision: prev.createRevision, modRevision: revision };
      return { type: "put", kv, prevKv: prev };
    });
    return event.kv;
  }

  async delete(key: string, expectedRevision?: number): Promise<KeyValue> {
    this.#checkOpen();
    const event = await this.#write((): WatchEvent => {
      const prev = this.#current(key);
      if (!prev) throw new KeyNotFoundError(key);
      if (expectedRevision !== undefined && prev.modRevision !== expectedRevision) {
        throw new RevisionMismatchError(key, prev);
      }
      const revision = this.#revision + 1;
      this.#insert(revision, key, 0, 1, prev.createRevision, prev.modRevision, null, prev.value);
      const tombstone = { key, value: "", createRevision: prev.createRevision, modRevision: revision };
      return { type: "delete", kv: tombstone, prevKv: prev };
    });
    return { ...event.prevKv!, modRevision: event.kv.modRevision };
  }

  watch(prefix: string, afterRevision: number, handlers: WatchHandlers): Watch {
    if (this.#closed) {
      queueMicrotask(() => handlers.onError(new Error("store is closed")));
      return { close() {} };
    }
    if (afterRevision !== 0 && afterRevision < this.#compacted) {
      const err = new CompactedError(afterRevision, this.#compacted);
      queueMicrotask(() => handlers.onError(err));
      return { close() {} };
    }
    const from = afterRevision === 0 ? this.#revision : afterRevision;
    // Read synchronously: no write can land between this query and joining the hub, and
    // the hub drops live events the history already covered.
    const history = from < this.#revision ? this.#historyStmt.all(from, prefix, rangeEnd(prefix)) : [];
    return this.#hub.add(prefix, from, history.map(toEvent), handlers);
  }

  async currentRevision(): Promise<number> {
    return this.#revision;
  }

  async compactedRevision(): Promise<number> {
    return this.#compacted;
  }

  /**
   * Raises the compacted revision at once (reads below it fail from then on), then prunes
   * superseded rows and tombstones in batches, yielding to other work between batches, and
   * finally truncates the WAL. Progress is recorded with each batch, so a crash mid-way
   * leaves a consistent file and the next compaction picks up where this one stopped.
   */
  compact(revision: number): Promise<void> {
    const run = this.#compaction.then(() => this.#compact(revision));
    this.#compaction = run.catch(() => {});
    return run;
  }

  /**
   * Sends every watcher that has seen all events so far a progress notice with the current
   * revision. Deferred to a microtask so that events already published reach watchers first.
   */
  notifyProgress(): void {
    const revision = this.#revision;
    queueMicrotask(() => this.#hub.progress(revision));
  }

  /** Sizes a periodic compactor can base its decisions on. */
  stats(): SqliteStoreStats {
    this.#checkOpen();
    const pageSize = this.#db.pragma("page_size", { simple: true }) as number;
    const freePages = this.#db.pragma("freelist_count", { simple: true }) as number;
    return {
      revision: this.#revision,
      compactedRevision: this.#compacted,
      fileBytes: fileSize(this.path),
      walBytes: fileSize(`${this.path}-wal`),
      freePages,
      pageSize,
    };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    // Writes already accepted are committed before the file closes.
    this.#flush();
    this.#closed = true;
    if (this.#progressTimer) clearInterval(this.#progressTimer);
    this.#hub.closeAll(new Error("store closed"));
    await this.#compaction;
    this.#db.close();
  }

  async #compact(target: number): Promise<void> {
    this.#checkOpen();
    if (target > this.#revision) throw new FutureRevisionError(target, this.#revision);
    if (target > this.#compacted) {
      this.#setMetaStmt.run(target, "compact_revision");
      this.#compacted = target;
    }
    let done = this.#metaStmt.get("compact_progress") ?? 1;
    const pruneBatch = this.#db.transaction((from: number, to: number) => {
      this.#pruneSupersededStmt.run(from, to);
      this.#pruneTombstonesStmt.run(from, to);
      this.#setMetaStmt.run(to, "compact_progress");
    });
    while (done < this.#compacted) {
      if (this.#closed) return;
      const to = Math.min(done + this.#compactBatchSize, this.#compacted);
      pruneBatch(done, to);
      done = to;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    if (!this.#closed) this.#db.pragma("wal_checkpoint(TRUNCATE)");
  }

  /**
   * Group commit: writes arriving in the same turn of the event loop share one transaction
   * (each in its own savepoint, so one failing write leaves the others alone), which costs
   * one WAL append instead of one per write. A write resolves, and its watch event goes out,
   * only after the transaction committed; the revision advances only then.
   */
  #write(op: () => WatchEvent): Promise<WatchEvent> {
    return new Promise((resolve, reject) => {
      this.#pending.push({ op, resolve, reject });
      if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  #flush(): void {
    this.#flushScheduled = false;
    const batch = this.#pending;
    this.#pending = [];
    if (batch.length === 0) return;
    if (this.#closed) {
      for (const item of batch) item.reject(new Error("store is closed"));
      return;
    }
    const before = this.#revision;
    const outcomes: Array<{ event?: WatchEvent; error?: unknown }> = [];
    try {
      this.#inBatch(() => {
        for (const item of batch) {
          try {
            const event = this.#inTransaction(item.op);
            this.#revision = event.kv.modRevision;
            outcomes.push({ event });
          } catch (error) {
            outcomes.push({ error });
          }
        }
      });
    } catch (err) {
      this.#revision = before;
      for (const item of batch) item.reject(err);
      return;
    }
    batch.forEach((item, i) => {
      const outcome = outcomes[i]!;
      if (outcome.event) {
        this.#hub.publish(outcome.event);
        item.resolve(outcome.event);
      } else {
        item.reject(outcome.error);
      }
    });
  }

  #insert(
    id: number,
    name: string,
    created: number,
    deleted: number,
    createRevision: number,
    prevRevision: number,
    value: string | null,
    oldValue: string | null,
  ): void {
    try {
      this.#insertStmt.run(id, name, created, deleted, createRevision, prevRevision, value, oldValue);
    } catch (err) {
      // The unique (name, prev_revision) index caught a second write on top of the same
      // revision. With one writer this cannot happen; if it does, report it as the conflict it is.
      if (err instanceof Database.SqliteError && err.code === "SQLITE_CONSTRAINT_UNIQUE") {
        const current = this.#current(name);
        if (created || !current) throw new KeyExistsError(name);
        throw new RevisionMismatchError(name, current);
      }
      throw err;
    }
  }

  #current(key: string): KeyValue | undefined {
    const row = this.#headStmt.get(key);
    if (!row || row.deleted) return undefined;
    return { key, value: row.value ?? "", createRevision: row.create_revision, modRevision: row.id };
  }

  #readRevision(requested: number | undefined): number {
    if (!requested) return this.#revision;
    if (requested < this.#compacted) throw new CompactedError(requested, this.#compacted);
    if (requested > this.#revision) throw new FutureRevisionError(requested, this.#revision);
    return requested;
  }

  #checkOpen(): void {
    if (this.#closed) throw new Error("store is closed");
  }
}

function toEvent(row: LogRow): WatchEvent {
  if (row.deleted) {
    const prevKv: KeyValue = {
      key: row.name,
      value: row.old_value ?? "",
      createRevision: row.create_revision,
      modRevision: row.prev_revision,
    };
    return {
      type: "delete",
      kv: { key: row.name, value: "", createRevision: row.create_revision, modRevision: row.id },
      prevKv,
    };
  }
  const kv: KeyValue = {
    key: row.name,
    value: row.value ?? "",
    createRevision: row.create_revision,
    modRevision: row.id,
  };
  if (row.created) return { type: "put", kv };
  const prevKv: KeyValue = {
    key: row.name,
    value: row.old_value ?? "",
    createRevision: row.create_revision,
    modRevision: row.prev_revision,
  };
  return { type: "put", kv, prevKv };
}

/**
 * The exclusive upper bound of the keys starting with `prefix`: the prefix with its last
 * code point incremented. SQLite compares TEXT as UTF-8 bytes, which order like code points.
 */
export function rangeEnd(prefix: string): string | Buffer {
  const points = [...prefix];
  while (points.length > 0) {
    const last = points.pop()!.codePointAt(0)!;
    if (last < 0x10ffff) {
      const next = last === 0xd7ff ? 0xe000 : last + 1;
      return points.join("") + String.fromCodePoint(next);
    }
  }
  return NO_UPPER_BOUND;
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
