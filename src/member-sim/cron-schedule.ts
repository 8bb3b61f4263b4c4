/**
 * When a CronJob fires next: the standard 5-field cron format (ranges, steps, lists, month
 * and weekday names), the descriptors (@hourly, @daily, ..., @every <duration>), and time
 * zones from a `TZ=`/`CRON_TZ=` prefix or `spec.timeZone` (UTC when none: the sim's
 * controller manager runs in UTC). Day-of-month and day-of-week combine like robfig/cron:
 * both restricted → either matches; otherwise both must. Validation (with the API server's
 * error messages) is `api/validation/cron.ts`; this only computes times.
 */

const DESCRIPTORS: Record<string, string> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
};

const NAMES: Array<Record<string, number>> = [
  {},
  {},
  {},
  { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 },
  { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 },
];
const BOUNDS: Array<[number, number]> = [
  [0, 59],
  [0, 23],
  [1, 31],
  [1, 12],
  [0, 6],
];

interface Field {
  values: Set<number>;
  /** `*` or `?`: unrestricted (matters for the day-of-month/day-of-week rule). */
  star: boolean;
}

function parseValue(text: string, i: number): number {
  const named = NAMES[i]![text.toLowerCase()];
  if (named !== undefined) return named;
  if (!/^\d+$/.test(text)) throw new Error(`invalid cron value ${JSON.stringify(text)}`);
  return Number(text);
}

function parseField(text: string, i: number): Field {
  const [min, max] = BOUNDS[i]!;
  const values = new Set<number>();
  let star = false;
  for (const part of text.split(",")) {
    const [range = "", stepText] = part.split("/");
    const step = stepText === undefined ? 1 : Number(stepText);
    if (!Number.isInteger(step) || step <= 0) throw new Error(`invalid cron step in ${JSON.stringify(part)}`);
    let lo: number;
    let hi: number;
    if (range === "*" || range === "?") {
      lo = min;
      hi = max;
      if (stepText === undefined) star = true;
    } else {
      const [a = "", b] = range.split("-");
      lo = parseValue(a, i);
      hi = b === undefined ? (stepText === undefined ? lo : max) : parseValue(b, i);
    }
    if (lo < min || hi > max || lo > hi) throw new Error(`cron range ${JSON.stringify(part)} out of bounds`);
    for (let v = lo; v <= hi; v += step) values.add(v);
  }
  return { values, star };
}

const DURATION_UNITS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

function parseDuration(text: string): number {
  let total = 0;
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/gy;
  let consumed = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    total += Number(m[1]) * DURATION_UNITS[m[2]!]!;
    consumed = re.lastIndex;
  }
  if (consumed !== text.length || text.length === 0)
    throw new Error(`invalid duration ${JSON.stringify(text)}`);
  return total;
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

export interface CronSchedule {
  /** The first firing strictly after `afterMs` (epoch ms), or undefined if none within five years. */
  next(afterMs: number): number | undefined;
}

export function parseSchedule(schedule: string, timeZone?: string): CronSchedule {
  let spec = schedule.trim();
  let zone = timeZone ?? "UTC";
  const tz = /^(?:CRON_)?TZ=(\S+)\s*/.exec(spec);
  if (tz) {
    zone = tz[1]!;
    spec = spec.slice(tz[0].length);
  }
  new Intl.DateTimeFormat("en-US", { timeZone: zone });
  if (spec.startsWith("@every ")) {
    const every = Math.max(1000, Math.floor(parseDuration(spec.slice(7).trim()) / 1000) * 1000);
    return { next: (after) => Math.floor(after / 1000) * 1000 + every };
  }
  const expanded = DESCRIPTORS[spec] ?? spec;
  const texts = expanded.split(/\s+/);
  if (texts.length !== 5)
    throw new Error(`expected exactly 5 fields, found ${texts.length}: [${texts.join(" ")}]`);
  const [minute, hour, dom, month, dow] = texts.map((t, i) => parseField(t, i)) as [
    Field,
    Field,
    Field,
    Field,
    Field,
  ];
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
