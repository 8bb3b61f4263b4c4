/**
 * Structured logs: constant messages, variables in fields, one line per event on stderr, in
 * the two formats Kubernetes components (and upstream Karmada since v1.15) write:
 * - `text` (the default): klog's structured text,
 *   `I1128 21:37:06.123456   12345 binding.ts:228] "Reconcile failed" controller="binding-controller" key="default/nginx"`;
 * - `json` (`--logging-format=json`): component-base's JSON,
 *   `{"ts":1764365826123.456,"caller":"binding.ts:228","msg":"...","v":0,"controller":"..."}`,
 *   with `err` holding an error's message and no `v` on error lines.
 * Libraries take a Logger; only `src/bin` decides the level, the format and where lines go.
 */

export type Level = "debug" | "info" | "warn" | "error";
export type LogFormat = "text" | "json";
export const LOG_FORMATS = ["text", "json"] as const satisfies readonly LogFormat[];

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(err: unknown, msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };
/** klog's verbosity for each level in the JSON `v` field (debug lines are klog's V(4)). */
const VERBOSITY: Record<Level, number> = { debug: 4, info: 0, warn: 0, error: 0 };
const SEVERITY: Record<Level, string> = { debug: "I", info: "I", warn: "W", error: "E" };

export interface LogSink {
  write(line: string): void;
}

/** One event, before it is formatted. */
export interface LogRecord {
  time: number;
  level: Level;
  msg: string;
  /** `file.ts:line` of the code that logged. */
  caller: string;
  fields: Record<string, unknown>;
  err?: unknown;
}

/** `file.ts:line` of the frame that called the logger (`above`: the logger's own method). */
function callerOf(above: (...args: never[]) => unknown): string {
  const holder: { stack?: string } = {};
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 1;
  Error.captureStackTrace(holder, above);
  Error.stackTraceLimit = limit;
  const frame = holder.stack?.split("\n")[1] ?? "";
  const m = /([^/\\(\s]+):(\d+):\d+\)?\s*$/.exec(frame);
  return m ? `${m[1]}:${m[2]}` : "???:1";
}

function errorText(err: unknown): string {
  if (err instanceof Error) return err.message;
  return typeof err === "string" ? err : JSON.stringify(err);
}

/** A value as klog's text format writes it: strings quoted, numbers and booleans bare, the rest as JSON. */
function klogValue(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "number" || typeof v === "boolean" || typeof v === "bigint") return String(v);
  if (v === undefined || v === null) return "<nil>";
  if (v instanceof Error) return JSON.stringify(v.message);
  try {
    return JSON.stringify(v);
  } catch {
    return JSON.stringify(String(v));
  }
}

const pad = (n: number, width = 2): string => String(n).padStart(width, "0");

/** klog's header and structured text: `Lmmdd hh:mm:ss.uuuuuu threadid file:line] "msg" k=v ...`. */
export function formatText(r: LogRecord, pid: number = process.pid): string {
  const d = new Date(r.time);
  const micros = pad(d.getMilliseconds(), 3) + pad(Math.floor((r.time % 1) * 1000), 3);
  const header = `${SEVERITY[r.level]}${pad(d.getMonth() + 1)}${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${micros} ${String(pid).padStart(7)} ${r.caller}]`;
  let line = `${header} ${JSON.stringify(r.msg)}`;
  if (r.err !== undefined) line += ` err=${JSON.stringify(errorText(r.err))}`;
  for (const [k, v] of Object.entries(r.fields)) if (v !== undefined) line += ` ${k}=${klogValue(v)}`;
  return `${line}\n`;
}

/** component-base's JSON line. */
export function formatJson(r: LogRecord): string {
  const out: Record<string, unknown> = { ts: r.time, caller: r.caller, msg: r.msg };
  if (r.level !== "error") out.v = VERBOSITY[r.level];
  if (r.err !== undefined) out.err = errorText(r.err);
  for (const [k, v] of Object.entries(r.fields)) {
    if (v === undefined || k in out) continue;
    out[k] = v instanceof Error ? v.message : v;
  }
  return `${JSON.stringify(out)}\n`;
}

export interface LoggerOptions {
  level?: Level;
  format?: LogFormat;
  sink?: LogSink;
  fields?: Record<string, unknown>;
  /** Receives each event unformatted instead of `sink` (tests). */
  records?: (r: LogRecord) => void;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  return new KlogLogger(options, options.fields ?? {});
}

/**
 * Methods on a class rather than closures: controllers make a child logger per reconcile, and
 * under tsx every closure made at run time is also renamed (esbuild's keepNames), which showed
 * in the scale bench's profile.
 */
class KlogLogger implements Logger {
  readonly #options: LoggerOptions;
  readonly #base: Record<string, unknown>;
  readonly #min: number;

  constructor(options: LoggerOptions, base: Record<string, unknown>) {
    this.#options = options;
    this.#base = base;
    this.#min = ORDER[options.level ?? "info"];
  }

  debug(msg: string, fields?: Record<string, unknown>): void {
    this.#emit("debug", this.debug, msg, fields);
  }

  info(msg: string, fields?: Record<string, unknown>): void {
    this.#emit("info", this.info, msg, fields);
  }

  warn(msg: string, fields?: Record<string, unknown>): void {
    this.#emit("warn", this.warn, msg, fields);
  }

  error(err: unknown, msg: string, fields?: Record<string, unknown>): void {
    this.#emit("error", this.error, msg, fields, err);
  }

  child(fields: Record<string, unknown>): Logger {
    return new KlogLogger(this.#options, { ...this.#base, ...fields });
  }

  #emit(
    level: Level,
    above: (...args: never[]) => unknown,
    msg: string,
    fields: Record<string, unknown> | undefined,
    err?: unknown,
  ): void {
    if (ORDER[level] < this.#min) return;
    const record: LogRecord = {
      // Microseconds, as klog stamps its lines.
      time: performance.timeOrigin + performance.now(),
      level,
      msg,
      caller: callerOf(above),
      fields: { ...this.#base, ...fields },
      ...(err !== undefined ? { err } : {}),
    };
    const { records, sink, format } = this.#options;
    if (records) records(record);
    else (sink ?? STDERR).write((format === "json" ? formatJson : formatText)(record));
  }
}

const STDERR: LogSink = { write: (line: string) => process.stderr.write(line) };

/** A logger that drops everything (tests, benchmarks). */
export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child: () => silentLogger,
};

/** A logger that keeps events in memory, for tests that assert on logs: `{level, msg, ...fields, err}`. */
export function memoryLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({
    level: "debug",
    records: (r) =>
      lines.push({
        level: r.level,
        msg: r.msg,
        ...r.fields,
        ...(r.err !== undefined
          ? { err: r.err instanceof Error ? { message: r.err.message, stack: r.err.stack } : r.err }
          : {}),
      }),
  });
  return { logger, lines };
}
