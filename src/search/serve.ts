/**
 * karmada-search and the cluster proxy as parts of the API server process, each under its own
 * identity: upstream runs them as aggregated API servers (karmada-search,
 * karmada-aggregated-apiserver) behind kube-apiserver; here their paths are served next to
 * the API, authenticated and authorized by it, with nothing to deploy.
 */
import { AUTHENTICATED } from "../apiserver/authn/authenticator.ts";
import type { HttpExtension } from "../apiserver/extensions.ts";
import type { ApiServer } from "../apiserver/server.ts";
import { LocalClient } from "../client/local.ts";
import { clusterProxy } from "../cluster/cluster-proxy.ts";
import { memberConnections } from "../cluster/connections.ts";
import { MemberProxies } from "../cluster/member-proxy.ts";
import { AGGREGATED_APISERVER_USER, SEARCH_USER } from "../karmada/rbac.ts";
import type { Logger } from "../log.ts";
import { FleetView } from "./fleet-view.ts";
import { searchProxy } from "./proxy.ts";
import { searchApi } from "./search-api.ts";

/** karmada-search's `--disable-search`/`--disable-proxy`, and the cache bound. */
export interface SearchOptions {
  disableSearch?: boolean;
  disableProxy?: boolean;
  /** `--search-cache-max-bytes`: what all member caches together may hold (0: no bound). */
  maxCacheBytes?: number;
}

/** 1 GiB: a bound by default, so a registry for every pod of a big fleet cannot take the process down. */
export const DEFAULT_SEARCH_CACHE_MAX_BYTES = 1024 * 1024 * 1024;

export interface RunningAggregatedApis {
  extensions: HttpExtension[];
  /** The fleet view, when search or the proxy runs (tests and benchmarks look at it). */
  view: FleetView | undefined;
  stop(): Promise<void>;
}

export function startAggregatedApis(api: ApiServer, opts: SearchOptions, log: Logger): RunningAggregatedApis {
  const authorizer = () => api.context.authorizer;
  const as = (name: string) =>
    new LocalClient(api.context, { user: { name, groups: [AUTHENTICATED] }, fieldManager: "karmada-search" });
  const proxies = new MemberProxies(as(AGGREGATED_APISERVER_USER));
  const extensions: HttpExtension[] = [clusterProxy({ authorizer, members: proxies })];
  const stops: Array<() => void> = [() => proxies.close()];
  let view: FleetView | undefined;
  if (!opts.disableSearch || !opts.disableProxy) {
    const searchClient = as(SEARCH_USER);
    const members = memberConnections({ controlPlane: searchClient });
    view = new FleetView({
      client: searchClient,
      members,
      maxBytes: opts.maxCacheBytes ?? DEFAULT_SEARCH_CACHE_MAX_BYTES,
      log: log.child({ component: "karmada-search" }),
    });
    view.start();
    const searchProxies = new MemberProxies(searchClient);
    if (!opts.disableSearch) extensions.push(searchApi({ server: api.context, view, authorizer }));
    if (!opts.disableProxy) {
      extensions.push(
        searchProxy({
          handler: api.handler,
          view,
          members: searchProxies,
          authorizer,
          minRequestTimeoutSeconds: 1800,
        }),
      );
    }
    const running = view;
    stops.push(
      () => running.stop(),
      () => members.close(),
      () => searchProxies.close(),
    );
  }
  return {
    extensions,
    view,
    async stop() {
      for (const s of stops.reverse()) s();
    },
  };
}
