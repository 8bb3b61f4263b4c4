import { describe, expect, it } from "vitest";
import { cronScheduleError, timeZoneError } from "./cron.ts";

describe("cron schedules (robfig/cron ParseStandard)", () => {
  const cases: Array<[string, string | undefined]> = [
    ["*/5 * * * *", undefined],
    ["0 0 * * MON-FRI", undefined],
    ["0 12 1 jan,jul ?", undefined],
    ["@hourly", undefined],
    ["@every 1h30m", undefined],
    ["TZ=UTC 0 * * * *", undefined],
    ["", "empty spec string"],
    ["* * * *", "expected exactly 5 fields, found 4: [* * * *]"],
    ["@fortnightly", "unrecognized descriptor: @fortnightly"],
    ["60 * * * *", "end of range (60) above maximum (59): 60"],
    ["* * 0 * *", "beginning of range (0) below minimum (1): 0"],
    ["5-1 * * * *", "beginning of range (5) beyond end of range (1): 5-1"],
    ["*/0 * * * *", "step of range should be a positive number: */0"],
    ["x * * * *", 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax'],
    ["1-2-3 * * * *", "too many hyphens: 1-2-3"],
    ["* * * * 7", "end of range (7) above maximum (6): 7"],
    ["@every 1x", 'failed to parse duration @every 1x: time: invalid duration "1x"'],
  ];
  for (const [spec, want] of cases) {
    it(spec || "(empty)", () => expect(cronScheduleError(spec, timeZoneError)).toBe(want));
  }
  it("time zones", () => {
    expect(timeZoneError("Europe/Berlin")).toBeUndefined();
    expect(timeZoneError("Mars/Olympus")).toBe("unknown time zone Mars/Olympus");
  });
});
