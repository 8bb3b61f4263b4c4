import { describe, expect, it } from "vitest";
import { parseRfc3339 } from "../../machinery/timestamps.ts";
import { formatCreatedAt, humanDuration, translateTimestampSince } from "./age.ts";

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

describe("humanDuration", () => {
  it.each([
    [0, "0s"],
    [-1 * S, "0s"],
    [-2 * S, "<invalid>"],
    [5 * S, "5s"],
    [5 * S + 999, "5s"],
    [119 * S, "119s"],
    [2 * M, "2m"],
    [3 * M + 2 * S, "3m2s"],
    [9 * M + 59 * S, "9m59s"],
    [10 * M + 30 * S, "10m"],
    [179 * M, "179m"],
    [3 * H, "3h"],
    [3 * H + 4 * M, "3h4m"],
    [7 * H + 59 * M, "7h59m"],
    [8 * H + 30 * M, "8h"],
    [47 * H, "47h"],
    [2 * D, "2d"],
    [5 * D + 2 * H, "5d2h"],
    [7 * D + 23 * H, "7d23h"],
    [8 * D + 5 * H, "8d"],
    [100 * D, "100d"],
    [729 * D, "729d"],
    [730 * D, "2y"],
    [830 * D, "2y100d"],
    [8 * 365 * D, "8y"],
    [12 * 365 * D + 40 * D, "12y"],
  ])("%d ms is %s", (ms, text) => {
    expect(humanDuration(ms)).toBe(text);
  });
});

describe("translateTimestampSince", () => {
  const now = Date.parse("2024-06-01T12:00:00Z");
  it("gives the age of an RFC 3339 timestamp", () => {
    expect(translateTimestampSince("2024-06-01T11:57:00Z", now)).toBe("3m");
    expect(translateTimestampSince("2024-05-27T12:00:00Z", now)).toBe("5d");
    expect(translateTimestampSince("2024-06-01T13:00:00+02:00", now)).toBe("60m");
    expect(translateTimestampSince("2024-06-01T11:59:55.123456Z", now)).toBe("4s");
  });
  it("is <unknown> when unset and <invalid> when unparsable or in the future", () => {
    expect(translateTimestampSince(undefined, now)).toBe("<unknown>");
    expect(translateTimestampSince(null, now)).toBe("<unknown>");
    expect(translateTimestampSince("", now)).toBe("<unknown>");
    expect(translateTimestampSince("0001-01-01T00:00:00Z", now)).toBe("<unknown>");
    expect(translateTimestampSince("yesterday", now)).toBe("<invalid>");
    expect(translateTimestampSince("2024-06-01T12:00:10Z", now)).toBe("<invalid>");
  });
});

describe("parseRfc3339 and formatCreatedAt", () => {
  it("rejects what is not RFC 3339", () => {
    expect(parseRfc3339("2024-06-01")).toBeUndefined();
    expect(parseRfc3339("2024-02-30T00:00:00Z")).toBeUndefined();
    expect(parseRfc3339("2024-06-01 12:00:00Z")).toBeUndefined();
  });
  it("prints UTC to the second, Go's zero time when unset", () => {
    expect(formatCreatedAt("2024-06-01T14:00:00.5+02:00")).toBe("2024-06-01T12:00:00Z");
    expect(formatCreatedAt(undefined)).toBe("0001-01-01T00:00:00Z");
  });
});
