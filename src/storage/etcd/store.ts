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
import { EtcdError, EtcdGateway, type EtcdTls } from "./gateway.ts";
import {
  type Compare,
  decodeText,
  encode,
  int,
  prefixRangeEnd,
  type RangeRequest,
  type RangeResponse,
  type RequestOp,
  type TxnResponse,
  type WatchCreateRequest,
  type WatchResponse,
  type WatchStreamMessage,
  type WireEvent,
  type WireKeyValue,
} from "./wire.ts";

export interface EtcdStoreOptions {
  /** `host:port` of each member; calls fail over to the next one when a member is unreachable. */
  endpoints: string[];
  /**
   * Prepended to every key so that several control planes can share one etcd. A trailing
   * "/" is added when missing, so "/a" and "/ab" never see each other's keys.
   */
  prefix?: string;
  /** Speak https with these PEM texts. */
  tls?: EtcdTls;
  /** Abandon a unary call when its connection stays silent this long, in ms. Default 30000. */
  requestTimeoutMs?: number;
  /** Reconnects a watch tries (across members, with backoff) before it reports an error. Default 10. */
  watchReconnectAttempts?: number;
  /**
   * Recent events the shared watch stream keeps for watchers starting a little in the past.
   * Default 10000; 0 gives every watcher its own etcd stream.
   */
  sharedWatchBuffer?: number;
}

const COMPACTED = "required revision has been compacted";
const FUTURE = "required revision is a future revision";

/**
 * The etcd backend, over the v3 JSON gateway. Revisions are etcd's own: a key's
 * modRevision is its etcd mod_revision, and every write is one transaction comparing it.
 */
export class EtcdStore implements Store {
  readonly backend = "etcd";
  readonly prefix: string;
  #gateway: EtcdGateway;
  #prefixBytes: Buffer;
  #watches = new Set<EtcdWatch>();
  /** One etcd watch over every key, fanned out in process to watchers of recent revisions. */
  #feed: SharedFeed | undefined;
  #feedSize: number;
  #reconnectAttempts: number;
  /** A revision known to be at or below the compacted one; the search for it starts here. */
  #compactedFloor = 1;
  #closed = false;

  constructor(options: EtcdStoreOptions) {
    const prefix = options.prefix ?? "";
    this.prefix = prefix === "" || prefix.endsWith("/") ? prefix : `${prefix}/`;
    this.#prefixBytes = Buffer.from(this.prefix, "utf8");
    this.#reconnectAttempts = options.watchReconnectAttempts ?? 10;
    this.#feedSize = options.sharedWatchBuffer ?? 10_000;
    this.#gateway = new EtcdGateway({
      endpoints: options.endpoints,
      ...(options.tls !== undefined && { tls: options.tls }),
      ...(options.requestTimeoutMs !== undefined && { requestTimeoutMs: options.requestTimeoutMs }),
    });
  }

  async get(key: string, options: { revision?: number } = {}): Promise<GetResult> {
    const request: RangeRequest = { key: this.#from(key) };
    if (options.revision) request.revision = options.revision;
    const res = await this.#range(request);
    const wire = res.kvs?.[0];
    return { kv: wire && this.#kv(wire), revision: options.revision || int(res.header?.revision) };
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    const start = options.startKey && options.startKey > prefix ? options.startKey : prefix;
    const request: RangeRequest = { key: this.#from(start), range_end: this.#rangeEnd(prefix) };
    if (options.limit && options.limit > 0) request.limit = options.limit;
    if (options.revision) request.revision = options.revision;
    const res = await this.#range(request);
    const kvs = (res.kvs ?? []).map((kv) => this.#kv(kv));
    // `count` is every key in the requested range, the returned ones included.
    const remaining = res.more ? int(res.count) - kvs.length : 0;
    return { kvs, more: remaining > 0, remaining, revision: options.revision || int(res.header?.revision) };
  }

  async count(prefix: string): Promise<number> {
    const res = await this.#range({
      key: this.#from(prefix),
      range_end: this.#rangeEnd(prefix),
      count_only: true,
    });
    return int(res.count);
  }

  async create(key: string, value: string): Promise<KeyValue> {
    const k = this.#key(key);
    const res = await this.#txn(
      [{ key: k, target: "MOD", result: "EQUAL", mod_revision: 0 }],
      [{ request_put: { key: k, value: encode(Buffer.from(value, "utf8")) } }],
      k,
    );
    if (!res.succeeded) throw new KeyExistsError(key);
    const revision = int(res.header?.revision);
    return { key, value, createRevision: revision, modRevision: revision };
  }

  async update(key: string, value: string, expectedRevision: number): Promise<KeyValue> {
    const k = this.#key(key);
    // Reading the key back in the same transaction yields its create revision without a second round trip.
    const res = await this.#txn(
      [
        { key: k, target: "VERSION", result: "GREATER", version: 0 },
        { key: k, target: "MOD", result: "EQUAL", mod_revision: expectedRevision },
      ],
      [
        { request_put: { key: k, value: encode(Buffer.from(value, "utf8")) } },
        { request_range: { key: k, keys_only: true } },
      ],
      k,
    );
    if (!res.succeeded) throw this.#conflict(key, res);
    const written = res.responses?.[1]?.response_range?.kvs?.[0];
    return {
      key,
      value,
      createRevision: int(written?.create_revision),
      modRevision: int(res.header?.revision),
    };
  }

  async delete(key: string, expectedRevision?: number): Promise<KeyValue> {
    const k = this.#key(key);
    const compare: Compare[] = [{ key: k, target: "VERSION", result: "GREATER", version: 0 }];
    if (expectedRevision !== undefined) {
      compare.push({ key: k, target: "MOD", result: "EQUAL", mod_revision: expectedRevision });
    }
    const res = await this.#txn(compare, [{ request_delete_range: { key: k, prev_kv: true } }], k);
    if (!res.succeeded) throw this.#conflict(key, res);
    const prev = res.responses?.[0]?.response_delete_range?.prev_kvs?.[0];
    if (!prev) throw new KeyNotFoundError(key);
    return { ...this.#kv(prev), modRevision: int(res.header?.revision) };
  }

  watch(prefix: string, afterRevision: number, handlers: WatchHandlers): Watch {
    if (this.#closed) {
      queueMicrotask(() => handlers.onError(new Error("store is closed")));
      return { close() {} };
    }
    // Watchers of recent revisions share one etcd stream; the rest (old history, or before
    // the shared stream is up) get their own, which replays history from etcd.
    const feed = this.#sharedFeed();
    if (feed?.covers(afterRevision)) return feed.add(prefix, afterRevision, handlers);
    return this.#ownWatch(prefix, afterRevision, handlers);
  }

  /** Starts the shared stream on first use; undefined until it knows where it starts. */
  #sharedFeed(): SharedFeed | undefined {
    if (this.#feedSize <= 0) return undefined;
    if (!this.#feed) {
      const feed = new SharedFeed(this.#feedSize);
      this.#feed = feed;
      this.currentRevision().then(
        (revision) => {
          if (this.#closed || this.#feed !== feed) return;
          feed.begin(
            revision,
            this.#ownWatch("", revision, {
              onEvents: (events) => feed.publish(events),
              onProgress: (r) => feed.progress(r),
              onError: (err) => {
                // The stream is gone for good: its watchers hear it; the next watch starts afresh.
                if (this.#feed === feed) this.#feed = undefined;
                feed.fail(err);
              },
            }),
          );
        },
        () => {
          if (this.#feed === feed) this.#feed = undefined;
        },
      );
    }
    return this.#feed.ready ? this.#feed : undefined;
  }

  #ownWatch(prefix: string, afterRevision: number, handlers: WatchHandlers): Watch {
    const watch = new EtcdWatch({
      gateway: this.#gateway,
      request: {
        key: this.#from(prefix),
        range_end: this.#rangeEnd(prefix),
        progress_notify: true,
        prev_kv: true,
      },
      afterRevision,
      handlers,
      decode: (e) => this.#event(e),
      reconnectAttempts: this.#reconnectAttempts,
      onDone: (w) => this.#watches.delete(w),
    });
    this.#watches.add(watch);
    watch.start();
    return watch;
  }

  async currentRevision(): Promise<number> {
    const res = await this.#range({ key: this.#from(""), count_only: true });
    return int(res.header?.revision);
  }

  /**
   * etcd has no call that reports its compacted revision, but a read below it fails: search
   * for the oldest readable revision (a handful of count-only reads of one key).
   */
  async compactedRevision(): Promise<number> {
    this.#checkOpen();
    const probe = this.#from("");
    const readable = async (revision: number): Promise<boolean> => {
      try {
        await this.#gateway.call("/v3/kv/range", { key: probe, revision, count_only: true }, true);
        return true;
      } catch (err) {
        if (err instanceof EtcdError && err.message.includes(COMPACTED)) return false;
        throw err;
      }
    };
    let low = this.#compactedFloor;
    if (await readable(low)) return low;
    let high = await this.currentRevision();
    while (high - low > 1) {
      const mid = Math.floor((low + high) / 2);
      if (await readable(mid)) high = mid;
      else low = mid;
    }
    this.#compactedFloor = high;
    return high;
  }

  async compact(revision: number): Promise<void> {
    this.#checkOpen();
    try {
      await this.#gateway.call("/v3/kv/compaction", { revision }, false);
      this.#compactedFloor = Math.max(this.#compactedFloor, revision);
    } catch (err) {
      if (!(err instanceof EtcdError)) throw err;
      if (err.message.includes(COMPACTED)) return;
      if (err.message.includes(FUTURE)) throw new FutureRevisionError(revision, await this.currentRevision());
      throw err;
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#feed?.fail(new Error("store closed"));
    this.#feed = undefined;
    for (const w of this.#watches) w.fail(new Error("store closed"));
    this.#watches.clear();
    this.#gateway.close();
  }

  async #range(request: RangeRequest): Promise<RangeResponse> {
    this.#checkOpen();
    try {
      return await this.#gateway.call<RangeResponse>("/v3/kv/range", request, true);
    } catch (err) {
      const requested = request.revision ?? 0;
      if (err instanceof EtcdError && err.message.includes(COMPACTED)) {
        throw new CompactedError(requested, await this.compactedRevision());
      }
      if (err instanceof EtcdError && err.message.includes(FUTURE)) {
        throw new FutureRevisionError(requested, await this.currentRevision());
      }
      throw err;
    }
  }

  /** A transaction whose failure branch reads `key`, so a lost compare explains itself. */
  #txn(compare: Compare[], success: RequestOp[], key: string): Promise<TxnResponse> {
    this.#checkOpen();
    return this.#gateway.call<TxnResponse>(
      "/v3/kv/txn",
      { compare, success, failure: [{ request_range: { key } }] },
      false,
    );
  }

  #conflict(key: string, res: TxnResponse): Error {
    const current = res.responses?.[0]?.response_range?.kvs?.[0];
    return current ? new RevisionMismatchError(key, this.#kv(current)) : new KeyNotFoundError(key);
  }

  /** The etcd key a write goes to. */
  #key(key: string): string {
    if (key === "" && this.#prefixBytes.length === 0) throw new Error("etcd: keys must not be empty");
    return encode(Buffer.concat([this.#prefixBytes, Buffer.from(key, "utf8")]));
  }

  /** Where a read starts: etcd refuses an empty key, and "\0" is the smallest non-empty one. */
  #from(key: string): string {
    const bytes = Buffer.concat([this.#prefixBytes, Buffer.from(key, "utf8")]);
    return encode(bytes.length > 0 ? bytes : Buffer.from([0]));
  }

  #rangeEnd(prefix: string): string {
    return encode(prefixRangeEnd(Buffer.concat([this.#prefixBytes, Buffer.from(prefix, "utf8")])));
  }

  #kv(wire: WireKeyValue): KeyValue {
    const full = Buffer.from(wire.key ?? "", "base64");
    return {
      key: full.subarray(this.#prefixBytes.length).toString("utf8"),
      value: decodeText(wire.value),
      createRevision: int(wire.create_revision),
      modRevision: int(wire.mod_revision),
    };
  }

  #event(wire: WireEvent): WatchEvent {
    const kv = this.#kv(wire.kv ?? {});
    const prevKv = wire.prev_kv ? this.#kv(wire.prev_kv) : undefined;
    if (wire.type === "DELETE") {
      // etcd's deletion record carries only the key and revision; the rest comes from prev_kv.
      kv.createRevision = prevKv?.createRevision ?? 0;
      return prevKv ? { type: "delete", kv, prevKv } : { type: "delete", kv };
    }
    return prevKv ? { type: "put", kv, prevKv } : { type: "put", kv };
  }

  #checkOpen(): void {
    if (this.#closed) throw new Error("store is closed");
  }
}

interface EtcdWatchOptions {
  gateway: EtcdGateway;
  request: Omit<WatchCreateRequest, "start_revision">;
  afterRevision: number;
  handlers: WatchHandlers;
  decode: (e: WireEvent) => WatchEvent;
  reconnectAttempts: number;
  onDone: (w: EtcdWatch) => void;
}

/**
 * The shared stream's in-process side: recent events kept for watchers that start a little
 * in the past, live events fanned out through a WatchHub.
 */
class SharedFeed {
  #hub = new WatchHub();
  #buffer: WatchEvent[] = [];
  #limit: number;
  /** Every event after this revision is in the buffer or yet to come. */
  #from = Number.POSITIVE_INFINITY;
  #source: Watch | undefined;
  ready = false;

  constructor(limit: number) {
    this.#limit = limit;
  }

  begin(revision: number, source: Watch): void {
    this.#from = revision;
    this.#source = source;
    this.ready = true;
  }

  covers(afterRevision: number): boolean {
    return this.ready && afterRevision >= this.#from;
  }

  add(prefix: string, afterRevision: number, handlers: WatchHandlers): Watch {
    const history = this.#buffer.filter(
      (e) => e.kv.modRevision > afterRevision && e.kv.key.startsWith(prefix),
    );
    return this.#hub.add(prefix, afterRevision, history, handlers);
  }

  publish(events: WatchEvent[]): void {
    for (const e of events) {
      this.#buffer.push(e);
      this.#hub.publish(e);
    }
    const excess = this.#buffer.length - this.#limit;
    if (excess > 0) {
      this.#from = this.#buffer[excess - 1]!.kv.modRevision;
      this.#buffer.splice(0, excess);
    }
  }

  progress(revision: number): void {
    this.#hub.progress(revision);
  }

  fail(err: Error): void {
    this.ready = false;
    this.#source?.close();
    this.#hub.closeAll(err);
  }
}

/**
 * One watch stream, resumed from the last delivered revision on another member (with
 * backoff) when the connection breaks, and ended with `onError` on compaction, cancellation
 * or when reconnecting keeps failing.
 */
class EtcdWatch implements Watch {
  #o: EtcdWatchOptions;
  /** Every event up to here has been delivered (0: the watch has not learned "now" yet). */
  #delivered: number;
  #endpoint: number;
  #failures = 0;
  #stream: { close(): void } | undefined;
  #timer: NodeJS.Timeout | undefined;
  #done = false;

  constructor(options: EtcdWatchOptions) {
    this.#o = options;
    this.#delivered = options.afterRevision;
    this.#endpoint = options.gateway.preferred;
  }

  start(): void {
    if (this.#done) return;
    const create: WatchCreateRequest = { ...this.#o.request };
    if (this.#delivered > 0) create.start_revision = this.#delivered + 1;
    this.#stream = this.#o.gateway.stream(
      this.#endpoint,
      "/v3/watch",
      { create_request: create },
      {
        onMessage: (msg) => this.#onMessage(msg as WatchStreamMessage),
        onEnd: (err) => this.#onEnd(err),
      },
    );
  }

  close(): void {
    this.#finish();
  }

  /** Ends the watch with an error (once). */
  fail(err: Error): void {
    if (this.#done) return;
    this.#finish();
    this.#o.handlers.onError(err);
  }

  #finish(): void {
    this.#done = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#stream?.close();
    this.#o.onDone(this);
  }

  #onMessage(msg: WatchStreamMessage): void {
    if (this.#done) return;
    if (msg.error) {
      const err = new EtcdError(
        `etcd: ${msg.error.message ?? "watch failed"}`,
        msg.error.grpc_code ?? 0,
        200,
      );
      if (err.code === 14) {
        this.#stream?.close();
        this.#onEnd(err);
      } else {
        this.fail(err);
      }
      return;
    }
    const res: WatchResponse = msg.result ?? {};
    const revision = int(res.header?.revision);
    if (res.compact_revision) {
      this.fail(new CompactedError(this.#delivered, int(res.compact_revision)));
      return;
    }
    if (res.canceled) {
      this.fail(new Error(`etcd canceled the watch: ${res.cancel_reason || "no reason given"}`));
      return;
    }
    if (res.created) {
      this.#failures = 0;
      // A watch "from now" learns what now is, so that a reconnect resumes from there.
      if (this.#delivered === 0) this.#delivered = revision;
      return;
    }
    const events = (res.events ?? []).map(this.#o.decode).filter((e) => e.kv.modRevision > this.#delivered);
    if (events.length > 0) {
      this.#delivered = events[events.length - 1]!.kv.modRevision;
      try {
        this.#o.handlers.onEvents(events);
      } catch (err) {
        this.fail(err instanceof Error ? err : new Error(String(err)));
      }
      return;
    }
    if (!res.events?.length && revision > this.#delivered) {
      // A progress notice: etcd sends it only once the watcher has caught up to `revision`.
      this.#delivered = revision;
      this.#o.handlers.onProgress?.(revision);
    }
  }

  #onEnd(err: Error | undefined): void {
    if (this.#done) return;
    this.#stream = undefined;
    if (err instanceof EtcdError && err.code !== 14) {
      this.fail(err);
      return;
    }
    if (this.#failures >= this.#o.reconnectAttempts) {
      this.fail(new Error(`etcd watch lost: ${err?.message ?? "stream ended"}`, { cause: err }));
      return;
    }
    const delay = Math.min(50 * 2 ** this.#failures, 2000);
    this.#failures++;
    this.#endpoint = (this.#endpoint + 1) % this.#o.gateway.endpoints.length;
    this.#timer = setTimeout(() => this.start(), delay);
  }
}
