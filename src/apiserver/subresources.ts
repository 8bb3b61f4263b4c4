/**
 * Subresources: `/status` (and CSR `/approval`) write only status; `/scale` shows and sets
 * replicas through an autoscaling/v1 Scale; `namespaces/<n>/finalize` edits the namespace's
 * spec.finalizers; pods' `/log` is in pod-log.ts.
 */
import { isObject, type StoredObject } from "../api/meta.ts";
import {
  badRequest,
  conflict,
  methodNotAllowed,
  OBJECT_MODIFIED,
  unsupportedMediaType,
} from "../machinery/errors.ts";
import { fromLabelSelector, type LabelSelector, selectorToString } from "../machinery/labels.ts";
import { cloneJson } from "../machinery/merge-patch.ts";
import { decodeObjectBody, decodeRequestBody, parseDocument } from "./codec.ts";
import type { RequestContext } from "./context.ts";
import { updateApproval } from "./csr-approval.ts";
import type { ApiHandler, ApiRequest, ApiResponse } from "./handler.ts";
import { PATCH_TYPES } from "./negotiation.ts";
import { podLogSubresource } from "./pod-log.ts";
import { reportDuplicateFields } from "./prepare.ts";
import type { ResourceRequest } from "./request-info.ts";
import { type ResourceType, resourceRef } from "./resource-type.ts";
import { tokenRequest } from "./token-request.ts";
import { applyPatchDocument, patchObject, patchTypeOf } from "./verbs/patch.ts";
import { getObject } from "./verbs/read.ts";
import { updateObject } from "./verbs/write.ts";

export interface SubresourceHandler {
  supports(rt: ResourceType): boolean;
  handle(
    h: ApiHandler,
    req: ApiRequest,
    ctx: RequestContext,
    rt: ResourceType,
    info: ResourceRequest,
  ): Promise<ApiResponse>;
}

function ok(status: number, body: unknown): ApiResponse {
  return { status, headers: { "Content-Type": "application/json" }, body };
}

function notAllowed(info: ResourceRequest, rt: ResourceType): never {
  throw methodNotAllowed(info.verb, { group: rt.group, resource: `${rt.plural}/${info.subresource}` });
}

/** `/status`-like subresources: GET the object, PUT/PATCH change only what `take` copies over. */
function statusLike(
  supports: (rt: ResourceType) => boolean,
  take: (incoming: StoredObject, current: StoredObject) => StoredObject,
): SubresourceHandler {
  return {
    supports,
    async handle(h, req, ctx, rt, info) {
      const name = info.name!;
      switch (info.verb) {
        case "get":
          return ok(
            200,
            await getObject(
              h.server,
              rt,
              info.namespace,
              name,
              req.query.get("resourceVersion") ?? undefined,
            ),
          );
        case "update": {
          const { body, duplicates } = decodeRequestBody(rt, req);
          const opts = h.writeOptions(req.query, ctx);
          reportDuplicateFields(rt, body, duplicates, opts.fieldValidation, ctx);
          const updated = await updateObject(
            h.server,
            ctx,
            rt,
            {
              namespace: info.namespace,
              name,
              subresource: "status",
              next: (cur) => take(cloneJson(body), cur),
              preconditionFromObject: true,
            },
            opts,
          );
          return ok(200, updated);
        }
        case "patch": {
          const result = await patchObject(h, req, ctx, rt, info, "status");
          return ok(200, result.object);
        }
        default:
          notAllowed(info, rt);
      }
    },
  };
}

const status = statusLike(
  (rt) => rt.status,
  (incoming, current) => {
    const next = cloneJson(current);
    next.status = incoming.status;
    if (incoming.metadata?.resourceVersion) next.metadata.resourceVersion = incoming.metadata.resourceVersion;
    return next;
  },
);

const approval: SubresourceHandler = {
  supports: (rt) => rt.group === "certificates.k8s.io" && rt.kind === "CertificateSigningRequest",
  async handle(h, req, ctx, rt, info) {
    const name = info.name!;
    if (info.verb === "get") {
      return ok(
        200,
        await getObject(h.server, rt, undefined, name, req.query.get("resourceVersion") ?? undefined),
      );
    }
    const opts = h.writeOptions(req.query, ctx);
    if (info.verb === "update") {
      const body = decodeObjectBody(rt, req.headers["content-type"], req.body ?? Buffer.alloc(0));
      return ok(200, await updateApproval(h.server, ctx, rt, name, () => cloneJson(body), true, opts));
    }
    if (info.verb === "patch") {
      const type = patchTypeOf(rt, req.headers["content-type"]);
      // Server-side apply of an approval is not supported here: kubectl certificate approve
      // and approvers update or patch it.
      if (type === "apply") {
        throw unsupportedMediaType(PATCH_TYPES.apply, [
          PATCH_TYPES.json,
          PATCH_TYPES.merge,
          PATCH_TYPES.strategic,
        ]);
      }
      const text = (req.body ?? Buffer.alloc(0)).toString("utf8");
      if (text.trim() === "") throw badRequest("the patch document is empty");
      const document = parseDocument(text, "json");
      const next = (cur: StoredObject) => applyPatchDocument(rt, type, cur, document);
      return ok(200, await updateApproval(h.server, ctx, rt, name, next, false, opts));
    }
    notAllowed(info, rt);
  },
};

const finalize: SubresourceHandler = {
  supports: (rt) => rt.group === "" && rt.kind === "Namespace",
  async handle(h, req, ctx, rt, info) {
    if (info.verb !== "update") notAllowed(info, rt);
    const body = decodeObjectBody(rt, req.headers["content-type"], req.body ?? Buffer.alloc(0));
    const finalizers = isObject(body.spec) && Array.isArray(body.spec.finalizers) ? body.spec.finalizers : [];
    const updated = await updateObject(
      h.server,
      ctx,
      rt,
      {
        namespace: undefined,
        name: info.name!,
        subresource: "finalize",
        preconditionFromObject: false,
        next: (cur) => {
          if (
            body.metadata?.resourceVersion &&
            body.metadata.resourceVersion !== cur.metadata.resourceVersion
          ) {
            throw conflict(resourceRef(rt), info.name!, OBJECT_MODIFIED);
          }
          return { ...cur, spec: { ...(isObject(cur.spec) ? cur.spec : {}), finalizers } };
        },
      },
      h.writeOptions(req.query, ctx),
    );
    return ok(200, updated);
  },
};

// ---- scale

function readPath(obj: unknown, path: string): unknown {
  let cur = obj;
  for (const p of path.replace(/^\./, "").split(".")) {
    if (!isObject(cur)) return undefined;
    cur = cur[p];
  }
  return cur;
}

function writePath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.replace(/^\./, "").split(".");
  let cur: Record<string, unknown> = obj;
  for (const p of parts.slice(0, -1)) {
    if (!isObject(cur[p])) cur[p] = {};
    cur = cur[p] as Record<string, unknown>;
  }
  cur[parts[parts.length - 1]!] = value;
}

interface ScalePaths {
  spec: string;
  status: string;
  selector?: string;
}

function scalePaths(rt: ResourceType): ScalePaths {
  if (rt.scale) {
    const p: ScalePaths = { spec: rt.scale.specReplicasPath, status: rt.scale.statusReplicasPath };
    if (rt.scale.labelSelectorPath) p.selector = rt.scale.labelSelectorPath;
    return p;
  }
  return { spec: ".spec.replicas", status: ".status.replicas", selector: ".spec.selector" };
}

function scaleOf(rt: ResourceType, obj: StoredObject): StoredObject {
  const paths = scalePaths(rt);
  const sel = paths.selector ? readPath(obj, paths.selector) : undefined;
  const selector =
    typeof sel === "string"
      ? sel
      : isObject(sel)
        ? selectorToString(fromLabelSelector(sel as LabelSelector))
        : undefined;
  const m = obj.metadata;
  const metadata: StoredObject["metadata"] = {
    name: m.name!,
    uid: m.uid!,
    resourceVersion: m.resourceVersion!,
    creationTimestamp: m.creationTimestamp ?? null,
  };
  if (m.namespace) metadata.namespace = m.namespace;
  const status: Record<string, unknown> = { replicas: Number(readPath(obj, paths.status) ?? 0) };
  if (selector) status.selector = selector;
  return {
    apiVersion: "autoscaling/v1",
    kind: "Scale",
    metadata,
    spec: { replicas: Number(readPath(obj, paths.spec) ?? 0) },
    status,
  };
}

function withReplicas(rt: ResourceType, obj: StoredObject, scale: StoredObject): StoredObject {
  const replicas = isObject(scale.spec) ? scale.spec.replicas : undefined;
  if (replicas !== undefined && (typeof replicas !== "number" || !Number.isInteger(replicas))) {
    throw badRequest("Scale.spec.replicas must be an integer");
  }
  const next = cloneJson(obj);
  writePath(next, scalePaths(rt).spec, replicas ?? 0);
  if (scale.metadata?.resourceVersion) next.metadata.resourceVersion = scale.metadata.resourceVersion;
  return next;
}

const scale: SubresourceHandler = {
  supports: (rt) => rt.scale !== undefined || rt.extraSubresources.some((s) => s.name === "scale"),
  async handle(h, req, ctx, rt, info) {
    const name = info.name!;
    const opts = h.writeOptions(req.query, ctx);
    const scaleRt: ResourceType = {
      ...rt,
      kind: "Scale",
      group: "autoscaling",
      version: "v1",
      builtin: true,
    };
    switch (info.verb) {
      case "get":
        return ok(200, scaleOf(rt, await getObject(h.server, rt, info.namespace, name)));
      case "update": {
        const { body, duplicates } = decodeRequestBody(scaleRt, req);
        // Scale has no schema of its own here (scaleRt carries the parent's): duplicates only.
        reportDuplicateFields(scaleRt, {}, duplicates, opts.fieldValidation, ctx);
        const updated = await updateObject(
          h.server,
          ctx,
          rt,
          {
            namespace: info.namespace,
            name,
            subresource: "scale",
            preconditionFromObject: false,
            next: (cur) => withReplicas(rt, cur, body),
          },
          opts,
        );
        return ok(200, scaleOf(rt, updated));
      }
      case "patch": {
        const type = req.headers["content-type"]?.includes("json-patch") ? "json" : "merge";
        const document = parseDocument((req.body ?? Buffer.alloc(0)).toString("utf8") || "{}", "json");
        const updated = await updateObject(
          h.server,
          ctx,
          rt,
          {
            namespace: info.namespace,
            name,
            subresource: "scale",
            preconditionFromObject: false,
            next: (cur) =>
              withReplicas(rt, cur, applyPatchDocument(scaleRt, type, scaleOf(rt, cur), document)),
          },
          opts,
        );
        return ok(200, scaleOf(rt, updated));
      }
      default:
        notAllowed(info, rt);
    }
  },
};

export const subresourceHandlers: Record<string, SubresourceHandler> = {
  status,
  scale,
  finalize,
  approval,
  token: tokenRequest,
  log: podLogSubresource,
};
