/**
 * node:http(s) adapter for the API handler: HTTPS with optional client certificates (or plain
 * HTTP for `--insecure`), authentication of each request, bodies in (bounded), JSON out, watch
 * streams as newline-delimited JSON with headers flushed at once and client disconnects
 * noticed, other streamed bodies (followed logs) chunked and flushed per write.
 *
 * Overload, as kube-apiserver handles it (ADR 0017): max-in-flight slots (max-inflight.ts), a
 * deadline for every request that is not long-running (timeouts.ts) which its body, its
 * handler and the writing of its response must meet, and a bound on what a watcher may leave
 * unread before its watch is ended.
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { TLSSocket } from "node:tls";
import type { Logger } from "../log.ts";
import {
  ApiError,
  internalError,
  requestEntityTooLarge,
  type Status,
  unauthorized,
} from "../machinery/errors.ts";
import type { AuthOutcome, AuthRequest } from "./authn/authenticator.ts";
import { SYSTEM_ADMIN } from "./context.ts";
import type { ExtensionRequest, HttpExtension } from "./extensions.ts";
import type { ApiHandler, ApiResponse } from "./handler.ts";
import {
  type InflightCounts,
  InflightLimiter,
  type InflightLimits,
  isLongRunningRequest,
} from "./max-inflight.ts";
import type { RequestMetrics } from "./metrics.ts";
import { type RequestInfo, requestInfo } from "./request-info.ts";
import { DEFAULT_REQUEST_TIMEOUT_MS, requestDeadlineMs, requestTimeoutStatus } from "./timeouts.ts";
import type { ApiWatchEvent } from "./verbs/watch.ts";

/** Kubernetes' limit for request bodies. */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;
/**
 * Bytes of events a watcher may leave unread (beyond its first batch, which may be a whole
 * list) before its watch is ended with an ERROR event. kube-apiserver bounds the same thing in
 * events (the cacher's per-watcher channel) and closes the watcher when it stays full.
 */
export const MAX_WATCH_BUFFER_BYTES = 4 * 1024 * 1024;
/**
 * How long a watch that has ended (cut off, timed out, or its store watch closed) may take to
 * hand its last bytes to the client before the connection is closed under it.
 */
export const WATCH_CLOSE_GRACE_MS = 10_000;

/** What an HTTPS server serves with. */
export interface ServingTls {
  /** The serving certificate (and its chain), PEM. */
  certPem: string;
  keyPem: string;
  /** Client certificates are asked for and checked against these CAs (`--client-ca-file`). */
  clientCaPem?: string;
}

export interface HttpServerOptions {
  host: string;
  port: number;
  log: Logger;
  /** Serve HTTPS; without it, plain HTTP (`--insecure`). */
  tls?: ServingTls;
  /**
   * Who a request is from; a refusal is a 401. Without it every request is system:admin,
   * which only `--insecure` servers (and tests of other things) do.
   */
  authenticate?: (req: AuthRequest) => Promise<AuthOutcome>;
  /** Served ahead of the API handler, after authentication (the cluster proxy, karmada-search). */
  extensions?: readonly HttpExtension[];
  /** `--max-requests-inflight` / `--max-mutating-requests-inflight` (default: no limit). */
  inflight?: InflightLimits;
  /** Counts and times every request, from its headers until its response ends (metrics.ts). */
  metrics?: RequestMetrics;
  /**
   * `--request-timeout` in ms (default one minute, kube's; 0: none): the deadline of requests
   * that are not long-running, counted from their headers, which `?timeout=` may lower.
   */
  requestTimeoutMs?: number;
  /** Unread watch bytes that end a watch (default MAX_WATCH_BUFFER_BYTES). */
  watchBufferBytes?: number;
  /** Time an ended watch has to flush before its connection is closed (default WATCH_CLOSE_GRACE_MS). */
  watchCloseGraceMs?: number;
}

export interface RunningHttpServer {
  server: Server;
  port: number;
  url: string;
  /** Requests holding a max-in-flight slot now, and long-running requests under way. */
  inFlight(): InflightCounts;
  close(): Promise<void>;
}

class BodyTooLarge extends Error {}
/** The body did not arrive whole: the client went away, or the request's deadline passed. */
class BodyAbandoned extends Error {}

/**
 * The request's body, at most MAX_BODY_BYTES. `signal` (the request's deadline) abandons a
 * body still arriving, as kube-apiserver's timeout filter fails the handler's reads.
 */
function readBody(req: IncomingMessage, signal?: AbortSignal): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers["content-length"] ?? 0);
    if (declared > MAX_BODY_BYTES) {
      req.resume();
      reject(new BodyTooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const abandon = (): void => {
      req.removeAllListeners("data");
      reject(new BodyAbandoned());
    };
    if (signal?.aborted) {
      abandon();
      return;
    }
    signal?.addEventListener("abort", abandon, { once: true });
    const settle = (): void => signal?.removeEventListener("abort", abandon);
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.removeAllListeners("data");
        req.resume();
        settle();
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      settle();
      resolve(Buffer.concat(chunks));
    });
    req.on("error", (err) => {
      settle();
      reject(err);
    });
    req.on("close", () => {
      if (req.complete) return;
      settle();
      reject(new BodyAbandoned());
    });
  });
}

function decodePath(raw: string): string {
  if (!raw.includes("%")) return raw;
  return raw
    .split("/")
    .map((seg) => {
      try {
        return decodeURIComponent(seg);
      } catch {
        return seg;
      }
    })
    .join("/");
}

/** Serialized object JSON, shared by every watcher sending the same object. */
const objectJson = new WeakMap<object, string>();

function encodeEvent(event: unknown, original: ApiWatchEvent): string {
  if (event === original && original.type !== "BOOKMARK" && original.type !== "ERROR") {
    let body = objectJson.get(original.object);
    if (body === undefined) {
      body = JSON.stringify(original.object);
      objectJson.set(original.object, body);
    }
    return `{"type":"${original.type}","object":${body}}\n`;
  }
  return `${JSON.stringify(event)}\n`;
}

function send(res: ServerResponse, r: ApiResponse, head: boolean): void {
  // Bytes, not a string: node writes headers sent together with a string body in the body's
  // encoding (UTF-8), which would double-encode a Warning header's UTF-8 (see warnings.ts).
  const payload = r.bytes ?? Buffer.from(r.text ?? (r.body === undefined ? "" : JSON.stringify(r.body)));
  res.writeHead(r.status, { ...r.headers, "Content-Length": payload.length });
  res.end(head ? undefined : payload);
}

/** What bounds a watch stream: see MAX_WATCH_BUFFER_BYTES and WATCH_CLOSE_GRACE_MS. */
interface WatchBounds {
  bufferBytes: number;
  closeGraceMs: number;
}

/**
 * The ERROR event a watcher that fell too far behind gets last. kube-apiserver just ends such
 * a watch; we say why, with the 410 every client (client-go's reflector, our informers)
 * already answers by listing again and watching from there.
 */
function tooSlowStatus(unread: number, limit: number): Status {
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: `watch closed: the client left ${unread} bytes of events unread (limit ${limit}); list again and watch from there`,
    reason: "Expired",
    code: 410,
  };
}

/**
 * Ends a response and closes its connection if it has not handed its last bytes to the client
 * within `graceMs`: a client that stopped reading must not keep the socket and the backlog.
 */
function endWithin(res: ServerResponse, graceMs: number, last?: string): void {
  if (res.destroyed) return;
  if (!res.writableEnded) res.end(last);
  if (res.writableFinished || res.destroyed) return;
  const timer = setTimeout(() => res.destroy(), graceMs);
  timer.unref();
  const clear = (): void => clearTimeout(timer);
  res.once("finish", clear);
  res.once("close", clear);
}

async function streamWatch(
  res: ServerResponse,
  r: ApiResponse,
  log: Logger,
  bounds: WatchBounds,
): Promise<void> {
  const stream = r.watch!;
  let headersWritten = false;
  const ensureHeaders = (): void => {
    if (headersWritten) return;
    headersWritten = true;
    res.writeHead(200, { ...r.headers, "Transfer-Encoding": "chunked", "Cache-Control": "no-cache" });
    res.flushHeaders();
  };
  let first = true;
  let done = false;
  let watch: { stop(): void } | undefined;
  /** The first batch (often a whole list) may sit unread on top of the limit. */
  let allowance = bounds.bufferBytes;
  let batches = 0;
  const finish = (last?: string): void => {
    if (done) return;
    done = true;
    watch?.stop();
    ensureHeaders();
    endWithin(res, bounds.closeGraceMs, last);
  };
  res.on("close", () => finish());
  try {
    watch = await stream.start({
      send: (events) => {
        if (done) return;
        ensureHeaders();
        const unread = res.writableLength;
        if (batches > 0 && unread > allowance) {
          // Nothing more is queued for this watcher: what it has not read yet is a consistent
          // prefix of the stream, and the ERROR event tells it to list again from there.
          log.warn("watch client too slow, ending the watch", { unread, limit: bounds.bufferBytes });
          const status = tooSlowStatus(unread, bounds.bufferBytes);
          finish(`${JSON.stringify({ type: "ERROR", object: status })}\n`);
          return;
        }
        let chunk = "";
        for (const e of events) {
          chunk += encodeEvent(stream.render(e, first), e);
          if (e.type !== "BOOKMARK" && e.type !== "ERROR") first = false;
        }
        if (batches++ === 0) allowance += Buffer.byteLength(chunk);
        res.write(chunk);
      },
      close: () => finish(),
    });
    if (done) watch.stop();
    else ensureHeaders();
  } catch (err) {
    const status = err instanceof ApiError ? err.status : internalError(err).status;
    if (!headersWritten) {
      // Problems found before the stream started (bad parameters, 410) are a plain error response.
      done = true;
      send(
        res,
        { status: status.code, headers: { "Content-Type": "application/json" }, body: status },
        false,
      );
      return;
    }
    finish(`${JSON.stringify({ type: "ERROR", object: status })}\n`);
  }
}

/**
 * A body written over time (`ApiResponse.stream`): chunked, each write flushed at once (as
 * kube-apiserver's flushwriter does for `pods/log?follow`), the producer told through its
 * AbortSignal when the client goes away, the response ended when the producer is done.
 */
async function sendStream(res: ServerResponse, r: ApiResponse, head: boolean, log: Logger): Promise<void> {
  const gone = new AbortController();
  res.on("close", () => gone.abort());
  // A client that left while the handler ran has already closed.
  if (res.socket?.destroyed ?? true) gone.abort();
  res.writeHead(r.status, { ...r.headers, "Transfer-Encoding": "chunked", "Cache-Control": "no-cache" });
  res.flushHeaders();
  try {
    if (!head) {
      await r.stream!((chunk) => {
        if (!gone.signal.aborted && !res.writableEnded) res.write(chunk);
      }, gone.signal);
    }
  } catch (err) {
    log.error(err, "streamed response failed");
  } finally {
    if (!res.writableEnded) res.end();
  }
}

/** Writes an API response: a watch stream, a streamed body, or a whole one. */
async function respond(
  res: ServerResponse,
  response: ApiResponse,
  head: boolean,
  log: Logger,
  bounds: WatchBounds,
): Promise<void> {
  if (response.watch && response.status === 200) {
    // Validation errors of a watch request are reported before the stream starts.
    await streamWatch(res, response, log, bounds);
  } else if (response.stream) {
    await sendStream(res, response, head, log);
  } else {
    send(res, response, head);
  }
}

const tooLarge = () => requestEntityTooLarge(`the request body exceeds the limit of ${MAX_BODY_BYTES} bytes`);

/** The 413 a body over the limit gets. */
function sendTooLarge(res: ServerResponse, head: boolean): void {
  const e = tooLarge();
  send(
    res,
    { status: 413, headers: { "Content-Type": "application/json", Connection: "close" }, body: e.status },
    head,
  );
}

/** The client certificate a TLS request came with, read once per connection. */
const peerCertificates = new WeakMap<TLSSocket, AuthRequest["clientCertificate"] | null>();

function clientCertificateOf(req: IncomingMessage): AuthRequest["clientCertificate"] {
  const socket = req.socket as TLSSocket;
  if (typeof socket.getPeerCertificate !== "function") return undefined;
  let cert = peerCertificates.get(socket);
  if (cert === undefined) {
    const peer = socket.getPeerCertificate();
    const subject = peer?.subject as unknown as Record<string, string | string[] | undefined> | undefined;
    if (!subject || Object.keys(peer).length === 0) cert = null;
    else {
      const o = subject.O;
      const cn = subject.CN;
      cert = {
        commonName: Array.isArray(cn) ? (cn[0] ?? "") : (cn ?? ""),
        organizations: o === undefined ? [] : Array.isArray(o) ? o : [o],
        verified: socket.authorized,
        ...(socket.authorizationError ? { error: String(socket.authorizationError) } : {}),
        ...(peer.raw ? { sha256: createHash("sha256").update(peer.raw).digest("hex") } : {}),
      };
    }
    peerCertificates.set(socket, cert);
  }
  return cert ?? undefined;
}

/**
 * Who sent a request: what `authenticate` says of its headers and client certificate, or
 * system:admin when the server authenticates nobody (`--insecure`).
 */
export async function authenticateRequest(
  req: IncomingMessage,
  headers: Record<string, string | undefined>,
  authenticate: HttpServerOptions["authenticate"],
): Promise<AuthOutcome> {
  if (!authenticate) return { user: SYSTEM_ADMIN };
  const cert = clientCertificateOf(req);
  return authenticate({ headers, ...(cert ? { clientCertificate: cert } : {}) });
}

/** The 401 every refused credential gets. */
export function sendUnauthorized(res: ServerResponse, head = false): void {
  send(
    res,
    { status: 401, headers: { "Content-Type": "application/json" }, body: unauthorized().status },
    head,
  );
}

/** Headers as the handler takes them (see ApiRequest.headers). */
export function requestHeaders(req: IncomingMessage): Record<string, string | undefined> {
  const headers: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(", ") : v;
  for (const [k, v] of Object.entries(req.headersDistinct)) {
    if (k.startsWith("impersonate-") && v) headers[k] = v.join("\n");
  }
  return headers;
}

/** kube-apiserver's max-in-flight answer: plain text, try again in a second. */
function sendTooManyRequests(res: ServerResponse, head: boolean): void {
  res.writeHead(429, { "Content-Type": "text/plain; charset=utf-8", "Retry-After": "1" });
  res.end(head ? undefined : "Too many requests, please try again later.\n");
}

/** Offers the request to each extension in turn; true once one served it. */
async function servedByExtension(
  extensions: readonly HttpExtension[],
  req: IncomingMessage,
  res: ServerResponse,
  request: Pick<ExtensionRequest, "path" | "url" | "headers" | "user">,
  write: ExtensionRequest["respond"],
  deadline: AbortSignal,
): Promise<boolean> {
  for (const ext of extensions) {
    const served = await ext.serve(req, res, {
      ...request,
      readBody: () =>
        readBody(req, deadline).catch((err: unknown) => {
          throw err instanceof BodyTooLarge ? tooLarge() : err;
        }),
      respond: write,
    });
    if (served) return true;
  }
  return false;
}

/** A Status as a JSON response. */
function sendStatus(
  res: ServerResponse,
  status: Status,
  head: boolean,
  extra: Record<string, string> = {},
): void {
  send(
    res,
    { status: status.code, headers: { "Content-Type": "application/json", ...extra }, body: status },
    head,
  );
}

/**
 * Arms the deadline of a request that is not long-running (`ms` > 0). If it passes before the
 * response has been handed to the client, as kube-apiserver's timeout filter does: a response
 * not begun becomes the 504 Status (and the connection is closed after it when the body had not
 * all arrived, since no further request can be read from it), a response begun is cut by
 * closing the connection. The returned signal aborts then: the body read stops and the
 * handler's late answer is dropped.
 */
function armDeadline(req: IncomingMessage, res: ServerResponse, ms: number, head: boolean): AbortSignal {
  const expired = new AbortController();
  if (ms <= 0) return expired.signal;
  const timer = setTimeout(() => {
    if (res.writableFinished || res.destroyed) return;
    expired.abort();
    if (res.headersSent) res.destroy();
    else sendStatus(res, requestTimeoutStatus(), head, req.complete ? {} : { Connection: "close" });
  }, ms);
  const clear = (): void => clearTimeout(timer);
  res.once("finish", clear);
  res.once("close", clear);
  return expired.signal;
}

/** The request's deadline in ms (0: none, for long-running requests), or the 400 of a bad `?timeout=`. */
function deadlineOf(info: RequestInfo, query: URLSearchParams, requestTimeoutMs: number): number | Status {
  if (isLongRunningRequest(info)) return 0;
  try {
    return requestDeadlineMs(query, requestTimeoutMs);
  } catch (err) {
    return err instanceof ApiError ? err.status : internalError(err).status;
  }
}

/**
 * Gives a max-in-flight slot back once the response has ended and the work on it is over (the
 * returned function says the work is): a handler still running after its 504 keeps the slot,
 * as in kube-apiserver.
 */
function releaseWhenDone(res: ServerResponse, release: () => void): () => void {
  let holders = 2;
  const letGo = (): void => {
    if (--holders === 0) release();
  };
  // A client gone while it was authenticated closed before anyone listened.
  if (res.socket?.destroyed ?? true) letGo();
  else res.once("close", letGo);
  return letGo;
}

export function startHttpServer(handler: ApiHandler, opts: HttpServerOptions): Promise<RunningHttpServer> {
  const limiter = new InflightLimiter(opts.inflight ?? { readOnly: 0, mutating: 0 });
  const requestTimeoutMs = opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const bounds: WatchBounds = {
    bufferBytes: opts.watchBufferBytes ?? MAX_WATCH_BUFFER_BYTES,
    closeGraceMs: opts.watchCloseGraceMs ?? WATCH_CLOSE_GRACE_MS,
  };
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    void (async () => {
      // A target starting with "/" is a path, as Go's server reads it: resolved against a base,
      // "//%/x" would be a host (and an invalid one: a throw, then a 500).
      const target = req.url ?? "/";
      const url = new URL(
        target.startsWith("/") ? `http://placeholder${target}` : target,
        "http://placeholder",
      );
      const head = req.method === "HEAD";
      const method = head ? "GET" : (req.method ?? "GET");
      const path = decodePath(url.pathname);
      // Parsed once: for the metrics' labels here, and for the handler's authorization and routing.
      const info = requestInfo(method, path, url.searchParams);
      if (opts.metrics) {
        const end = opts.metrics.begin(req.method ?? "GET", url, info, req.headers["content-type"]);
        res.once("close", () => end(res.statusCode));
      }
      // The deadline counts from the headers, and a malformed `?timeout=` is refused before
      // anything else, as kube-apiserver's request-deadline filter does.
      const deadlineMs = deadlineOf(info, url.searchParams, requestTimeoutMs);
      if (typeof deadlineMs !== "number") {
        sendStatus(res, deadlineMs, head);
        return;
      }
      const expired = armDeadline(req, res, deadlineMs, head);
      expired.addEventListener("abort", () =>
        opts.metrics?.terminated(req.method ?? "GET", url, info, req.headers["content-type"], 504),
      );
      // Who is asking comes first: an unauthenticated client costs no body read.
      const headers = requestHeaders(req);
      const outcome = await authenticateRequest(req, headers, opts.authenticate);
      if (expired.aborted) return;
      if ("error" in outcome) {
        opts.log.debug("unauthorized request", { path: url.pathname, reason: outcome.error });
        sendUnauthorized(res, head);
        return;
      }
      const user = outcome.user;
      const release = limiter.admit(req.method ?? "GET", url, user, info);
      if (!release) {
        opts.metrics?.terminated(req.method ?? "GET", url, info, req.headers["content-type"], 429);
        sendTooManyRequests(res, head);
        return;
      }
      const letGo = releaseWhenDone(res, release);
      try {
        await serveAdmitted(req, res, { path, url, headers, user, method, head, info }, expired);
      } finally {
        letGo();
      }
    })().catch((err) => {
      opts.log.error(err, "http request failed");
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  };

  /** Serves a request that holds its slot: an extension's, or the API handler's. */
  const serveAdmitted = async (
    req: IncomingMessage,
    res: ServerResponse,
    r: Pick<ExtensionRequest, "path" | "url" | "headers" | "user"> & {
      method: string;
      head: boolean;
      info: RequestInfo;
    },
    expired: AbortSignal,
  ): Promise<void> => {
    const { path, url, headers, user, method, head, info } = r;
    const write = (response: ApiResponse): Promise<void> =>
      expired.aborted ? Promise.resolve() : respond(res, response, head, opts.log, bounds);
    const request = { path, url, headers, user };
    if (await servedByExtension(opts.extensions ?? [], req, res, request, write, expired)) return;
    let body: Buffer;
    try {
      body = await readBody(req, expired);
    } catch (err) {
      // Past the deadline the 504 is already written.
      if (expired.aborted) return;
      if (err instanceof BodyTooLarge) sendTooLarge(res, head);
      else res.destroy();
      return;
    }
    const response = await handler.handle({
      method,
      path,
      info,
      query: url.searchParams,
      headers,
      body,
      user,
      host: req.headers.host ?? `${opts.host}:${opts.port}`,
    });
    if (expired.aborted) {
      // A write may have committed after its 504, as in kube-apiserver: the client cannot tell,
      // and reads the object to know.
      opts.log.debug("answer after the request deadline dropped", { path, status: response.status });
      return;
    }
    await write(response);
  };
  const tls = opts.tls;
  // Go's http.Server, and so kube-apiserver, reads request heads of up to 1 MiB; node stops at
  // 16 KiB with a 431 that has no Status (a long label selector in a URL is legitimate).
  const maxHeaderSize = 1 << 20;
  const server: Server = tls
    ? createHttpsServer(
        {
          maxHeaderSize,
          cert: tls.certPem,
          key: tls.keyPem,
          minVersion: "TLSv1.2",
          ALPNProtocols: ["http/1.1"],
          ...(tls.clientCaPem ? { ca: tls.clientCaPem, requestCert: true, rejectUnauthorized: false } : {}),
        },
        listener,
      )
    : createServer({ maxHeaderSize }, listener);
  // Node's whole-request timeout would cut long-running requests' bodies (exec, proxies) too:
  // the request deadline above bounds the others' bodies instead.
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  server.keepAliveTimeout = 65_000;
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host, () => {
      server.off("error", reject);
      const port = (server.address() as AddressInfo).port;
      const host = opts.host.includes(":") ? `[${opts.host}]` : opts.host;
      resolve({
        server,
        port,
        url: `${tls ? "https" : "http"}://${host}:${port}`,
        inFlight: () => limiter.inFlight,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
