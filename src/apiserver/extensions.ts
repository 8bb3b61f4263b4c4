/**
 * Paths served next to the generic API, the way kube-apiserver's aggregation layer serves
 * other API servers' groups: the cluster proxy and karmada-search. An extension sees each
 * authenticated request before its body is read (proxies stream bodies on), and either
 * serves it or leaves it to the API handler.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { ApiError } from "../machinery/errors.ts";
import { type Authorizer, authorizeOrThrow } from "./authz/authorizer.ts";
import { impersonatedUser, wantsImpersonation } from "./authz/request.ts";
import type { Attributes } from "./authz/rules.ts";
import type { UserInfo } from "./context.ts";
import type { ApiResponse } from "./handler.ts";

export interface ExtensionRequest {
  /** The decoded path. */
  path: string;
  url: URL;
  /** As the handler takes them (see ApiRequest.headers). */
  headers: Record<string, string | undefined>;
  /** Who authentication says sent it (before impersonation). */
  user: UserInfo;
  /** Reads the whole body (bounded as every body is). */
  readBody(): Promise<Buffer>;
  /** Writes an API response (objects, errors, watch streams) as the API handler's are written. */
  respond(r: ApiResponse): Promise<void>;
}

export interface HttpExtension {
  /** Serves the request when it is this extension's (true); false leaves it to the API handler. */
  serve(req: IncomingMessage, res: ServerResponse, ext: ExtensionRequest): Promise<boolean>;
}

/** The user a request acts as: the sender, or whom it impersonates when the sender may. */
function actingUser(ext: ExtensionRequest, authorizer: Authorizer | undefined): UserInfo {
  return wantsImpersonation(ext.headers) ? impersonatedUser(ext.headers, ext.user, authorizer) : ext.user;
}

/**
 * The RBAC verb of a connect request (`clusters/<n>/proxy`, `proxying/<n>/proxy`), from its
 * method as kube-apiserver's RequestInfo derives it: OPTIONS has none, so only `*` allows it.
 */
export function connectVerb(method: string): string {
  switch (method) {
    case "GET":
    case "HEAD":
      return "get";
    case "POST":
      return "create";
    case "PUT":
      return "update";
    case "PATCH":
      return "patch";
    case "DELETE":
      return "delete";
    default:
      return "";
  }
}

/** What a connect request is about, as RBAC sees it: `<resource>/<name>/<subresource>` in a group. */
export interface ConnectTarget {
  group: string;
  version: string;
  resource: string;
  name: string;
  subresource: string;
}

/** Authorizes a connect to `target` for `user`, throwing the 403. */
function authorizeConnect(
  authorizer: Authorizer | undefined,
  user: UserInfo,
  method: string,
  target: ConnectTarget,
): void {
  const attrs: Attributes = {
    kind: "resource",
    user,
    verb: connectVerb(method),
    apiGroup: target.group,
    apiVersion: target.version,
    resource: target.resource,
    subresource: target.subresource,
    namespace: "",
    name: target.name,
  };
  authorizeOrThrow(authorizer, attrs);
}

/** A thrown ApiError as its Status response; anything else is rethrown. */
function errorResponse(err: unknown): ApiResponse {
  if (!(err instanceof ApiError)) throw err;
  return { status: err.status.code, headers: { "Content-Type": "application/json" }, body: err.status };
}

/**
 * Serves a connect request as every extension does: as the user it acts as (impersonation
 * applied), authorized on `target`; an ApiError is answered as its Status, or the connection
 * is cut when a streamed answer had already begun.
 */
export async function serveConnect(
  req: IncomingMessage,
  res: ServerResponse,
  ext: ExtensionRequest,
  authorizer: Authorizer | undefined,
  target: ConnectTarget,
  serve: (user: UserInfo) => Promise<void>,
): Promise<void> {
  try {
    const user = actingUser(ext, authorizer);
    authorizeConnect(authorizer, user, req.method ?? "GET", target);
    await serve(user);
  } catch (err) {
    if (res.headersSent) res.destroy();
    else await ext.respond(errorResponse(err));
  }
}
