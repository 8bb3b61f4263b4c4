/**
 * delete and deletecollection: finalizers and deletionTimestamp, grace periods, and the
 * propagation policies that tell the garbage collector what to do with dependents.
 */
import { rfc3339, type StoredObject } from "../../api/meta.ts";
import {
  badRequest,
  conflict,
  isNotFound,
  notFound,
  type Status,
  successStatus,
} from "../../machinery/errors.ts";
import { cloneJson } from "../../machinery/merge-patch.ts";
import { KeyNotFoundError, RevisionMismatchError } from "../../storage/store.ts";
import type { RequestContext, ServerContext } from "../context.ts";
import { decodeStored, encodeForStorage, translateStoreError } from "../objects.ts";
import { type ResourceType, resourceRef, storageKey } from "../resource-type.ts";
import { type ListParams, listObjects } from "./read.ts";
import { withRevision } from "./write.ts";

export type PropagationPolicy = "Background" | "Foreground" | "Orphan";

export interface DeleteOptions {
  gracePeriodSeconds?: number;
  propagationPolicy?: PropagationPolicy;
  orphanDependents?: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: string[];
}

export const FOREGROUND_FINALIZER = "foregroundDeletion";
export const ORPHAN_FINALIZER = "orphan";
/** CRDs are kept until their objects are gone (the CRD controller removes it). */
export const CRD_CLEANUP_FINALIZER = "customresourcecleanup.apiextensions.k8s.io";

export function validateDeleteOptions(opts: DeleteOptions): void {
  const p = opts.propagationPolicy;
  if (p !== undefined && p !== "Background" && p !== "Foreground" && p !== "Orphan") {
    throw badRequest(
      `propagationPolicy: Unsupported value: ${JSON.stringify(p)}: supported values: "Background", "Foreground", "Orphan"`,
    );
  }
  if (p !== undefined && opts.orphanDependents !== undefined) {
    throw badRequest("orphanDependents and propagationPolicy cannot both be set");
  }
  if (opts.gracePeriodSeconds !== undefined && !Number.isSafeInteger(opts.gracePeriodSeconds)) {
    throw badRequest("gracePeriodSeconds: Invalid value: must be an integer");
  }
  // As kube-apiserver (since 1.27): a negative grace period is taken as 1 second, not refused.
  if (opts.gracePeriodSeconds !== undefined && opts.gracePeriodSeconds < 0) opts.gracePeriodSeconds = 1;
  for (const d of opts.dryRun ?? [])
    if (d !== "All")
      throw badRequest(`dryRun: Unsupported value: ${JSON.stringify(d)}: supported values: "All"`);
}

function policyOf(opts: DeleteOptions): PropagationPolicy {
  if (opts.propagationPolicy) return opts.propagationPolicy;
  if (opts.orphanDependents === true) return "Orphan";
  return "Background";
}

/** Pods bound to a node go through a grace period their kubelet ends; everything else goes at once. */
function gracePeriod(rt: ResourceType, obj: StoredObject, opts: DeleteOptions): number {
  if (!(rt.group === "" && rt.kind === "Pod")) return 0;
  const spec = obj.spec as { nodeName?: string; terminationGracePeriodSeconds?: number } | undefined;
  if (!spec?.nodeName) return 0;
  const status = obj.status as { phase?: string } | undefined;
  if (status?.phase === "Succeeded" || status?.phase === "Failed") return 0;
  return opts.gracePeriodSeconds ?? spec.terminationGracePeriodSeconds ?? 30;
}

export interface DeleteResult {
  /** The object as it ends: still present (terminating) or gone. */
  object: StoredObject;
  /** False when finalizers or a grace period keep the object around. */
  deleted: boolean;
}

const MAX_RETRIES = 20;

export async function deleteObject(
  server: ServerContext,
  ctx: RequestContext,
  rt: ResourceType,
  namespace: string | undefined,
  name: string,
  opts: DeleteOptions,
): Promise<DeleteResult> {
  validateDeleteOptions(opts);
  const dryRun = (opts.dryRun ?? []).includes("All");
  const key = storageKey(rt, namespace, name);
  const ref = resourceRef(rt);
  for (let attempt = 0; ; attempt++) {
    const { kv } = await server.store.get(key);
    if (!kv) throw notFound(ref, name);
    const current = decodeStored(rt, kv);
    const pre = opts.preconditions;
    if (pre?.uid && pre.uid !== current.metadata.uid) {
      throw conflict(
        ref,
        name,
        `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${current.metadata.uid}`,
      );
    }
    if (pre?.resourceVersion && pre.resourceVersion !== current.metadata.resourceVersion) {
      throw conflict(
        ref,
        name,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${current.metadata.resourceVersion}`,
      );
    }
    for (const plugin of server.admission) {
      if (plugin.validateDelete && plugin.handles(rt)) await plugin.validateDelete(current, ctx);
    }
    const next = markForDeletion(server, rt, current, opts);
    try {
      if (next === undefined) {
        if (dryRun) return { object: current, deleted: true };
        const gone = withRevision(current, (await server.store.delete(key, kv.modRevision)).modRevision);
        server.afterWrite?.(rt, undefined, current);
        return { object: gone, deleted: true };
      }
      if (next === current || dryRun) return { object: next, deleted: false };
      const stored = await server.store.update(key, encodeForStorage(rt, next), kv.modRevision);
      const written = withRevision(next, stored.modRevision);
      server.afterWrite?.(rt, written, current);
      return { object: written, deleted: false };
    } catch (err) {
      if (err instanceof RevisionMismatchError && attempt < MAX_RETRIES) continue;
      if (err instanceof KeyNotFoundError) throw notFound(ref, name);
      throw translateStoreError(rt, name, err);
    }
  }
}

/**
 * The object's next state for a delete: undefined when it can go now, the object itself when
 * it is already terminating and nothing changes, else a copy with deletionTimestamp set and
 * the finalizers the propagation policy asks for.
 */
function markForDeletion(
  server: ServerContext,
  rt: ResourceType,
  current: StoredObject,
  opts: DeleteOptions,
): StoredObject | undefined {
  const policy = policyOf(opts);
  const finalizers = [...(current.metadata.finalizers ?? [])];
  const wanted =
    policy === "Foreground" ? FOREGROUND_FINALIZER : policy === "Orphan" ? ORPHAN_FINALIZER : undefined;
  const isNamespace = rt.group === "" && rt.kind === "Namespace";
  const nsFinalizers = isNamespace
    ? ((current.spec as { finalizers?: string[] } | undefined)?.finalizers ?? [])
    : [];
  const grace = gracePeriod(rt, current, opts);

  if (current.metadata.deletionTimestamp) {
    // Already terminating: a shorter grace period or a changed policy still applies.
    let changed = false;
    const next = cloneJson(current);
    if (wanted && !finalizers.includes(wanted)) {
      const other = wanted === FOREGROUND_FINALIZER ? ORPHAN_FINALIZER : FOREGROUND_FINALIZER;
      next.metadata.finalizers = [...finalizers.filter((f) => f !== other), wanted];
      changed = true;
    }
    if (opts.gracePeriodSeconds === 0 && rt.kind === "Pod" && rt.group === "" && finalizers.length === 0)
      return undefined;
    return changed ? next : current;
  }

  const isCrd = rt.group === "apiextensions.k8s.io" && rt.kind === "CustomResourceDefinition";
  const keep = finalizers.length > 0 || wanted !== undefined || grace > 0 || nsFinalizers.length > 0 || isCrd;
  if (!keep) return undefined;
  const next = cloneJson(current);
  if (isCrd && !finalizers.includes(CRD_CLEANUP_FINALIZER)) finalizers.push(CRD_CLEANUP_FINALIZER);
  if (wanted && !finalizers.includes(wanted)) finalizers.push(wanted);
  if (finalizers.length > 0) next.metadata.finalizers = finalizers;
  const now = server.clock.now();
  next.metadata.deletionTimestamp = rfc3339(now + grace * 1000);
  next.metadata.deletionGracePeriodSeconds = grace;
  if ((next.metadata.generation ?? 0) > 0) next.metadata.generation = (next.metadata.generation ?? 0) + 1;
  if (isNamespace) next.status = { ...(next.status as object | undefined), phase: "Terminating" };
  return next;
}

/** What a delete answers: most kinds a Success Status, some the object itself. */
export function deleteResponse(
  rt: ResourceType,
  result: DeleteResult,
): { code: number; body: StoredObject | Status } {
  const returnsObject = rt.group === "" && (rt.kind === "Pod" || rt.kind === "Namespace");
  if (!result.deleted || returnsObject) return { code: 200, body: result.object };
  return {
    code: 200,
    body: successStatus({
      name: result.object.metadata.name,
      group: rt.group,
      kind: rt.plural,
      uid: result.object.metadata.uid,
    }),
  };
}

export async function deleteCollection(
  server: ServerContext,
  ctx: RequestContext,
  rt: ResourceType,
  namespace: string | undefined,
  params: ListParams,
  opts: DeleteOptions,
): Promise<{ items: StoredObject[]; resourceVersion: string }> {
  validateDeleteOptions(opts);
  const { items } = await listObjects(server, rt, namespace, { ...params, limit: 0 });
  const out: StoredObject[] = [];
  for (const item of items) {
    try {
      const r = await deleteObject(server, ctx, rt, item.metadata.namespace, item.metadata.name, opts);
      out.push(r.object);
    } catch (err) {
      // An object deleted by someone else meanwhile is simply gone.
      if (!isNotFound(err)) throw err;
    }
  }
  return { items: out, resourceVersion: String(await server.store.currentRevision()) };
}
