/**
 * Tables for kinds without a dedicated printer: the apiserver's default (Name, Created At), used by
 * built-in kinds such as Role or CustomResourceDefinition, and the custom-resource table built from
 * a CRD version's `additionalPrinterColumns` (Name + Age when it declares none).
 */

import type { PrinterColumn } from "../../api/schema.ts";
import {
  type JsonPathTemplate,
  KUBECTL_OPTIONS,
  parseJsonPath,
  resultText,
} from "../../machinery/jsonpath.ts";
import { formatCreatedAt, translateTimestampSince } from "./age.ts";
import { column, fieldColumn, NAME_COLUMN, nameOf } from "./cells.ts";
import { FIELD_DOCS } from "./descriptions.ts";
import { at } from "./read.ts";
import type { Cell, KindPrinter, TableColumnDefinition } from "./types.ts";

/** `rest.NewDefaultTableConvertor`: the name and the creation time in RFC 3339. */
export const defaultPrinter: KindPrinter = {
  columns: [NAME_COLUMN, fieldColumn("Created At", "date", "ObjectMeta.creationTimestamp")],
  row: (obj) => [nameOf(obj), formatCreatedAt(at(obj, "metadata", "creationTimestamp"))],
};

/** What a CRD version without `additionalPrinterColumns` is served with. */
export const DEFAULT_CUSTOM_RESOURCE_COLUMNS: readonly PrinterColumn[] = [
  {
    name: "Age",
    type: "date",
    jsonPath: ".metadata.creationTimestamp",
    description: FIELD_DOCS["ObjectMeta.creationTimestamp"],
  },
];

/** Columns of a custom resource whose CRD declares no printer columns: Name and Age. */
export const genericColumns: readonly TableColumnDefinition[] = [
  NAME_COLUMN,
  column("Age", "date", FIELD_DOCS["ObjectMeta.creationTimestamp"]),
];

/**
 * The cell of a column of the given type for the first value its JSONPath matched: strings print the
 * value as text, dates become ages, and a value of the wrong type is null.
 */
export function columnCell(type: string, results: readonly unknown[], now: number): Cell {
  if (results.length === 0) return null;
  const value = results[0];
  if (type === "string") return resultText(value);
  if (value === null || value === undefined) return null;
  switch (type) {
    case "integer":
      return typeof value === "number" ? Math.trunc(value) : null;
    case "number":
      return typeof value === "number" ? value : null;
    case "boolean":
      return typeof value === "boolean" ? value : null;
    case "date":
      return typeof value === "string" ? translateTimestampSince(value, now) : null;
    default:
      return null;
  }
}

/**
 * The table of a custom resource: Name, then the CRD version's printer columns (Age when there are
 * none). No Age is appended to declared columns. As upstream, a column whose JSONPath does not parse
 * ends the list of columns; an evaluation error gives a null cell.
 */
export function customResourcePrinter(printerColumns: readonly PrinterColumn[]): KindPrinter {
  const declared = printerColumns.length > 0 ? printerColumns : DEFAULT_CUSTOM_RESOURCE_COLUMNS;
  const compiled: Array<{ type: string; path: JsonPathTemplate }> = [];
  const columns = [NAME_COLUMN];
  for (const col of declared) {
    let path: JsonPathTemplate;
    try {
      path = parseJsonPath(`{${col.jsonPath}}`);
    } catch {
      break;
    }
    compiled.push({ type: col.type, path });
    const description =
      col.description !== undefined && col.description !== ""
        ? col.description
        : `Custom resource definition column (in JSONPath format): ${col.jsonPath}`;
    columns.push(
      column(col.name, col.type, description, { priority: col.priority ?? 0, format: col.format ?? "" }),
    );
  }
  return {
    columns,
    row(obj, now) {
      const cells: Cell[] = [nameOf(obj)];
      for (const { type, path } of compiled) {
        let results: unknown[];
        try {
          results = path.findResults(obj, KUBECTL_OPTIONS)[0] ?? [];
        } catch {
          results = [];
        }
        cells.push(columnCell(type, results, now));
      }
      return cells;
    },
  };
}
