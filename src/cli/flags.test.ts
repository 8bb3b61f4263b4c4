import { InvalidArgumentError } from "commander";
import { describe, expect, it } from "vitest";
import { duration, durationOption } from "./flags.ts";

describe("duration", () => {
  const cases: Array<{ value: string; ms: number }> = [
    { value: "0", ms: 0 },
    { value: "0s", ms: 0 },
    { value: "500ms", ms: 500 },
    { value: "10s", ms: 10_000 },
    { value: "2m", ms: 120_000 },
    { value: "1h", ms: 3_600_000 },
    { value: "1h30m", ms: 5_400_000 },
    { value: "24h0m0s", ms: 86_400_000 },
    { value: "5m0s", ms: 300_000 },
    { value: "8760h", ms: 31_536_000_000 },
    { value: "1.5h", ms: 5_400_000 },
    { value: "0.5s", ms: 500 },
    { value: "1m30s500ms", ms: 90_500 },
    { value: "30s1m", ms: 90_000 },
    { value: "1500us", ms: 1.5 },
    { value: "1500µs", ms: 1.5 },
    { value: "2000000ns", ms: 2 },
  ];
  it.each(cases)("$value → $ms ms", ({ value, ms }) => {
    expect(duration(value)).toBeCloseTo(ms, 9);
  });

  it.each(["", "10", "abc", "5d", "1h 30m", "1 h", "h", "10S", "00", "1e3s", "10s!"])(
    "refuses %j",
    (value) => {
      expect(() => duration(value)).toThrow(InvalidArgumentError);
      expect(() => duration(value)).toThrow("must be a duration such as 500ms, 10s, 2m, 1h or 24h0m0s");
    },
  );
});

describe("duration: the rest of Go's grammar", () => {
  it.each([
    { value: ".5s", ms: 500 },
    { value: "1.h", ms: 3_600_000 },
    { value: "+5s", ms: 5_000 },
    { value: "-1s", ms: -1_000 },
    { value: "1500μs", ms: 1.5 },
  ])("$value → $ms ms", ({ value, ms }) => {
    expect(duration(value)).toBeCloseTo(ms, 9);
  });

  it("a flag's duration may not be negative", () => {
    const option = durationOption("--wait <d>", "how long", "1m");
    expect(() => option.parseArg!("-1s", undefined)).toThrow("must not be negative");
    expect(option.parseArg!("90s", undefined)).toBe(90_000);
  });
});
