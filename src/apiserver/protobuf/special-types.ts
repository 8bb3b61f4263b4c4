/**
 * JSON forms of the apimachinery types whose protobuf and JSON shapes differ:
 * meta/v1 Time and MicroTime (RFC 3339 strings) and Duration (Go duration strings).
 */

const NANOS_PER_SECOND = 1_000_000_000n;
/** Seconds of Go's zero time.Time (January 1, year 1, UTC), which renders as JSON null. */
const GO_ZERO_TIME_SECONDS = -62_135_596_800n;
const MIN_SECONDS = -62_167_219_200n; // 0000-01-01T00:00:00Z
const MAX_SECONDS = 253_402_300_799n; // 9999-12-31T23:59:59Z

export interface Timestamp {
  seconds: bigint;
  nanos: number;
}

/** Normalizes nanos into [0, 1e9) the way Go's time.Unix does. */
function normalize(ts: Timestamp): Timestamp {
  const total = ts.seconds * NANOS_PER_SECOND + BigInt(ts.nanos);
  let seconds = total / NANOS_PER_SECOND;
  let nanos = total % NANOS_PER_SECOND;
  if (nanos < 0n) {
    nanos += NANOS_PER_SECOND;
    seconds -= 1n;
  }
  return { seconds, nanos: Number(nanos) };
}

export function isGoZeroTime(ts: Timestamp): boolean {
  const n = normalize(ts);
  return n.seconds === GO_ZERO_TIME_SECONDS && n.nanos === 0;
}

function isoSeconds(seconds: bigint): string {
  if (seconds < MIN_SECONDS || seconds > MAX_SECONDS) {
    throw new Error(`time ${seconds}s is outside the years 0000-9999 that RFC 3339 can express`);
  }
  // Inside years 0000-9999 toISOString writes "YYYY-MM-DDTHH:MM:SS.sssZ".
  return new Date(Number(seconds) * 1000).toISOString().slice(0, 19);
}

/** meta/v1 Time: second precision (the protobuf nanos are dropped, as Go does), UTC. */
export function formatTime(ts: Timestamp): string {
  return `${isoSeconds(normalize(ts).seconds)}Z`;
}

/** meta/v1 MicroTime: always six fractional digits, nanos truncated to microseconds, UTC. */
export function formatMicroTime(ts: Timestamp): string {
  const n = normalize(ts);
  const micros = String(Math.floor(n.nanos / 1000)).padStart(6, "0");
  return `${isoSeconds(n.seconds)}.${micros}Z`;
}

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** Parses an RFC 3339 timestamp (any offset, optional fraction) into seconds and nanos since the epoch. */
export function parseRfc3339(text: string): Timestamp {
  const m = RFC3339.exec(text);
  if (!m) throw new Error(`${JSON.stringify(text)} is not an RFC 3339 time`);
  const [, year, month, day, hour, minute, second, fraction = "", , sign, offH, offM] = m;
  // setUTCFullYear, unlike Date.UTC, does not map years 0-99 to 1900-1999.
  const date = new Date(0);
  date.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  date.setUTCHours(Number(hour), Number(minute), Number(second), 0);
  if (date.getUTCDate() !== Number(day) || Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) {
    throw new Error(`${JSON.stringify(text)} is not a valid calendar time`);
  }
  let seconds = BigInt(date.getTime()) / 1000n;
  if (sign) {
    const offset = BigInt(Number(offH) * 3600 + Number(offM) * 60);
    seconds = sign === "+" ? seconds - offset : seconds + offset;
  }
  return { seconds, nanos: Number(fraction.padEnd(9, "0")) };
}

const UNIT_NANOS: ReadonlyMap<string, bigint> = new Map([
  ["ns", 1n],
  ["us", 1_000n],
  ["µs", 1_000n],
  ["μs", 1_000n],
  ["ms", 1_000_000n],
  ["s", NANOS_PER_SECOND],
  ["m", 60n * NANOS_PER_SECOND],
  ["h", 3600n * NANOS_PER_SECOND],
]);

/** Formats nanoseconds the way Go's time.Duration.String does ("1h2m3.5s", "150ms", "0s"). */
export function formatGoDuration(nanos: bigint): string {
  if (nanos === 0n) return "0s";
  const sign = nanos < 0n ? "-" : "";
  const abs = nanos < 0n ? -nanos : nanos;
  const fractional = (value: bigint, unit: bigint): string => {
    const whole = value / unit;
    const rest = value % unit;
    if (rest === 0n) return String(whole);
    const digits = String(unit).length - 1;
    return `${whole}.${String(rest).padStart(digits, "0").replace(/0+$/, "")}`;
  };
  if (abs < NANOS_PER_SECOND) {
    if (abs < 1_000n) return `${sign}${abs}ns`;
    if (abs < 1_000_000n) return `${sign}${fractional(abs, 1_000n)}µs`;
    return `${sign}${fractional(abs, 1_000_000n)}ms`;
  }
  const hours = abs / (3600n * NANOS_PER_SECOND);
  const minutes = (abs / (60n * NANOS_PER_SECOND)) % 60n;
  const seconds = fractional(abs % (60n * NANOS_PER_SECOND), NANOS_PER_SECOND);
  if (hours > 0n) return `${sign}${hours}h${minutes}m${seconds}s`;
  if (minutes > 0n) return `${sign}${minutes}m${seconds}s`;
  return `${sign}${seconds}s`;
}

/** Parses a Go duration string ("1h30m", "-1.5s", "300ms") into nanoseconds. */
export function parseGoDuration(text: string): bigint {
  const m = /^([+-])?(.*)$/.exec(text);
  const body = m?.[2] ?? "";
  if (body === "0") return 0n;
  if (body === "") throw new Error(`${JSON.stringify(text)} is not a duration`);
  const part = /(\d*)(?:\.(\d*))?([a-zµμ]+)/y;
  let total = 0n;
  let pos = 0;
  while (pos < body.length) {
    part.lastIndex = pos;
    const p = part.exec(body);
    const unit = UNIT_NANOS.get(p?.[3] ?? "");
    if (!p || unit === undefined || (p[1] === "" && (p[2] ?? "") === "")) {
      throw new Error(`${JSON.stringify(text)} is not a duration`);
    }
    const fraction = p[2] ?? "";
    total += BigInt(p[1] || "0") * unit;
    if (fraction !== "") total += (BigInt(fraction) * unit) / 10n ** BigInt(fraction.length);
    pos = part.lastIndex;
  }
  return m?.[1] === "-" ? -total : total;
}
