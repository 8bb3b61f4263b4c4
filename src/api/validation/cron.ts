/**
 * CronJob schedule syntax: the standard 5-field cron format with descriptors (`@hourly`,
 * `@every 1h30m`, ...) and an optional `TZ=`/`CRON_TZ=` prefix, returning the error strings of
 * robfig/cron v3's `ParseStandard`, which the API server reports verbatim.
 */

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

const FIELDS: Bounds[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: MONTHS },
  { min: 0, max: 6, names: DAYS },
];

const DESCRIPTORS = new Set([
  "@yearly",
  "@annually",
  "@monthly",
  "@weekly",
  "@daily",
  "@midnight",
  "@hourly",
]);

/** Go's `strconv.Atoi` error text. */
function atoi(expr: string): number | string {
  if (/^[+-]?[0-9]+$/.test(expr)) {
    const n = Number(expr);
    if (n < 0) return `negative number (${n}) not allowed: ${expr}`;
    return n;
  }
  return `failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: invalid syntax`;
}

function parseIntOrName(expr: string, b: Bounds): number | string {
  const named = b.names?.[expr.toLowerCase()];
  return named ?? atoi(expr);
}

function checkRange(expr: string, b: Bounds): string | undefined {
  const rangeAndStep = expr.split("/");
  const lowAndHigh = (rangeAndStep[0] ?? "").split("-");
  let start: number;
  let end: number;
  if (lowAndHigh[0] === "*" || lowAndHigh[0] === "?") {
    start = b.min;
    end = b.max;
  } else {
    const s = parseIntOrName(lowAndHigh[0] ?? "", b);
    if (typeof s === "string") return s;
    start = s;
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) {
      const e = parseIntOrName(lowAndHigh[1] ?? "", b);
      if (typeof e === "string") return e;
      end = e;
    } else return `too many hyphens: ${expr}`;
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    const s = atoi(rangeAndStep[1] ?? "");
    if (typeof s === "string") return s;
    step = s;
    if (lowAndHigh.length === 1) end = b.max;
  } else if (rangeAndStep.length > 2) {
    return `too many slashes: ${expr}`;
  }
  if (start < b.min) return `beginning of range (${start}) below minimum (${b.min}): ${expr}`;
  if (end > b.max) return `end of range (${end}) above maximum (${b.max}): ${expr}`;
  if (start > end) return `beginning of range (${start}) beyond end of range (${end}): ${expr}`;
  if (step === 0) return `step of range should be a positive number: ${expr}`;
  return undefined;
}

const DURATION = /^[+-]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h))+$/;

/** Returns the parser's error message, or undefined when the schedule is valid. */
export function cronScheduleError(
  spec: string,
  validTimeZone: (tz: string) => string | undefined,
): string | undefined {
  if (spec.length === 0) return "empty spec string";
  let rest = spec;
  if (rest.startsWith("TZ=") || rest.startsWith("CRON_TZ=")) {
    const space = rest.indexOf(" ");
    const eq = rest.indexOf("=");
    const tz = space < 0 ? rest.slice(eq + 1) : rest.slice(eq + 1, space);
    const tzErr = validTimeZone(tz);
    if (tzErr) return `provided bad location ${tz}: ${tzErr}`;
    rest = space < 0 ? "" : rest.slice(space).trim();
  }
  if (rest.startsWith("@")) {
    if (DESCRIPTORS.has(rest)) return undefined;
    if (rest.startsWith("@every ")) {
      const d = rest.slice("@every ".length);
      return DURATION.test(d) || d === "0"
        ? undefined
        : `failed to parse duration ${rest}: time: invalid duration ${JSON.stringify(d)}`;
    }
    return `unrecognized descriptor: ${rest}`;
  }
  const fields = rest.split(/\s+/).filter((f) => f.length > 0);
  if (fields.length !== 5) return `expected exactly 5 fields, found ${fields.length}: [${fields.join(" ")}]`;
  for (let i = 0; i < 5; i++) {
    for (const expr of (fields[i] ?? "").split(",").filter((e) => e.length > 0)) {
      const err = checkRange(expr, FIELDS[i]!);
      if (err) return err;
    }
  }
  return undefined;
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
