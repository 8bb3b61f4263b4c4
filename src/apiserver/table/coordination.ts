/** The Lease table (`coordination.k8s.io`). */

import { AGE_COLUMN, ageOf, fieldColumn, NAME_COLUMN, nameOf } from "./cells.ts";
import { str } from "./read.ts";
import type { KindPrinter } from "./types.ts";

export const leasePrinter: KindPrinter = {
  columns: [NAME_COLUMN, fieldColumn("Holder", "string", "LeaseSpec.holderIdentity"), AGE_COLUMN],
  row: (lease, now) => [nameOf(lease), str(lease, "spec", "holderIdentity"), ageOf(lease, now)],
};
