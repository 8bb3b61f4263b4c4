/**
 * create, update (main resource and /status) and the finalizer-driven end of an object's
 * life. Patch and delete build on these.
 */
import type { NewObject, StoredObject } from "../../api/meta.ts";
import {
  alreadyExists,
  badRequest,
  conflict,
  invalid,
  isConflict,
  notFound,
  OBJECT_MODIFIED,
} from "../../machinery/errors.ts";
import { cloneJson } from "../../machinery/merge-patch.ts";
import { KeyExistsError, KeyNotFoundError, RevisionMismatchError } from "../../storage/store.ts";
import type { RequestContext, ServerContext } from "../context.ts";
import { decodeStored, encodeForStorage, translateStoreError } from "../objects.ts";
import { type FieldValidation, prepareCreate, prepareUpdate, unchanged } from "../prepare.ts";
import { type ResourceType, resourceRef, storageKey } from "../resource-type.ts";

export interface WriteOptions {
  dryRun: boolean;
  fieldValidation: FieldValidation;
  fieldManager: string;
  /** Server-side apply already set managedFields. */
  applied?: boolean;
}

const GENERATE_NAME_ATTEMPTS = 5;

export async function createObject(
  server: ServerContext,
  ctx: RequestContext,
  rt: ResourceType,
  namespace: string | undefined,
  body: NewObject,
  opts: WriteOptions,
): Promise<StoredObject> {
  const generated = !body.metadata.name && !!body.metadata.generateName;
  for (let attempt = 1; ; attempt++) {
    const obj = await prepareCreate(server, ctx, rt, attempt === 1 ? body : cloneJson(body), {
      namespace,
      fieldValidation: opts.fieldValidation,
      manager: opts.fieldManager,
      ...(opts.applied ? { applied: true } : {}),
    });
    const name = obj.metadata.name;
    if (opts.dryRun) {
      const { kv } = await server.store.get(storageKey(rt, obj.metadata.namespace, name));
      if (kv) throw alreadyExists(resourceRef(rt), name);
      return obj;
    }
    try {
      const kv = await server.store.create(
        storageKey(rt, obj.metadata.namespace, name),
        encodeForStorage(rt, obj),
      );
      const created = withRevision(obj, kv.modRevision);
      server.afterWrite?.(rt, created, undefined);
      return created;
    } catch (err) {
      if (err instanceof KeyExistsError && generated) {
        if (attempt < GENERATE_NAME_ATTEMPTS) {
          delete body.metadata.name;
          continue;
        }
        const e = alreadyExists(
          resourceRef(rt),
          name,
          `${rt.plural}${rt.group ? `.${rt.group}` : ""} "${name}" already exists, the server was not able to generate a unique name for the object`,
        );
        e.status.details = { ...e.status.details, retryAfterSeconds: 1 };
        throw e;
      }
      throw translateStoreError(rt, name, err);
    }
  }
}

export interface UpdateRequest {
  namespace: string | undefined;
  name: string;
  subresource: string | undefined;
  /** Produces the new object from the current one; called again if the store moved on meanwhile. */
  next(current: StoredObject): StoredObject | Promise<StoredObject>;
  /** Whether a stale resourceVersion in the new object is a conflict (PUT with a resourceVersion) or a retry. */
  preconditionFromObject: boolean;
  /** Create the object when it does not exist (server-side apply). */
  create?: () => Promise<StoredObject>;
}

const MAX_RETRIES = 20;

/**
 * Reads the current object, derives the new one, writes it if anything changed, retrying on
 * concurrent writes (the apiserver's GuaranteedUpdate). A new object that carries a
 * resourceVersion other than the current one is a 409.
 */
export async function updateObject(
  server: ServerContext,
  ctx: RequestContext,
  rt: ResourceType,
  req: UpdateRequest,
  opts: WriteOptions,
): Promise<StoredObject> {
  const key = storageKey(rt, req.namespace, req.name);
  for (let attempt = 0; ; attempt++) {
    const { kv } = await server.store.get(key);
    if (!kv) {
      if (req.create) return req.create();
      throw notFound(resourceRef(rt), req.name);
    }
    const current = decodeStored(rt, kv);
    const incoming = await req.next(cloneJson(current));
    if (incoming.metadata.name && incoming.metadata.name !== req.name) {
      throw badRequest(
        `the name of the object (${incoming.metadata.name}) does not match the name on the URL (${req.name})`,
      );
    }
    if (rt.namespaced && incoming.metadata.namespace && incoming.metadata.namespace !== req.namespace) {
      throw badRequest(
        "the namespace of the provided object does not match the namespace sent on the request",
      );
    }
    const rv = incoming.metadata.resourceVersion;
    if (rv !== undefined && rv !== "" && rv !== current.metadata.resourceVersion) {
      throw conflict(resourceRef(rt), req.name, OBJECT_MODIFIED);
    }
    if ((rv === undefined || rv === "") && req.preconditionFromObject && !rt.builtin) {
      throw invalid({ group: rt.group, kind: rt.kind }, req.name, [
        {
          type: "FieldValueInvalid",
          field: "metadata.resourceVersion",
          value: 0,
          detail: "must be specified for an update",
        },
      ]);
    }
    const next = await prepareUpdate(server, ctx, rt, incoming, current, {
      subresource: req.subresource,
      fieldValidation: opts.fieldValidation,
      manager: opts.fieldManager,
      ...(opts.applied ? { applied: true } : {}),
    });
    if (unchanged(next, current)) return current;
    if (opts.dryRun) return next;
    try {
      if (isFinalized(rt, next)) {
        const deleted = await server.store.delete(key, kv.modRevision);
        server.afterWrite?.(rt, undefined, current);
        return withRevision(next, deleted.modRevision);
      }
      const stored = await server.store.update(key, encodeForStorage(rt, next), kv.modRevision);
      const written = withRevision(next, stored.modRevision);
      server.afterWrite?.(rt, written, current);
      return written;
    } catch (err) {
      const retry =
        err instanceof RevisionMismatchError && !(rv && req.preconditionFromObject) && attempt < MAX_RETRIES;
      if (retry) continue;
      if (err instanceof KeyNotFoundError) throw notFound(resourceRef(rt), req.name);
      throw translateStoreError(rt, req.name, err);
    }
  }
}

/** The object just written, with the revision the store gave it (no need to decode it again). */
export function withRevision(obj: StoredObject, revision: number): StoredObject {
  obj.metadata.resourceVersion = String(revision);
  return obj;
}

/** An object whose deletion was requested and whose finalizers are all gone must disappear. */
export function isFinalized(rt: ResourceType, obj: StoredObject): boolean {
  if (!obj.metadata.deletionTimestamp) return false;
  if ((obj.metadata.finalizers ?? []).length > 0) return false;
  if (rt.group === "" && rt.kind === "Namespace") {
    const spec = obj.spec as { finalizers?: string[] } | undefined;
    if ((spec?.finalizers ?? []).length > 0) return false;
  }
  return true;
}
