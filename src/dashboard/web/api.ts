/**
 * The page's side of the dashboard API: every request carries the CSRF header (and, signed in
 * with a token, the token); a page's data is a live stream of rows (newline-delimited JSON,
 * see ../live.ts) that reconnects with backoff and says how it is doing.
 */
import { useEffect, useState } from "preact/hooks";
import type { Problem, StreamMessage, WhatIfRequest, WhatIfResult, WhoAmI } from "../wire.ts";

const TOKEN_KEY = "karmada-dashboard-token";

export function storedToken(): string | undefined {
  return sessionStorage.getItem(TOKEN_KEY) ?? undefined;
}

export function storeToken(token: string | undefined): void {
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
}

/** A Kubernetes Status the backend answered with. */
export class ApiFailure extends Error {
  readonly code: number;
  readonly reason: string;
  constructor(code: number, reason: string, message: string) {
    super(message);
    this.code = code;
    this.reason = reason;
  }
}

/** Called when the backend answers 401: the app shows the sign-in page. */
let onUnauthorized: (message: string) => void = () => {};
export function setUnauthorizedHandler(handler: (message: string) => void): void {
  onUnauthorized = handler;
}

function headers(extra: Record<string, string> = {}): Record<string, string> {
  const token = storedToken();
  return {
    "X-Karmada-Dashboard": "1",
    Accept: "application/json",
    ...(token ? { Authorization: `Bearer ${token}` } : {}),
    ...extra,
  };
}

async function failure(res: Response): Promise<ApiFailure> {
  let body: { message?: string; reason?: string } = {};
  try {
    body = (await res.json()) as typeof body;
  } catch {
    // not a Status
  }
  return new ApiFailure(res.status, body.reason ?? "", body.message ?? `${res.status} ${res.statusText}`);
}

export async function getJson<T>(path: string, token?: string): Promise<T> {
  const res = await fetch(path, {
    headers: token ? { ...headers(), Authorization: `Bearer ${token}` } : headers(),
    credentials: "same-origin",
  });
  if (!res.ok) {
    const err = await failure(res);
    if (res.status === 401 && !token) onUnauthorized(err.message);
    throw err;
  }
  return (await res.json()) as T;
}

export function whoAmI(token?: string): Promise<WhoAmI> {
  return getJson<WhoAmI>("/api/whoami", token);
}

export function namespaces(): Promise<{ items: string[]; forbidden?: string }> {
  return getJson("/api/namespaces");
}

export async function runWhatIf(request: WhatIfRequest): Promise<WhatIfResult> {
  const res = await fetch("/api/whatif", {
    method: "POST",
    headers: headers({ "Content-Type": "application/json" }),
    body: JSON.stringify(request),
    credentials: "same-origin",
  });
  if (!res.ok) {
    const err = await failure(res);
    if (res.status === 401) onUnauthorized(err.message);
    throw err;
  }
  return (await res.json()) as WhatIfResult;
}

export type Connection = "connecting" | "live" | "reconnecting" | "failed";

export interface StreamState<Row, Meta> {
  rows: Map<string, Row>;
  meta: Meta | undefined;
  problems: Problem[];
  synced: boolean;
  connection: Connection;
  /** Why the stream failed or is reconnecting. */
  error?: string;
  /** Bumped on every change, for memos. */
  version: number;
}

const MAX_BACKOFF_MS = 15_000;

function emptyState<Row, Meta>(): StreamState<Row, Meta> {
  return {
    rows: new Map(),
    meta: undefined,
    problems: [],
    synced: false,
    connection: "connecting",
    version: 0,
  };
}

/** Applies one stream message to the state (rows replaced by a new map when they change, for memos). */
export function applyMessage<Row extends { key: string }, Meta>(
  s: StreamState<Row, Meta>,
  msg: StreamMessage<Row, Meta>,
): void {
  if (msg.type === "ping") return;
  if (msg.type === "snapshot") {
    s.rows = new Map(msg.rows.map((r) => [r.key, r]));
    s.meta = msg.meta;
    s.problems = msg.problems;
    s.synced = msg.synced;
    return;
  }
  if (msg.upsert.length > 0 || msg.remove.length > 0) s.rows = new Map(s.rows);
  for (const r of msg.upsert) s.rows.set(r.key, r);
  for (const k of msg.remove) s.rows.delete(k);
  if (msg.meta !== undefined) s.meta = msg.meta;
  if (msg.problems !== undefined) s.problems = msg.problems;
  if (msg.synced !== undefined) s.synced = msg.synced;
}

/** Reads newline-delimited JSON messages until the body ends. */
async function readLines(body: ReadableStream<BufferSource>, onLine: (line: string) => void): Promise<void> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffered += value;
    let nl = buffered.indexOf("\n");
    while (nl >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (line.trim()) onLine(line);
      nl = buffered.indexOf("\n");
    }
  }
}

/** How one connection ended: the stream is over for good (`stop`), or should be opened again. */
type Ended = "stop" | "retry";

/**
 * A page's live view: `page` and `params` name the stream; rows arrive as a snapshot, then as
 * patches; the hook re-renders at most once per animation frame, and reconnects with backoff.
 */
export function useStream<Row extends { key: string }, Meta>(
  page: string,
  params: Record<string, string | undefined>,
): StreamState<Row, Meta> {
  const query = new URLSearchParams(
    Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== ""),
  ).toString();
  const [state, setState] = useState<StreamState<Row, Meta>>(emptyState);

  useEffect(() => {
    const abort = new AbortController();
    let frame = 0;
    const s = emptyState<Row, Meta>();
    setState({ ...s });
    const publish = (): void => {
      if (frame) return;
      frame = requestAnimationFrame(() => {
        frame = 0;
        s.version++;
        setState({ ...s });
      });
    };

    /** One connection: opens the stream and applies its messages until it ends. */
    const connect = async (): Promise<Ended> => {
      const res = await fetch(`/api/stream/${page}${query ? `?${query}` : ""}`, {
        headers: headers({ Accept: "application/x-ndjson" }),
        signal: abort.signal,
        credentials: "same-origin",
      });
      if (!res.ok || !res.body) {
        const err = await failure(res);
        if (res.status >= 500) throw err;
        if (res.status === 401) onUnauthorized(err.message);
        s.connection = "failed";
        s.error = err.message;
        publish();
        return "stop";
      }
      s.connection = "live";
      delete s.error;
      publish();
      await readLines(res.body, (line) => {
        applyMessage(s, JSON.parse(line) as StreamMessage<Row, Meta>);
        publish();
      });
      throw new Error("the stream ended");
    };

    const run = async (): Promise<void> => {
      let failures = 0;
      while (!abort.signal.aborted) {
        try {
          if ((await connect()) === "stop") return;
        } catch (err) {
          if (abort.signal.aborted) return;
          // A stream that was live starts its backoff afresh.
          failures = s.connection === "live" ? 1 : failures + 1;
          s.connection = "reconnecting";
          s.error = (err as Error).message;
          publish();
          const wait = Math.min(MAX_BACKOFF_MS, 500 * 2 ** Math.min(failures, 5));
          await new Promise((resolve) => setTimeout(resolve, wait));
        }
      }
    };
    void run();
    return () => {
      abort.abort();
      if (frame) cancelAnimationFrame(frame);
    };
  }, [page, query]);

  return state;
}
