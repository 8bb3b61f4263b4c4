/** The APIService table (`apiregistration.k8s.io`), printed by the aggregator rather than the core printers. */

import { AGE_COLUMN, ageOf, column, NAME_COLUMN, nameOf } from "./cells.ts";
import { at, isObject, list, str } from "./read.ts";
import type { KindPrinter, KubeObject } from "./types.ts";

/** `True`, `False (Reason)`, `False` or `Unknown` from the Available condition. */
function availability(apiService: KubeObject): string {
  const available = list(apiService, "status", "conditions").find((c) => str(c, "type") === "Available");
  if (available === undefined) return "Unknown";
  const status = str(available, "status");
  const reason = str(available, "reason");
  return status !== "True" && reason !== "" ? `${status} (${reason})` : status;
}

export const apiServicePrinter: KindPrinter = {
  columns: [
    NAME_COLUMN,
    column("Service", "string", "The reference to the service that hosts this API endpoint."),
    column("Available", "string", "Whether this service is available."),
    AGE_COLUMN,
  ],
  row(apiService, now) {
    const service = at(apiService, "spec", "service");
    return [
      nameOf(apiService),
      isObject(service) ? `${str(service, "namespace")}/${str(service, "name")}` : "Local",
      availability(apiService),
      ageOf(apiService, now),
    ];
  },
};
