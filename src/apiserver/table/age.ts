/**
 * Times as `kubectl get` shows them: the AGE cell (`translateTimestampSince` over
 * apimachinery's `duration.HumanDuration`) and the RFC 3339 "Created At" cell of the
 * default table. Pure functions of the timestamp and `now` (milliseconds since the epoch).
 */

import { GO_ZERO_TIME_MS, parseRfc3339 } from "../../machinery/timestamps.ts";

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * The instant a timestamp field holds: `null` when unset (absent, null, empty or Go's zero time),
 * `undefined` when it is not a valid RFC 3339 string.
 */
export function timestampOf(value: unknown): number | null | undefined {
  if (value === undefined || value === null || value === "") return null;
  if (typeof value !== "string") return undefined;
  const ms = parseRfc3339(value);
  if (ms === undefined) return undefined;
  return ms === GO_ZERO_TIME_MS ? null : ms;
}

/**
 * A duration the way kubectl shows ages: about two or three significant figures
 * (`45s`, `3m2s`, `10m`, `3h4m`, `20h`, `5d2h`, `100d`, `2y100d`, `9y`).
 * Up to one second in the future counts as `0s` (clock skew); more is `<invalid>`.
 */
export function humanDuration(durationMs: number): string {
  const seconds = Math.trunc(durationMs / SECOND);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(durationMs / MINUTE);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 3 * 60) return `${minutes}m`;
  const hours = Math.trunc(durationMs / HOUR);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${days}d` : `${days}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) {
    const d = days % 365;
    return d === 0 ? `${years}y` : `${years}y${d}d`;
  }
  return `${years}y`;
}

/**
 * The AGE cell: time elapsed from `timestamp` to `now`; `<unknown>` when the timestamp is unset,
 * `<invalid>` when it cannot be parsed or lies more than a second in the future.
 */
export function translateTimestampSince(timestamp: unknown, now: number): string {
  const ms = timestampOf(timestamp);
  if (ms === null) return "<unknown>";
  if (ms === undefined) return "<invalid>";
  return humanDuration(now - ms);
}

/** The "Created At" cell of the default table: the timestamp in UTC to the second, Go's zero time when unset. */
export function formatCreatedAt(timestamp: unknown): string {
  const ms = timestampOf(timestamp) ?? GO_ZERO_TIME_MS;
  const date = new Date(ms);
  const pad = (n: number, width = 2) => String(n).padStart(width, "0");
  return (
    `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}` +
    `T${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}Z`
  );
}
