/**
 * Cron schedules in robfig/cron v3's standard dialect (`cron.ParseStandard`), the one
 * Kubernetes validates CronJob schedules with and runs them by: five fields (minute, hour,
 * day of month, month, day of week) of lists, ranges, steps, month and weekday names and `?`;
 * the descriptors `@yearly` … `@hourly` and `@every <duration>`; an optional `TZ=`/`CRON_TZ=`
 * prefix. One parser gives the API server its error strings (reported verbatim) and the
 * simulated CronJob controller its firing times.
 *
 * Day of month and day of week combine as robfig/cron has it: when both are restricted a day
 * matching either fires, otherwise it must match both. Karmada's CronFederatedHPA validates
 * with another library (gronx) and another dialect: `api/karmada/admission/cron-expression.ts`.
 */

export interface CronSchedule {
  /** The first firing strictly after `afterMs` (epoch ms), or undefined if none within five years. */
  next(afterMs: number): number | undefined;
}

export type CronParse =
  | { schedule: CronSchedule; error?: undefined }
  | { schedule?: undefined; error: string };

interface Bounds {
  min: number;
  max: number;
  names?: Record<string, number>;
}

const MONTHS: Record<string, number> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};
const DAYS: Record<string, number> = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };

/** minute, hour, day of month, month, day of week */
const FIELDS: readonly Bounds[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: MONTHS },
  { min: 0, max: 6, names: DAYS },
];

const DESCRIPTORS: Record<string, string> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
};

interface Field {
  values: Set<number>;
  /** Holds a `*` or `?` without a step above 1 (matters for the day-of-month/day-of-week rule). */
  star: boolean;
}

/** Go's `strconv.Quote` for the ASCII the fields are made of. */
const goQuote = (s: string): string => JSON.stringify(s);

const INT64_MAX = 2n ** 63n - 1n;

/** robfig's `mustParseInt`: `strconv.Atoi`, then no negatives; the error text on failure. */
function parseNumber(expr: string): number | string {
  if (!/^[+-]?[0-9]+$/.test(expr)) {
    return `failed to parse int from ${expr}: strconv.Atoi: parsing ${goQuote(expr)}: invalid syntax`;
  }
  const big = BigInt(expr);
  if (big > INT64_MAX || big < -INT64_MAX - 1n) {
    return `failed to parse int from ${expr}: strconv.Atoi: parsing ${goQuote(expr)}: value out of range`;
  }
  if (big < 0n) return `negative number (${big}) not allowed: ${expr}`;
  return Number(big);
}

function parseIntOrName(expr: string, b: Bounds): number | string {
  return b.names?.[expr.toLowerCase()] ?? parseNumber(expr);
}

/** The `low-high`, `low`, `*` or `?` part of an item: its bounds, or the error text. */
function parseLowHigh(
  lowAndHigh: string[],
  expr: string,
  b: Bounds,
): { start: number; end: number; star: boolean } | string {
  if (lowAndHigh[0] === "*" || lowAndHigh[0] === "?") return { start: b.min, end: b.max, star: true };
  const start = parseIntOrName(lowAndHigh[0] ?? "", b);
  if (typeof start === "string") return start;
  if (lowAndHigh.length === 1) return { start, end: start, star: false };
  if (lowAndHigh.length > 2) return `too many hyphens: ${expr}`;
  const end = parseIntOrName(lowAndHigh[1] ?? "", b);
  return typeof end === "string" ? end : { start, end, star: false };
}

/** robfig's `getRange` for one comma-separated item: adds its values, or returns the error text. */
function parseRange(expr: string, b: Bounds, into: Field): string | undefined {
  const rangeAndStep = expr.split("/");
  const lowAndHigh = (rangeAndStep[0] ?? "").split("-");
  const bounds = parseLowHigh(lowAndHigh, expr, b);
  if (typeof bounds === "string") return bounds;
  let { start, end, star } = bounds;
  let step = 1;
  if (rangeAndStep.length === 2) {
    const s = parseNumber(rangeAndStep[1] ?? "");
    if (typeof s === "string") return s;
    step = s;
    // `N/step` runs from N to the end of the field.
    if (lowAndHigh.length === 1) end = b.max;
    if (step > 1) star = false;
  } else if (rangeAndStep.length > 2) {
    return `too many slashes: ${expr}`;
  }
  if (start < b.min) return `beginning of range (${start}) below minimum (${b.min}): ${expr}`;
  if (end > b.max) return `end of range (${end}) above maximum (${b.max}): ${expr}`;
  if (start > end) return `beginning of range (${start}) beyond end of range (${end}): ${expr}`;
  if (step === 0) return `step of range should be a positive number: ${expr}`;
  for (let v = start; v <= end; v += step) into.values.add(v);
  if (star) into.star = true;
  return undefined;
}

function parseField(text: string, b: Bounds): Field | string {
  const field: Field = { values: new Set(), star: false };
  for (const expr of text.split(",")) {
    if (expr === "") continue;
    const err = parseRange(expr, b, field);
    if (err) return err;
  }
  return field;
}

const DURATION_UNITS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3, // U+00B5
  μs: 1e-3, // U+03BC
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Go's `time.ParseDuration`, in milliseconds, or its error text. */
export function parseGoDuration(text: string): number | string {
  const invalid = `time: invalid duration ${goQuote(text)}`;
  let s = text;
  let sign = 1;
  if (s.startsWith("-") || s.startsWith("+")) {
    if (s[0] === "-") sign = -1;
    s = s.slice(1);
  }
  if (s === "0") return 0;
  if (s === "") return invalid;
  let total = 0;
  while (s !== "") {
    const number = /^([0-9]*)(\.([0-9]*))?/.exec(s)!;
    const [all, whole = "", , fraction = ""] = number;
    // No digits before or after the point: ".s", "h", "1h-".
    if (whole === "" && fraction === "") return invalid;
    s = s.slice(all.length);
    const unit = /^[^0-9.]*/.exec(s)![0];
    if (unit === "") return `time: missing unit in duration ${goQuote(text)}`;
    const scale = DURATION_UNITS[unit];
    if (scale === undefined) return `time: unknown unit ${goQuote(unit)} in duration ${goQuote(text)}`;
    s = s.slice(unit.length);
    total += Number(`${whole || "0"}.${fraction || "0"}`) * scale;
    // Go's Duration is an int64 of nanoseconds.
    if (total * 1e6 > 2 ** 63) return invalid;
  }
  return sign * total;
}

/** `time.LoadLocation`'s verdict on an IANA zone name, via the runtime's time-zone database. */
export function timeZoneError(tz: string): string | undefined {
  if (tz === "UTC" || tz === "") return undefined;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return undefined;
  } catch {
    return `unknown time zone ${tz}`;
  }
}

/**
 * Parses a schedule. `timeZone` (a CronJob's `spec.timeZone`) applies when the schedule has
 * no `TZ=` prefix; with neither, times are UTC.
 */
export function parseCron(spec: string, timeZone?: string): CronParse {
  if (spec.length === 0) return { error: "empty spec string" };
  let rest = spec;
  let zone = timeZone ?? "UTC";
  if (rest.startsWith("TZ=") || rest.startsWith("CRON_TZ=")) {
    const space = rest.indexOf(" ");
    const eq = rest.indexOf("=");
    zone = space < 0 ? rest.slice(eq + 1) : rest.slice(eq + 1, space);
    const err = timeZoneError(zone);
    if (err) return { error: `provided bad location ${zone}: ${err}` };
    rest = space < 0 ? "" : rest.slice(space).trim();
  } else {
    const err = timeZoneError(zone);
    if (err) return { error: err };
  }
  if (zone === "") zone = "UTC";
  if (rest.startsWith("@")) {
    if (rest.startsWith("@every ")) {
      const ms = parseGoDuration(rest.slice("@every ".length));
      if (typeof ms === "string") return { error: `failed to parse duration ${rest}: ${ms}` };
      return { schedule: every(ms) };
    }
    const expanded = DESCRIPTORS[rest];
    if (expanded === undefined) return { error: `unrecognized descriptor: ${rest}` };
    rest = expanded;
  }
  const texts = rest.split(/\s+/).filter((f) => f.length > 0);
  if (texts.length !== 5)
    return { error: `expected exactly 5 fields, found ${texts.length}: [${texts.join(" ")}]` };
  const fields: Field[] = [];
  for (let i = 0; i < 5; i++) {
    const f = parseField(texts[i]!, FIELDS[i]!);
    if (typeof f === "string") return { error: f };
    fields.push(f);
  }
  return { schedule: calendar(fields as [Field, Field, Field, Field, Field], zone) };
}

/** The parser's error text for a schedule, or undefined when it is valid. */
export function cronScheduleError(spec: string): string | undefined {
  return parseCron(spec).error;
}

/** `@every`: whole seconds, at least one, counted from the second `after` falls in. */
function every(ms: number): CronSchedule {
  const delay = Math.max(1000, Math.floor(ms / 1000) * 1000);
  return { next: (after) => Math.floor(after / 1000) * 1000 + delay };
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The zone's UTC offset (ms) at an instant. */
function offsetAt(zone: string, instant: number): number {
  if (zone === "UTC" || zone === "Etc/UTC") return 0;
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(zone, f);
  }
  const parts: Record<string, number> = {};
  for (const p of f.formatToParts(new Date(instant)))
    if (p.type !== "literal") parts[p.type] = Number(p.value);
  const wall = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
  return wall - (instant - (instant % 1000));
}

function calendar(
  [minute, hour, dom, month, dow]: [Field, Field, Field, Field, Field],
  zone: string,
): CronSchedule {
  const dayMatches = (d: Date): boolean => {
    const domOk = dom.values.has(d.getUTCDate());
    const dowOk = dow.values.has(d.getUTCDay());
    return dom.star || dow.star ? domOk && dowOk : domOk || dowOk;
  };
  return {
    next(after) {
      // Walk wall-clock time (held in a UTC Date) field by field, then map back to an instant.
      const start = after + offsetAt(zone, after);
      const t = new Date(Math.floor(start / 60_000) * 60_000 + 60_000);
      const limit = t.getTime() + 5 * 366 * 86_400_000;
      while (t.getTime() < limit) {
        if (!month.values.has(t.getUTCMonth() + 1)) {
          t.setUTCMonth(t.getUTCMonth() + 1, 1);
          t.setUTCHours(0, 0, 0, 0);
          continue;
        }
        if (!dayMatches(t)) {
          t.setUTCDate(t.getUTCDate() + 1);
          t.setUTCHours(0, 0, 0, 0);
          continue;
        }
        if (!hour.values.has(t.getUTCHours())) {
          t.setUTCHours(t.getUTCHours() + 1, 0, 0, 0);
          continue;
        }
        if (!minute.values.has(t.getUTCMinutes())) {
          t.setUTCMinutes(t.getUTCMinutes() + 1, 0, 0);
          continue;
        }
        const wall = t.getTime();
        const guess = wall - offsetAt(zone, wall);
        const instant = wall - offsetAt(zone, guess);
        if (instant > after) return instant;
        t.setUTCMinutes(t.getUTCMinutes() + 1, 0, 0);
      }
      return undefined;
    },
  };
}
