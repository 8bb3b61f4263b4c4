/**
 * node:http(s) adapter for the API handler: HTTPS with optional client certificates (or plain
 * HTTP for `--insecure`), authentication of each request, bodies in (bounded), JSON out, watch
 * streams as newline-delimited JSON with headers flushed at once and client disconnects
 * noticed, other streamed bodies (followed logs) chunked and flushed per write.
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { TLSSocket } from "node:tls";
import type { Logger } from "../log.ts";
import { ApiError, internalError, requestEntityTooLarge, unauthorized } from "../machinery/errors.ts";
import type { AuthOutcome, AuthRequest } from "./authn/authenticator.ts";
import { SYSTEM_ADMIN } from "./context.ts";
import type { ExtensionRequest, HttpExtension } from "./extensions.ts";
import type { ApiHandler, ApiResponse } from "./handler.ts";
import { InflightLimiter, type InflightLimits } from "./max-inflight.ts";
import type { RequestMetrics } from "./metrics.ts";
import { requestInfo } from "./request-info.ts";
import type { ApiWatchEvent } from "./verbs/watch.ts";

/** Kubernetes' limit for request bodies. */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;
/** A watcher that falls this far behind is cut off rather than buffered without bound. */
const MAX_WATCH_BACKLOG_BYTES = 64 * 1024 * 1024;

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
}

export interface RunningHttpServer {
  server: Server;
  port: number;
  url: string;
  close(): Promise<void>;
}

class BodyTooLarge extends Error {}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers["content-length"] ?? 0);
    if (declared > MAX_BODY_BYTES) {
      req.resume();
      reject(new BodyTooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.removeAllListeners("data");
        req.resume();
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
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
  const payload = r.bytes ?? r.text ?? (r.body === undefined ? "" : JSON.stringify(r.body));
  res.writeHead(r.status, { ...r.headers, "Content-Length": Buffer.byteLength(payload) });
  res.end(head ? undefined : payload);
}

async function streamWatch(res: ServerResponse, r: ApiResponse, log: Logger): Promise<void> {
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
  const finish = (): void => {
    if (done) return;
    done = true;
    watch?.stop();
    ensureHeaders();
    if (!res.writableEnded) res.end();
  };
  res.on("close", finish);
  try {
    watch = await stream.start({
      send: (events) => {
        if (done) return;
        ensureHeaders();
        let chunk = "";
        for (const e of events) {
          chunk += encodeEvent(stream.render(e, first), e);
          if (e.type !== "BOOKMARK" && e.type !== "ERROR") first = false;
        }
        res.write(chunk);
        if (res.writableLength > MAX_WATCH_BACKLOG_BYTES) {
          log.warn("watch client too slow, closing", { backlog: res.writableLength });
          res.destroy();
          finish();
        }
      },
      close: finish,
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
    res.write(`${JSON.stringify({ type: "ERROR", object: status })}\n`);
    finish();
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
): Promise<void> {
  if (response.watch && response.status === 200) {
    // Validation errors of a watch request are reported before the stream starts.
    await streamWatch(res, response, log);
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
): Promise<boolean> {
  for (const ext of extensions) {
    const served = await ext.serve(req, res, {
      ...request,
      readBody: () =>
        readBody(req).catch((err: unknown) => {
          throw err instanceof BodyTooLarge ? tooLarge() : err;
        }),
      respond: write,
    });
    if (served) return true;
  }
  return false;
}

export function startHttpServer(handler: ApiHandler, opts: HttpServerOptions): Promise<RunningHttpServer> {
  const limiter = opts.inflight ? new InflightLimiter(opts.inflight) : undefined;
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    void (async () => {
      const url = new URL(req.url ?? "/", "http://placeholder");
      const head = req.method === "HEAD";
      const method = head ? "GET" : (req.method ?? "GET");
      const path = decodePath(url.pathname);
      // Parsed once: for the metrics' labels here, and for the handler's authorization and routing.
      const info = requestInfo(method, path, url.searchParams);
      if (opts.metrics) {
        const end = opts.metrics.begin(req.method ?? "GET", url, info, req.headers["content-type"]);
        res.once("close", () => end(res.statusCode));
      }
      // Who is asking comes first: an unauthenticated client costs no body read.
      const headers = requestHeaders(req);
      const outcome = await authenticateRequest(req, headers, opts.authenticate);
      if ("error" in outcome) {
        opts.log.debug("unauthorized request", { path: url.pathname, reason: outcome.error });
        sendUnauthorized(res, head);
        return;
      }
      const user = outcome.user;
      const release = limiter ? limiter.admit(req.method ?? "GET", url, user) : () => {};
      if (!release) {
        sendTooManyRequests(res, head);
        return;
      }
      res.once("close", release);
      const request = { path, url, headers, user };
      if (
        await servedByExtension(opts.extensions ?? [], req, res, request, (r) =>
          respond(res, r, head, opts.log),
        )
      )
        return;
      let body: Buffer;
      try {
        body = await readBody(req);
      } catch (err) {
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
      await respond(res, response, head, opts.log);
    })().catch((err) => {
      opts.log.error(err, "http request failed");
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  };
  const tls = opts.tls;
  const server: Server = tls
    ? createHttpsServer(
        {
          cert: tls.certPem,
          key: tls.keyPem,
          minVersion: "TLSv1.2",
          ALPNProtocols: ["http/1.1"],
          ...(tls.clientCaPem ? { ca: tls.clientCaPem, requestCert: true, rejectUnauthorized: false } : {}),
        },
        listener,
      )
    : createServer(listener);
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
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
