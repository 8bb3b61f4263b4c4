/**
 * Live views over HTTP: a page's stream is newline-delimited JSON (as a Kubernetes watch),
 * first a snapshot of the view's rows, then patches carrying only the rows that changed and
 * the keys that went. A view recomputes when a source it reads changes; changes arriving
 * together are computed once, and a client that reads slowly gets fewer, larger patches
 * rather than a growing buffer. Compare by each row's JSON, so an unchanged row costs nothing
 * on the wire, whatever the view does.
 */
import type { Problem, StreamMessage } from "./wire.ts";

export interface ViewState<Row extends { key: string }, Meta> {
  rows: Row[];
  meta: Meta;
  problems: Problem[];
  synced: boolean;
}

/** A page's data: started once per stream, recomputed on every change it is told of. */
export interface LiveView<Row extends { key: string }, Meta> {
  /** Starts reading; `changed` is called whenever something the view reads changed. */
  start(changed: () => void): void | Promise<void>;
  compute(): ViewState<Row, Meta> | Promise<ViewState<Row, Meta>>;
  stop(): void;
}

/** What changed between the rows last sent (key → JSON) and `rows`. */
export function diffRows<Row extends { key: string }>(
  sent: ReadonlyMap<string, string>,
  rows: readonly Row[],
): { upsert: Row[]; remove: string[]; next: Map<string, string> } {
  const next = new Map<string, string>();
  const upsert: Row[] = [];
  for (const row of rows) {
    const json = JSON.stringify(row);
    next.set(row.key, json);
    if (sent.get(row.key) !== json) upsert.push(row);
  }
  const remove = [...sent.keys()].filter((k) => !next.has(k));
  return { upsert, remove, next };
}

/**
 * The messages that bring a client from what it was sent to `state`: a snapshot first, then
 * patches (undefined when nothing changed). Keeps what it sent.
 */
export class StreamDiffer<Row extends { key: string }, Meta> {
  #rows = new Map<string, string>();
  #meta = "";
  #problems = "";
  #synced: boolean | undefined;

  next(state: ViewState<Row, Meta>): StreamMessage<Row, Meta> | undefined {
    const meta = JSON.stringify(state.meta);
    const problems = JSON.stringify(state.problems);
    if (this.#synced === undefined) {
      this.#rows = new Map(state.rows.map((r) => [r.key, JSON.stringify(r)]));
      this.#meta = meta;
      this.#problems = problems;
      this.#synced = state.synced;
      return {
        type: "snapshot",
        rows: state.rows,
        meta: state.meta,
        problems: state.problems,
        synced: state.synced,
      };
    }
    const { upsert, remove, next } = diffRows(this.#rows, state.rows);
    this.#rows = next;
    const msg: StreamMessage<Row, Meta> & { type: "patch" } = { type: "patch", upsert, remove };
    if (meta !== this.#meta) msg.meta = state.meta;
    if (problems !== this.#problems) msg.problems = state.problems;
    if (state.synced !== this.#synced) msg.synced = state.synced;
    this.#meta = meta;
    this.#problems = problems;
    this.#synced = state.synced;
    const empty =
      upsert.length === 0 &&
      remove.length === 0 &&
      msg.meta === undefined &&
      msg.problems === undefined &&
      msg.synced === undefined;
    return empty ? undefined : msg;
  }
}

export interface StreamTuning {
  /** Changes within this window are computed together (ms). */
  coalesceMs: number;
  /** An empty message this often keeps proxies from closing an idle stream (ms). */
  pingMs: number;
}

export const DEFAULT_STREAM_TUNING: StreamTuning = { coalesceMs: 50, pingMs: 20_000 };

/** Where a stream's lines go: the response, or a compressor in front of it. */
export interface StreamSink {
  /** Writes one line; false when the consumer is behind (wait for `drain`). */
  write(line: string): boolean;
  once(event: "drain", listener: () => void): void;
  /** The client is gone. */
  on(event: "close", listener: () => void): void;
  end(): void;
}

/**
 * Serves `view` on `res` until the client goes: the view is started, computed and sent, then
 * recomputed on change. Resolves when the stream has ended and the view is stopped.
 */
export function serveStream<Row extends { key: string }, Meta>(
  res: StreamSink,
  view: LiveView<Row, Meta>,
  tuning: StreamTuning,
  onError: (err: unknown) => void,
): Promise<void> {
  return new Promise((resolve) => {
    const differ = new StreamDiffer<Row, Meta>();
    let closed = false;
    let computing = false;
    let dirty = false;
    let timer: NodeJS.Timeout | undefined;
    let waitingForDrain = false;

    const write = (msg: unknown): void => {
      if (closed) return;
      if (!res.write(`${JSON.stringify(msg)}\n`)) {
        waitingForDrain = true;
        res.once("drain", () => {
          waitingForDrain = false;
          if (dirty) schedule();
        });
      }
    };

    const run = async (): Promise<void> => {
      timer = undefined;
      if (closed) return;
      if (computing || waitingForDrain) {
        dirty = true;
        return;
      }
      computing = true;
      dirty = false;
      try {
        const msg = differ.next(await view.compute());
        if (msg) write(msg);
      } catch (err) {
        onError(err);
      } finally {
        computing = false;
      }
      if (dirty && !closed) schedule();
    };

    const schedule = (): void => {
      if (closed) return;
      dirty = true;
      if (timer || computing || waitingForDrain) return;
      timer = setTimeout(() => void run(), tuning.coalesceMs);
    };

    const ping = setInterval(() => write({ type: "ping" }), tuning.pingMs);
    ping.unref();

    const end = (): void => {
      if (closed) return;
      closed = true;
      clearInterval(ping);
      if (timer) clearTimeout(timer);
      view.stop();
      resolve();
    };
    res.on("close", end);

    Promise.resolve()
      .then(() => view.start(schedule))
      .then(() => run())
      .catch((err: unknown) => {
        onError(err);
        res.end();
        end();
      });
  });
}
