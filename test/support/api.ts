/**
 * For tests: drive an ApiServer's handler in process with plain objects, and collect watch
 * events without sockets.
 */
import type { StoredObject } from "../../src/api/meta.ts";
import { SYSTEM_ADMIN } from "../../src/apiserver/context.ts";
import type { ApiResponse } from "../../src/apiserver/handler.ts";
import { ApiServer, type ApiServerOptions } from "../../src/apiserver/server.ts";
import type { ApiWatch, ApiWatchEvent } from "../../src/apiserver/verbs/watch.ts";
import { MemoryStore } from "../../src/storage/memory/store.ts";

export interface Call {
  status: number;
  headers: Record<string, string>;
  /** The response body; `metadata` covers both object and list metadata. */
  body: Omit<StoredObject, "metadata"> & {
    metadata: StoredObject["metadata"] & { continue?: string; remainingItemCount?: number };
  } & Record<string, unknown>;
}

export interface TestApi {
  server: ApiServer;
  call(method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<Call>;
  watch(url: string, headers?: Record<string, string>): Promise<WatchCollector>;
  close(): Promise<void>;
}

export interface WatchCollector {
  events: unknown[];
  closed: boolean;
  stop(): void;
  /** Waits until at least `n` events arrived (bounded). */
  next(n: number): Promise<unknown[]>;
}

export async function startTestApi(opts: Partial<ApiServerOptions> = {}): Promise<TestApi> {
  const store = opts.store ?? new MemoryStore();
  const server = await ApiServer.start({ compactionIntervalMs: 0, ...opts, store });
  const raw = async (
    method: string,
    url: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiResponse> => {
    const u = new URL(url, "http://test");
    const buf =
      body === undefined
        ? undefined
        : Buffer.isBuffer(body)
          ? body
          : Buffer.from(typeof body === "string" ? body : JSON.stringify(body));
    return server.handler.handle({
      method,
      path: u.pathname,
      query: u.searchParams,
      headers: { "content-type": "application/json", ...headers },
      ...(buf ? { body: buf } : {}),
      user: SYSTEM_ADMIN,
    });
  };
  return {
    server,
    async call(method, url, body, headers) {
      const r = await raw(method, url, body, headers);
      const parsed =
        r.text !== undefined ? (r.text ? JSON.parse(r.text) : {}) : JSON.parse(JSON.stringify(r.body ?? {}));
      return { status: r.status, headers: r.headers, body: parsed };
    },
    async watch(url, headers) {
      const r = await raw("GET", url, undefined, headers);
      if (!r.watch) throw new Error(`not a watch: ${r.status} ${JSON.stringify(r.body)}`);
      const collector: WatchCollector = {
        events: [],
        closed: false,
        stop: () => {},
        async next(n) {
          for (let i = 0; i < 200 && this.events.length < n; i++)
            await new Promise((res) => setTimeout(res, 10));
          if (this.events.length < n)
            throw new Error(`expected ${n} events, got ${JSON.stringify(this.events)}`);
          return this.events;
        },
      };
      let first = true;
      const w: ApiWatch = await r.watch.start({
        send: (events: ApiWatchEvent[]) => {
          for (const e of events) {
            collector.events.push(JSON.parse(JSON.stringify(r.watch!.render(e, first))));
            if (e.type !== "BOOKMARK" && e.type !== "ERROR") first = false;
          }
        },
        close: () => {
          collector.closed = true;
        },
      });
      collector.stop = () => w.stop();
      return collector;
    },
    async close() {
      await server.close();
      await store.close();
    },
  };
}
