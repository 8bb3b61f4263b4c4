/**
 * The member's HTTP front: the API server's node:http adapter (`startHttpServer`) with the
 * simulator's admin endpoint and network faults in front of it, on the same port.
 *
 *   GET    /sim/faults    {"faults":[...]}                 the faults in effect
 *   POST   /sim/faults    a fault (see faults.ts)          201 {"fault":{...}} | 200 {"deleted":n} | 200 {"restored":[...]}
 *   DELETE /sim/faults                                      200 {"restored":[...]} (all)
 *   GET    /sim/info      {"name","nodes","clusterID","pid"}
 *
 * Bad fault JSON answers 400 {"error":"..."}. The admin endpoint keeps answering under every
 * fault (so `restore` can get through). It is authenticated as the API is, and authorized as
 * non-resource URLs (`get`/`post`/`delete` on `/sim/faults`, `get` on `/sim/info`): the
 * cluster's admin may, anonymous requests may not.
 *
 * Faults on the wire: `unreachable` (mode reset) destroys every open connection (watches
 * included) and every new request's socket before an answer, so clients get ECONNRESET /
 * "socket hang up" / EOF, never an HTTP status; mode hang leaves requests unanswered and
 * stops open streams mid-flight (clients time out); mode slow serves each new request after
 * its delay (open streams keep flowing). A fault with `exceptUsers` spares those users: while
 * one is in effect, every request is authenticated first to know who asks, and a connection
 * is cut or silenced when the fault starts unless its last request came from a spared user.
 * `unhealthy` answers /healthz 500 here and
 * /readyz 500 through the API server's readiness hook; everything else keeps working.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { authorizeOrThrow } from "../apiserver/authz/authorizer.ts";
import { requestAttributes } from "../apiserver/authz/request.ts";
import type { ApiHandler } from "../apiserver/handler.ts";
import {
  authenticateRequest,
  type HttpServerOptions,
  type RunningHttpServer,
  requestHeaders,
  sendUnauthorized,
  startHttpServer,
} from "../apiserver/http.ts";
import { ApiError } from "../machinery/errors.ts";
import { FaultError, type Faults, type Unreachable } from "./faults.ts";

export interface AdminInfo {
  name: string;
  nodes(): string[];
  clusterId(): string | undefined;
}

const MAX_ADMIN_BODY = 64 * 1024;

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_ADMIN_BODY) {
        reject(new FaultError("request body too large"));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8").trim();
      try {
        resolve(text === "" ? undefined : JSON.parse(text));
      } catch {
        reject(new FaultError("the body is not JSON"));
      }
    });
    req.on("error", reject);
  });
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  const text = `${JSON.stringify(body)}\n`;
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text) });
  res.end(text);
}

async function admin(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  faults: Faults,
  info: AdminInfo,
): Promise<void> {
  try {
    if (path === "/sim/faults" || path === "/sim/faults/") {
      if (req.method === "GET") return reply(res, 200, { faults: faults.list() });
      if (req.method === "DELETE") return reply(res, 200, { restored: await faults.restore() });
      if (req.method === "POST") {
        const result = await faults.set(await readJson(req));
        return reply(res, "fault" in result ? 201 : 200, result);
      }
      return reply(res, 405, { error: `${req.method} is not supported on ${path}` });
    }
    if (path === "/sim/info" && req.method === "GET") {
      return reply(res, 200, {
        name: info.name,
        nodes: info.nodes(),
        clusterID: info.clusterId(),
        pid: process.pid,
      });
    }
    return reply(res, 404, { error: `no such admin path ${path}` });
  } catch (err) {
    if (err instanceof FaultError) return reply(res, 400, { error: err.message });
    return reply(res, 500, { error: (err as Error).message });
  }
}

export interface MemberHttpOptions
  extends Pick<
    HttpServerOptions,
    "host" | "port" | "log" | "tls" | "authenticate" | "metrics" | "requestTimeoutMs"
  > {
  faults: Faults;
  info: AdminInfo;
}

/** Authenticates and authorizes an admin request; answers 401/403 itself and returns false when refused. */
async function adminAllowed(
  handler: ApiHandler,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  authenticate: HttpServerOptions["authenticate"],
): Promise<boolean> {
  const outcome = await authenticateRequest(req, requestHeaders(req), authenticate);
  if ("error" in outcome) {
    sendUnauthorized(res);
    return false;
  }
  try {
    const attrs = requestAttributes(req.method ?? "GET", { kind: "nonresource", path }, outcome.user);
    authorizeOrThrow(handler.server.authorizer, attrs);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    reply(res, err.code, err.status);
    return false;
  }
  return true;
}

/** Serves the API handler plus the admin endpoint and network faults. */
export async function serveMember(handler: ApiHandler, opts: MemberHttpOptions): Promise<RunningHttpServer> {
  const http = await startHttpServer(handler, {
    host: opts.host,
    port: opts.port,
    log: opts.log,
    ...(opts.tls ? { tls: opts.tls } : {}),
    ...(opts.authenticate ? { authenticate: opts.authenticate } : {}),
    ...(opts.metrics ? { metrics: opts.metrics } : {}),
    ...(opts.requestTimeoutMs !== undefined ? { requestTimeoutMs: opts.requestTimeoutMs } : {}),
  });
  const { server } = http;
  const { faults } = opts;
  const sockets = new Set<Socket>();
  /** Who sent a socket's last request, known while a fault spares some users. */
  const users = new WeakMap<Socket, string>();
  /** Sockets carrying an admin request right now: never cut. */
  const adminSockets = new Set<Socket>();
  /** Sockets silenced by a hang fault (corked: nothing they write leaves). */
  const held = new Set<Socket>();
  // Requests carry the TLS socket over HTTPS (the TCP one under plain HTTP): track those.
  server.on(opts.tls ? "secureConnection" : "connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => {
      sockets.delete(s);
      held.delete(s);
    });
  });
  const hold = (s: Socket): void => {
    if (held.has(s)) return;
    held.add(s);
    s.cork();
    s.pause();
  };
  // The adapter's own request listener runs only for requests no fault or admin path takes.
  const [api] = server.listeners("request") as Array<(req: IncomingMessage, res: ServerResponse) => void>;
  server.removeAllListeners("request");
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    if (path.startsWith("/sim/")) {
      adminSockets.add(req.socket);
      res.on("close", () => adminSockets.delete(req.socket));
      void adminAllowed(handler, req, res, path, opts.authenticate).then(
        (ok) => (ok ? admin(req, res, path, faults, opts.info) : undefined),
        (err) => reply(res, 500, { error: (err as Error).message }),
      );
      return;
    }
    if (!faults.unreachableDependsOnUser()) {
      serve(req, res, path, faults.unreachable());
      return;
    }
    // Who asks decides; a request refused here is answered by the API handler's own check.
    void authenticateRequest(req, requestHeaders(req), opts.authenticate).then(
      (outcome) => {
        if ("error" in outcome) return serve(req, res, path, faults.unreachable());
        users.set(req.socket, outcome.user.name);
        serve(req, res, path, faults.unreachable(outcome.user.name));
      },
      () => serve(req, res, path, faults.unreachable()),
    );
  });
  function serve(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    fault: Unreachable | undefined,
  ): void {
    if (fault?.mode === "reset") {
      req.socket.destroy();
      return;
    }
    if (fault?.mode === "hang") {
      hold(req.socket);
      return;
    }
    if (fault?.mode === "slow") {
      setTimeout(() => serve(req, res, path, undefined), fault.delayMs ?? 0);
      return;
    }
    if (faults.isUnhealthy() && (path === "/healthz" || path.startsWith("/healthz/"))) {
      res.writeHead(500, { "Content-Type": "text/plain; charset=utf-8" });
      res.end("[+]ping ok\n[-]member-sim failed: reason withheld\nhealthz check failed");
      return;
    }
    api?.(req, res);
  }
  const removeListener = faults.onChange(() => {
    for (const s of sockets) {
      if (adminSockets.has(s)) continue;
      const fault = faults.unreachable(users.get(s));
      // Silenced connections are dead to their clients by now; end them.
      if (fault === undefined && held.delete(s)) s.destroy();
      else if (fault?.mode === "reset") s.destroy();
      else if (fault?.mode === "hang") hold(s);
    }
  });
  return {
    ...http,
    close: async () => {
      removeListener();
      for (const s of held) s.destroy();
      await http.close();
    },
  };
}
