/**
 * Who a request acts as. Loopback mode: one session, the kubeconfig's own identity (as
 * `kubectl proxy`). Token mode: one session per bearer token, whose client carries that token
 * and nothing else of the kubeconfig but the server's address and CA, so the user gets exactly
 * their own RBAC rights, never the dashboard's. A token is checked with a SelfSubjectReview
 * before a session is made for it; sessions (and their caches) are dropped when idle.
 */
import { createHash } from "node:crypto";
import type { ClusterConnection, HttpClient } from "../client/http.ts";
import { httpClientFor } from "../client/kubeconfig.ts";
import { ApiError, isApiError, type StatusReason } from "../machinery/errors.ts";
import { SourceSet } from "./sources.ts";
import type { WhoAmI } from "./wire.ts";

const SELF_SUBJECT_REVIEWS = {
  group: "authentication.k8s.io",
  version: "v1",
  resource: "selfsubjectreviews",
  namespaced: false,
  kind: "SelfSubjectReview",
} as const;

/** `kubectl auth whoami`: who the client's credentials are, as the control plane says. */
export async function whoAmI(client: HttpClient): Promise<{ username: string; groups: string[] }> {
  const review = await client.create(SELF_SUBJECT_REVIEWS, {
    apiVersion: "authentication.k8s.io/v1",
    kind: "SelfSubjectReview",
    metadata: {},
  });
  const info = (review.status as { userInfo?: { username?: string; groups?: string[] } } | undefined)
    ?.userInfo;
  return { username: info?.username ?? "", groups: info?.groups ?? [] };
}

export class Session {
  readonly client: HttpClient;
  readonly sources: SourceSet;
  readonly who: WhoAmI;
  lastUsed: number;
  streams = 0;

  constructor(client: HttpClient, sources: SourceSet, who: WhoAmI, now: number) {
    this.client = client;
    this.sources = sources;
    this.who = who;
    this.lastUsed = now;
  }

  close(): void {
    this.sources.stop();
    this.client.close();
  }
}

export interface SessionOptions {
  mode: "local" | "token";
  connection: ClusterConnection;
  /** A session without open streams is dropped after this long (ms). */
  idleMs: number;
  /** An unused source stops after this long (ms). */
  lingerMs: number;
  /** At most this many token sessions at once; the least recently used idle one goes first. */
  maxSessions: number;
  now: () => number;
}

function status(code: number, reason: StatusReason, message: string): ApiError {
  return new ApiError({
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    code,
    reason,
    message,
  });
}

/** The connection without any credential of the kubeconfig's user: only where the server is and how to trust it. */
export function serverOnly(c: ClusterConnection): ClusterConnection {
  return {
    server: c.server,
    ...(c.caData ? { caData: c.caData } : {}),
    ...(c.tlsServerName ? { tlsServerName: c.tlsServerName } : {}),
    ...(c.proxyUrl ? { proxyUrl: c.proxyUrl } : {}),
    ...(c.insecureSkipTLSVerify ? { insecureSkipTLSVerify: true } : {}),
  };
}

export class Sessions {
  #opts: SessionOptions;
  #sessions = new Map<string, Session>();
  #pending = new Map<string, Promise<Session>>();
  #sweeper: NodeJS.Timeout;

  constructor(opts: SessionOptions) {
    this.#opts = opts;
    this.#sweeper = setInterval(() => this.sweep(), Math.max(1_000, Math.min(opts.idleMs, 60_000)));
    this.#sweeper.unref();
  }

  /**
   * The session a request acts in: loopback mode ignores credentials; token mode needs a
   * bearer token the control plane accepts (401 otherwise; 503 when it cannot be reached).
   */
  async forToken(token: string | undefined): Promise<Session> {
    if (this.#opts.mode === "token" && !token) {
      throw status(
        401,
        "Unauthorized",
        "Sign in with a bearer token: this dashboard shows only what your token may read.",
      );
    }
    const key = this.#opts.mode === "local" ? "local" : createHash("sha256").update(token!).digest("hex");
    const existing = this.#sessions.get(key);
    if (existing) {
      existing.lastUsed = this.#opts.now();
      return existing;
    }
    let pending = this.#pending.get(key);
    if (!pending) {
      pending = this.#create(key, token).finally(() => this.#pending.delete(key));
      this.#pending.set(key, pending);
    }
    return pending;
  }

  async #create(key: string, token: string | undefined): Promise<Session> {
    const o = this.#opts;
    const connection = o.mode === "local" ? o.connection : { ...serverOnly(o.connection), token: token! };
    const client = httpClientFor(connection, { userAgent: "karmada-dashboard" });
    let who: { username: string; groups: string[] };
    try {
      who = await whoAmI(client);
    } catch (err) {
      client.close();
      if (isApiError(err) && err.code === 401) {
        throw status(
          401,
          "Unauthorized",
          o.mode === "token"
            ? "The control plane did not accept this token: it may be wrong or expired."
            : `The control plane did not accept the kubeconfig's credentials: ${err.message}`,
        );
      }
      if (isApiError(err) && err.code === 503) {
        throw status(
          503,
          "ServiceUnavailable",
          `Cannot reach the control plane at ${o.connection.server}: ${err.message}`,
        );
      }
      if (isApiError(err) && err.code === 403 && o.mode === "local") {
        // A kubeconfig user may lack the (default) right to review itself: still usable.
        who = { username: "(the kubeconfig's user)", groups: [] };
      } else {
        throw err;
      }
    }
    const session = new Session(
      client,
      new SourceSet(client, o.lingerMs),
      { mode: o.mode, ...who, server: o.connection.server },
      o.now(),
    );
    this.#sessions.set(key, session);
    this.#evictOverflow();
    return session;
  }

  #evictOverflow(): void {
    if (this.#sessions.size <= this.#opts.maxSessions) return;
    const idle = [...this.#sessions.entries()]
      .filter(([, s]) => s.streams === 0)
      .sort((a, b) => a[1].lastUsed - b[1].lastUsed);
    for (const [key, s] of idle) {
      if (this.#sessions.size <= this.#opts.maxSessions) break;
      this.#sessions.delete(key);
      s.close();
    }
  }

  /** Drops sessions without streams that have been idle too long. */
  sweep(): void {
    const now = this.#opts.now();
    for (const [key, s] of this.#sessions) {
      if (s.streams === 0 && now - s.lastUsed > this.#opts.idleMs) {
        this.#sessions.delete(key);
        s.close();
      }
    }
  }

  get size(): number {
    return this.#sessions.size;
  }

  close(): void {
    clearInterval(this.#sweeper);
    for (const s of this.#sessions.values()) s.close();
    this.#sessions.clear();
  }
}
