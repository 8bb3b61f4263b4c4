/** The PriorityClass table (`scheduling.k8s.io`). */

import { AGE_COLUMN, ageOf, fieldColumn, NAME_COLUMN, nameOf } from "./cells.ts";
import { bool, int, str } from "./read.ts";
import type { KindPrinter } from "./types.ts";

export const priorityClassPrinter: KindPrinter = {
  // PreemptionPolicy is a priority-0 column since 1.32, so kubectl shows it without -o wide too.
  columns: [
    NAME_COLUMN,
    fieldColumn("Value", "integer", "PriorityClass.value"),
    fieldColumn("Global-Default", "boolean", "PriorityClass.globalDefault"),
    AGE_COLUMN,
    fieldColumn("PreemptionPolicy", "string", "PriorityClass.preemptionPolicy"),
  ],
  row: (pc, now) => [
    nameOf(pc),
    int(pc, "value"),
    bool(pc, "globalDefault"),
    ageOf(pc, now),
    // The apiserver defaults an unset policy to PreemptLowerPriority.
    str(pc, "preemptionPolicy") || "PreemptLowerPriority",
  ],
};
