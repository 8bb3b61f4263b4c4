/**
 * How numbers read as text. Upstream's gopher-lua keeps every number as a float64 and prints
 * an integral one without a fraction (`3`), any other with Go's `%v` (`0.5`, `1.5e+07`).
 * Lua 5.4 prints floats as `3.0` and `1.5e+07`, so `tostring` in the sandbox and the places
 * we turn numbers into strings use this instead.
 */
import { formatGoFloat } from "../../overrides/yaml-v2-resolve.ts";

const INT64_LIMIT = 2 ** 63;

/** gopher-lua's `LNumber.String()`. */
export function formatLuaNumber(n: number): string {
  if (Number.isInteger(n) && n >= -INT64_LIMIT && n < INT64_LIMIT) {
    return Number.isSafeInteger(n) ? String(n) : BigInt(n).toString();
  }
  return formatGoFloat(n, 64);
}
