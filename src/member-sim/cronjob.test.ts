import { describe, expect, it } from "vitest";
import { scheduleTimes } from "./cronjob.ts";

const at = (s: string) => Date.parse(s);
const iso = (ms: number | undefined) =>
  ms === undefined ? undefined : new Date(ms).toISOString().replace(".000Z", "Z");

describe("scheduleTimes (CronJob catch-up)", () => {
  it("finds the most recent missed time and the next one", () => {
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

  it("throws the parser's words for a schedule it cannot read", () => {
    expect(() => scheduleTimes("* * *", undefined, 0, 1)).toThrow(
      "expected exactly 5 fields, found 3: [* * *]",
    );
    expect(() => scheduleTimes("0 0 * * *", "Mars/Olympus", 0, 1)).toThrow("unknown time zone Mars/Olympus");
  });
});
