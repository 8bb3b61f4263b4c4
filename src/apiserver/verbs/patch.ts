/**
 * PATCH: JSON patch, JSON merge patch, strategic merge patch (built-in kinds only) and
 * server-side apply. The patched object then goes through the normal update pipeline,
 * re-applied on top of the latest object when a concurrent write wins the race.
 */
import { isObject, type StoredObject } from "../../api/meta.ts";
import { badRequest, invalid, requestEntityTooLarge, unsupportedMediaType } from "../../machinery/errors.ts";
import {
  applyJsonPatch,
  decodeJsonPatch,
  JsonPatchApplyError,
  JsonPatchDecodeError,
  JsonPatchTooLargeError,
} from "../../machinery/json-patch.ts";
import { cloneJson, mergePatchInto } from "../../machinery/merge-patch.ts";
import { applyStrategicMergePatch } from "../../machinery/strategic-merge-patch.ts";
import { bodyText, parseDocument } from "../codec.ts";
import type { RequestContext, ServerContext } from "../context.ts";
import type { ApiHandler, ApiRequest } from "../handler.ts";
import { mediaTypeOf, PATCH_TYPES } from "../negotiation.ts";
import { applyConfig } from "../ownership.ts";
import { checkTypeMeta, reportDuplicateFields } from "../prepare.ts";
import { parseQueryBool, type ResourceRequest } from "../request-info.ts";
import type { ResourceType } from "../resource-type.ts";
import { createObject, updateObject, type WriteOptions } from "./write.ts";

export type PatchType = "json" | "merge" | "strategic" | "apply";

export function patchTypeOf(rt: ResourceType, contentType: string | undefined): PatchType {
  const t = mediaTypeOf(contentType);
  const accepted: string[] = [PATCH_TYPES.json, PATCH_TYPES.merge, PATCH_TYPES.apply];
  if (rt.builtin) accepted.splice(2, 0, PATCH_TYPES.strategic);
  switch (t) {
    case PATCH_TYPES.json:
      return "json";
    case PATCH_TYPES.merge:
      return "merge";
    case PATCH_TYPES.strategic:
      if (rt.builtin) return "strategic";
      break;
    case PATCH_TYPES.apply:
      return "apply";
  }
  throw unsupportedMediaType(t, accepted);
}

/**
 * Applies a decoded patch document to `current`; failures are 422 (or 400 for bad documents).
 * `current` is the caller's to change (updateObject hands each attempt its own copy): a merge
 * patch goes straight into it rather than into one more copy.
 */
export function applyPatchDocument(
  rt: ResourceType,
  type: Exclude<PatchType, "apply">,
  current: StoredObject,
  patch: unknown,
): StoredObject {
  const currentName = current.metadata.name ?? "";
  let result: unknown;
  try {
    switch (type) {
      case "json":
        result = applyJsonPatch(current, patch);
        break;
      case "merge":
        result = mergePatchInto(current, patch);
        break;
      case "strategic":
        result = applyStrategicMergePatch(current, patch, rt.schema);
        break;
    }
  } catch (e) {
    throw patchError(rt, currentName, e);
  }
  if (!isObject(result)) throw badRequest("the patched object is not a JSON object");
  // As kube-apiserver's checkName: a patch may not rename the object, nor drop its name (a
  // `metadata: null` merge patch or a `remove /metadata` JSON patch would otherwise reach the
  // update pipeline without metadata).
  const meta = result.metadata;
  const name = isObject(meta) && typeof meta.name === "string" ? meta.name : "";
  if (name !== currentName) {
    throw badRequest(`the name of the object (${name}) does not match the name on the URL (${currentName})`);
  }
  return result as StoredObject;
}

function patchError(rt: ResourceType, name: string, e: unknown): unknown {
  if (e instanceof JsonPatchTooLargeError) return requestEntityTooLarge(e.message);
  if (e instanceof JsonPatchDecodeError) return badRequest(e.message);
  if (e instanceof JsonPatchApplyError || e instanceof Error) {
    return invalid({ group: rt.group, kind: rt.kind }, name, [
      { type: "FieldValueInvalid", field: "", value: undefined, detail: e.message },
    ]);
  }
  return e;
}

/** PATCH from an HTTP request: the content type picks the patch flavour. */
export async function patchObject(
  h: ApiHandler,
  req: ApiRequest,
  ctx: RequestContext,
  rt: ResourceType,
  info: ResourceRequest,
  subresource: string | undefined,
): Promise<{ object: StoredObject; created: boolean }> {
  const type = patchTypeOf(rt, req.headers["content-type"]);
  const q = req.query;
  const force = q.get("force");
  const text = bodyText(req.body ?? Buffer.alloc(0), type === "apply" ? "yaml" : "json");
  if (text.trim() === "") throw badRequest("the patch document is empty");
  const duplicates: string[] = [];
  const document = parseDocument(text, type === "apply" ? "yaml" : "json", duplicates);
  const options = h.writeOptions(q, ctx);
  reportDuplicateFields(
    rt,
    isObject(document) ? document : {},
    type === "json" ? duplicates.map((d) => `json patch ${d}`) : duplicates,
    options.fieldValidation,
    ctx,
  );
  return patchWith(h.server, ctx, rt, {
    namespace: info.namespace,
    name: info.name!,
    subresource,
    type,
    document,
    force: force === null ? undefined : parseQueryBool(force),
    options,
    explicitFieldManager: q.get("fieldManager") !== null && q.get("fieldManager") !== "",
  });
}

export interface PatchRequest {
  namespace: string | undefined;
  name: string;
  subresource: string | undefined;
  type: PatchType;
  /** The decoded patch document (an array of operations for JSON patch, an object otherwise). */
  document: unknown;
  /** Only for apply; undefined when not given. */
  force: boolean | undefined;
  options: WriteOptions;
  /** Whether the caller named a field manager (apply requires one). */
  explicitFieldManager: boolean;
}

/** PATCH with a decoded document: what the HTTP handler and the in-process client share. */
export async function patchWith(
  server: ServerContext,
  ctx: RequestContext,
  rt: ResourceType,
  req: PatchRequest,
): Promise<{ object: StoredObject; created: boolean }> {
  if (req.type === "strategic" && !rt.builtin) {
    throw unsupportedMediaType(PATCH_TYPES.strategic, [
      PATCH_TYPES.json,
      PATCH_TYPES.merge,
      PATCH_TYPES.apply,
    ]);
  }
  if (req.force !== undefined && req.type !== "apply") {
    throw invalid({ group: "meta.k8s.io", kind: "PatchOptions" }, "", [
      { type: "FieldValueForbidden", field: "force", detail: "may not be specified for non-apply patch" },
    ]);
  }
  const { document, name, subresource } = req;
  const opts = req.options;
  if (req.type === "json") {
    try {
      decodeJsonPatch(document);
    } catch (e) {
      throw patchError(rt, "", e);
    }
  } else if (!isObject(document)) {
    throw badRequest(`the patch document must be a JSON object`);
  }

  if (req.type === "apply") {
    if (!req.explicitFieldManager) {
      throw invalid({ group: "meta.k8s.io", kind: "PatchOptions" }, "", [
        { type: "FieldValueRequired", field: "fieldManager", detail: "is required for apply patch" },
      ]);
    }
    const config = cloneJson(document) as StoredObject;
    checkTypeMeta(rt, config);
    if (config.metadata.name && config.metadata.name !== name) {
      throw badRequest(
        `the name of the object (${config.metadata.name}) does not match the name on the URL (${name})`,
      );
    }
    if (Array.isArray(config.metadata.managedFields) && config.metadata.managedFields.length > 0) {
      throw badRequest("metadata.managedFields must be nil");
    }
    let created = false;
    const now = () => server.clock.now();
    const force = req.force === true;
    const applyOpts = { ...opts, applied: true };
    const object = await updateObject(
      server,
      ctx,
      rt,
      {
        namespace: req.namespace,
        name,
        subresource,
        preconditionFromObject: false,
        next: (current) => applyConfig(rt, current, config, opts.fieldManager, force, subresource, now()),
        create: async () => {
          created = true;
          const fresh = cloneJson(config);
          fresh.metadata.name = name;
          return createObject(
            server,
            ctx,
            rt,
            req.namespace,
            applyConfig(rt, undefined, fresh, opts.fieldManager, true, subresource, now()),
            applyOpts,
          );
        },
      },
      applyOpts,
    );
    return { object, created };
  }

  const type = req.type;
  const object = await updateObject(
    server,
    ctx,
    rt,
    {
      namespace: req.namespace,
      name,
      subresource,
      preconditionFromObject: false,
      next: (current) => applyPatchDocument(rt, type, current, document),
    },
    opts,
  );
  return { object, created: false };
}
