/**
 * `kubectl get`'s server-side tables: built-in printers by `group/kind`, CRD printer columns
 * by JSONPath (Karmada's natively served kinds included), the default table otherwise.
 */
import type { StoredObject } from "../api/meta.ts";
import type { ServerContext } from "./context.ts";
import type { ResourceType } from "./resource-type.ts";
import { type IncludeObject, toTable } from "./table/table.ts";
import type { Table } from "./table/types.ts";

function includeObjectOf(q: URLSearchParams): IncludeObject {
  const v = q.get("includeObject");
  return v === "None" || v === "Object" ? v : "Metadata";
}

export function tableOf(
  server: ServerContext,
  rt: ResourceType,
  objects: StoredObject[],
  q: URLSearchParams,
  meta: { resourceVersion: string; continue?: string; remainingItemCount?: number },
): Table {
  return toTable(`${rt.group}/${rt.kind}`, objects, {
    now: server.clock.now(),
    includeObject: includeObjectOf(q),
    resourceVersion: meta.resourceVersion,
    ...(meta.continue ? { continue: meta.continue } : {}),
    ...(meta.remainingItemCount !== undefined ? { remainingItemCount: meta.remainingItemCount } : {}),
    ...(rt.printerColumns !== undefined ? { crdColumns: rt.printerColumns } : {}),
  });
}

/** A watch event's object as a one-row Table; column definitions only on the first. */
export function watchEventTable(
  server: ServerContext,
  rt: ResourceType,
  obj: StoredObject,
  q: URLSearchParams,
  first: boolean,
): Table {
  const table = tableOf(server, rt, [obj], q, { resourceVersion: obj.metadata.resourceVersion ?? "" });
  if (!first) table.columnDefinitions = [];
  return table;
}
