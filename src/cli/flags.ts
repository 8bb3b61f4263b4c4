/**
 * Flag value parsers shared by `karmadactl` and `karmada <component>`, with the messages
 * commander prints after `error: option '--x <v>' argument 'v' is invalid.`
 */
import { InvalidArgumentError, Option } from "commander";

const UNITS = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/**
 * A Go duration (`time.ParseDuration`: `500ms`, `10s`, `1h30m`, `24h0m0s`, or a bare `0`),
 * in milliseconds.
 */
export function duration(value: string): number {
  if (value === "0") return 0;
  const part = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/y;
  let total = 0;
  let at = 0;
  while (at < value.length) {
    part.lastIndex = at;
    const m = part.exec(value);
    if (!m) throw new InvalidArgumentError("must be a duration such as 500ms, 10s, 2m, 1h or 24h0m0s");
    total += Number(m[1]) * UNITS[m[2] as keyof typeof UNITS];
    at = part.lastIndex;
  }
  if (value === "")
    throw new InvalidArgumentError("must be a duration such as 500ms, 10s, 2m, 1h or 24h0m0s");
  return total;
}

export function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError("must be a port number between 0 and 65535");
  return n;
}

export function count(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError("must be a non-negative integer");
  return n;
}

/** Comma-separated and repeatable: `--controllers a,b --controllers c`. */
export function list(value: string, previous: string[] = []): string[] {
  return [...previous, ...value.split(",").filter((v) => v !== "")];
}

/** A duration flag whose help shows its default as written (`(default: 10s)`), not in ms. */
export function durationOption(flags: string, description: string, defaultValue: string): Option {
  return new Option(flags, description).argParser(duration).default(duration(defaultValue), defaultValue);
}
