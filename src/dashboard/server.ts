/**
 * The dashboard's HTTP server: the page and its bundled script, and a small JSON API under
 * /api that reads the control plane with the signed-in user's credentials only.
 *
 * - `GET /api/whoami`: who the dashboard acts as (SelfSubjectReview).
 * - `GET /api/namespaces`: the namespaces the user may list (for the namespace picker).
 * - `GET /api/stream/<page>`: a page's live view (clusters, workloads, workload?key=,
 *   timeline, policies; `ns=` narrows to one namespace) as newline-delimited JSON; see live.ts.
 * - `POST /api/whatif`: the placement what-if (src/simulate), computed in memory.
 * - `GET /api/k8s/<path>`: a read-only proxy to the control plane's API (GET only), for the
 *   raw objects a page links to.
 *
 * The dashboard never writes to the control plane. See guard.ts for who may call the API and
 * sessions.ts for whose rights it uses; docs/adr/0014-dashboard.md for the whole design.
 */
import { once } from "node:events";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { createGzip } from "node:zlib";
import {
  type HealthCheck,
  type HealthEndpoint,
  healthAnswer,
  healthPath,
  PING,
} from "../apiserver/healthz.ts";
import { RESOURCES } from "../client/client.ts";
import type { ClusterConnection } from "../client/http.ts";
import type { Logger } from "../log.ts";
import { ApiError, isApiError, type Status, type StatusReason } from "../machinery/errors.ts";
import { SimulationInputError } from "../simulate/changes.ts";
import { webAssets } from "./bundle.ts";
import {
  bearerToken,
  crossSiteProblem,
  hostAllowed,
  methodProblem,
  proxyTargetProblem,
  validNamespace,
} from "./guard.ts";
import {
  DEFAULT_STREAM_TUNING,
  type LiveView,
  type StreamSink,
  type StreamTuning,
  serveStream,
} from "./live.ts";
import {
  clustersView,
  type PageContext,
  policiesView,
  timelineView,
  workloadsView,
  workloadView,
} from "./pages.ts";
import { type Session, Sessions } from "./sessions.ts";
import { readWhatIfRequest, runWhatIf } from "./views/what-if.ts";

export interface DashboardOptions {
  /** The control plane as the kubeconfig describes it; in token mode only its server and CA are used. */
  connection: ClusterConnection;
  /** `local`: act as the kubeconfig's user (loopback only); `token`: as each user's bearer token. */
  mode: "local" | "token";
  host: string;
  port: number;
  /** Serve HTTPS with this certificate (required in token mode). */
  tls?: { certPem: string; keyPem: string };
  log: Logger;
  /** Idle sessions are dropped after this long (default 10 minutes). */
  sessionIdleMs?: number;
  /** Unused sources stop after this long (default 30 s). */
  sourceLingerMs?: number;
  stream?: StreamTuning;
  now?: () => number;
}

export interface RunningDashboard {
  url: string;
  port: number;
  mode: "local" | "token";
  close(): Promise<void>;
}

const MAX_BODY = 1024 * 1024;

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const SECURITY_HEADERS: http.OutgoingHttpHeaders = {
  "Content-Security-Policy": CSP,
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "no-referrer",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Resource-Policy": "same-origin",
};

const INDEX_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Karmada dashboard</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/app.css">
<script type="module" src="/app.js"></script>
</head>
<body><div id="app"><p class="boot">Loading the Karmada dashboard…</p></div></body>
</html>
`;

const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1f3b63"/><path d="M9 7v18M9 16l10-9M12.5 13l7.5 12" stroke="#7cc4ff" stroke-width="3.2" fill="none" stroke-linecap="round"/></svg>`;

function statusOf(code: number, reason: StatusReason, message: string): Status {
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", code, reason, message };
}

function sendJson(res: ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(code, {
    ...SECURITY_HEADERS,
    "Content-Type": "application/json; charset=utf-8",
    "Cache-Control": "no-store",
    "Content-Length": Buffer.byteLength(text),
  });
  res.end(text);
}

function sendStatus(res: ServerResponse, status: Status): void {
  sendJson(res, status.code, status);
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY)
      throw new ApiError(statusOf(413, "RequestEntityTooLarge", "the request body is over 1 MiB"));
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  try {
    return text === "" ? {} : (JSON.parse(text) as unknown);
  } catch {
    throw new ApiError(statusOf(400, "BadRequest", "the request body is not JSON"));
  }
}

/**
 * A stream compressed as it goes: each line is flushed at once (the page must see it now), and
 * 1,000 rows of similar JSON shrink about twentyfold, which matters beyond loopback.
 */
function gzipSink(res: ServerResponse): StreamSink {
  const gz = createGzip();
  gz.pipe(res);
  return {
    write(line) {
      const ok = gz.write(line);
      gz.flush();
      return ok;
    },
    once: (event, listener) => void gz.once(event, listener),
    on: (event, listener) => void res.on(event, listener),
    end: () => gz.end(),
  };
}

/** Which page's live view a stream URL names; undefined for none. */
function pageView(
  ctx: PageContext,
  page: string,
  query: URLSearchParams,
): LiveView<{ key: string }, unknown> | undefined {
  const ns = query.get("ns") || undefined;
  if (ns !== undefined && !validNamespace(ns)) {
    throw new ApiError(statusOf(400, "BadRequest", `ns=${JSON.stringify(ns)} is not a namespace name`));
  }
  switch (page) {
    case "clusters":
      return clustersView(ctx);
    case "workloads":
      return workloadsView(ctx, ns);
    case "workload": {
      const key = query.get("key");
      if (!key) throw new ApiError(statusOf(400, "BadRequest", "key= names the workload"));
      return workloadView(ctx, key);
    }
    case "timeline":
      return timelineView(ctx, ns);
    case "policies":
      return policiesView(ctx, ns);
    default:
      return undefined;
  }
}

export async function startDashboard(opts: DashboardOptions): Promise<RunningDashboard> {
  if (opts.mode === "token" && !opts.tls) {
    throw new Error("token mode serves HTTPS only: give a certificate");
  }
  // Built before listening, so a broken bundle fails the start, not the first page.
  await webAssets();
  const log = opts.log.child({ component: "dashboard" });
  const now = opts.now ?? Date.now;
  const tuning = opts.stream ?? DEFAULT_STREAM_TUNING;
  const sessions = new Sessions({
    mode: opts.mode,
    connection: opts.connection,
    idleMs: opts.sessionIdleMs ?? 600_000,
    lingerMs: opts.sourceLingerMs ?? 30_000,
    maxSessions: 256,
    now,
  });
  const streams = new Set<ServerResponse>();

  async function session(req: IncomingMessage): Promise<Session> {
    const header = req.headers.authorization;
    const token = bearerToken(header);
    if (opts.mode === "token" && header !== undefined && token === undefined) {
      throw new ApiError(statusOf(401, "Unauthorized", "the Authorization header must be `Bearer <token>`"));
    }
    return sessions.forToken(token);
  }

  async function namespaceList(s: Session, res: ServerResponse): Promise<void> {
    try {
      const list = await s.client.list(RESOURCES.namespaces, undefined);
      return sendJson(res, 200, { items: list.items.map((n) => n.metadata.name).sort() });
    } catch (err) {
      if (isApiError(err) && err.code === 403)
        return sendJson(res, 200, { items: [], forbidden: err.message });
      throw err;
    }
  }

  async function stream(s: Session, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const page = url.pathname.slice("/api/stream/".length);
    const view = pageView({ sources: s.sources, client: s.client }, page, url.searchParams);
    if (!view) return sendStatus(res, statusOf(404, "NotFound", `no page ${page}`));
    const gzip = /\bgzip\b/.test(String(req.headers["accept-encoding"] ?? ""));
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      "Content-Type": "application/x-ndjson; charset=utf-8",
      "Cache-Control": "no-store",
      "X-Accel-Buffering": "no",
      ...(gzip ? { "Content-Encoding": "gzip", Vary: "Accept-Encoding" } : {}),
    });
    res.flushHeaders();
    s.streams++;
    streams.add(res);
    try {
      await serveStream(gzip ? gzipSink(res) : res, view, tuning, (err) =>
        log.warn("view failed", { err: (err as Error).message }),
      );
    } finally {
      streams.delete(res);
      s.streams--;
      s.lastUsed = now();
    }
  }

  /** The read-only proxy: GETs (no watches) of the Kubernetes API, with the session's credentials. */
  async function proxy(s: Session, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const target = url.pathname.slice("/api/k8s".length);
    const refused = proxyTargetProblem(target, url.searchParams);
    if (refused) return sendStatus(res, statusOf(400, "BadRequest", refused));
    const abort = new AbortController();
    res.on("close", () => abort.abort());
    const upstream = await s.client.open(
      "GET",
      `${target}${url.search}`,
      { Accept: req.headers.accept ?? "application/json" },
      undefined,
      abort.signal,
    );
    res.writeHead(upstream.statusCode ?? 502, {
      ...SECURITY_HEADERS,
      "Content-Type": upstream.headers["content-type"] ?? "application/json",
      "Cache-Control": "no-store",
    });
    upstream.pipe(res);
  }

  async function api(req: IncomingMessage, res: ServerResponse, url: URL, origin: string): Promise<void> {
    const problem = crossSiteProblem(req.headers, origin);
    if (problem) return sendStatus(res, statusOf(403, "Forbidden", problem));
    const path = url.pathname;
    const refused = methodProblem(path, req.method ?? "GET");
    if (refused) {
      res.setHeader("Allow", refused.allow);
      return sendStatus(res, statusOf(405, "MethodNotAllowed", refused.message));
    }
    const s = await session(req);
    s.lastUsed = now();
    if (path === "/api/whoami") return sendJson(res, 200, s.who);
    if (path === "/api/namespaces") return namespaceList(s, res);
    if (path === "/api/whatif") {
      const request = readWhatIfRequest(await readBody(req));
      return sendJson(res, 200, await runWhatIf(s.client, request));
    }
    if (path.startsWith("/api/stream/")) return stream(s, req, res, url);
    if (path.startsWith("/api/k8s/")) return proxy(s, req, res, url);
    return sendStatus(res, statusOf(404, "NotFound", `${path} is not part of the dashboard's API`));
  }

  // Ready once the page is bundled (at start; a failed bundle says why on /readyz/web-bundle).
  const bundle: HealthCheck = {
    name: "web-bundle",
    check: () =>
      webAssets().then(
        () => undefined,
        (err: unknown) => (err as Error).message,
      ),
  };
  const HEALTH_CHECKS: Record<HealthEndpoint, HealthCheck[]> = {
    healthz: [PING],
    livez: [PING],
    readyz: [PING, bundle],
  };

  async function handle(req: IncomingMessage, res: ServerResponse, scheme: string): Promise<void> {
    if (opts.mode === "local" && !hostAllowed(req.headers.host)) {
      // kubectl proxy's answer to a host it does not accept; a DNS-rebinding page gets nothing.
      res.writeHead(403, { ...SECURITY_HEADERS, "Content-Type": "text/plain; charset=utf-8" });
      res.end("Forbidden: the dashboard answers only requests for localhost, 127.0.0.1 or [::1].\n");
      return;
    }
    const url = new URL(req.url ?? "/", `${scheme}://${req.headers.host ?? "localhost"}`);
    const origin = `${scheme}://${req.headers.host ?? ""}`;
    const probe = healthPath(url.pathname);
    if (probe && (req.method === "GET" || req.method === "HEAD")) {
      // Probes carry no credentials and learn only which checks pass, as every component's.
      const answer = await healthAnswer(
        probe.endpoint,
        probe.check,
        url.searchParams,
        HEALTH_CHECKS[probe.endpoint],
      );
      res.writeHead(answer.status, { ...SECURITY_HEADERS, "Content-Type": "text/plain; charset=utf-8" });
      res.end(req.method === "HEAD" ? undefined : answer.text);
      return;
    }
    if (url.pathname.startsWith("/api/") || url.pathname === "/api") {
      try {
        await api(req, res, url, origin);
      } catch (err) {
        if (res.headersSent) {
          res.destroy();
          return;
        }
        if (err instanceof SimulationInputError)
          return sendStatus(res, statusOf(400, "BadRequest", err.message));
        if (isApiError(err)) return sendStatus(res, err.status);
        log.error(err, "dashboard request failed");
        sendStatus(res, statusOf(500, "InternalError", (err as Error).message));
      }
      return;
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { ...SECURITY_HEADERS, Allow: "GET, HEAD" });
      res.end();
      return;
    }
    const assets = await webAssets();
    const asset = (type: string, body: Buffer | string, etag?: string): void => {
      if (etag && req.headers["if-none-match"] === etag) {
        res.writeHead(304, { ...SECURITY_HEADERS, ETag: etag });
        res.end();
        return;
      }
      res.writeHead(200, {
        ...SECURITY_HEADERS,
        "Content-Type": type,
        "Cache-Control": "no-cache",
        ...(etag ? { ETag: etag } : {}),
        "Content-Length": Buffer.byteLength(body),
      });
      res.end(req.method === "HEAD" ? undefined : body);
    };
    switch (url.pathname) {
      case "/":
      case "/index.html":
        return asset("text/html; charset=utf-8", INDEX_HTML);
      case "/app.js":
        return asset("text/javascript; charset=utf-8", assets.js, assets.etag);
      case "/app.css":
        return asset("text/css; charset=utf-8", assets.css, assets.etag);
      case "/favicon.svg":
        return asset("image/svg+xml", FAVICON);
      default:
        res.writeHead(404, { ...SECURITY_HEADERS, "Content-Type": "text/plain; charset=utf-8" });
        res.end("Not found. The dashboard is at /\n");
    }
  }

  const scheme = opts.tls ? "https" : "http";
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    handle(req, res, scheme).catch((err: unknown) => {
      log.error(err, "dashboard request failed");
      if (!res.headersSent) sendStatus(res, statusOf(500, "InternalError", (err as Error).message));
      else res.destroy();
    });
  };
  const server = opts.tls
    ? https.createServer({ cert: opts.tls.certPem, key: opts.tls.keyPem, minVersion: "TLSv1.2" }, listener)
    : http.createServer(listener);
  // Streams are long-lived; the server's request timeout must not cut them.
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  server.keepAliveTimeout = 5_000;
  server.listen(opts.port, opts.host);
  try {
    await once(server, "listening");
  } catch (err) {
    sessions.close();
    throw err;
  }
  const port = (server.address() as AddressInfo).port;
  const host = opts.host.includes(":") ? `[${opts.host}]` : opts.host;
  const shownHost = host === "0.0.0.0" || host === "[::]" ? "localhost" : host;
  return {
    url: `${scheme}://${shownHost}:${port}/`,
    port,
    mode: opts.mode,
    async close() {
      for (const res of streams) res.destroy();
      sessions.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
