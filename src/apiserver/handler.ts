/**
 * The API server as a function: `handle(request) → response`, independent of sockets so
 * tests and in-process callers can use it without HTTP. `http.ts` adapts it to node:http.
 */

import { isObject, type StoredObject } from "../api/meta.ts";
import {
  ApiError,
  badRequest,
  internalError,
  methodNotAllowed,
  notAcceptable,
  pathNotFound,
} from "../machinery/errors.ts";
import { cloneJson } from "../machinery/merge-patch.ts";
import { JWKS_PATH, OPENID_CONFIG_PATH } from "./authn/issuer-discovery.ts";
import { authorizeOrThrow } from "./authz/authorizer.ts";
import { impersonatedUser, requestAttributes, wantsImpersonation } from "./authz/request.ts";
import { isReviewKind } from "./builtin-types.ts";
import { decodeOptionsBody, decodeRequestBody, listEnvelope, partialMetadata } from "./codec.ts";
import type { RequestContext, ServerContext, UserInfo } from "./context.ts";
import { Discovery } from "./discovery.ts";
import { type HealthCheck, type HealthEndpoint, healthAnswer, healthPath } from "./healthz.ts";
import {
  AGGREGATED_DISCOVERY_TYPE,
  AGGREGATED_DISCOVERY_TYPE_BETA,
  acceptsResponse,
  aggregatedDiscovery,
  RESPONSE_TYPES,
  responseShape,
} from "./negotiation.ts";
import { type OpenApi, openApiV2 } from "./openapi.ts";
import { checkDecodable, checkTypeMeta, parseFieldValidation, reportDuplicateFields } from "./prepare.ts";
import { parseQueryBool, type RequestInfo, type ResourceRequest, requestInfo } from "./request-info.ts";
import { type ResourceType, resourceRef } from "./resource-type.ts";
import { evaluateReview } from "./reviews.ts";
import { subresourceHandlers } from "./subresources.ts";
import { tableOf, watchEventTable } from "./tables.ts";
import { type DeleteOptions, deleteCollection, deleteObject, deleteResponse } from "./verbs/delete.ts";
import { patchObject } from "./verbs/patch.ts";
import { getObject, type ListParams, listObjects } from "./verbs/read.ts";
import {
  type ApiWatch,
  type ApiWatchEvent,
  startWatch,
  type WatchSettings,
  type WatchSink,
} from "./verbs/watch.ts";
import { createObject, updateObject, type WriteOptions } from "./verbs/write.ts";
import { warningHeader } from "./warnings.ts";

export interface ApiRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  /**
   * Lower-case names. Repeated headers are joined with ", ", except `Impersonate-*` ones,
   * joined with newlines (their values may hold commas).
   */
  headers: Record<string, string | undefined>;
  body?: Buffer;
  /** Who sent the request, as authentication found (impersonation is applied here). */
  user: UserInfo;
  /** `host:port` the client reached, for legacy `/api` discovery. */
  host?: string;
  /** What `requestInfo` makes of method, path and query, when the caller has it already. */
  info?: RequestInfo;
}

export interface WatchStream {
  /** Starts the watch, delivering JSON-ready events to `sink`. */
  start(sink: WatchSink): Promise<ApiWatch>;
  /** Turns an event into what goes on the wire (e.g. a Table row for kubectl get -w). */
  render(event: ApiWatchEvent, first: boolean): unknown;
}

export interface ApiResponse {
  status: number;
  headers: Record<string, string>;
  /** A JSON-able body. */
  body?: unknown;
  /** A body sent as is (text). */
  text?: string;
  /** A binary body sent as is. */
  bytes?: Buffer;
  watch?: WatchStream;
  /**
   * A body written over time (`pods/log?follow=true`): sent chunked, each `write` flushed at
   * once; the response ends when the promise settles. `signal` aborts when the client leaves.
   */
  stream?: (write: (chunk: string) => void, signal: AbortSignal) => Promise<void>;
}

export interface VersionInfo {
  major: string;
  minor: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
  platform: string;
}

export interface HandlerOptions {
  version: VersionInfo;
  watch: WatchSettings;
  /** The checks `/healthz`, `/livez` and `/readyz` run (see healthz.ts). */
  health: Record<HealthEndpoint, readonly HealthCheck[]>;
  /** The metrics text `/metrics` serves (not served without it). */
  metrics?: () => Promise<{ contentType: string; text: string }>;
}

const JSON_TYPE = "application/json";

function json(status: number, body: unknown, headers: Record<string, string> = {}): ApiResponse {
  return { status, headers: { "Content-Type": JSON_TYPE, ...headers }, body };
}

function errorResponse(err: ApiError): ApiResponse {
  return json(err.status.code, err.status);
}

function boolParam(q: URLSearchParams, name: string): boolean | undefined {
  const v = q.get(name);
  if (v === null) return undefined;
  return parseQueryBool(v);
}

/** An integer query parameter, or a 400 saying which and why. */
export function intParam(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === "") return undefined;
  if (!/^-?\d+$/.test(v))
    throw badRequest(`${name}: Invalid value: ${JSON.stringify(v)}: must be an integer`);
  return Number(v);
}

function dryRunOf(q: URLSearchParams): boolean {
  const values = q.getAll("dryRun");
  for (const v of values) {
    if (v !== "All")
      throw badRequest(`dryRun: Unsupported value: ${JSON.stringify(v)}: supported values: "All"`);
  }
  return values.length > 0;
}

function listParams(q: URLSearchParams): ListParams {
  const p: ListParams = {};
  const ls = q.get("labelSelector");
  if (ls !== null) p.labelSelector = ls;
  const fs = q.get("fieldSelector");
  if (fs !== null) p.fieldSelector = fs;
  const limit = intParam(q, "limit");
  if (limit !== undefined) p.limit = limit;
  const cont = q.get("continue");
  if (cont) p.continue = cont;
  const rv = q.get("resourceVersion");
  if (rv !== null) p.resourceVersion = rv;
  const match = q.get("resourceVersionMatch");
  if (match) p.resourceVersionMatch = match;
  return p;
}

export function fieldManagerOf(q: URLSearchParams, userAgent: string | undefined): string {
  const fm = q.get("fieldManager");
  if (fm) return fm;
  return (userAgent ?? "").split("/")[0] || "unknown";
}

export class ApiHandler {
  readonly server: ServerContext;
  readonly discovery: Discovery;
  #openapi: OpenApi;
  #opts: HandlerOptions;

  constructor(server: ServerContext, openapi: OpenApi, opts: HandlerOptions) {
    this.server = server;
    this.discovery = new Discovery(server.registry);
    this.#openapi = openapi;
    this.#opts = opts;
  }

  async handle(req: ApiRequest): Promise<ApiResponse> {
    const ctx: RequestContext = { user: req.user, warnings: [] };
    if (req.headers["user-agent"]) ctx.userAgent = req.headers["user-agent"];
    let res: ApiResponse;
    try {
      res = await this.#route(req, ctx);
    } catch (err) {
      if (err instanceof ApiError) res = errorResponse(err);
      else {
        this.server.log.error(err, "request failed", { method: req.method, path: req.path });
        res = errorResponse(internalError(err));
      }
    }
    const warning = warningHeader(ctx.warnings);
    if (warning !== undefined) res.headers.Warning = warning;
    return res;
  }

  async #route(req: ApiRequest, ctx: RequestContext): Promise<ApiResponse> {
    if (wantsImpersonation(req.headers)) {
      ctx.user = impersonatedUser(req.headers, ctx.user, this.server.authorizer);
    }
    const info = req.info ?? requestInfo(req.method, req.path, req.query);
    authorizeOrThrow(this.server.authorizer, requestAttributes(req.method, info, ctx.user));
    if (info.kind === "resource") return this.#resource(req, ctx, info);
    return this.#nonResource(req);
  }

  #issuerDiscovery(path: string): ApiResponse {
    const discovery = this.server.issuerDiscovery?.();
    if (!discovery) return errorResponse(pathNotFound());
    const config = path === OPENID_CONFIG_PATH;
    return {
      status: 200,
      headers: {
        "Content-Type": config ? "application/json" : "application/jwk-set+json",
        "Cache-Control": "public, max-age=3600",
      },
      text: config ? discovery.configJson : discovery.keysetJson,
    };
  }

  async #health(endpoint: HealthEndpoint, check: string | undefined, query: URLSearchParams) {
    const answer = await healthAnswer(endpoint, check, query, this.#opts.health[endpoint]);
    if (answer.status === 500)
      this.server.log.info("health check failed", { endpoint, check, text: answer.text });
    return {
      status: answer.status,
      headers: { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" },
      text: answer.text,
    };
  }

  async #metrics(): Promise<ApiResponse> {
    if (!this.#opts.metrics) return errorResponse(pathNotFound());
    const { contentType, text } = await this.#opts.metrics();
    return { status: 200, headers: { "Content-Type": contentType }, text };
  }

  #nonResource(req: ApiRequest): ApiResponse | Promise<ApiResponse> {
    const path = req.path.replace(/\/+$/, "") || "/";
    if (req.method !== "GET" && req.method !== "HEAD") return errorResponse(pathNotFound());
    const accept = req.headers.accept;
    const health = healthPath(path);
    if (health) return this.#health(health.endpoint, health.check, req.query);
    switch (path) {
      case "/version":
        return json(200, this.#opts.version);
      case "/metrics":
        return this.#metrics();
      case "/api": {
        const agg = aggregatedDiscovery(accept);
        if (agg) return this.#aggregated(true, agg);
        return json(200, this.discovery.apiVersions(req.host ?? "127.0.0.1"));
      }
      case "/apis": {
        const agg = aggregatedDiscovery(accept);
        if (agg) return this.#aggregated(false, agg);
        return json(200, this.discovery.groupList());
      }
      case OPENID_CONFIG_PATH:
      case JWKS_PATH:
        return this.#issuerDiscovery(path);
      case "/openapi/v2":
        return openApiV2(accept);
      case "/openapi/v3":
        return json(200, this.#openapi.root());
      default:
        break;
    }
    if (path.startsWith("/openapi/v3/"))
      return this.#openapi.document(path.slice("/openapi/v3/".length), req.query.get("hash"));
    const parts = path.split("/").filter(Boolean);
    if (parts[0] === "api" && parts.length === 2) {
      const doc = this.discovery.resourceList("", parts[1]!);
      return doc ? json(200, doc) : errorResponse(pathNotFound());
    }
    if (parts[0] === "apis" && parts.length === 2) {
      const doc = this.discovery.group(parts[1]!);
      return doc ? json(200, doc) : errorResponse(pathNotFound());
    }
    if (parts[0] === "apis" && parts.length === 3) {
      const doc = this.discovery.resourceList(parts[1]!, parts[2]!);
      return doc ? json(200, doc) : errorResponse(pathNotFound());
    }
    return errorResponse(pathNotFound());
  }

  #aggregated(core: boolean, version: "v2" | "v2beta1"): ApiResponse {
    const type = version === "v2" ? AGGREGATED_DISCOVERY_TYPE : AGGREGATED_DISCOVERY_TYPE_BETA;
    return {
      status: 200,
      headers: { "Content-Type": type, Vary: "Accept" },
      body: this.discovery.aggregated(core, version),
    };
  }

  #lookup(info: ResourceRequest): ResourceType {
    const rt = this.server.registry.get(info.group, info.version, info.resource);
    if (!rt) throw pathNotFound();
    if (rt.namespaced && info.name !== undefined && info.namespace === undefined && info.verb !== "create") {
      throw pathNotFound();
    }
    if (!rt.namespaced && info.namespace !== undefined) throw pathNotFound();
    return rt;
  }

  async #resource(req: ApiRequest, ctx: RequestContext, info: ResourceRequest): Promise<ApiResponse> {
    const rt = this.#lookup(info);
    if (!acceptsResponse(req.headers.accept)) throw notAcceptable(RESPONSE_TYPES);
    if (rt.deprecationWarning) ctx.warnings.push(rt.deprecationWarning);
    if (info.subresource !== undefined) {
      const sub = subresourceHandlers[info.subresource];
      if (!sub || !sub.supports(rt)) {
        // Advertised (as Kubernetes does) but not served here yet: say so rather than "not found".
        if (rt.extraSubresources.some((x) => x.name === info.subresource)) {
          throw methodNotAllowed(info.verb, {
            group: rt.group,
            resource: `${rt.plural}/${info.subresource}`,
          });
        }
        throw pathNotFound();
      }
      return sub.handle(this, req, ctx, rt, info);
    }
    const verbAllowed = rt.verbs.includes(info.verb);
    if (!verbAllowed) throw methodNotAllowed(info.verb, resourceRef(rt));
    const q = req.query;
    const shape = responseShape(req.headers.accept);
    switch (info.verb) {
      case "get": {
        const obj = await getObject(
          this.server,
          rt,
          info.namespace,
          info.name!,
          q.get("resourceVersion") ?? undefined,
        );
        return this.#objectResponse(rt, obj, shape, q, 200);
      }
      case "list": {
        const page = await listObjects(this.server, rt, info.namespace, listParams(q));
        if (shape === "table") {
          return json(200, tableOf(this.server, rt, page.items, q, page));
        }
        const items =
          shape === "partial-metadata-list" || shape === "partial-metadata"
            ? page.items.map(partialMetadata)
            : page.items;
        const body = listEnvelope(rt, items as StoredObject[], page);
        if (shape === "partial-metadata-list" || shape === "partial-metadata") {
          body.kind = "PartialObjectMetadataList";
          body.apiVersion = "meta.k8s.io/v1";
        }
        return json(200, body);
      }
      case "watch":
        return this.#watch(rt, info, q, shape);
      case "create": {
        const { body, duplicates } = decodeRequestBody(rt, req);
        checkTypeMeta(rt, body);
        checkDecodable(rt, body);
        const opts = this.writeOptions(q, ctx);
        reportDuplicateFields(rt, body, duplicates, opts.fieldValidation, ctx);
        if (isReviewKind(rt))
          return json(201, await evaluateReview(this.server, rt, body, ctx, info.namespace));
        const created = await createObject(this.server, ctx, rt, info.namespace, body, opts);
        return this.#objectResponse(rt, created, shape, q, 201);
      }
      case "update": {
        const { body, duplicates } = decodeRequestBody(rt, req);
        checkTypeMeta(rt, body);
        checkDecodable(rt, body);
        const opts = this.writeOptions(q, ctx);
        reportDuplicateFields(rt, body, duplicates, opts.fieldValidation, ctx);
        const updated = await updateObject(
          this.server,
          ctx,
          rt,
          {
            namespace: info.namespace,
            name: info.name!,
            subresource: undefined,
            next: () => cloneJson(body),
            preconditionFromObject: true,
          },
          opts,
        );
        return this.#objectResponse(rt, updated, shape, q, 200);
      }
      case "patch": {
        const result = await patchObject(this, req, ctx, rt, info, undefined);
        return this.#objectResponse(rt, result.object, shape, q, result.created ? 201 : 200);
      }
      case "delete": {
        const opts = this.deleteOptions(req);
        const result = await deleteObject(this.server, ctx, rt, info.namespace, info.name!, opts);
        const { code, body } = deleteResponse(rt, result);
        return json(code, body);
      }
      case "deletecollection": {
        const opts = this.deleteOptions(req);
        const result = await deleteCollection(this.server, ctx, rt, info.namespace, listParams(q), opts);
        return json(200, listEnvelope(rt, result.items, { resourceVersion: result.resourceVersion }));
      }
    }
  }

  writeOptions(q: URLSearchParams, ctx: RequestContext): WriteOptions {
    return {
      dryRun: dryRunOf(q),
      fieldValidation: parseFieldValidation(q.get("fieldValidation")),
      fieldManager: fieldManagerOf(q, ctx.userAgent),
    };
  }

  deleteOptions(req: ApiRequest): DeleteOptions {
    const body = decodeOptionsBody(req.headers["content-type"], req.body);
    const q = req.query;
    const opts: DeleteOptions = {};
    const grace = body.gracePeriodSeconds ?? intParam(q, "gracePeriodSeconds");
    if (grace !== undefined) opts.gracePeriodSeconds = Number(grace);
    const policy = body.propagationPolicy ?? q.get("propagationPolicy") ?? undefined;
    if (policy) opts.propagationPolicy = policy as NonNullable<DeleteOptions["propagationPolicy"]>;
    const orphan = body.orphanDependents ?? boolParam(q, "orphanDependents");
    if (orphan !== undefined) opts.orphanDependents = Boolean(orphan);
    if (isObject(body.preconditions))
      opts.preconditions = body.preconditions as DeleteOptions["preconditions"] & object;
    const dryRun = Array.isArray(body.dryRun) ? (body.dryRun as string[]) : q.getAll("dryRun");
    if (dryRun.length) opts.dryRun = dryRun;
    return opts;
  }

  #objectResponse(
    rt: ResourceType,
    obj: StoredObject,
    shape: ReturnType<typeof responseShape>,
    q: URLSearchParams,
    status: number,
  ): ApiResponse {
    if (shape === "table")
      return json(
        status,
        tableOf(this.server, rt, [obj], q, { resourceVersion: obj.metadata.resourceVersion ?? "" }),
      );
    if (shape === "partial-metadata") return json(status, partialMetadata(obj));
    return json(status, obj);
  }

  #watch(
    rt: ResourceType,
    info: ResourceRequest,
    q: URLSearchParams,
    shape: ReturnType<typeof responseShape>,
  ): ApiResponse {
    const params = listParams(q);
    const timeoutSeconds = intParam(q, "timeoutSeconds");
    const allowWatchBookmarks = boolParam(q, "allowWatchBookmarks");
    const sendInitialEvents = boolParam(q, "sendInitialEvents");
    const watchParams = {
      ...(params.labelSelector !== undefined ? { labelSelector: params.labelSelector } : {}),
      ...(params.fieldSelector !== undefined ? { fieldSelector: params.fieldSelector } : {}),
      ...(params.resourceVersion !== undefined ? { resourceVersion: params.resourceVersion } : {}),
      ...(params.resourceVersionMatch !== undefined
        ? { resourceVersionMatch: params.resourceVersionMatch }
        : {}),
      ...(timeoutSeconds !== undefined ? { timeoutSeconds } : {}),
      ...(allowWatchBookmarks !== undefined ? { allowWatchBookmarks } : {}),
      ...(sendInitialEvents !== undefined ? { sendInitialEvents } : {}),
    };
    const server = this.server;
    const settings = this.#opts.watch;
    return {
      status: 200,
      headers: { "Content-Type": JSON_TYPE },
      watch: {
        start: (sink) => startWatch(server, rt, info.namespace, watchParams, sink, settings),
        render: (event, first) => {
          if (event.type === "ERROR" || event.type === "BOOKMARK") return event;
          if (shape === "table")
            return {
              type: event.type,
              object: watchEventTable(server, rt, event.object as StoredObject, q, first),
            };
          if (shape === "partial-metadata" || shape === "partial-metadata-list") {
            return { type: event.type, object: partialMetadata(event.object as StoredObject) };
          }
          return event;
        },
      },
    };
  }
}
