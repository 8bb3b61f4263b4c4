/**
 * Kubernetes resource quantities (`resource.Quantity`): parsing, comparison and the canonical
 * string form the API server writes back (`1000m` -> `1`, `1024Mi` -> `1Gi`, `0.5` -> `500m`).
 * Values are exact: `n * 10^scale` with a bigint mantissa.
 */

export type QuantityFormat = "DecimalSI" | "BinarySI" | "DecimalExponent";

export interface Quantity {
  n: bigint;
  scale: number;
  format: QuantityFormat;
}

export const QUANTITY_REGEX = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$";
export const QUANTITY_PARSE_ERROR = `quantities must match the regular expression '${QUANTITY_REGEX}'`;

const DECIMAL_SUFFIX: Record<string, number> = {
  n: -9,
  u: -6,
  m: -3,
  "": 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};
const BINARY_SUFFIX: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
const DECIMAL_BY_EXP = new Map(Object.entries(DECIMAL_SUFFIX).map(([k, v]) => [v, k]));
const BINARY_BY_EXP = new Map(Object.entries(BINARY_SUFFIX).map(([k, v]) => [v, k]));

function pow10(e: number): bigint {
  return 10n ** BigInt(e);
}

/** Parses a quantity from its JSON form (string or number); undefined when malformed. */
export function parseQuantity(input: unknown): Quantity | undefined {
  let text: string;
  if (typeof input === "number" && Number.isFinite(input)) text = String(input);
  else if (typeof input === "string") text = input.trim();
  else return undefined;
  const m = /^([+-]?)([0-9]*)(?:\.([0-9]*))?(.*)$/.exec(text);
  if (!m) return undefined;
  const [, sign = "", whole = "", frac = "", suffix = ""] = m;
  if (whole.length + frac.length === 0) return undefined;
  let n = BigInt(`${whole}${frac}` || "0");
  let scale = -frac.length;
  let format: QuantityFormat;
  if (suffix in DECIMAL_SUFFIX) {
    format = "DecimalSI";
    scale += DECIMAL_SUFFIX[suffix]!;
  } else if (suffix in BINARY_SUFFIX) {
    format = "BinarySI";
    n *= 1024n ** BigInt(BINARY_SUFFIX[suffix]!);
  } else {
    const e = /^[eE]([+-]?[0-9]+)$/.exec(suffix);
    if (!e) return undefined;
    format = "DecimalExponent";
    scale += Number(e[1]);
  }
  if (sign === "-") n = -n;
  return { n, scale, format };
}

function align(a: Quantity, b: Quantity): [bigint, bigint] {
  const s = Math.min(a.scale, b.scale);
  return [a.n * pow10(a.scale - s), b.n * pow10(b.scale - s)];
}

/** -1, 0 or 1 as a <, =, > b. */
export function compareQuantities(a: Quantity, b: Quantity): number {
  const [x, y] = align(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The value as a float, as Go's Quantity.AsApproximateFloat64 (precision may be lost). */
export function approximateFloat(q: Quantity): number {
  return Number(q.n) * 10 ** q.scale;
}

export function quantitySign(q: Quantity): number {
  return q.n < 0n ? -1 : q.n > 0n ? 1 : 0;
}

export function isIntegerQuantity(q: Quantity): boolean {
  return q.scale >= 0 || q.n % pow10(-q.scale) === 0n;
}

/** `Quantity.RoundUp(-3)`: drops precision below milli-units, rounding away from zero. */
export function roundUpToMilli(q: Quantity): Quantity {
  if (q.scale >= -3) return q;
  const div = pow10(-3 - q.scale);
  const abs = q.n < 0n ? -q.n : q.n;
  let r = abs / div;
  if (abs % div !== 0n) r += 1n;
  return { n: q.n < 0n ? -r : r, scale: -3, format: q.format };
}

/** The canonical string form (`Quantity.String()`). */
export function formatQuantity(q: Quantity): string {
  if (q.n === 0n) return "0";
  if (q.format === "BinarySI") {
    const big = compareQuantities(q, { n: 1024n, scale: 0, format: "DecimalSI" }) >= 0;
    const small = compareQuantities(q, { n: -1024n, scale: 0, format: "DecimalSI" }) <= 0;
    if ((big || small) && isIntegerQuantity(q)) return formatBinary(q);
    return formatDecimal({ ...q, format: "DecimalSI" });
  }
  return formatDecimal(q);
}

function formatBinary(q: Quantity): string {
  let n = q.scale >= 0 ? q.n * pow10(q.scale) : q.n / pow10(-q.scale);
  let exp = 0;
  while (exp < 6 && n % 1024n === 0n) {
    n /= 1024n;
    exp++;
  }
  return `${n}${BINARY_BY_EXP.get(exp) ?? ""}`;
}

function formatDecimal(q: Quantity): string {
  let n = q.n;
  let exp = q.scale;
  while (n % 10n === 0n) {
    n /= 10n;
    exp++;
  }
  const rem = ((exp % 3) + 3) % 3;
  n *= pow10(rem);
  exp -= rem;
  if (q.format === "DecimalExponent") return exp === 0 ? `${n}` : `${n}e${exp}`;
  const suffix = DECIMAL_BY_EXP.get(exp);
  if (suffix !== undefined) return `${n}${suffix}`;
  // Beyond E or below n: spell the value out at the nearest supported exponent.
  if (exp > 18) return `${n * pow10(exp - 18)}E`;
  return `${n}e${exp}`;
}

/** Canonical form of a quantity's JSON value, rounded up to milli-units like ResourceList defaulting. */
export function canonicalResourceQuantity(input: unknown): string | undefined {
  const q = parseQuantity(input);
  return q ? formatQuantity(roundUpToMilli(q)) : undefined;
}

/** Canonical form of a quantity's JSON value without rounding (a plain Quantity field). */
export function canonicalQuantity(input: unknown): string | undefined {
  const q = parseQuantity(input);
  return q ? formatQuantity(q) : undefined;
}

/** Exact sum of quantities (scales aligned); the format of the first non-zero term is kept. */
export function sumQuantities(quantities: Quantity[]): Quantity {
  let total: Quantity = { n: 0n, scale: 0, format: "DecimalSI" };
  for (const q of quantities) {
    const scale = Math.min(total.scale, q.scale);
    const n = total.n * 10n ** BigInt(total.scale - scale) + q.n * 10n ** BigInt(q.scale - scale);
    total = { n, scale, format: total.n === 0n ? q.format : total.format };
  }
  return total;
}

/** Sums ResourceLists (`{cpu: "2", memory: "4Gi"}`) key by key, in canonical form; bad values are skipped. */
export function sumResourceLists(lists: Array<Record<string, unknown> | undefined>): Record<string, string> {
  const by = new Map<string, Quantity[]>();
  for (const list of lists) {
    for (const [name, value] of Object.entries(list ?? {})) {
      const q = parseQuantity(value);
      if (!q) continue;
      const qs = by.get(name) ?? [];
      qs.push(q);
      by.set(name, qs);
    }
  }
  const out: Record<string, string> = {};
  for (const name of [...by.keys()].sort()) out[name] = formatQuantity(sumQuantities(by.get(name)!));
  return out;
}
