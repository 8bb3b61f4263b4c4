/**
 * Structured logs: constant messages, variables in fields, JSON lines on stderr.
 * Libraries take a Logger; only `src/bin` decides where it writes.
 */

export type Level = "debug" | "info" | "warn" | "error";

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(err: unknown, msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface LogSink {
  write(line: string): void;
}

export function createLogger(
  options: { level?: Level; sink?: LogSink; fields?: Record<string, unknown> } = {},
): Logger {
  const min = ORDER[options.level ?? "info"];
  const sink = options.sink ?? { write: (line: string) => process.stderr.write(line) };
  const base = options.fields ?? {};
  const emit = (level: Level, msg: string, fields: Record<string, unknown> | undefined): void => {
    if (ORDER[level] < min) return;
    sink.write(`${JSON.stringify({ time: new Date().toISOString(), level, msg, ...base, ...fields })}\n`);
  };
  return {
    debug: (msg, fields) => emit("debug", msg, fields),
    info: (msg, fields) => emit("info", msg, fields),
    warn: (msg, fields) => emit("warn", msg, fields),
    error: (err, msg, fields) =>
      emit("error", msg, {
        ...fields,
        err: err instanceof Error ? { message: err.message, stack: err.stack } : err,
      }),
    child: (fields) => createLogger({ level: options.level ?? "info", sink, fields: { ...base, ...fields } }),
  };
}

/** A logger that drops everything (tests, benchmarks). */
export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child: () => silentLogger,
};

/** A logger that keeps lines in memory, for tests that assert on logs. */
export function memoryLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({ level: "debug", sink: { write: (l) => lines.push(JSON.parse(l)) } });
  return { logger, lines };
}
