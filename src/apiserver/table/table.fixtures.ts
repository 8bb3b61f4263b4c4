/** Helpers shared by the printer tests. */

import { toTable } from "./table.ts";
import type { Cell } from "./types.ts";

export const NOW = Date.parse("2024-06-01T12:00:00Z");

/** The RFC 3339 timestamp `ms` milliseconds before NOW. */
export function ago(ms: number): string {
  return new Date(NOW - ms).toISOString().replace(/\.000Z$/, "Z");
}

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** The cells of one object's row. */
export function cells(kindKey: string, obj: object): Cell[] {
  const row = toTable(kindKey, [obj], { now: NOW, includeObject: "None" }).rows[0];
  if (row === undefined) throw new Error("no row");
  return row.cells;
}

/** Column names, with `*` after the ones shown only with `-o wide`. */
export function header(kindKey: string): string[] {
  return toTable(kindKey, [], { now: NOW, includeObject: "None" }).columnDefinitions.map(
    (c) => `${c.name}${c.priority > 0 ? "*" : ""}`,
  );
}
