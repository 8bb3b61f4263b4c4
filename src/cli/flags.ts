/**
 * Flag value parsers shared by `karmadactl` and `karmada <component>`, with the messages
 * commander prints after `error: option '--x <v>' argument 'v' is invalid.`
 */
import { InvalidArgumentError, Option } from "commander";
import { parseGoDuration } from "../apiserver/protobuf/special-types.ts";

const DURATION_HELP = "must be a duration such as 500ms, 10s, 2m, 1h or 24h0m0s";

/**
 * A Go duration as `time.ParseDuration` reads it (`500ms`, `10s`, `1h30m`, `24h0m0s`, `.5s`,
 * `1.h`, a sign, a bare `0`), in milliseconds.
 */
export function duration(value: string): number {
  try {
    return Number(parseGoDuration(value)) / 1e6;
  } catch {
    throw new InvalidArgumentError(DURATION_HELP);
  }
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
  const nonNegative = (value: string): number => {
    const ms = duration(value);
    if (ms < 0) throw new InvalidArgumentError("must not be negative");
    return ms;
  };
  return new Option(flags, description).argParser(nonNegative).default(duration(defaultValue), defaultValue);
}
