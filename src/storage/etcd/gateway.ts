import http from "node:http";
import https from "node:https";
import type { ErrorBody } from "./wire.ts";

/** PEM text for talking to etcd over TLS. */
export interface EtcdTls {
  /** CA bundle that signed the etcd server certificates (default: the system CAs). */
  ca?: string;
  /** Client certificate and key, when etcd requires client certificates. */
  cert?: string;
  key?: string;
}

export interface EtcdGatewayOptions {
  /** `host:port` of each etcd member, tried in order. */
  endpoints: string[];
  /** Set to speak https. */
  tls?: EtcdTls;
  /** Abandon a unary call when its socket stays silent this long, in ms. Default 30000. */
  requestTimeoutMs?: number;
}

/** An error etcd answered with (a gRPC status behind the gateway), not a transport failure. */
export class EtcdError extends Error {
  /** The gRPC status code (14: unavailable, 11: out of range, ...). */
  readonly code: number;
  readonly httpStatus: number;
  constructor(message: string, code: number, httpStatus: number) {
    super(message);
    this.code = code;
    this.httpStatus = httpStatus;
    this.name = "EtcdError";
  }
}

/** Errors raised before any byte of the request reached a server: safe to send elsewhere. */
const CONNECT_ERRORS = new Set(["ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN"]);
/** Errors after which a read may be repeated on another member. */
const TRANSPORT_ERRORS = new Set([...CONNECT_ERRORS, "ECONNRESET", "EPIPE", "ETIMEDOUT", "ECONNABORTED"]);
const GRPC_UNAVAILABLE = 14;

export interface StreamHandlers {
  /** One parsed JSON line of the response. */
  onMessage(message: unknown): void;
  /** The stream ended: cleanly (no error), by a transport failure, or with an HTTP error. */
  onEnd(err: Error | undefined): void;
}

export interface Stream {
  close(): void;
}

/**
 * HTTP/1.1 client for the etcd v3 JSON gateway over a keep-alive agent. Calls go to the
 * member that last answered; a member that cannot be reached is skipped for the next one.
 */
export class EtcdGateway {
  readonly endpoints: readonly string[];
  #preferred = 0;
  #secure: boolean;
  #agent: http.Agent;
  #streamAgent: http.Agent;
  #timeoutMs: number;

  constructor(options: EtcdGatewayOptions) {
    if (options.endpoints.length === 0) throw new Error("etcd: no endpoints");
    this.endpoints = [...options.endpoints];
    this.#timeoutMs = options.requestTimeoutMs ?? 30_000;
    this.#secure = options.tls !== undefined;
    const tls = options.tls ?? {};
    const tlsOptions = {
      ...(tls.ca !== undefined && { ca: tls.ca }),
      ...(tls.cert !== undefined && { cert: tls.cert }),
      ...(tls.key !== undefined && { key: tls.key }),
    };
    this.#agent = this.#secure
      ? new https.Agent({ keepAlive: true, ...tlsOptions })
      : new http.Agent({ keepAlive: true });
    // Watches hold their connection for as long as they run; keep them out of the pool.
    this.#streamAgent = this.#secure ? new https.Agent({ ...tlsOptions }) : new http.Agent();
  }

  /**
   * POSTs `body` to `path` and returns the parsed answer. Members that refuse the connection
   * are skipped; `idempotent` calls (reads) also move on after a broken connection or an
   * "unavailable" answer, where a write would be ambiguous and is reported instead.
   */
  async call<T>(path: string, body: unknown, idempotent: boolean): Promise<T> {
    const payload = JSON.stringify(body);
    let lastError: Error | undefined;
    for (let attempt = 0; attempt < this.endpoints.length + 1; attempt++) {
      const index = (this.#preferred + attempt) % this.endpoints.length;
      try {
        const result = await this.#post<T>(this.endpoints[index]!, path, payload);
        this.#preferred = index;
        return result;
      } catch (err) {
        if (!(err instanceof Error) || !retryable(err, idempotent)) throw err;
        lastError = err;
      }
    }
    throw new Error(`etcd: no endpoint answered (${this.endpoints.join(", ")}): ${lastError?.message}`, {
      cause: lastError,
    });
  }

  /**
   * POSTs `body` to `endpoint` and hands each JSON line of the streamed answer to
   * `onMessage`. There is no failover here: the caller decides whether and where to resume.
   */
  stream(endpointIndex: number, path: string, body: unknown, handlers: StreamHandlers): Stream {
    const endpoint = this.endpoints[endpointIndex % this.endpoints.length]!;
    const payload = JSON.stringify(body);
    let ended = false;
    const end = (err: Error | undefined): void => {
      if (ended) return;
      ended = true;
      handlers.onEnd(err);
    };
    const req = this.#request(endpoint, path, payload, this.#streamAgent, (res) => {
      if (res.statusCode !== 200) {
        readBody(res).then(
          (text) => end(toEtcdError(res.statusCode ?? 0, text)),
          (err: Error) => end(err),
        );
        return;
      }
      let buffered = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        buffered += chunk;
        let newline = buffered.indexOf("\n");
        while (newline >= 0 && !ended) {
          const line = buffered.slice(0, newline).trim();
          buffered = buffered.slice(newline + 1);
          if (line) {
            try {
              handlers.onMessage(JSON.parse(line));
            } catch (err) {
              req.destroy();
              end(err instanceof Error ? err : new Error(String(err)));
              return;
            }
          }
          newline = buffered.indexOf("\n");
        }
      });
      res.on("end", () => end(undefined));
      res.on("error", (err) => end(err));
      res.on("close", () => end(new Error("etcd: watch stream closed")));
    });
    req.on("error", (err) => end(err));
    // A member that vanishes without closing the connection must not leave the watch waiting forever.
    req.on("socket", (socket) => socket.setKeepAlive(true, 10_000));
    req.end(payload);
    return {
      close: () => {
        ended = true;
        req.destroy();
      },
    };
  }

  /** The member unary calls currently go to; streams start there too. */
  get preferred(): number {
    return this.#preferred;
  }

  close(): void {
    this.#agent.destroy();
    this.#streamAgent.destroy();
  }

  #post<T>(endpoint: string, path: string, payload: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const req = this.#request(endpoint, path, payload, this.#agent, (res) => {
        readBody(res).then((text) => {
          if (res.statusCode !== 200) return reject(toEtcdError(res.statusCode ?? 0, text));
          try {
            resolve(JSON.parse(text) as T);
          } catch {
            reject(new Error(`etcd: unreadable answer from ${endpoint}${path}: ${text.slice(0, 200)}`));
          }
        }, reject);
      });
      req.setTimeout(this.#timeoutMs, () => {
        req.destroy(Object.assign(new Error(`etcd: ${endpoint}${path} timed out`), { code: "ETIMEDOUT" }));
      });
      req.on("error", (err: NodeJS.ErrnoException) => {
        // A kept-alive socket the server closed while idle: the request never got there.
        if (req.reusedSocket && err.code === "ECONNRESET") err.code = "ECONNREFUSED";
        reject(err);
      });
      req.end(payload);
    });
  }

  #request(
    endpoint: string,
    path: string,
    payload: string,
    agent: http.Agent,
    onResponse: (res: http.IncomingMessage) => void,
  ): http.ClientRequest {
    const { host, port } = splitHostPort(endpoint);
    const options: http.RequestOptions = {
      host,
      port,
      path,
      method: "POST",
      agent,
      headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload) },
    };
    return this.#secure ? https.request(options, onResponse) : http.request(options, onResponse);
  }
}

function retryable(err: Error, idempotent: boolean): boolean {
  if (err instanceof EtcdError) return idempotent && err.code === GRPC_UNAVAILABLE;
  const code = (err as NodeJS.ErrnoException).code;
  if (code === undefined) return false;
  return idempotent ? TRANSPORT_ERRORS.has(code) : CONNECT_ERRORS.has(code);
}

function readBody(res: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on("data", (c: Buffer) => chunks.push(c));
    res.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    res.on("error", reject);
  });
}

function toEtcdError(status: number, text: string): EtcdError {
  let body: ErrorBody = {};
  try {
    body = JSON.parse(text) as ErrorBody;
  } catch {
    // Not the gateway's JSON (a proxy, a wrong port): report the text.
  }
  const message = body.message ?? body.error ?? (text.slice(0, 200) || `HTTP ${status}`);
  return new EtcdError(`etcd: ${message}`, body.code ?? 0, status);
}

/** `host:port` or `[v6]:port`. */
export function splitHostPort(endpoint: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d+)$/.exec(endpoint);
  if (!match) throw new Error(`etcd endpoint "${endpoint}" is not host:port`);
  const port = Number(match[3]);
  if (port < 1 || port > 65535) throw new Error(`etcd endpoint "${endpoint}" has an invalid port`);
  return { host: (match[1] ?? match[2])!, port };
}
