/**
 * Builds the `meta.k8s.io/v1` Table answered to `Accept: application/json;as=Table;g=meta.k8s.io;v=v1`.
 */

import type { PrinterColumn } from "../../api/schema.ts";
import { hasPrinter, printerFor } from "./columns.ts";
import { customResourcePrinter } from "./generic.ts";
import { isObject } from "./read.ts";
import type { KindPrinter, KubeObject, Table, TableRow } from "./types.ts";

export type IncludeObject = "None" | "Metadata" | "Object";

export interface ToTableOptions {
  /** Milliseconds since the epoch; ages are relative to it. */
  now: number;
  /** What each row carries in `object`: PartialObjectMetadata (`Metadata`), the object, or nothing. */
  includeObject: IncludeObject;
  /** Of the list, or of the object for a single get. */
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
  /** For a custom resource: its CRD version's `additionalPrinterColumns` (`[]` when it declares none). */
  crdColumns?: readonly PrinterColumn[];
}

function rowObject(obj: KubeObject, includeObject: IncludeObject): unknown {
  if (includeObject === "Object") return obj;
  return {
    kind: "PartialObjectMetadata",
    apiVersion: "meta.k8s.io/v1",
    metadata: isObject(obj.metadata) ? obj.metadata : {},
  };
}

/**
 * The Table of `objects` of the kind `kindKey` (`group/Kind`, `"/Pod"` for core). Built-in kinds use
 * their printer, custom resources (given `crdColumns`) their printer columns, other kinds the
 * default Name / Created At table. Cells are always the wide set; kubectl hides priority > 0 columns.
 */
export function toTable(kindKey: string, objects: readonly object[], opts: ToTableOptions): Table {
  // A Go printer wins over printer columns: Karmada kinds we serve from CRD-style definitions
  // (the Cluster) are printed by upstream's aggregated apiserver in code.
  const printer: KindPrinter =
    opts.crdColumns === undefined || hasPrinter(kindKey)
      ? printerFor(kindKey)
      : customResourcePrinter(opts.crdColumns);
  const rows = objects.map((o): TableRow => {
    const obj = o as KubeObject;
    const row: TableRow = { cells: printer.row(obj, opts.now) };
    const conditions = printer.conditions?.(obj);
    if (conditions !== undefined) row.conditions = conditions;
    if (opts.includeObject !== "None") row.object = rowObject(obj, opts.includeObject);
    return row;
  });
  const metadata: Table["metadata"] = {};
  if (opts.resourceVersion !== undefined && opts.resourceVersion !== "")
    metadata.resourceVersion = opts.resourceVersion;
  if (opts.continue !== undefined && opts.continue !== "") metadata.continue = opts.continue;
  if (opts.remainingItemCount !== undefined) metadata.remainingItemCount = opts.remainingItemCount;
  return {
    kind: "Table",
    apiVersion: "meta.k8s.io/v1",
    metadata,
    columnDefinitions: printer.columns.map((c) => ({ ...c })),
    rows,
  };
}
