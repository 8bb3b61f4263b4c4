/**
 * The proxy's cache plugin: get, list and watch of a registered kind answered from the fleet
 * view, as upstream's multi-cluster cache answers them. Objects carry the
 * `resource.karmada.io/cached-from-cluster` annotation; a get's resourceVersion and every
 * watch event's are multi-cluster ones; a list's items keep their member's own. Lists walk
 * the clusters in name order and `limit`/`continue` span them with upstream's token.
 *
 * Unlike upstream, lists are served from the cache whatever their resourceVersion (upstream
 * sends any list but `resourceVersion=0` to the members); the cache follows each member's
 * watch, so it trails the member only by the watch's delay, as kube-apiserver's own
 * consistent reads from its watch cache do.
 */
import type { StoredObject } from "../api/meta.ts";
import { partialMetadata } from "../apiserver/codec.ts";
import type { ServerContext } from "../apiserver/context.ts";
import { type ApiResponse, intParam } from "../apiserver/handler.ts";
import { responseShape } from "../apiserver/negotiation.ts";
import type { ResourceRequest } from "../apiserver/request-info.ts";
import { parseQueryBool } from "../apiserver/request-info.ts";
import type { ResourceType } from "../apiserver/resource-type.ts";
import { parseSelection, type Selection } from "../apiserver/selection.ts";
import { tableOf, watchEventTable } from "../apiserver/tables.ts";
import type { ApiWatchEvent, WatchSink } from "../apiserver/verbs/watch.ts";
import { badRequest, conflict, notFound } from "../machinery/errors.ts";
import type { FleetView } from "./fleet-view.ts";
import type { CachedEntry, CacheEvent, ResourceCache } from "./resource-cache.ts";
import { decodeContinue, encodeContinue, MultiClusterVersion } from "./resource-version.ts";

const JSON_TYPE = "application/json";

export interface CachedReadDeps {
  server: ServerContext;
  view: FleetView;
  /** Watch length when the client names none, as the API server's own. */
  minRequestTimeoutSeconds: number;
}

/** An entry as a selector sees it: labels and names without decoding, other fields decoded. */
function selects(sel: Selection, entry: CachedEntry): boolean {
  if (sel.everything) return true;
  if (sel.fields.every((f) => f.field === "metadata.name" || f.field === "metadata.namespace")) {
    const metadata = {
      name: entry.name,
      ...(entry.namespace ? { namespace: entry.namespace } : {}),
      ...(entry.labels ? { labels: entry.labels as Record<string, string> } : {}),
    };
    return sel.test({ metadata } as StoredObject);
  }
  return sel.test(JSON.parse(entry.json) as StoredObject);
}

/**
 * What a selective watcher sees of an event, as kube-apiserver's watch cache tells it: an
 * object that starts matching is ADDED, one that stops is DELETED, one that never did is nothing.
 */
function selectedType(sel: Selection, e: CacheEvent): CacheEvent["type"] | undefined {
  const now = selects(sel, e.entry);
  if (e.type !== "MODIFIED" || !e.previous || sel.everything) return now ? e.type : undefined;
  const before = selects(sel, e.previous);
  if (now && before) return "MODIFIED";
  if (now) return "ADDED";
  return before ? "DELETED" : undefined;
}

/** A `<Kind>List` made of cached texts, spliced: a list costs no decoding. */
export function listText(rt: ResourceType, metadata: object, items: readonly CachedEntry[]): string {
  const apiVersion = rt.group ? `${rt.group}/${rt.version}` : rt.version;
  return `{"kind":${JSON.stringify(`${rt.kind}List`)},"apiVersion":${JSON.stringify(apiVersion)},"metadata":${JSON.stringify(metadata)},"items":[${items.map((e) => e.json).join(",")}]}`;
}

export function gvrOf(rt: ResourceType): { group: string; version: string; resource: string } {
  return { group: rt.group, version: rt.version, resource: rt.plural };
}

export function cachedGet(
  deps: CachedReadDeps,
  rt: ResourceType,
  info: ResourceRequest,
  q: URLSearchParams,
  accept: string | undefined,
): ApiResponse {
  const name = info.name!;
  const hits: Array<{ cache: ResourceCache; entry: CachedEntry }> = [];
  for (const cache of deps.view.cachesOf(gvrOf(rt))) {
    if (!cache.covers(info.namespace)) continue;
    const entry = cache.get(info.namespace, name);
    if (entry) hits.push({ cache, entry });
  }
  const ref = { group: rt.group, resource: rt.plural };
  if (hits.length === 0) throw notFound(ref, name);
  if (hits.length > 1) {
    const clusters = hits.map((h) => h.cache.cluster).join(", ");
    throw conflict(ref, name, `ambiguous objects in clusters [${clusters}]`);
  }
  const { cache, entry } = hits[0]!;
  const obj = JSON.parse(entry.json) as StoredObject;
  const rv = MultiClusterVersion.empty();
  rv.set(cache.cluster, entry.rv);
  obj.metadata.resourceVersion = rv.toString();
  const shape = responseShape(accept);
  if (shape === "table") {
    const table = tableOf(deps.server, rt, [obj], q, { resourceVersion: obj.metadata.resourceVersion });
    return { status: 200, headers: { "Content-Type": JSON_TYPE }, body: table };
  }
  if (shape === "partial-metadata")
    return { status: 200, headers: { "Content-Type": JSON_TYPE }, body: partialMetadata(obj) };
  return { status: 200, headers: { "Content-Type": JSON_TYPE }, text: JSON.stringify(obj) };
}

interface Page {
  items: CachedEntry[];
  /** Where the next page starts, when the limit cut this one short. */
  next: { cluster: string; continue: string } | undefined;
  /** Every cluster's version at this page. */
  resourceVersion: string;
}

/** One page: clusters in name order, from the token's cluster and key on, at most `limit` items. */
function collectPage(
  caches: ResourceCache[],
  namespace: string | undefined,
  sel: Selection,
  limit: number,
  requested: MultiClusterVersion,
  resume: { cluster: string; continue: string } | undefined,
): Page {
  const pageRv = requested.clone();
  const items: CachedEntry[] = [];
  let next: Page["next"];
  let i = resume ? caches.findIndex((c) => c.cluster >= resume.cluster) : 0;
  if (i < 0) i = caches.length;
  for (; i < caches.length; i++) {
    const cache = caches[i]!;
    pageRv.set(cache.cluster, cache.resourceVersion);
    if (!cache.covers(namespace)) continue;
    const after = resume?.cluster === cache.cluster && resume.continue ? resume.continue : undefined;
    const matching = cache.list(namespace, after).filter((e) => selects(sel, e));
    const taken = limit > 0 ? matching.slice(0, limit - items.length) : matching;
    items.push(...taken);
    if (limit > 0 && items.length >= limit) {
      if (taken.length < matching.length) next = { cluster: cache.cluster, continue: taken.at(-1)!.key };
      else if (i + 1 < caches.length) next = { cluster: caches[i + 1]!.cluster, continue: "" };
      break;
    }
  }
  // Every cluster's version, also those this page did not reach, so a watch can start from it.
  for (const cache of caches)
    if (!pageRv.has(cache.cluster)) pageRv.set(cache.cluster, cache.resourceVersion);
  return { items, next, resourceVersion: pageRv.toString() };
}

export function cachedList(
  deps: CachedReadDeps,
  rt: ResourceType,
  info: ResourceRequest,
  q: URLSearchParams,
  accept: string | undefined,
): ApiResponse {
  const sel = parseSelection(rt, q.get("labelSelector") ?? undefined, q.get("fieldSelector") ?? undefined);
  const token = q.get("continue");
  const resume = token ? decodeContinue(token) : undefined;
  if (token && !resume) throw badRequest("continue key is not valid: the token was not issued by this proxy");
  const requested = MultiClusterVersion.parse(resume ? resume.rv : (q.get("resourceVersion") ?? ""));
  const caches = deps.view.cachesOf(gvrOf(rt));
  const page = collectPage(caches, info.namespace, sel, intParam(q, "limit") ?? 0, requested, resume);
  const cont = page.next ? encodeContinue({ rv: page.resourceVersion, ...page.next }) : "";
  const meta = { resourceVersion: page.resourceVersion, ...(cont ? { continue: cont } : {}) };
  const shape = responseShape(accept);
  if (shape === "table" || shape === "partial-metadata" || shape === "partial-metadata-list") {
    const objects = page.items.map((e) => JSON.parse(e.json) as StoredObject);
    const body =
      shape === "table"
        ? tableOf(deps.server, rt, objects, q, meta)
        : {
            kind: "PartialObjectMetadataList",
            apiVersion: "meta.k8s.io/v1",
            metadata: meta,
            items: objects.map(partialMetadata),
          };
    return { status: 200, headers: { "Content-Type": JSON_TYPE }, body };
  }
  return { status: 200, headers: { "Content-Type": JSON_TYPE }, text: listText(rt, meta, page.items) };
}

/** Ends every open proxy watch (a cluster joined the view: clients relist). */
export class WatchRegistry {
  #open = new Set<() => void>();
  add(close: () => void): () => void {
    this.#open.add(close);
    return () => this.#open.delete(close);
  }
  closeAll(): void {
    for (const close of [...this.#open]) close();
  }
  get size(): number {
    return this.#open.size;
  }
}

export function cachedWatch(
  deps: CachedReadDeps,
  watches: WatchRegistry,
  rt: ResourceType,
  info: ResourceRequest,
  q: URLSearchParams,
  accept: string | undefined,
): ApiResponse {
  const sel = parseSelection(rt, q.get("labelSelector") ?? undefined, q.get("fieldSelector") ?? undefined);
  const timeout = intParam(q, "timeoutSeconds");
  const bookmarksParam = q.get("allowWatchBookmarks");
  const bookmarks = bookmarksParam !== null && parseQueryBool(bookmarksParam);
  const requested = MultiClusterVersion.parse(q.get("resourceVersion") ?? "");
  const shape = responseShape(accept);
  const apiVersion = rt.group ? `${rt.group}/${rt.version}` : rt.version;
  const start = async (sink: WatchSink) => {
    const running = requested.clone();
    const stops: Array<() => void> = [];
    let closed = false;
    const close = (): void => {
      if (closed) return;
      closed = true;
      for (const s of stops) s();
      sink.close();
    };
    const toEvents = (cluster: string, events: CacheEvent[]): ApiWatchEvent[] => {
      const out: ApiWatchEvent[] = [];
      for (const e of events) {
        running.set(cluster, e.rv);
        const type = selectedType(sel, e);
        if (!type) continue;
        const obj = JSON.parse(e.entry.json) as StoredObject;
        obj.metadata.resourceVersion = running.toString();
        out.push({ type, object: obj });
      }
      return out;
    };
    const caches = deps.view.cachesOf(gvrOf(rt)).filter((c) => c.covers(info.namespace));
    try {
      for (const cache of caches) {
        const handle = cache.watch(requested.get(cache.cluster), {
          events: (events) => {
            if (closed) return;
            const out = toEvents(
              cache.cluster,
              info.namespace === undefined
                ? events
                : events.filter((e) => e.entry.namespace === info.namespace),
            );
            if (out.length > 0) sink.send(out);
          },
          progress: (rv) => {
            if (closed || !rv) return;
            running.set(cache.cluster, rv);
            if (bookmarks) {
              sink.send([
                {
                  type: "BOOKMARK",
                  object: {
                    kind: rt.kind,
                    apiVersion,
                    metadata: { resourceVersion: running.toString() },
                  } as StoredObject,
                },
              ]);
            }
          },
          closed: close,
        });
        stops.push(() => handle.stop());
      }
    } catch (err) {
      for (const s of stops) s();
      throw err;
    }
    stops.push(watches.add(close));
    const seconds = timeout ?? deps.minRequestTimeoutSeconds * (1 + Math.random());
    const timer = setTimeout(close, seconds * 1000);
    timer.unref();
    stops.push(() => clearTimeout(timer));
    // Upstream's merged watch with no source ends at once.
    if (caches.length === 0) queueMicrotask(close);
    return { stop: close };
  };
  return {
    status: 200,
    headers: { "Content-Type": JSON_TYPE },
    watch: {
      start,
      render: (event, first) => {
        if (event.type === "ERROR" || event.type === "BOOKMARK") return event;
        if (shape === "table")
          return {
            type: event.type,
            object: watchEventTable(deps.server, rt, event.object as StoredObject, q, first),
          };
        if (shape === "partial-metadata" || shape === "partial-metadata-list")
          return { type: event.type, object: partialMetadata(event.object as StoredObject) };
        return event;
      },
    },
  };
}
