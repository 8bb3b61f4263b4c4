/**
 * The in-process transport: calls the API server's verbs directly with objects, no HTTP and
 * no JSON. What controllers running next to the API server use.
 */
import { type KubeObject, parseApiVersion, type StoredObject } from "../api/meta.ts";
import { authorizeOrThrow } from "../apiserver/authz/authorizer.ts";
import { requestAttributes } from "../apiserver/authz/request.ts";
import { isReviewKind } from "../apiserver/builtin-types.ts";
import {
  type RequestContext,
  requestContext,
  type ServerContext,
  SYSTEM_ADMIN,
  type UserInfo,
} from "../apiserver/context.ts";
import { updateApproval } from "../apiserver/csr-approval.ts";
import { checkTypeMeta, type FieldValidation } from "../apiserver/prepare.ts";
import type { Verb } from "../apiserver/request-info.ts";
import type { ResourceType } from "../apiserver/resource-type.ts";
import { evaluateReview } from "../apiserver/reviews.ts";
import { deleteObject } from "../apiserver/verbs/delete.ts";
import { applyPatchDocument, patchWith } from "../apiserver/verbs/patch.ts";
import { getObject, listObjects } from "../apiserver/verbs/read.ts";
import { startWatch } from "../apiserver/verbs/watch.ts";
import {
  createObject,
  updateObject,
  type WriteOptions as VerbWriteOptions,
} from "../apiserver/verbs/write.ts";
import { badRequest, notFound, pathNotFound } from "../machinery/errors.ts";
import { cloneJson, toJson } from "../machinery/merge-patch.ts";
import type {
  Client,
  DeleteOptions,
  ListOptions,
  ObjectList,
  PatchOptions,
  PatchType,
  ResourceRef,
  WatchEvent,
  WatchHandle,
  WatchOptions,
  WriteOptions,
} from "./client.ts";

export interface LocalClientOptions {
  /** Who the calls are from (default: system:admin). */
  user?: UserInfo;
  /** Field manager for writes that name none (default: "karmada-ts"). */
  fieldManager?: string;
}

export class LocalClient implements Client {
  #server: ServerContext;
  #user: UserInfo;
  #manager: string;

  constructor(server: ServerContext, opts: LocalClientOptions = {}) {
    this.#server = server;
    this.#user = opts.user ?? SYSTEM_ADMIN;
    this.#manager = opts.fieldManager ?? "karmada-ts";
  }

  #ctx(): RequestContext {
    return requestContext(this.#user);
  }

  #type(res: ResourceRef): ResourceType {
    const rt = this.#server.registry.get(res.group, res.version, res.resource);
    if (!rt) throw pathNotFound();
    return rt;
  }

  /** Authorizes a call as the HTTP handler would the same request (a 403 otherwise). */
  #authorize(verb: Verb, res: ResourceRef, namespace: string | undefined, name = "", subresource = ""): void {
    const { group, version, resource } = res;
    const info = { kind: "resource" as const, verb, group, version, resource, namespace, name, subresource };
    authorizeOrThrow(this.#server.authorizer, requestAttributes("", info, this.#user));
  }

  /**
   * The verbs called here serve the object and its `/status`; other subresources (`/scale`)
   * answer in other shapes that only the HTTP handler builds, so refuse them rather than
   * silently reading or patching the main object.
   */
  #checkSubresource(subresource: string | undefined, also?: string): void {
    if (subresource !== undefined && subresource !== "status" && subresource !== also) {
      throw badRequest(`the in-process client does not serve the "${subresource}" subresource`);
    }
  }

  #writeOptions(opts: WriteOptions | undefined): VerbWriteOptions {
    return {
      dryRun: opts?.dryRun === true,
      fieldValidation: (opts?.fieldValidation ?? "Ignore") as FieldValidation,
      fieldManager: opts?.fieldManager ?? this.#manager,
    };
  }

  async get(
    res: ResourceRef,
    namespace: string | undefined,
    name: string,
    opts: { resourceVersion?: string; subresource?: string } = {},
  ): Promise<StoredObject> {
    this.#checkSubresource(opts.subresource);
    this.#authorize("get", res, namespace, name, opts.subresource);
    return getObject(this.#server, this.#type(res), namespace, name, opts.resourceVersion);
  }

  async list(res: ResourceRef, namespace: string | undefined, opts: ListOptions = {}): Promise<ObjectList> {
    const rt = this.#type(res);
    this.#authorize("list", res, namespace);
    const page = await listObjects(this.#server, rt, namespace, opts);
    const metadata: ObjectList["metadata"] = { resourceVersion: page.resourceVersion };
    if (page.continue) metadata.continue = page.continue;
    if (page.remainingItemCount !== undefined) metadata.remainingItemCount = page.remainingItemCount;
    return {
      apiVersion: rt.group ? `${rt.group}/${rt.version}` : rt.version,
      kind: rt.listKind,
      metadata,
      items: page.items,
    };
  }

  watch(
    res: ResourceRef,
    namespace: string | undefined,
    opts: WatchOptions,
    onEvent: (e: WatchEvent) => void,
  ): WatchHandle {
    let stop: () => void = () => {};
    let finish: () => void = () => {};
    let stopped = false;
    const done = new Promise<void>((resolve, reject) => {
      finish = resolve;
      let rt: ResourceType;
      try {
        rt = this.#type(res);
        this.#authorize("watch", res, namespace);
      } catch (err) {
        reject(err);
        return;
      }
      startWatch(this.#server, rt, namespace, opts, {
        send: (events) => {
          for (const e of events) if (!stopped) onEvent(e as WatchEvent);
        },
        close: () => resolve(),
      }).then((w) => {
        stop = () => w.stop();
        if (stopped) w.stop();
      }, reject);
    });
    return {
      stop: () => {
        stopped = true;
        stop();
        finish();
      },
      done,
    };
  }

  async create(res: ResourceRef, obj: KubeObject, opts?: WriteOptions): Promise<StoredObject> {
    const rt = this.#type(res);
    const body = toJson(obj) as StoredObject;
    checkTypeMeta(rt, body);
    this.#authorize("create", res, rt.namespaced ? body.metadata.namespace : undefined);
    // Reviews (SubjectAccessReview, TokenReview, ...) are answered, not stored.
    if (isReviewKind(rt)) {
      return evaluateReview(
        this.#server,
        rt,
        body,
        this.#ctx(),
        rt.namespaced ? body.metadata.namespace : undefined,
      );
    }
    return createObject(
      this.#server,
      this.#ctx(),
      rt,
      rt.namespaced ? body.metadata.namespace : undefined,
      body,
      this.#writeOptions(opts),
    );
  }

  async #update(
    res: ResourceRef,
    obj: KubeObject,
    subresource: string | undefined,
    opts?: WriteOptions,
  ): Promise<StoredObject> {
    const rt = this.#type(res);
    const body = toJson(obj) as StoredObject;
    checkTypeMeta(rt, body);
    const name = body.metadata.name;
    if (!name) throw notFound({ group: rt.group, resource: rt.plural }, "");
    this.#authorize("update", res, rt.namespaced ? body.metadata.namespace : undefined, name, subresource);
    return updateObject(
      this.#server,
      this.#ctx(),
      rt,
      {
        namespace: rt.namespaced ? body.metadata.namespace : undefined,
        name,
        subresource,
        preconditionFromObject: true,
        next: () => cloneJson(body),
      },
      this.#writeOptions(opts),
    );
  }

  // async: a bad call must reject, not throw before a promise exists.
  async update(res: ResourceRef, obj: KubeObject, opts?: WriteOptions): Promise<StoredObject> {
    return this.#update(res, obj, undefined, opts);
  }

  async updateStatus(res: ResourceRef, obj: KubeObject, opts?: WriteOptions): Promise<StoredObject> {
    return this.#update(res, obj, "status", opts);
  }

  async patch(
    res: ResourceRef,
    namespace: string | undefined,
    name: string,
    type: PatchType,
    patch: unknown,
    opts: PatchOptions = {},
  ): Promise<StoredObject> {
    this.#checkSubresource(opts.subresource, "approval");
    this.#authorize("patch", res, namespace, name, opts.subresource);
    const rt = this.#type(res);
    if (opts.subresource === "approval") {
      // A CSR's approval takes only conditions and needs `approve` on the signer; as over HTTP,
      // it is not server-side applied.
      if (rt.kind !== "CertificateSigningRequest" || type === "apply") {
        throw badRequest(`${type} patches of ${res.resource}/approval are not supported`);
      }
      const document = toJson(patch);
      return updateApproval(
        this.#server,
        this.#ctx(),
        rt,
        name,
        (cur) => applyPatchDocument(rt, type, cur, document),
        false,
        this.#writeOptions(opts),
      );
    }
    const result = await patchWith(this.#server, this.#ctx(), rt, {
      namespace,
      name,
      subresource: opts.subresource,
      type,
      document: toJson(patch),
      force: opts.force,
      options: this.#writeOptions(opts),
      explicitFieldManager: opts.fieldManager !== undefined || type !== "apply",
    });
    return result.object;
  }

  async delete(
    res: ResourceRef,
    namespace: string | undefined,
    name: string,
    opts: DeleteOptions = {},
  ): Promise<StoredObject | undefined> {
    const { dryRun, ...rest } = opts;
    this.#authorize("delete", res, namespace, name);
    const result = await deleteObject(this.#server, this.#ctx(), this.#type(res), namespace, name, {
      ...rest,
      ...(dryRun ? { dryRun: ["All"] } : {}),
    });
    return result.deleted ? undefined : result.object;
  }

  async resourceFor(apiVersion: string, kind: string): Promise<ResourceRef> {
    const { group, version } = parseApiVersion(apiVersion);
    const rt = this.#server.registry.byKind(group, version, kind);
    if (!rt) throw pathNotFound();
    return { group, version, resource: rt.plural, namespaced: rt.namespaced, kind: rt.kind };
  }
}
