import { describe, expect, it } from "vitest";
import { cronScheduleError, parseCron, parseGoDuration, timeZoneError } from "./cron.ts";

const at = (s: string) => Date.parse(s);
const iso = (ms: number | undefined) =>
  ms === undefined ? undefined : new Date(ms).toISOString().replace(".000Z", "Z");
const next = (schedule: string, after: string, timeZone?: string) => {
  const parsed = parseCron(schedule, timeZone);
  if (parsed.error !== undefined) throw new Error(parsed.error);
  return iso(parsed.schedule.next(at(after)));
};

describe("cron schedules: the parser's verdict (robfig/cron ParseStandard)", () => {
  const cases: Array<[string, string | undefined]> = [
    ["*/5 * * * *", undefined],
    ["0 0 * * MON-FRI", undefined],
    ["0 12 1 jan,jul ?", undefined],
    ["@hourly", undefined],
    ["@midnight", undefined],
    ["@every 1h30m", undefined],
    ["@every 0", undefined],
    ["@every 1.5s", undefined],
    ["TZ=UTC 0 * * * *", undefined],
    ["CRON_TZ=Europe/Berlin 0 * * * *", undefined],
    ["  0  *  * * *  ", undefined],
    ["", "empty spec string"],
    ["* * * *", "expected exactly 5 fields, found 4: [* * * *]"],
    ["* * * * * *", "expected exactly 5 fields, found 6: [* * * * * *]"],
    ["@fortnightly", "unrecognized descriptor: @fortnightly"],
    ["60 * * * *", "end of range (60) above maximum (59): 60"],
    ["* 24 * * *", "end of range (24) above maximum (23): 24"],
    ["* * 0 * *", "beginning of range (0) below minimum (1): 0"],
    ["* * * 13 *", "end of range (13) above maximum (12): 13"],
    ["5-1 * * * *", "beginning of range (5) beyond end of range (1): 5-1"],
    ["*/0 * * * *", "step of range should be a positive number: */0"],
    ["*/-1 * * * *", "negative number (-1) not allowed: -1"],
    ["x * * * *", 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax'],
    ["1-2-3 * * * *", "too many hyphens: 1-2-3"],
    ["1/2/3 * * * *", "too many slashes: 1/2/3"],
    ["* * * * 7", "end of range (7) above maximum (6): 7"],
    ["* * * foo *", 'failed to parse int from foo: strconv.Atoi: parsing "foo": invalid syntax'],
    ["TZ=Mars/Olympus 0 * * * *", "provided bad location Mars/Olympus: unknown time zone Mars/Olympus"],
    ["@every 1x", 'failed to parse duration @every 1x: time: unknown unit "x" in duration "1x"'],
    ["@every 5", 'failed to parse duration @every 5: time: missing unit in duration "5"'],
    ["@every h", 'failed to parse duration @every h: time: invalid duration "h"'],
  ];
  for (const [spec, want] of cases) {
    it(spec || "(empty)", () => expect(cronScheduleError(spec)).toBe(want));
  }

  it("time zones (time.LoadLocation)", () => {
    expect(timeZoneError("Europe/Berlin")).toBeUndefined();
    expect(timeZoneError("UTC")).toBeUndefined();
    expect(timeZoneError("Mars/Olympus")).toBe("unknown time zone Mars/Olympus");
  });

  it("durations (time.ParseDuration)", () => {
    expect(parseGoDuration("1h30m")).toBe(5_400_000);
    expect(parseGoDuration("-1.5s")).toBe(-1500);
    expect(parseGoDuration("1.s")).toBe(1000);
    expect(parseGoDuration("250ms")).toBe(250);
    expect(parseGoDuration("")).toBe('time: invalid duration ""');
    expect(parseGoDuration(".s")).toBe('time: invalid duration ".s"');
  });
});

describe("cron schedules: when they fire", () => {
  it.each([
    ["*/5 * * * *", "2026-03-01T12:00:00Z", "2026-03-01T12:05:00Z"],
    ["*/5 * * * *", "2026-03-01T12:03:59Z", "2026-03-01T12:05:00Z"],
    ["0 * * * *", "2026-03-01T12:00:00Z", "2026-03-01T13:00:00Z"],
    ["30 2 * * *", "2026-03-01T12:00:00Z", "2026-03-02T02:30:00Z"],
    ["0 0 1 * *", "2026-03-15T00:00:00Z", "2026-04-01T00:00:00Z"],
    ["0 9 * * mon-fri", "2026-03-06T10:00:00Z", "2026-03-09T09:00:00Z"],
    ["0 0 29 feb *", "2026-03-01T00:00:00Z", "2028-02-29T00:00:00Z"],
    ["15,45 8-10/2 * * *", "2026-03-01T08:20:00Z", "2026-03-01T08:45:00Z"],
    ["15,45 8-10/2 * * *", "2026-03-01T08:50:00Z", "2026-03-01T10:15:00Z"],
    // `N/step` runs to the end of the field.
    ["50/5 * * * *", "2026-03-01T12:51:00Z", "2026-03-01T12:55:00Z"],
    ["@hourly", "2026-03-01T12:30:00Z", "2026-03-01T13:00:00Z"],
    ["@daily", "2026-03-01T12:30:00Z", "2026-03-02T00:00:00Z"],
    ["@weekly", "2026-03-01T12:30:00Z", "2026-03-08T00:00:00Z"],
    ["@every 90s", "2026-03-01T12:00:00Z", "2026-03-01T12:01:30Z"],
    ["@every 100ms", "2026-03-01T12:00:00Z", "2026-03-01T12:00:01Z"],
    // Day-of-month and day-of-week both restricted: either matches (1st or a Friday).
    ["0 0 1 * 5", "2026-03-01T00:00:00Z", "2026-03-06T00:00:00Z"],
    // One of them `*`: both must match (a Friday, any day of the month).
    ["0 0 * * 5", "2026-03-01T00:00:00Z", "2026-03-06T00:00:00Z"],
    // `*/1` still counts as `*` (robfig keeps the star bit for steps of 1): Fridays only.
    ["0 0 */1 * 5", "2026-03-01T00:00:00Z", "2026-03-06T00:00:00Z"],
    ["TZ=Europe/Berlin 0 9 * * *", "2026-03-01T00:00:00Z", "2026-03-01T08:00:00Z"],
    ["CRON_TZ=America/New_York 0 9 * * *", "2026-07-01T00:00:00Z", "2026-07-01T13:00:00Z"],
  ])("%s after %s → %s", (schedule, after, want) => {
    expect(next(schedule, after)).toBe(want);
  });

  it("takes spec.timeZone when the schedule names none", () => {
    expect(next("0 9 * * *", "2026-03-01T00:00:00Z", "Asia/Tokyo")).toBe("2026-03-02T00:00:00Z");
    expect(next("TZ=UTC 0 9 * * *", "2026-03-01T00:00:00Z", "Asia/Tokyo")).toBe("2026-03-01T09:00:00Z");
  });

  it("rejects what it cannot read", () => {
    expect(parseCron("* * *").error).toMatch("expected exactly 5 fields");
    expect(parseCron("61 * * * *").error).toBeDefined();
    expect(parseCron("0 0 * * *", "Mars/Olympus").error).toBe("unknown time zone Mars/Olympus");
  });

  it("a day that never comes fires never", () => {
    const parsed = parseCron("0 0 30 feb *");
    expect(parsed.schedule?.next(at("2026-03-01T00:00:00Z"))).toBeUndefined();
  });
});
