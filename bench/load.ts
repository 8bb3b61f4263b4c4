/**
 * Load generators for the benchmark: a pool of concurrent tasks, in-process handler calls,
 * single keep-alive HTTP requests, and LoadClient, which drives the HTTP clients and
 * watchers running in their own process (bench/http-worker.mjs).
 */

import { type ChildProcess, fork } from "node:child_process";
import { Agent, request } from "node:http";
import { SYSTEM_ADMIN } from "../src/apiserver/context.ts";
import type { ApiHandler } from "../src/apiserver/handler.ts";

/** Runs `task(0..n-1)` with at most `concurrency` in flight; resolves with the elapsed ms. */
export async function pool(
  n: number,
  concurrency: number,
  task: (i: number) => Promise<void>,
): Promise<number> {
  let next = 0;
  const start = performance.now();
  const worker = async (): Promise<void> => {
    for (;;) {
      const i = next++;
      if (i >= n) return;
      await task(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
  return performance.now() - start;
}

/** A ConfigMap of a realistic small size (~0.6 KiB stored). */
export function configMap(name: string, i: number): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name,
      labels: { app: "bench", shard: String(i % 16) },
      annotations: { "bench/index": String(i) },
    },
    data: {
      "config.yaml": `replicas: ${i % 7}\nimage: registry.example/app:v${i % 100}\nmode: bench\n`,
      index: String(i),
    },
  };
}

export const name = (prefix: string, i: number): string => `${prefix}-${String(i).padStart(6, "0")}`;

/** A request straight into the handler, as the HTTP adapter makes it (no socket, no response serialization). */
export async function handle(
  handler: ApiHandler,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  const r = await handler.handle({
    method,
    path,
    query: new URLSearchParams(),
    headers: { "content-type": "application/json", accept: "application/json" },
    ...(body !== undefined && { body: Buffer.from(JSON.stringify(body)) }),
    user: SYSTEM_ADMIN,
  });
  return { status: r.status, body: r.body };
}

export interface HttpTarget {
  host: string;
  port: number;
  /** An HTTPS server: its CA and the client's certificate and key (PEM). */
  tls?: { ca: string; cert: string; key: string };
}

/** One GET on a keep-alive agent; the body is kept only when `keepBody` (else just counted). */
export function httpGet(
  target: HttpTarget,
  agent: Agent,
  path: string,
  accept: string,
  keepBody: boolean,
): Promise<{ status: number; bytes: number; body: Buffer | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: target.host, port: target.port, path, agent, headers: { Accept: accept } },
      (res) => {
        const chunks: Buffer[] = [];
        let bytes = 0;
        res.on("data", (c: Buffer) => {
          bytes += c.length;
          if (keepBody) chunks.push(c);
        });
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, bytes, body: keepBody ? Buffer.concat(chunks) : undefined }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end();
  });
}

export function keepAliveAgent(sockets: number): Agent {
  return new Agent({ keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets });
}

interface WorkerReply {
  id: number;
  result?: unknown;
  error?: string;
}

/** The HTTP client process: `concurrency` keep-alive clients and any number of watchers. */
export class LoadClient {
  #worker: ChildProcess;
  #next = 0;
  #pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();

  constructor(target: HttpTarget, concurrency: number) {
    this.#worker = fork(new URL("./http-worker.mjs", import.meta.url), [], {
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    void this.#call("init", {
      host: target.host,
      port: target.port,
      concurrency,
      ...(target.tls ? { tls: target.tls } : {}),
    });
    this.#worker.on("message", (m: WorkerReply) => {
      const p = this.#pending.get(m.id);
      this.#pending.delete(m.id);
      if (m.error !== undefined) p?.reject(new Error(m.error));
      else p?.resolve(m.result);
    });
    this.#worker.on("error", (err) => {
      for (const p of this.#pending.values()) p.reject(err);
      this.#pending.clear();
    });
  }

  #call<T>(op: string, args: Record<string, unknown>): Promise<T> {
    const id = this.#next++;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.#worker.send({ op, id, ...args });
    });
  }

  /** POSTs every body (pre-serialized) to `path`; returns the elapsed ms on the client thread. */
  async create(path: string, bodies: string[]): Promise<number> {
    const r = await this.#call<{ ms: number; errors: number; lastStatus: number }>("create", {
      path,
      bodies,
    });
    if (r.errors > 0)
      throw new Error(`${r.errors} of ${bodies.length} creates failed (last status ${r.lastStatus})`);
    return r.ms;
  }

  /** Opens `watchers` watches on `path`, each on its own connection; resolves once all have started. */
  async openWatch(path: string, watchers: number): Promise<void> {
    await this.#call("openWatch", { path, watchers });
  }

  /** Resolves with the wall-clock time (ms since the epoch) when every watcher has `events` events. */
  async awaitWatch(events: number, timeoutMs: number): Promise<number> {
    const r = await this.#call<{ doneAt?: number; error?: string }>("awaitWatch", { events, timeoutMs });
    if (r.error !== undefined || r.doneAt === undefined) throw new Error(r.error ?? "no result");
    return r.doneAt;
  }

  async closeWatch(): Promise<void> {
    await this.#call("closeWatch", {});
  }

  async close(): Promise<void> {
    const exited = new Promise((resolve) => this.#worker.once("exit", resolve));
    this.#worker.disconnect();
    await exited;
  }
}

/** Wall-clock now in ms, comparable across threads. */
export const wallClock = (): number => performance.timeOrigin + performance.now();
