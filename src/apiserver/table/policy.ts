/** The PodDisruptionBudget table (`policy`). */

import { AGE_COLUMN, ageOf, column, NAME_COLUMN, nameOf } from "./cells.ts";
import { at, has, int, intOrString } from "./read.ts";
import type { KindPrinter } from "./types.ts";

export const podDisruptionBudgetPrinter: KindPrinter = {
  columns: [
    NAME_COLUMN,
    column("Min Available", "string", "The minimum number of pods that must be available."),
    column("Max Unavailable", "string", "The maximum number of pods that may be unavailable."),
    column("Allowed Disruptions", "integer", "Calculated number of pods that may be disrupted at this time."),
    AGE_COLUMN,
  ],
  row(pdb, now) {
    const bound = (field: string) => (has(pdb, "spec", field) ? intOrString(at(pdb, "spec", field)) : "N/A");
    return [
      nameOf(pdb),
      bound("minAvailable"),
      bound("maxUnavailable"),
      int(pdb, "status", "disruptionsAllowed"),
      ageOf(pdb, now),
    ];
  },
};
