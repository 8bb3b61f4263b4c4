/**
 * The search API, `/apis/search.karmada.io/v1alpha1/search/cache/<native path>`: GET a kind
 * (or one object) of every cached cluster, each item annotated with its cluster, answered as
 * upstream's: always a `<Kind>List` (a get by name lists the object once per cluster holding
 * it), label selectors honoured, no resourceVersion or paging. Upstream keeps a second cache
 * of whole objects for this API (its issue #4900); here it reads the proxy's view.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Authorizer } from "../apiserver/authz/authorizer.ts";
import type { ServerContext } from "../apiserver/context.ts";
import { type ExtensionRequest, type HttpExtension, serveConnect } from "../apiserver/extensions.ts";
import { requestInfo } from "../apiserver/request-info.ts";
import { parseSelection } from "../apiserver/selection.ts";
import { badRequest, pathNotFound } from "../machinery/errors.ts";
import { gvrOf, listText } from "./cached-reads.ts";
import type { FleetView } from "./fleet-view.ts";
import type { CachedEntry } from "./resource-cache.ts";

export const SEARCH_PREFIX = "/apis/search.karmada.io/v1alpha1/search/";

export function searchApi(deps: {
  server: ServerContext;
  view: FleetView;
  authorizer: () => Authorizer | undefined;
}): HttpExtension {
  return {
    async serve(req: IncomingMessage, res: ServerResponse, ext: ExtensionRequest): Promise<boolean> {
      if (!ext.path.startsWith(SEARCH_PREFIX)) return false;
      const method = req.method ?? "GET";
      const parts = ext.path.slice(SEARCH_PREFIX.length).split("/");
      const category = parts[0] ?? "";
      const native = `/${parts.slice(1).join("/")}`;
      // As kube-apiserver's RequestInfo reads this URL: resource search, name <category>,
      // subresource the native path's first segment.
      const rbac = {
        group: "search.karmada.io",
        version: "v1alpha1",
        resource: "search",
        name: category,
        subresource: parts[1] ?? "",
      };
      await serveConnect(req, res, ext, deps.authorizer(), rbac, async () => {
        if (method !== "GET" && method !== "HEAD") {
          throw badRequest(`${method} is not supported by the search API; use GET`);
        }
        await ext.respond(search(deps, category, native, ext.url.searchParams));
      });
      return true;
    },
  };
}

function search(
  deps: { server: ServerContext; view: FleetView },
  category: string,
  native: string,
  q: URLSearchParams,
) {
  if (category === "opensearch") {
    // Upstream's OpenSearch backend; nothing is stored there here.
    return { status: 200, headers: { "Content-Type": "application/json" }, text: "" };
  }
  if (category !== "cache") throw badRequest(`connect with unrecognized search category ${category}`);
  const info = requestInfo("GET", native, new URLSearchParams());
  if (info.kind !== "resource")
    throw badRequest(`k8s native Request URL(${native}) is not a resource request`);
  if (info.subresource !== undefined) {
    throw badRequest(`invalid request parts(${native}) for k8s native request URL`);
  }
  const rt = deps.server.registry.get(info.group, info.version, info.resource);
  if (!rt) throw pathNotFound();
  const sel = parseSelection(rt, q.get("labelSelector") ?? undefined, undefined);
  const items: CachedEntry[] = [];
  for (const cache of deps.view.cachesOf(gvrOf(rt))) {
    if (info.name !== undefined) {
      const entry = cache.get(info.namespace, info.name);
      if (entry) items.push(entry);
      continue;
    }
    for (const e of cache.list(info.namespace)) {
      const metadata = { name: e.name, ...(e.labels ? { labels: e.labels as Record<string, string> } : {}) };
      if (sel.everything || sel.test({ metadata } as never)) items.push(e);
    }
  }
  const text = `${listText(rt, {}, items)}\n`;
  return { status: 200, headers: { "Content-Type": "application/json; charset=utf-8" }, text };
}
