/**
 * The HTTP transport: the Kubernetes REST API over node:http/node:https, JSON in and out, to
 * any API server (ours, a member simulator, a real cluster). What remote control planes and
 * every member cluster are reached through.
 *
 * - One keep-alive agent per client; TLS material goes with each request, so the agent keeps
 *   separate connection pools per client certificate (exec plugins may hand out new ones).
 * - At most `maxConcurrent` requests in flight per client; more wait in the client's queue,
 *   so a slow member stalls only its own callers. A watch holds a slot only until its
 *   response headers arrive.
 * - Errors are always `ApiError`: a Status answer is rebuilt with `fromStatus`; a request that
 *   got no HTTP answer is a `TransportError` (503 ServiceUnavailable, see below).
 * - A 429, or a 5xx that says when to come back (`Retry-After`), is tried again after that many
 *   seconds plus jitter, up to 10 times, whatever the verb, as client-go does (ADR 0017). The
 *   request keeps its concurrency slot meanwhile, so an overloaded server sees fewer of ours.
 */
import http from "node:http";
import https from "node:https";
import type { Duplex } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import tls from "node:tls";
import { type KubeObject, parseApiVersion, type StoredObject } from "../api/meta.ts";
import { ApiError, fromStatus, notFound, type Status } from "../machinery/errors.ts";
import type { Registry } from "../metrics/registry.ts";
import type {
  Client,
  DeleteOptions,
  ListOptions,
  ObjectList,
  PatchOptions,
  PatchType,
  ResourceRef,
  WatchEvent,
  WatchHandle,
  WatchOptions,
  WriteOptions,
} from "./client.ts";
import { type RestClientMetrics, restClientMetrics } from "./metrics.ts";

/** What a request authenticates with, beyond the connection's static settings. */
export interface Credentials {
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** HTTP basic auth (legacy kubeconfigs). */
  username?: string;
  password?: string;
  /** Client certificate and key, PEM (exec plugins may return these). */
  certData?: string;
  keyData?: string;
}

/** Credentials that can change (exec plugins, token files, auth providers). */
export interface CredentialSource {
  /** Called before every request: must cache and refresh only when needed. */
  get(): Promise<Credentials>;
  /** The server answered 401: drop what is cached so the next `get` fetches anew. */
  invalidate?(): void;
}

/**
 * Where an API server is and how to talk to it: what a kubeconfig's cluster and user boil
 * down to, or what a Karmada Cluster's secret holds (`token` + `caBundle`). PEM fields accept
 * PEM text or base64 of PEM (as in kubeconfigs and Secret data).
 */
export interface ClusterConnection {
  /** `https://host:port`, optionally with a path prefix (e.g. behind a gateway). */
  server: string;
  caData?: string;
  certData?: string;
  keyData?: string;
  token?: string;
  username?: string;
  password?: string;
  insecureSkipTLSVerify?: boolean;
  /** Server name for SNI and certificate checks, when it differs from the URL's host. */
  tlsServerName?: string;
  /** `http://` or `https://` proxy (absolute-form requests, CONNECT tunnels for https servers). */
  proxyUrl?: string;
  /** Per-request credentials; they add to (and override) the static ones above. */
  credentials?: CredentialSource;
}

export interface HttpClientOptions extends ClusterConnection {
  /** Requests in flight at once; more wait in the client (default 32). */
  maxConcurrent?: number;
  /** Time for a response to complete, from when it is sent (default 30 s; for a watch, until its headers). */
  timeoutMs?: number;
  /** Field manager for writes that name none, apply excepted (default "karmada-ts"). */
  fieldManager?: string;
  userAgent?: string;
  /** Where `rest_client_*` metrics are recorded (none without it). */
  metrics?: Registry;
  /** Retries of a request told to come back later (default 10, client-go's; 0: none). */
  maxRetries?: number;
  /** In [0, 1): the jitter added to each Retry-After wait (default Math.random). */
  random?: () => number;
  /** Shared by the clients of one server, so that one's answer ends another's failures (default: its own). */
  reachability?: Reachability;
}

export const DEFAULT_MAX_CONCURRENT = 32;

/**
 * Whether a server could be reached, as its clients found: a request that got no answer marks
 * it unreachable; the next answer (not a 5xx or 429 of a server starting or overloaded)
 * marks it reachable again and tells the listeners, who retry what failed meanwhile.
 */
export class Reachability {
  #unreachable = false;
  #listeners = new Set<() => void>();

  failed(): void {
    this.#unreachable = true;
  }

  answered(status: number): void {
    if (!this.#unreachable || status >= 500 || status === 429) return;
    this.#unreachable = false;
    for (const l of [...this.#listeners]) l();
  }

  onRecovered(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
export const DEFAULT_TIMEOUT_MS = 30_000;
/** client-go's bound on the retries of one request. */
export const DEFAULT_MAX_RETRIES = 10;
/**
 * A wait of Retry-After seconds grows by up to this fraction, so that clients sent away at the
 * same moment do not all come back at the same moment.
 */
const RETRY_JITTER = 0.5;
/** A longer Retry-After is waited only this long: a member must not park our callers for hours. */
const MAX_RETRY_AFTER_SECONDS = 60;
/**
 * Idle keep-alive connections are closed after this: below our API server's 65 s and common
 * server idle timeouts, above the cluster status period even when a large fleet stretches it
 * (at 30 s, 1,000 members' probes each opened a new TLS connection, which made the loop slower
 * still).
 */
const IDLE_SOCKET_MS = 60_000;
/** How much of a non-JSON error body ends up in the error message. */
const MAX_ERROR_TEXT = 1024;

/**
 * A request that got no HTTP answer: connection refused or reset, TLS failure, timeout, proxy
 * failure, a credential plugin that failed. It is an `ApiError` with code 503 and reason
 * `ServiceUnavailable` (so callers handle "the server is unreachable" like a 503 from it),
 * its message is `<what>: <cause message>`, and `cause` holds the original error.
 */
export class TransportError extends ApiError {
  constructor(what: string, cause: unknown) {
    super({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: `${what}: ${cause instanceof Error ? cause.message : String(cause)}`,
      reason: "ServiceUnavailable",
      code: 503,
    });
    this.name = "TransportError";
    this.cause = cause;
  }
}

export function isTransportError(e: unknown): e is TransportError {
  return e instanceof TransportError;
}

const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  json: "application/json-patch+json",
  merge: "application/merge-patch+json",
  strategic: "application/strategic-merge-patch+json",
  // Server-side apply bodies are YAML on the wire; JSON is YAML.
  apply: "application/apply-patch+yaml",
};

/** `/api/v1` or `/apis/<group>/<version>`. */
export function groupVersionPath(group: string, version: string): string {
  return group === "" ? `/api/${version}` : `/apis/${group}/${version}`;
}

/** The REST path of a collection (no name) or of one object, optionally a subresource. */
export function resourcePath(
  res: ResourceRef,
  namespace: string | undefined,
  name?: string,
  subresource?: string,
): string {
  let path = groupVersionPath(res.group, res.version);
  if (res.namespaced && namespace !== undefined && namespace !== "") {
    path += `/namespaces/${encodeURIComponent(namespace)}`;
  }
  path += `/${res.resource}`;
  if (name !== undefined) path += `/${encodeURIComponent(name)}`;
  if (subresource !== undefined) path += `/${subresource}`;
  return path;
}

function setParam(q: URLSearchParams, key: string, value: string | number | boolean | undefined): void {
  if (value !== undefined && value !== "") q.set(key, String(value));
}

export function listQuery(opts: ListOptions): URLSearchParams {
  const q = new URLSearchParams();
  setParam(q, "labelSelector", opts.labelSelector);
  setParam(q, "fieldSelector", opts.fieldSelector);
  setParam(q, "limit", opts.limit);
  setParam(q, "continue", opts.continue);
  if (opts.resourceVersion !== undefined) q.set("resourceVersion", opts.resourceVersion);
  setParam(q, "resourceVersionMatch", opts.resourceVersionMatch);
  return q;
}

export function watchQuery(opts: WatchOptions): URLSearchParams {
  const q = new URLSearchParams({ watch: "true" });
  setParam(q, "labelSelector", opts.labelSelector);
  setParam(q, "fieldSelector", opts.fieldSelector);
  if (opts.resourceVersion !== undefined) q.set("resourceVersion", opts.resourceVersion);
  setParam(q, "resourceVersionMatch", opts.resourceVersionMatch);
  setParam(q, "allowWatchBookmarks", opts.allowWatchBookmarks);
  setParam(q, "timeoutSeconds", opts.timeoutSeconds);
  setParam(q, "sendInitialEvents", opts.sendInitialEvents);
  return q;
}

/** PEM as given, or decoded from base64 (kubeconfig `*-data` fields, Secret data). */
export function pemOf(data: string): string {
  return data.includes("-----BEGIN") ? data : Buffer.from(data, "base64").toString("utf8");
}

/** FIFO counting semaphore: the client's request queue. */
class Limiter {
  #free: number;
  #waiting: Array<() => void> = [];
  constructor(size: number) {
    this.#free = size;
  }
  acquire(): Promise<void> {
    if (this.#free > 0) {
      this.#free--;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }
  release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#free++;
  }
}

/** An https agent whose connections go through an HTTP(S) proxy's CONNECT tunnel. */
class TunnelAgent extends https.Agent {
  #proxy: URL;
  constructor(proxy: URL, options: https.AgentOptions) {
    super(options);
    this.#proxy = proxy;
  }
  override createConnection(
    options: https.RequestOptions,
    callback?: (err: Error | null, stream: Duplex) => void,
  ): Duplex | null | undefined {
    const done = callback ?? (() => {});
    const target = `${options.host ?? "localhost"}:${options.port ?? 443}`;
    const proxy = this.#proxy;
    const request = proxy.protocol === "https:" ? https.request : http.request;
    const connect = request({
      method: "CONNECT",
      host: bareHost(proxy.hostname),
      port: proxy.port || (proxy.protocol === "https:" ? 443 : 80),
      path: target,
      headers: { Host: target, ...proxyAuthorization(proxy) },
      agent: false,
    });
    connect.once("connect", (res, socket) => {
      if (res.statusCode !== 200) {
        socket.destroy();
        done(new Error(`proxy ${proxy.host} answered CONNECT with ${res.statusCode}`), undefined as never);
        return;
      }
      const secure = tls.connect({ ...(options as tls.ConnectionOptions), socket });
      let ready = false;
      secure.once("secureConnect", () => {
        ready = true;
        done(null, secure);
      });
      secure.once("error", (err) => {
        if (!ready) done(err, undefined as never);
      });
    });
    connect.once("error", (err) => done(err, undefined as never));
    connect.end();
    return undefined;
  }
}

function bareHost(hostname: string): string {
  return hostname.startsWith("[") ? hostname.slice(1, -1) : hostname;
}

function proxyAuthorization(proxy: URL): Record<string, string> {
  if (!proxy.username) return {};
  const user = decodeURIComponent(proxy.username);
  const pass = decodeURIComponent(proxy.password);
  return { "Proxy-Authorization": `Basic ${Buffer.from(`${user}:${pass}`).toString("base64")}` };
}

interface RawResponse {
  status: number;
  body: Buffer;
  /** The Retry-After header, when there is one. */
  retryAfter?: string | undefined;
}

/**
 * How long to wait before trying again, in seconds, as client-go's `checkWait` decides: only a
 * 429 or a 5xx, and only when Retry-After holds a whole number of seconds (an HTTP date is not
 * read, as client-go does not). Undefined: do not retry.
 */
export function retryAfterSeconds(status: number, retryAfter: string | undefined): number | undefined {
  if (status !== 429 && status < 500) return undefined;
  if (retryAfter === undefined || !/^[+-]?[0-9]+$/.test(retryAfter.trim())) return undefined;
  return Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(0, Number(retryAfter.trim())));
}

/** Retry-After seconds as a wait in ms, plus jitter (`random` in [0, 1)). */
export function retryDelayMs(seconds: number, random: () => number): number {
  return seconds * 1000 * (1 + RETRY_JITTER * random());
}

interface RequestSpec {
  method: string;
  path: string;
  query?: URLSearchParams;
  body?: Buffer;
  contentType?: string;
  /** Accept header other than JSON. */
  accept?: string;
}

/** Parsed APIResourceList entries we use. */
interface DiscoveredResource {
  name: string;
  namespaced: boolean;
  kind: string;
}

export class HttpClient implements Client {
  /** The server URL this client talks to. */
  readonly server: string;
  #base: URL;
  #secure: boolean;
  #proxy: URL | undefined;
  #agent: http.Agent;
  #tls: https.RequestOptions;
  /** The CA, certificate and key parsed once (undefined: not yet; null: they do not parse). */
  #secureContext: tls.SecureContext | null | undefined;
  #static: Credentials;
  #credentials: CredentialSource | undefined;
  #limiter: Limiter;
  #timeoutMs: number;
  #manager: string;
  #userAgent: string;
  #discovery = new Map<string, Promise<DiscoveredResource[]>>();
  #watches = new Set<() => void>();
  #metrics: RestClientMetrics | undefined;
  #maxRetries: number;
  #random: () => number;
  #reachability: Reachability;

  constructor(opts: HttpClientOptions) {
    this.#base = new URL(opts.server);
    if (this.#base.protocol !== "http:" && this.#base.protocol !== "https:") {
      throw new Error(`server ${opts.server}: only http:// and https:// servers are supported`);
    }
    this.server = opts.server;
    this.#secure = this.#base.protocol === "https:";
    this.#timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#manager = opts.fieldManager ?? "karmada-ts";
    this.#userAgent = opts.userAgent ?? "karmada-ts";
    this.#limiter = new Limiter(Math.max(1, opts.maxConcurrent ?? DEFAULT_MAX_CONCURRENT));
    this.#maxRetries = Math.max(0, opts.maxRetries ?? DEFAULT_MAX_RETRIES);
    this.#random = opts.random ?? Math.random;
    this.#reachability = opts.reachability ?? new Reachability();
    if (opts.metrics) this.#metrics = restClientMetrics(opts.metrics, this.#base.host);
    this.#credentials = opts.credentials;
    this.#static = {};
    if (opts.token !== undefined) this.#static.token = opts.token;
    if (opts.username !== undefined) this.#static.username = opts.username;
    if (opts.password !== undefined) this.#static.password = opts.password;
    this.#tls = {};
    if (opts.caData) this.#tls.ca = pemOf(opts.caData);
    if (opts.certData) this.#tls.cert = pemOf(opts.certData);
    if (opts.keyData) this.#tls.key = pemOf(opts.keyData);
    if (opts.tlsServerName) this.#tls.servername = opts.tlsServerName;
    this.#tls.rejectUnauthorized = opts.insecureSkipTLSVerify !== true;

    const agentOptions = { keepAlive: true, timeout: IDLE_SOCKET_MS };
    if (opts.proxyUrl) {
      const proxy = new URL(opts.proxyUrl);
      if (proxy.protocol !== "http:" && proxy.protocol !== "https:") {
        // socks5:// (which kubectl supports) would need a SOCKS client: not implemented.
        throw new Error(`proxy-url ${proxy.protocol}// is not supported (http:// and https:// proxies are)`);
      }
      this.#proxy = proxy;
    }
    if (this.#secure) {
      this.#agent = this.#proxy ? new TunnelAgent(this.#proxy, agentOptions) : new https.Agent(agentOptions);
    } else {
      // Plain http through a proxy: absolute-form requests to the proxy (over TLS for an
      // https:// proxy).
      this.#agent =
        this.#proxy?.protocol === "https:" ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
    }
  }

  /** The TLS settings as one secure context, made on first use; undefined when they do not parse (the connection then says why). */
  #context(): tls.SecureContext | undefined {
    if (this.#secureContext === undefined) {
      const { ca, cert, key } = this.#tls;
      try {
        this.#secureContext = tls.createSecureContext({ ca, cert, key } as tls.SecureContextOptions);
      } catch {
        this.#secureContext = null;
      }
    }
    return this.#secureContext ?? undefined;
  }

  /** Ends running watches (their `done` resolves) and closes idle connections. */
  close(): void {
    for (const stop of [...this.#watches]) stop();
    this.#agent.destroy();
  }

  onRecovered(listener: () => void): () => void {
    return this.#reachability.onRecovered(listener);
  }

  // --- requests -------------------------------------------------------------------------

  #url(path: string, query?: URLSearchParams): URL {
    const url = new URL(this.#base.href);
    url.pathname = this.#base.pathname.replace(/\/+$/, "") + path;
    url.search = query && [...query.keys()].length > 0 ? `?${query.toString()}` : "";
    return url;
  }

  async #currentCredentials(what: string): Promise<Credentials> {
    if (!this.#credentials) return this.#static;
    try {
      return { ...this.#static, ...(await this.#credentials.get()) };
    } catch (err) {
      throw new TransportError(`${what}: getting credentials`, err);
    }
  }

  #requestOptions(
    method: string,
    url: URL,
    creds: Credentials,
    spec: { body?: Buffer; contentType?: string; accept?: string },
  ): https.RequestOptions {
    const headers: http.OutgoingHttpHeaders = {
      Accept: spec.accept ?? "application/json",
      "User-Agent": this.#userAgent,
    };
    if (creds.token) headers.Authorization = `Bearer ${creds.token}`;
    else if (creds.username !== undefined) {
      headers.Authorization = `Basic ${Buffer.from(`${creds.username}:${creds.password ?? ""}`).toString("base64")}`;
    }
    if (spec.body) {
      headers["Content-Type"] = spec.contentType ?? "application/json";
      headers["Content-Length"] = spec.body.length;
    }
    const options: https.RequestOptions = {
      method,
      agent: this.#agent,
      host: bareHost(url.hostname),
      port: url.port || (this.#secure ? 443 : 80),
      path: url.pathname + url.search,
      headers,
    };
    if (this.#secure) {
      const context = creds.certData || creds.keyData ? undefined : this.#context();
      if (context) {
        // Node parses the CA, certificate and key again for every connection otherwise; a
        // control plane opens several per member (each watch is one), again whenever idle
        // ones were closed: at 1,000 members that parsing was 7% of its CPU at rest.
        (options as tls.ConnectionOptions).secureContext = context;
        options.servername = this.#tls.servername;
        options.rejectUnauthorized = this.#tls.rejectUnauthorized;
      } else {
        Object.assign(options, this.#tls);
        if (creds.certData) options.cert = pemOf(creds.certData);
        if (creds.keyData) options.key = pemOf(creds.keyData);
      }
    } else if (this.#proxy) {
      options.host = bareHost(this.#proxy.hostname);
      options.port = this.#proxy.port || (this.#proxy.protocol === "https:" ? 443 : 80);
      options.path = url.href;
      headers.Host = url.host;
      Object.assign(headers, proxyAuthorization(this.#proxy));
    }
    return options;
  }

  #transport(): typeof http.request {
    // An https proxy in front of a plain-http server is reached over TLS itself.
    if (this.#secure) return https.request;
    return this.#proxy?.protocol === "https:" ? https.request : http.request;
  }

  /** One attempt: resolves with the complete response, rejects with the transport error. */
  #attempt(
    options: https.RequestOptions,
    body: Buffer | undefined,
  ): Promise<RawResponse & { reused: boolean }> {
    return new Promise((resolve, reject) => {
      let settled = false;
      const fail = (err: unknown): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(
          Object.assign(err instanceof Error ? err : new Error(String(err)), { reused: req.reusedSocket }),
        );
      };
      const req = this.#transport()(options, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks),
            reused: req.reusedSocket,
            retryAfter: res.headers["retry-after"],
          });
        });
        res.on("error", fail);
        res.on("close", () => {
          if (!res.complete) fail(new Error("connection closed before the response was complete"));
        });
      });
      const timer = setTimeout(() => {
        req.destroy(new Error(`no response within ${this.#timeoutMs} ms`));
      }, this.#timeoutMs);
      req.on("error", fail);
      req.end(body);
    });
  }

  async #send(spec: RequestSpec): Promise<RawResponse> {
    const url = this.#url(spec.path, spec.query);
    const what = `${spec.method} ${url.href}`;
    const metrics = this.#metrics;
    const queued = metrics ? performance.now() : 0;
    await this.#limiter.acquire();
    metrics?.waited(spec.method, (performance.now() - queued) / 1000);
    try {
      let refreshed = false;
      let retries = 0;
      for (let attempt = 0; ; attempt++) {
        const creds = await this.#currentCredentials(what);
        let res: RawResponse;
        const sent = metrics ? performance.now() : 0;
        try {
          res = await this.#attempt(this.#requestOptions(spec.method, url, creds, spec), spec.body);
          metrics?.request(spec.method, res.status, (performance.now() - sent) / 1000);
        } catch (err) {
          metrics?.request(spec.method, undefined, (performance.now() - sent) / 1000);
          // A kept-alive connection the server closed just as we reused it: once more, reads only.
          const e = err as { reused?: boolean; code?: string };
          const stale = e.reused === true && (e.code === "ECONNRESET" || e.code === "EPIPE");
          if (stale && spec.method === "GET" && attempt === 0) continue;
          this.#reachability.failed();
          throw new TransportError(what, err);
        }
        this.#reachability.answered(res.status);
        if (res.status === 401 && this.#credentials?.invalidate) {
          this.#credentials.invalidate();
          if (!refreshed) {
            refreshed = true;
            continue;
          }
        }
        const wait = retryAfterSeconds(res.status, res.retryAfter);
        if (wait !== undefined && retries < this.#maxRetries) {
          retries++;
          metrics?.retried(spec.method, res.status);
          await sleep(retryDelayMs(wait, this.#random));
          continue;
        }
        return res;
      }
    } finally {
      this.#limiter.release();
    }
  }

  async #call<T>(spec: RequestSpec): Promise<T> {
    const res = await this.#send(spec);
    const text = res.body.toString("utf8");
    let parsed: unknown;
    let json = true;
    try {
      parsed = text === "" ? undefined : JSON.parse(text);
    } catch {
      json = false;
    }
    if (res.status < 200 || res.status > 299) {
      throw fromStatus(json ? parsed : text.slice(0, MAX_ERROR_TEXT), res.status);
    }
    if (!json || parsed === undefined || typeof parsed !== "object" || parsed === null) {
      throw badResponse(
        `${spec.method} ${spec.path}: the server answered ${res.status} without a JSON object`,
      );
    }
    return parsed as T;
  }

  #jsonBody(value: unknown): Buffer {
    return Buffer.from(typeof value === "string" ? value : JSON.stringify(value));
  }

  #writeQuery(opts: WriteOptions | undefined, defaultManager: boolean): URLSearchParams {
    const q = new URLSearchParams();
    if (opts?.dryRun) q.set("dryRun", "All");
    const manager = opts?.fieldManager ?? (defaultManager ? this.#manager : undefined);
    setParam(q, "fieldManager", manager);
    setParam(q, "fieldValidation", opts?.fieldValidation);
    return q;
  }

  /**
   * GETs a path as text, whatever the status: non-resource paths (`/readyz`, `/version`,
   * discovery), or a resource path with another `accept` (e.g. a server-side Table).
   */
  getRaw(path: string, accept?: string): Promise<{ status: number; body: string }> {
    return this.raw("GET", path, accept ? { accept } : {});
  }

  /**
   * Any request, whatever the status: a JSON `body` is sent as such. For paths the Client
   * verbs do not cover (a member simulator's `/sim/faults`, a subresource POST).
   */
  async raw(
    method: string,
    path: string,
    opts: { body?: unknown; accept?: string } = {},
  ): Promise<{ status: number; body: string }> {
    const [p, q] = path.split("?", 2) as [string, string | undefined];
    const res = await this.#send({
      method,
      path: p,
      query: new URLSearchParams(q ?? ""),
      ...(opts.accept ? { accept: opts.accept } : {}),
      ...(opts.body !== undefined ? { body: Buffer.from(JSON.stringify(opts.body)) } : {}),
    });
    return { status: res.status, body: res.body.toString("utf8") };
  }

  /**
   * Opens a request for a proxy to stream: `headers` are sent as given (plus this client's
   * credentials and User-Agent), `body` is piped, and the response is handed over as soon as
   * its head arrives. No time limit and no concurrency slot: watches, `logs -f` and other
   * long requests pass through; `signal` ends the request.
   */
  async open(
    method: string,
    pathAndQuery: string,
    headers: http.OutgoingHttpHeaders,
    body: NodeJS.ReadableStream | Buffer | undefined,
    signal: AbortSignal,
  ): Promise<http.IncomingMessage> {
    const [p, q] = pathAndQuery.split("?", 2) as [string, string | undefined];
    const url = this.#url(p, new URLSearchParams(q ?? ""));
    const what = `${method} ${url.href}`;
    const creds = await this.#currentCredentials(what);
    const options = this.#requestOptions(method, url, creds, {});
    // Only what the caller chose, with our credentials over any it carried.
    const own = options.headers as http.OutgoingHttpHeaders;
    options.headers = { ...headers, "User-Agent": own["User-Agent"] };
    if (own.Authorization) options.headers.Authorization = own.Authorization;
    if (own.Host) options.headers.Host = own.Host;
    for (const [k, v] of Object.entries(own)) if (k.startsWith("Proxy-")) options.headers[k] = v;
    options.signal = signal;
    return new Promise((resolve, reject) => {
      const req = this.#transport()(options, resolve);
      req.on("error", (err) => reject(new TransportError(what, err)));
      if (body === undefined) req.end();
      else if (Buffer.isBuffer(body)) req.end(body);
      else body.pipe(req);
    });
  }

  // --- Client ---------------------------------------------------------------------------

  async get(
    res: ResourceRef,
    namespace: string | undefined,
    name: string,
    opts: { resourceVersion?: string; subresource?: string } = {},
  ): Promise<StoredObject> {
    named(res, name);
    const q = new URLSearchParams();
    if (opts.resourceVersion !== undefined) q.set("resourceVersion", opts.resourceVersion);
    return this.#call({
      method: "GET",
      path: resourcePath(res, namespace, name, opts.subresource),
      query: q,
    });
  }

  async list(res: ResourceRef, namespace: string | undefined, opts: ListOptions = {}): Promise<ObjectList> {
    const list = await this.#call<ObjectList>({
      method: "GET",
      path: resourcePath(res, namespace),
      query: listQuery(opts),
    });
    list.items ??= [];
    list.metadata ??= {};
    // Typed lists from real servers omit the items' kind and apiVersion; fill them in as
    // client-go's unstructured decoding does.
    const itemKind = res.kind ?? list.kind?.replace(/List$/, "");
    for (const item of list.items) {
      if (!item.kind && itemKind) item.kind = itemKind;
      if (!item.apiVersion && list.apiVersion) item.apiVersion = list.apiVersion;
    }
    return list;
  }

  async create(res: ResourceRef, obj: KubeObject, opts?: WriteOptions): Promise<StoredObject> {
    const namespace = res.namespaced ? obj.metadata?.namespace : undefined;
    return this.#call({
      method: "POST",
      path: resourcePath(res, namespace),
      query: this.#writeQuery(opts, true),
      body: this.#jsonBody(obj),
    });
  }

  async #put(
    res: ResourceRef,
    obj: KubeObject,
    subresource: string | undefined,
    opts?: WriteOptions,
  ): Promise<StoredObject> {
    const namespace = res.namespaced ? obj.metadata?.namespace : undefined;
    const name = obj.metadata?.name ?? "";
    named(res, name);
    return this.#call<StoredObject>({
      method: "PUT",
      path: resourcePath(res, namespace, name, subresource),
      query: this.#writeQuery(opts, true),
      body: this.#jsonBody(obj),
    });
  }

  update(res: ResourceRef, obj: KubeObject, opts?: WriteOptions): Promise<StoredObject> {
    return this.#put(res, obj, undefined, opts);
  }

  updateStatus(res: ResourceRef, obj: KubeObject, opts?: WriteOptions): Promise<StoredObject> {
    return this.#put(res, obj, "status", opts);
  }

  async patch(
    res: ResourceRef,
    namespace: string | undefined,
    name: string,
    type: PatchType,
    patch: unknown,
    opts: PatchOptions = {},
  ): Promise<StoredObject> {
    named(res, name);
    // Apply needs a field manager named by the caller (the server answers 422 otherwise), as
    // in the in-process client; the other writes get the client's default.
    const q = this.#writeQuery(opts, type !== "apply");
    if (opts.force !== undefined) q.set("force", String(opts.force));
    return this.#call({
      method: "PATCH",
      path: resourcePath(res, namespace, name, opts.subresource),
      query: q,
      body: this.#jsonBody(patch),
      contentType: PATCH_CONTENT_TYPES[type],
    });
  }

  async delete(
    res: ResourceRef,
    namespace: string | undefined,
    name: string,
    opts: DeleteOptions = {},
  ): Promise<StoredObject | undefined> {
    named(res, name);
    const body: Record<string, unknown> = { kind: "DeleteOptions", apiVersion: "v1" };
    if (opts.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = opts.gracePeriodSeconds;
    if (opts.propagationPolicy !== undefined) body.propagationPolicy = opts.propagationPolicy;
    if (opts.preconditions !== undefined) body.preconditions = opts.preconditions;
    if (opts.dryRun) body.dryRun = ["All"];
    const answer = await this.#call<StoredObject | Status>({
      method: "DELETE",
      path: resourcePath(res, namespace, name),
      body: this.#jsonBody(body),
    });
    if (answer.kind === "Status") return undefined;
    return stillExists(answer as StoredObject) ? (answer as StoredObject) : undefined;
  }

  watch(
    res: ResourceRef,
    namespace: string | undefined,
    opts: WatchOptions,
    onEvent: (e: WatchEvent) => void,
  ): WatchHandle {
    const url = this.#url(resourcePath(res, namespace), watchQuery(opts));
    const what = `watch ${url.href}`;
    let stopped = false;
    let settled = false;
    let req: http.ClientRequest | undefined;
    let retryTimer: NodeJS.Timeout | undefined;
    let resolveDone: () => void = () => {};
    let rejectDone: (err: unknown) => void = () => {};
    const done = new Promise<void>((resolve, reject) => {
      resolveDone = resolve;
      rejectDone = reject;
    });
    const finish = (err?: unknown): void => {
      if (settled) return;
      settled = true;
      this.#watches.delete(stop);
      if (err !== undefined && !stopped) rejectDone(err);
      else resolveDone();
    };
    const stop = (): void => {
      stopped = true;
      clearTimeout(retryTimer);
      req?.destroy();
      finish();
    };
    this.#watches.add(stop);

    const start = async (retries: number): Promise<void> => {
      await this.#limiter.acquire();
      let holding = true;
      const release = (): void => {
        if (holding) {
          holding = false;
          this.#limiter.release();
        }
      };
      if (stopped) {
        release();
        return;
      }
      let creds: Credentials;
      try {
        creds = await this.#currentCredentials(what);
      } catch (err) {
        release();
        finish(err);
        return;
      }
      if (stopped) {
        release();
        return;
      }
      const sent = performance.now();
      let answered = false;
      const r = this.#transport()(this.#requestOptions("GET", url, creds, {}), (response) => {
        clearTimeout(timer);
        release();
        // As client-go: a watch counts once, when its response headers arrive.
        answered = true;
        this.#metrics?.request("GET", response.statusCode, (performance.now() - sent) / 1000);
        this.#reachability.answered(response.statusCode ?? 0);
        if (response.statusCode !== 200) {
          if (response.statusCode === 401) this.#credentials?.invalidate?.();
          const chunks: Buffer[] = [];
          response.on("data", (c: Buffer) => chunks.push(c));
          response.on("end", () => {
            const code = response.statusCode ?? 0;
            const wait = retryAfterSeconds(code, response.headers["retry-after"]);
            if (wait !== undefined && retries < this.#maxRetries && !stopped) {
              // Told to come back later, as a request is: the watch opens again after the wait.
              this.#metrics?.retried("GET", code);
              retryTimer = setTimeout(
                () => {
                  retryTimer = undefined;
                  start(retries + 1).catch((err) => finish(err));
                },
                retryDelayMs(wait, this.#random),
              );
              return;
            }
            const text = Buffer.concat(chunks).toString("utf8");
            let parsed: unknown = text.slice(0, MAX_ERROR_TEXT);
            try {
              parsed = JSON.parse(text);
            } catch {}
            finish(fromStatus(parsed, response.statusCode ?? 0));
          });
          response.on("error", (err) => finish(new TransportError(what, err)));
          return;
        }
        const decoder = new StringDecoder("utf8");
        let buffered = "";
        const deliver = (line: string): boolean => {
          if (line.trim() === "") return true;
          let event: WatchEvent;
          try {
            event = JSON.parse(line) as WatchEvent;
          } catch {
            r.destroy();
            finish(badResponse(`${what}: malformed watch event: ${line.slice(0, 200)}`));
            return false;
          }
          if (stopped || settled) return false;
          const obj = event.object as KubeObject | undefined;
          if (obj && event.type !== "ERROR" && !obj.kind && res.kind) obj.kind = res.kind;
          try {
            onEvent(event);
          } catch (err) {
            // The handler failed: the watch ends with its error rather than crashing the process.
            r.destroy();
            finish(err);
            return false;
          }
          return true;
        };
        response.on("data", (chunk: Buffer) => {
          // Events end with a newline; a chunk may hold many, an event may span chunks (and a
          // chunk may end inside a UTF-8 character: the decoder keeps those bytes back).
          const text = decoder.write(chunk);
          let from = 0;
          let nl = text.indexOf("\n");
          if (nl >= 0) {
            if (!deliver(buffered + text.slice(0, nl))) return;
            buffered = "";
            from = nl + 1;
            nl = text.indexOf("\n", from);
            while (nl >= 0) {
              if (!deliver(text.slice(from, nl))) return;
              from = nl + 1;
              nl = text.indexOf("\n", from);
            }
          }
          buffered += text.slice(from);
        });
        response.on("end", () => {
          buffered += decoder.end();
          if (deliver(buffered)) finish();
        });
        response.on("error", (err) => finish(new TransportError(what, err)));
        response.on("close", () => {
          if (!response.complete) {
            if (!stopped) this.#reachability.failed();
            finish(new TransportError(what, new Error("connection closed in the middle of the watch")));
          }
        });
      });
      req = r;
      const timer = setTimeout(() => {
        r.destroy(new Error(`no response within ${this.#timeoutMs} ms`));
      }, this.#timeoutMs);
      r.on("error", (err) => {
        clearTimeout(timer);
        release();
        if (!answered) this.#metrics?.request("GET", undefined, (performance.now() - sent) / 1000);
        if (!stopped) this.#reachability.failed();
        finish(new TransportError(what, err));
      });
      r.on("close", () => {
        clearTimeout(timer);
        release();
      });
      r.end();
    };
    start(0).catch((err) => finish(err));
    return { stop, done };
  }

  async resourceFor(apiVersion: string, kind: string): Promise<ResourceRef> {
    const { group, version } = parseApiVersion(apiVersion);
    const key = groupVersionPath(group, version);
    let pending = this.#discovery.get(key);
    if (pending !== undefined) {
      const hit = findKind(await pending.catch(() => []), kind);
      if (hit) return refOf(group, version, hit);
      // A miss may be a kind served since we looked (a new CRD): look again, once per miss,
      // sharing a lookup already under way.
      if (this.#discovery.get(key) === pending) pending = undefined;
      else pending = this.#discovery.get(key);
    }
    if (pending === undefined) {
      pending = this.#discover(key);
      this.#discovery.set(key, pending);
      pending.catch(() => {
        if (this.#discovery.get(key) === pending) this.#discovery.delete(key);
      });
    }
    const hit = findKind(await pending, kind);
    if (!hit) {
      throw new ApiError({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: `no matches for kind "${kind}" in version "${apiVersion}"`,
        reason: "NotFound",
        details: { group, kind },
        code: 404,
      });
    }
    return refOf(group, version, hit);
  }

  async #discover(path: string): Promise<DiscoveredResource[]> {
    const list = await this.#call<{ resources?: DiscoveredResource[] }>({ method: "GET", path });
    return (list.resources ?? []).filter((r) => !r.name.includes("/"));
  }
}

/** An empty name would address the collection: answer as the in-process client does. */
function named(res: ResourceRef, name: string): void {
  if (name === "") throw notFound({ group: res.group, resource: res.resource }, "");
}

function findKind(resources: DiscoveredResource[], kind: string): DiscoveredResource | undefined {
  return resources.find((r) => r.kind === kind);
}

function refOf(group: string, version: string, r: DiscoveredResource): ResourceRef {
  return { group, version, resource: r.name, namespaced: r.namespaced, kind: r.kind };
}

function badResponse(message: string): ApiError {
  return new ApiError({
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason: "InternalError",
    code: 500,
  });
}

/**
 * Whether the object a DELETE answered with is still there. Servers answer most deletes of
 * objects that are gone with a Success Status, but some kinds (Pods, Namespaces) with the
 * object's last state; an object that stays is terminating and held by finalizers or a
 * grace period.
 */
export function stillExists(obj: StoredObject): boolean {
  const meta = obj.metadata ?? {};
  if (!meta.deletionTimestamp) return false;
  if ((meta.finalizers ?? []).length > 0) return true;
  if ((meta.deletionGracePeriodSeconds ?? 0) > 0) return true;
  const specFinalizers = (obj.spec as { finalizers?: unknown[] } | undefined)?.finalizers;
  return obj.kind === "Namespace" && Array.isArray(specFinalizers) && specFinalizers.length > 0;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
