import { describe, expect, it } from "vitest";
import {
  formatGoDuration,
  formatMicroTime,
  formatTime,
  parseGoDuration,
  parseRfc3339,
} from "./special-types.ts";

describe("Time and MicroTime", () => {
  it("formats in UTC with the precision Go's JSON uses", () => {
    expect(formatTime({ seconds: 1_714_557_600n, nanos: 999_999_999 })).toBe("2024-05-01T10:00:00Z");
    expect(formatMicroTime({ seconds: 1_714_557_600n, nanos: 1_999 })).toBe("2024-05-01T10:00:00.000001Z");
    expect(formatMicroTime({ seconds: 0n, nanos: 0 })).toBe("1970-01-01T00:00:00.000000Z");
    expect(formatTime({ seconds: -1n, nanos: 0 })).toBe("1969-12-31T23:59:59Z");
    expect(formatTime({ seconds: -62_167_219_200n, nanos: 0 })).toBe("0000-01-01T00:00:00Z");
    expect(() => formatTime({ seconds: 253_402_300_800n, nanos: 0 })).toThrow(/0000-9999/);
  });

  it("parses RFC 3339 with offsets and fractions", () => {
    expect(parseRfc3339("2024-05-01T10:00:00Z")).toEqual({ seconds: 1_714_557_600n, nanos: 0 });
    expect(parseRfc3339("2024-05-01T12:00:00.5+02:00")).toEqual({
      seconds: 1_714_557_600n,
      nanos: 500_000_000,
    });
    expect(parseRfc3339("2024-05-01T05:30:00.123456789-04:30")).toEqual({
      seconds: 1_714_557_600n,
      nanos: 123_456_789,
    });
    expect(parseRfc3339("0001-01-01T00:00:00Z")).toEqual({ seconds: -62_135_596_800n, nanos: 0 });
    expect(parseRfc3339("0050-03-01T00:00:00Z").seconds).toBe(-60_584_198_400n);
    for (const bad of ["2024-05-01", "2024-02-30T00:00:00Z", "2024-05-01T24:00:00Z", "2024-05-01T10:00:00"]) {
      expect(() => parseRfc3339(bad)).toThrow();
    }
  });
});

describe("Go durations", () => {
  const cases: [bigint, string][] = [
    [0n, "0s"],
    [1n, "1ns"],
    [1_100n, "1.1µs"],
    [2_200_000n, "2.2ms"],
    [1_500_000_000n, "1.5s"],
    [60_000_000_000n, "1m0s"],
    [3_600_000_000_000n, "1h0m0s"],
    [5_400_000_000_001n, "1h30m0.000000001s"],
    [-90_000_000_000n, "-1m30s"],
    [72n * 3_600_000_000_000n + 3n * 60_000_000_000n + 500_000_000n, "72h3m0.5s"],
  ];
  for (const [nanos, text] of cases) {
    it(`${nanos}ns <-> ${text}`, () => {
      expect(formatGoDuration(nanos)).toBe(text);
      expect(parseGoDuration(text)).toBe(nanos);
    });
  }

  it("parses the other spellings Go accepts and rejects junk", () => {
    expect(parseGoDuration("1h30m")).toBe(5_400_000_000_000n);
    expect(parseGoDuration("+5us")).toBe(5_000n);
    expect(parseGoDuration(".5s")).toBe(500_000_000n);
    expect(parseGoDuration("0")).toBe(0n);
    for (const bad of ["", "5", "1x", "h", "1h 2m", "-"]) expect(() => parseGoDuration(bad)).toThrow();
  });
});
