/**
 * Whether a CronFederatedHPA schedule is one the gronx library (which upstream validates
 * with) accepts: 5 to 7 fields (seconds and year optional), month and weekday names, a few
 * `@` shorthands, `L`, `W` and `#` in the day fields.
 *
 * gronx decides validity by evaluating the expression against the current time and stops at
 * the first list item that matches it, so a few malformed expressions pass at some instants
 * and fail at others. This check is the time-independent reading: every item must be well
 * formed.
 */

const SHORTHANDS: Record<string, string> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@hourly": "0 * * * *",
  "@always": "* * * * *",
  "@5minutes": "*/5 * * * *",
  "@10minutes": "*/10 * * * *",
  "@15minutes": "*/15 * * * *",
  "@30minutes": "0,30 * * * *",
  "@everysecond": "* * * * * *",
};

const NAMES: Record<string, string> = {
  SUN: "0",
  MON: "1",
  TUE: "2",
  WED: "3",
  THU: "4",
  FRI: "5",
  SAT: "6",
  JAN: "1",
  FEB: "2",
  MAR: "3",
  APR: "4",
  MAY: "5",
  JUN: "6",
  JUL: "7",
  AUG: "8",
  SEP: "9",
  OCT: "10",
  NOV: "11",
  DEC: "12",
};
const NAME_RE = new RegExp(Object.keys(NAMES).join("|"), "g");

/** second, minute, hour, day of month, month, day of week, year */
const BOUNDS: Array<[number, number]> = [
  [0, 59],
  [0, 59],
  [0, 23],
  [1, 31],
  [1, 12],
  [0, 7],
  [1, 9999],
];
const DAY_OF_MONTH = 3;
const DAY_OF_WEEK = 5;

/** Go's `strconv.Atoi`: optional sign, decimal digits only. */
function atoi(s: string): number | undefined {
  return /^[+-]?[0-9]+$/.test(s) ? Number(s) : undefined;
}

function segmentsOf(expr: string): string[] | undefined {
  let e = expr.replace(/^[ \t]+|[ \t]+$/g, "");
  e = SHORTHANDS[e.toLowerCase()] ?? e;
  e = e
    .replace(/\s+/g, " ")
    .toUpperCase()
    .replace(NAME_RE, (m) => NAMES[m]!);
  const segs = e.split(" ");
  if (segs.length < 5 || segs.length > 7) return undefined;
  // Five fields, or six ending in a year, get a leading seconds field.
  if (segs.length === 5 || (segs.length === 6 && /\d{4}/.test(segs[5]!))) segs.unshift("0");
  return segs;
}

function validStep(item: string, [lo, hi]: [number, number]): boolean {
  const parts = item.split("/");
  const step = atoi(parts[1] ?? "");
  if (step === undefined || step === 0) return false;
  if (item.startsWith("*/") || item.startsWith("0/")) return true;
  const range = (parts[0] ?? "").split("-");
  const start = atoi(range[0] ?? "");
  if (start === undefined) return false;
  if (range.length === 1) return start >= lo;
  const end = atoi(range[1] ?? "");
  return end !== undefined && end >= start && start >= lo && end <= hi;
}

function validRange(item: string, [lo, hi]: [number, number]): boolean {
  const parts = item.split("-");
  const start = atoi(parts[0] ?? "");
  const end = atoi(parts[1] ?? "");
  return start !== undefined && end !== undefined && end >= start && start >= lo && end <= hi;
}

function validPlainItem(item: string, pos: number): boolean {
  if (item === "*" || item === "?") return true;
  const bounds = BOUNDS[pos]!;
  if (item.includes("/")) return validStep(item, bounds);
  if (item.includes("-")) return validRange(pos === DAY_OF_WEEK ? item.replace("7-", "0-") : item, bounds);
  // gronx short-circuits a literal 0 outside the weekday field before any bounds check.
  if (pos !== DAY_OF_WEEK && item === "0") return true;
  const n = atoi(item);
  return n !== undefined && n >= bounds[0] && n <= bounds[1];
}

/** `L`, `nW` in the day of month; `nL`, `n#k` in the day of week. */
function validModifier(item: string, pos: number): boolean {
  if (pos === DAY_OF_MONTH) {
    if (item === "L") return true;
    const w = item.indexOf("W");
    return w >= 1 && atoi(item.slice(0, w)) !== undefined;
  }
  const l = item.replaceAll("7L", "0L").indexOf("L");
  if (l > 0) return atoi(item.slice(0, l)) !== undefined;
  const hash = item.indexOf("#");
  const parts = item.replaceAll("7#", "0#").split("#");
  return hash >= 1 && parts.length >= 2 && atoi(parts[0]!) !== undefined && atoi(parts[1]!) !== undefined;
}

export function isValidCronExpression(expr: string): boolean {
  const segs = segmentsOf(expr);
  if (!segs) return false;
  return segs.every((seg, pos) =>
    seg.split(",").every((item) => {
      const modifiable = (pos === DAY_OF_MONTH || pos === DAY_OF_WEEK) && /[LW#]/.test(item);
      return modifiable ? validModifier(item, pos) : validPlainItem(item, pos);
    }),
  );
}
