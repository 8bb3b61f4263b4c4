/**
 * How the server's own controllers change objects: read-modify-write through the normal
 * update path (validation, managedFields, retries on conflicts), as a named field manager.
 */
import type { StoredObject } from "../../api/meta.ts";
import { requestContext, type ServerContext } from "../context.ts";
import type { ResourceType } from "../resource-type.ts";
import { updateObject } from "../verbs/write.ts";

export interface SystemWriter {
  /** Applies `next` to the current object (re-read and re-applied on conflicts) and writes it. */
  change(
    rt: ResourceType,
    obj: Pick<StoredObject, "metadata">,
    next: (current: StoredObject) => StoredObject,
    subresource?: string,
  ): Promise<StoredObject>;
  /** Drops one finalizer; the object goes if it was the last one and deletion was requested. */
  removeFinalizer(
    rt: ResourceType,
    obj: Pick<StoredObject, "metadata">,
    finalizer: string,
  ): Promise<StoredObject>;
}

export function systemWriter(server: ServerContext, manager: string): SystemWriter {
  const ctx = requestContext();
  const opts = { dryRun: false, fieldValidation: "Ignore" as const, fieldManager: manager };
  const change: SystemWriter["change"] = (rt, obj, next, subresource) =>
    updateObject(
      server,
      ctx,
      rt,
      {
        namespace: obj.metadata.namespace,
        name: obj.metadata.name,
        subresource,
        preconditionFromObject: false,
        next,
      },
      opts,
    );
  return {
    change,
    removeFinalizer: (rt, obj, finalizer) =>
      change(rt, obj, (cur) => ({
        ...cur,
        metadata: {
          ...cur.metadata,
          finalizers: (cur.metadata.finalizers ?? []).filter((f) => f !== finalizer),
        },
      })),
  };
}
