import { describe, expect, it } from "vitest";
import { parseSchedule } from "./cron-schedule.ts";
import { scheduleTimes } from "./cronjob.ts";

const at = (s: string) => Date.parse(s);
const iso = (ms: number | undefined) =>
  ms === undefined ? undefined : new Date(ms).toISOString().replace(".000Z", "Z");

describe("cron schedules", () => {
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
    ["@hourly", "2026-03-01T12:30:00Z", "2026-03-01T13:00:00Z"],
    ["@daily", "2026-03-01T12:30:00Z", "2026-03-02T00:00:00Z"],
    ["@weekly", "2026-03-01T12:30:00Z", "2026-03-08T00:00:00Z"],
    ["@every 90s", "2026-03-01T12:00:00Z", "2026-03-01T12:01:30Z"],
    // Day-of-month and day-of-week both restricted: either matches (1st or a Friday).
    ["0 0 1 * 5", "2026-03-01T00:00:00Z", "2026-03-06T00:00:00Z"],
    ["TZ=Europe/Berlin 0 9 * * *", "2026-03-01T00:00:00Z", "2026-03-01T08:00:00Z"],
    ["CRON_TZ=America/New_York 0 9 * * *", "2026-07-01T00:00:00Z", "2026-07-01T13:00:00Z"],
  ])("%s after %s → %s", (schedule, after, next) => {
    expect(iso(parseSchedule(schedule).next(at(after)))).toBe(next);
  });

  it("takes spec.timeZone", () => {
    expect(iso(parseSchedule("0 9 * * *", "Asia/Tokyo").next(at("2026-03-01T00:00:00Z")))).toBe(
      "2026-03-02T00:00:00Z",
    );
  });

  it("rejects what it cannot read", () => {
    expect(() => parseSchedule("* * *")).toThrow("expected exactly 5 fields");
    expect(() => parseSchedule("61 * * * *")).toThrow();
    expect(() => parseSchedule("0 0 * * *", "Mars/Olympus")).toThrow();
  });

  it("finds the most recent missed time and the next one (CronJob catch-up)", () => {
    const t = scheduleTimes("*/5 * * * *", undefined, at("2026-03-01T12:00:00Z"), at("2026-03-01T12:17:00Z"));
    expect({ latest: iso(t.latest), next: iso(t.next), missed: t.missed }).toEqual({
      latest: "2026-03-01T12:15:00Z",
      next: "2026-03-01T12:20:00Z",
      missed: 3,
    });
    const many = scheduleTimes(
      "* * * * *",
      undefined,
      at("2026-03-01T00:00:00Z"),
      at("2026-03-02T00:00:30Z"),
    );
    expect(iso(many.latest)).toBe("2026-03-02T00:00:00Z");
    expect(many.missed).toBeGreaterThan(100);
  });
});
