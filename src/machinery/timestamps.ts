/**
 * Timestamps as the API holds them (`metav1.Time`, `metav1.MicroTime`): RFC 3339 text read
 * back into milliseconds since the epoch, and Go's zero time, which stands for "unset".
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Go's zero `time.Time` (0001-01-01T00:00:00Z): what an unset `metav1.Time` holds. */
export const GO_ZERO_TIME_MS = utcMs(1, 1, 1);

function utcMs(year: number, month: number, day: number): number {
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not map years 0-99 to 1900-1999.
  date.setUTCFullYear(year, month - 1, day);
  return date.getTime();
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Parses an RFC 3339 timestamp (`metav1.Time`, `metav1.MicroTime`) to milliseconds since the epoch.
 * Returns undefined when the text is not RFC 3339.
 */
export function parseRfc3339(text: string): number | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) {
    return undefined;
  }
  let ms = utcMs(Number(y), month, day);
  if (new Date(ms).getUTCDate() !== day) return undefined;
  ms += hour * HOUR + minute * MINUTE + second * SECOND;
  if (frac) ms += Math.floor(Number(`0${frac}`) * 1000);
  if (zone && zone !== "Z") {
    const sign = zone.startsWith("-") ? -1 : 1;
    ms -= sign * (Number(zone.slice(1, 3)) * HOUR + Number(zone.slice(4, 6)) * MINUTE);
  }
  return ms;
}
