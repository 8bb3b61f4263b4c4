/** What every bench section shares: how it adds a row to the table, and number formatting. */

/** Adds one row to the printed table. */
export type Row = (section: string, backend: string, metric: string, value: string, note?: string) => void;

/** A number with thousands separators and exactly `digits` decimals. */
export const fmt = (n: number, digits = 0): string =>
  n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** Nearest-rank percentile of ascending samples. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
