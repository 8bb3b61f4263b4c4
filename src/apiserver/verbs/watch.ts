/**
 * watch: initial state (for resourceVersion unset/"0" or sendInitialEvents), then every
 * change after a revision, filtered by selectors with Kubernetes' transitions (an object
 * leaving the selection is DELETED), bookmarks, timeouts and 410 for compacted history.
 */
import { apiVersionOf, type StoredObject } from "../../api/meta.ts";
import { expired, invalid, type Status } from "../../machinery/errors.ts";
import { CompactedError, type KeyValue, type Watch, type WatchEvent } from "../../storage/store.ts";
import type { ServerContext } from "../context.ts";
import { decodeStored } from "../objects.ts";
import { gvrKey, type ResourceType, storagePrefix } from "../resource-type.ts";
import { parseSelection, type Selection } from "../selection.ts";
import { listObjects, parseResourceVersion, waitForRevision } from "./read.ts";

export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

export interface ApiWatchEvent {
  type: WatchEventType;
  object: StoredObject | Status;
}

export interface WatchParams {
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
  timeoutSeconds?: number;
  allowWatchBookmarks?: boolean;
  sendInitialEvents?: boolean;
}

export interface WatchSink {
  /** Events in order. Objects are shared between watchers: never mutate them. */
  send(events: ApiWatchEvent[]): void;
  /** The watch is over (timeout, error event sent, or stopped). */
  close(): void;
}

export interface ApiWatch {
  stop(): void;
}

export interface WatchSettings {
  /** How often quiet watches get a bookmark (ms). */
  bookmarkIntervalMs: number;
  /** Watch length when the client gives no timeoutSeconds: random in [min, 2×min) seconds. */
  minRequestTimeoutSeconds: number;
}

export const DEFAULT_WATCH_SETTINGS: WatchSettings = {
  bookmarkIntervalMs: 60_000,
  minRequestTimeoutSeconds: 1800,
};

export const INITIAL_EVENTS_END_ANNOTATION = "k8s.io/initial-events-end";

/** Decoded objects per store event and served version: fan-out decodes once per event. */
const decoded = new WeakMap<KeyValue, Map<string, StoredObject>>();

function decodeShared(rt: ResourceType, kv: KeyValue, revision: number): StoredObject {
  const key = `${gvrKey(rt.group, rt.version, rt.plural)}@${revision}`;
  let perType = decoded.get(kv);
  if (!perType) {
    perType = new Map();
    decoded.set(kv, perType);
  }
  let obj = perType.get(key);
  if (!obj) {
    obj = decodeStored(rt, kv);
    obj.metadata.resourceVersion = String(revision);
    perType.set(key, obj);
  }
  return obj;
}

function watchOptionsInvalid(field: string, value: unknown, detail: string): never {
  throw invalid({ group: "meta.k8s.io", kind: "ListOptions" }, "", [
    { type: "FieldValueForbidden", field, value, detail },
  ]);
}

/**
 * Starts a watch. Validation problems throw before anything is sent; problems after the
 * start arrive as an ERROR event followed by close.
 */
export async function startWatch(
  server: ServerContext,
  rt: ResourceType,
  namespace: string | undefined,
  params: WatchParams,
  sink: WatchSink,
  settings: WatchSettings = DEFAULT_WATCH_SETTINGS,
): Promise<ApiWatch> {
  const selection = parseSelection(rt, params.labelSelector, params.fieldSelector);
  const match = params.resourceVersionMatch ?? "";
  if (params.sendInitialEvents !== undefined) {
    if (match !== "NotOlderThan") {
      watchOptionsInvalid(
        "sendInitialEvents",
        params.sendInitialEvents,
        "sendInitialEvents is forbidden for watch unless resourceVersionMatch is set to NotOlderThan",
      );
    }
  } else if (match) {
    watchOptionsInvalid(
      "resourceVersionMatch",
      match,
      "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
    );
  }
  const rv = parseResourceVersion(params.resourceVersion);
  const sendInitial = params.sendInitialEvents ?? (rv === undefined || rv === 0);
  if (rv !== undefined && rv > 0) await waitForRevision(server, rv);
  if (!sendInitial && rv !== undefined) {
    const compacted = await server.store.compactedRevision();
    if (rv < compacted) return errorWatch(sink, rv, compacted);
  }

  const state = new WatchState(server, rt, selection, params, sink, settings);
  let from = rv ?? 0;
  const initial: ApiWatchEvent[] = [];
  if (sendInitial) {
    const page = await listObjects(server, rt, namespace, {
      ...(params.labelSelector ? { labelSelector: params.labelSelector } : {}),
      ...(params.fieldSelector ? { fieldSelector: params.fieldSelector } : {}),
    });
    for (const obj of page.items) initial.push({ type: "ADDED", object: obj });
    from = Number(page.resourceVersion);
    if (params.sendInitialEvents && params.allowWatchBookmarks) {
      initial.push({ type: "BOOKMARK", object: state.bookmark(from, true) });
    }
  }
  state.lastRevision = from;
  if (initial.length > 0) sink.send(initial);
  state.start(storagePrefix(rt, namespace), from);
  return { stop: () => state.stop(false) };
}

function errorWatch(sink: WatchSink, requested: number, compacted: number): ApiWatch {
  const status = expired(`too old resource version: ${requested} (${compacted})`).status;
  queueMicrotask(() => {
    sink.send([{ type: "ERROR", object: status }]);
    sink.close();
  });
  return { stop() {} };
}

class WatchState {
  lastRevision = 0;
  #watch: Watch | undefined;
  #timers: NodeJS.Timeout[] = [];
  #stopped = false;
  #server: ServerContext;
  #rt: ResourceType;
  #selection: Selection;
  #params: WatchParams;
  #sink: WatchSink;
  #settings: WatchSettings;

  constructor(
    server: ServerContext,
    rt: ResourceType,
    selection: Selection,
    params: WatchParams,
    sink: WatchSink,
    settings: WatchSettings,
  ) {
    this.#server = server;
    this.#rt = rt;
    this.#selection = selection;
    this.#params = params;
    this.#sink = sink;
    this.#settings = settings;
  }

  bookmark(revision: number, initialEventsEnd = false): StoredObject {
    // A bookmark names no object: only its resourceVersion (and annotations) mean anything.
    const metadata = { resourceVersion: String(revision) } as StoredObject["metadata"];
    if (initialEventsEnd) metadata.annotations = { [INITIAL_EVENTS_END_ANNOTATION]: "true" };
    return { kind: this.#rt.kind, apiVersion: apiVersionOf(this.#rt.group, this.#rt.version), metadata };
  }

  start(prefix: string, from: number): void {
    this.#watch = this.#server.store.watch(prefix, from, {
      onEvents: (events) => this.#onEvents(events),
      onError: (err) => this.#onError(err),
      onProgress: (revision) => {
        if (revision > this.lastRevision) this.lastRevision = revision;
      },
    });
    const timeoutSeconds =
      this.#params.timeoutSeconds && this.#params.timeoutSeconds > 0
        ? this.#params.timeoutSeconds
        : this.#settings.minRequestTimeoutSeconds * (1 + Math.random());
    const timeoutMs = timeoutSeconds * 1000;
    if (this.#params.allowWatchBookmarks) {
      const interval = setInterval(() => this.#sendBookmark(), this.#settings.bookmarkIntervalMs);
      this.#timers.push(interval);
      // One last bookmark shortly before the deadline, so the client resumes from a fresh revision.
      if (timeoutMs > 2000) this.#timers.push(setTimeout(() => this.#sendBookmark(), timeoutMs - 2000));
    }
    this.#timers.push(setTimeout(() => this.stop(true), timeoutMs));
    for (const t of this.#timers) t.unref();
  }

  stop(notify: boolean): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#watch?.close();
    for (const t of this.#timers) clearTimeout(t);
    if (notify) this.#sink.close();
  }

  #sendBookmark(): void {
    if (this.#stopped) return;
    this.#sink.send([{ type: "BOOKMARK", object: this.bookmark(this.lastRevision) }]);
  }

  #onError(err: Error): void {
    if (this.#stopped) return;
    const status =
      err instanceof CompactedError
        ? expired(`too old resource version: ${err.requested} (${err.compacted})`).status
        : ({
            kind: "Status",
            apiVersion: "v1",
            metadata: {},
            status: "Failure",
            message: err.message,
            reason: "InternalError",
            code: 500,
          } satisfies Status);
    this.#sink.send([{ type: "ERROR", object: status }]);
    this.stop(true);
  }

  #onEvents(events: WatchEvent[]): void {
    if (this.#stopped) return;
    const out: ApiWatchEvent[] = [];
    const rt = this.#rt;
    const sel = this.#selection;
    for (const e of events) {
      const revision = e.kv.modRevision;
      this.lastRevision = revision;
      if (e.type === "delete") {
        if (!e.prevKv) continue;
        const old = decodeShared(rt, e.prevKv, revision);
        if (sel.test(old)) out.push({ type: "DELETED", object: old });
        continue;
      }
      const obj = decodeShared(rt, e.kv, revision);
      const nowMatches = sel.test(obj);
      if (!e.prevKv) {
        if (nowMatches) out.push({ type: "ADDED", object: obj });
        continue;
      }
      if (sel.everything) {
        out.push({ type: "MODIFIED", object: obj });
        continue;
      }
      const old = decodeShared(rt, e.prevKv, revision);
      const wasMatching = sel.test(old);
      if (nowMatches && wasMatching) out.push({ type: "MODIFIED", object: obj });
      else if (nowMatches) out.push({ type: "ADDED", object: obj });
      else if (wasMatching) out.push({ type: "DELETED", object: old });
    }
    if (out.length > 0) this.#sink.send(out);
  }
}
