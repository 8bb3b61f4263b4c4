/**
 * karmada-search's proxy, `/apis/search.karmada.io/v1alpha1/proxying/<name>/proxy/<native
 * path>`: a URL a client uses as its `server` to see the whole fleet as one cluster. Three
 * plugins in upstream's order:
 * 1. cache: get/list/watch of a kind some ResourceRegistry names, from the fleet view;
 * 2. cluster: anything else on such a kind (update, patch, delete, subresources such as
 *    `pods/log`) goes to the one member holding the object, as the caller (impersonation);
 *    an update loses the cached-from-cluster annotation and gets its member's own
 *    resourceVersion back;
 * 3. karmada: everything else (discovery, kinds nobody registered) is the control plane's own
 *    API. Upstream sends those with karmada-search's credentials (its issue #5485); here they
 *    are served as the caller, so the control plane's RBAC applies to them as to any request.
 * Reaching the proxy at all takes RBAC on `search.karmada.io` `proxying/proxy`, as upstream.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { isObject, type ObjectMeta, type StoredObject } from "../api/meta.ts";
import type { Authorizer } from "../apiserver/authz/authorizer.ts";
import { type ExtensionRequest, type HttpExtension, serveConnect } from "../apiserver/extensions.ts";
import type { ApiHandler, ApiResponse } from "../apiserver/handler.ts";
import { type ResourceRequest, requestInfo } from "../apiserver/request-info.ts";
import type { ResourceType } from "../apiserver/resource-type.ts";
import { forwardToMember, type MemberProxies } from "../cluster/member-proxy.ts";
import { conflict, methodNotAllowed, notFound, pathNotFound } from "../machinery/errors.ts";
import { type CachedReadDeps, cachedGet, cachedList, cachedWatch, WatchRegistry } from "./cached-reads.ts";
import type { FleetView } from "./fleet-view.ts";
import { CACHED_FROM_CLUSTER } from "./resource-cache.ts";
import { memberResourceVersion } from "./resource-version.ts";

export const PROXY_PREFIX = "/apis/search.karmada.io/v1alpha1/proxying/";

/** The parts of a proxy URL: `proxying/<name>/<subresource>/<native path>`. */
export function parseProxyPath(
  rawPath: string,
): { name: string; subresource: string; inner: string } | undefined {
  if (!rawPath.startsWith(PROXY_PREFIX)) return undefined;
  const parts = rawPath.slice(PROXY_PREFIX.length).split("/");
  const [name, subresource] = parts;
  if (!name || !subresource) return undefined;
  return { name, subresource, inner: `/${parts.slice(2).join("/")}` };
}

export interface SearchProxyDeps {
  handler: ApiHandler;
  view: FleetView;
  members: MemberProxies;
  authorizer: () => Authorizer | undefined;
  minRequestTimeoutSeconds: number;
}

export function searchProxy(deps: SearchProxyDeps): HttpExtension & { watches: WatchRegistry } {
  const watches = new WatchRegistry();
  deps.view.onClusterAdded(() => watches.closeAll());
  const reads: CachedReadDeps = {
    server: deps.handler.server,
    view: deps.view,
    minRequestTimeoutSeconds: deps.minRequestTimeoutSeconds,
  };
  return {
    watches,
    async serve(req: IncomingMessage, res: ServerResponse, ext: ExtensionRequest): Promise<boolean> {
      const target = parseProxyPath(ext.url.pathname);
      if (!target) return false;
      const method = req.method ?? "GET";
      const rbac = {
        group: "search.karmada.io",
        version: "v1alpha1",
        resource: "proxying",
        name: target.name,
        subresource: target.subresource,
      };
      await serveConnect(req, res, ext, deps.authorizer(), rbac, async (user) => {
        const decoded = parseProxyPath(ext.path)?.inner ?? target.inner;
        const info = requestInfo(method === "HEAD" ? "GET" : method, decoded, ext.url.searchParams);
        const rt =
          info.kind === "resource"
            ? deps.handler.server.registry.get(info.group, info.version, info.resource)
            : undefined;
        if (info.kind === "resource" && rt && deps.view.registered({ ...info })) {
          const readable = info.verb === "get" || info.verb === "list" || info.verb === "watch";
          if (info.subresource === undefined && readable)
            await ext.respond(cacheRead(reads, watches, rt, info, ext));
          else await toOwner(deps, req, res, ext, { info, user, inner: target.inner });
          return;
        }
        await ext.respond(await toControlPlane(deps, req, ext, decoded, user));
      });
      return true;
    },
  };
}

/** The cache plugin: get, list or watch from the fleet view. */
function cacheRead(
  reads: CachedReadDeps,
  watches: WatchRegistry,
  rt: ResourceType,
  info: ResourceRequest,
  ext: ExtensionRequest,
): ApiResponse {
  if (rt.namespaced && info.name !== undefined && info.namespace === undefined) throw pathNotFound();
  const accept = ext.headers.accept;
  const q = ext.url.searchParams;
  if (info.verb === "get") return cachedGet(reads, rt, info, q, accept);
  if (info.verb === "list") return cachedList(reads, rt, info, q, accept);
  return cachedWatch(reads, watches, rt, info, q, accept);
}

/** The karmada plugin: the control plane's own API, as the caller (impersonation already applied). */
async function toControlPlane(
  deps: SearchProxyDeps,
  req: IncomingMessage,
  ext: ExtensionRequest,
  path: string,
  user: ExtensionRequest["user"],
): Promise<ApiResponse> {
  const method = req.method ?? "GET";
  const headers = Object.fromEntries(
    Object.entries(ext.headers).filter(([k]) => !k.startsWith("impersonate-")),
  );
  return deps.handler.handle({
    method: method === "HEAD" ? "GET" : method,
    path,
    query: ext.url.searchParams,
    headers,
    body: await ext.readBody(),
    user,
    ...(req.headers.host ? { host: req.headers.host } : {}),
  });
}

/** The cluster plugin: the one member that holds the object serves the request. */
async function toOwner(
  deps: SearchProxyDeps,
  req: IncomingMessage,
  res: ServerResponse,
  ext: ExtensionRequest,
  r: { info: ResourceRequest; user: ExtensionRequest["user"]; inner: string },
): Promise<void> {
  const { info } = r;
  const ref = { group: info.group, resource: info.resource };
  if (info.name === undefined) {
    // Without a name there is no owner to find (upstream answers a create so too).
    throw methodNotAllowed(info.verb, ref);
  }
  const owners = deps.view
    .cachesOf(info)
    .filter((c) => c.covers(info.namespace) && c.get(info.namespace, info.name!) !== undefined)
    .map((c) => c.cluster);
  if (owners.length === 0) throw notFound(ref, info.name);
  if (owners.length > 1)
    throw conflict(ref, info.name, `ambiguous objects in clusters [${owners.join(", ")}]`);
  const cluster = owners[0]!;
  const body = info.verb === "update" ? memberBody(await ext.readBody(), cluster) : undefined;
  const client = await deps.members.clientFor(cluster);
  await forwardToMember(
    client,
    {
      cluster,
      method: req.method ?? "GET",
      pathAndQuery: r.inner + ext.url.search,
      incoming: req,
      ...(body ? { body } : {}),
      user: r.user,
    },
    res,
  );
}

/** An update's body as the member must see it: no cache annotation, the member's own resourceVersion. */
export function memberBody(body: Buffer, cluster: string): Buffer {
  let obj: unknown;
  try {
    obj = JSON.parse(body.toString("utf8"));
  } catch {
    return body; // Not JSON (protobuf, YAML): passed on as it came, as upstream does.
  }
  if (!isObject(obj) || !isObject(obj.metadata)) return body;
  const meta = obj.metadata as ObjectMeta;
  if (meta.annotations && CACHED_FROM_CLUSTER in meta.annotations) {
    const { [CACHED_FROM_CLUSTER]: _dropped, ...rest } = meta.annotations;
    meta.annotations = rest;
  }
  if (typeof meta.resourceVersion === "string")
    meta.resourceVersion = memberResourceVersion(cluster, meta.resourceVersion);
  return Buffer.from(JSON.stringify(obj), "utf8");
}
