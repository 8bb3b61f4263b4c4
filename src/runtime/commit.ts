/**
 * The committer (kcp's shape): a reconcile changes its own copy of the object it read, and
 * `commit` writes the difference, in two steps as the API splits them: everything but status
 * (spec, labels, annotations, finalizers) through the object, then status through `/status`.
 * Each write is a JSON merge patch carrying the resourceVersion the copy was made from, so a
 * concurrent change is a 409 (the loop retries quietly, from the newer object its cache
 * then holds) and never a lost update. An object deleted meanwhile ends the commit quietly.
 *
 *   const next = structuredClone(obj);
 *   addFinalizer(next, FINALIZER);
 *   setCondition(next.status.conditions, ready);
 *   await commit(ctx.client, ref, obj, next);
 */
import type { KubeObject, StoredObject } from "../api/meta.ts";
import type { Client, ResourceRef } from "../client/client.ts";
import { isNotFound } from "../machinery/errors.ts";
import { createMergePatch } from "../machinery/merge-patch.ts";

export interface CommitOptions {
  /**
   * Whether the resource serves its status at `/status` (default true). Without, status is
   * written with the rest, in one patch.
   */
  statusSubresource?: boolean;
  /**
   * Write with PUT (update, then updateStatus), carrying the resourceVersion, instead of
   * patches: for identities allowed to update but not to patch, as upstream's agent RBAC has
   * it for `clusters/status` and `works`.
   */
  update?: boolean;
  fieldManager?: string;
}

/**
 * Writes what changed from `before` to `after` (the same object); returns the object as the
 * last write left it (`before` when nothing changed), or undefined when it is gone.
 */
export async function commit(
  client: Client,
  ref: ResourceRef,
  before: StoredObject,
  after: KubeObject,
  opts: CommitOptions = {},
): Promise<StoredObject | undefined> {
  const { namespace, name } = before.metadata;
  const writeOpts = opts.fieldManager ? { fieldManager: opts.fieldManager } : {};
  const split = opts.statusSubresource !== false;
  let current = before;
  try {
    const main = createMergePatch(
      split ? withoutStatus(before) : before,
      split ? withoutStatus(after) : after,
    );
    if (main !== undefined) {
      const rv = before.metadata.resourceVersion;
      current = opts.update
        ? await client.update(
            ref,
            { ...after, metadata: { ...after.metadata, ...(rv ? { resourceVersion: rv } : {}) } },
            writeOpts,
          )
        : await client.patch(ref, namespace, name, "merge", withResourceVersion(main, rv), writeOpts);
    }
    if (!split) return current;
    const status = createMergePatch({ status: before.status }, { status: after.status });
    // A write that removed the last finalizer of a deleting object leaves nothing to give a status.
    if (status !== undefined && !(main !== undefined && isGone(current, before))) {
      const rv = current.metadata.resourceVersion;
      current = opts.update
        ? await client.updateStatus(ref, { ...current, status: after.status }, writeOpts)
        : await client.patch(ref, namespace, name, "merge", withResourceVersion(status, rv), {
            ...writeOpts,
            subresource: "status",
          });
    }
    return current;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** Adds `finalizer` to the copy; true when it was missing. */
export function addFinalizer(obj: KubeObject, finalizer: string): boolean {
  obj.metadata ??= {};
  const meta = obj.metadata;
  if (meta.finalizers?.includes(finalizer)) return false;
  meta.finalizers = [...(meta.finalizers ?? []), finalizer];
  return true;
}

/** Removes `finalizer` from the copy; true when it was there. */
export function removeFinalizer(obj: KubeObject, finalizer: string): boolean {
  const meta = obj.metadata;
  if (!meta?.finalizers?.includes(finalizer)) return false;
  const rest = meta.finalizers.filter((f) => f !== finalizer);
  if (rest.length > 0) meta.finalizers = rest;
  else delete meta.finalizers;
  return true;
}

export function hasFinalizer(obj: KubeObject, finalizer: string): boolean {
  return obj.metadata?.finalizers?.includes(finalizer) ?? false;
}

function withoutStatus(obj: KubeObject): KubeObject {
  const { status: _status, ...rest } = obj;
  return rest;
}

function withResourceVersion(patch: unknown, rv: string | undefined): unknown {
  if (!rv) return patch;
  const p = patch as { metadata?: Record<string, unknown> };
  return { ...p, metadata: { ...p.metadata, resourceVersion: rv } };
}

/** A deleting object whose last finalizer went is gone from the store: the server answers with its final state. */
function isGone(written: StoredObject, before: StoredObject): boolean {
  return !!before.metadata.deletionTimestamp && (written.metadata.finalizers ?? []).length === 0;
}
