/**
 * What cluster status asks a member, over its connection: health (`/readyz`, else
 * `/healthz`), version, and the API it serves (aggregated discovery, two requests, from members
 * that serve it as kube-apiserver does since 1.26; legacy discovery, one request per group
 * version, from older ones). Nothing here knows the controller: each function takes a
 * MemberConnection and a timeout.
 */
import type { MemberConnection } from "../../cluster/connections.ts";

export type Health = "healthy" | "unhealthy" | "offline";

/** `/readyz`, falling back to `/healthz` when the member has no `/readyz`. */
export async function probeHealth(conn: MemberConnection, timeoutMs: number): Promise<Health> {
  try {
    let r = await conn.getRaw("/readyz", timeoutMs);
    if (r.status === 404) r = await conn.getRaw("/healthz", timeoutMs);
    return r.status === 200 ? "healthy" : "unhealthy";
  } catch {
    return "offline";
  }
}

/** The member's `gitVersion` from `/version`; throws when the answer is not JSON. */
export async function probeVersion(conn: MemberConnection, timeoutMs: number): Promise<string | undefined> {
  const version = JSON.parse((await conn.getRaw("/version", timeoutMs)).body) as { gitVersion?: string };
  return version.gitVersion;
}

export interface APIEnablement {
  groupVersion: string;
  resources: Array<{ name: string; kind: string }>;
}

/** What client-go's discovery asks for: aggregated discovery (v2, then v2beta1), else the legacy lists. */
const DISCOVERY_ACCEPT = [
  "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
  "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList;q=0.9",
  "application/json;q=0.8",
].join(",");

interface DiscoveryList {
  kind?: string;
  items?: Array<{
    metadata?: { name?: string };
    versions?: Array<{
      version: string;
      freshness?: string;
      resources?: Array<{ resource: string; responseKind?: { kind?: string } }>;
    }>;
  }>;
}

type LegacyGroups = { groups?: Array<{ versions?: Array<{ groupVersion: string }> }> };

/**
 * Every group version and its resources (no subresources), sorted, from aggregated discovery
 * when the member serves it, else from legacy discovery; `complete` is false when some group
 * version's list could not be read (or the member said it was stale).
 */
export async function apiEnablements(
  conn: MemberConnection,
  timeoutMs: number,
): Promise<{ enablements: APIEnablement[]; complete: boolean }> {
  const getJson = async <T>(path: string, accept?: string): Promise<T> => {
    const r = await conn.getRaw(path, timeoutMs, accept);
    if (r.status !== 200) throw new Error(`GET ${path}: HTTP ${r.status}`);
    return JSON.parse(r.body) as T;
  };
  const [core, groups] = await Promise.all([
    getJson<{ versions?: string[] } & DiscoveryList>("/api", DISCOVERY_ACCEPT),
    getJson<LegacyGroups & DiscoveryList>("/apis", DISCOVERY_ACCEPT),
  ]);
  if (core.kind === "APIGroupDiscoveryList" && groups.kind === "APIGroupDiscoveryList")
    return fromAggregated([...(core.items ?? []), ...(groups.items ?? [])]);
  return fromLegacy(getJson, core, groups);
}

function byName(a: { name: string }, b: { name: string }): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

function fromAggregated(items: NonNullable<DiscoveryList["items"]>): {
  enablements: APIEnablement[];
  complete: boolean;
} {
  const out: APIEnablement[] = [];
  let complete = true;
  for (const group of items) {
    const name = group.metadata?.name ?? "";
    for (const v of group.versions ?? []) {
      if (v.freshness === "Stale") complete = false;
      const resources = (v.resources ?? [])
        .map((r) => ({ name: r.resource, kind: r.responseKind?.kind ?? "" }))
        .sort(byName);
      out.push({ groupVersion: name ? `${name}/${v.version}` : v.version, resources });
    }
  }
  out.sort((a, b) => (a.groupVersion < b.groupVersion ? -1 : a.groupVersion > b.groupVersion ? 1 : 0));
  return { enablements: out, complete };
}

async function fromLegacy(
  getJson: <T>(path: string) => Promise<T>,
  core: { versions?: string[] },
  groups: LegacyGroups,
): Promise<{ enablements: APIEnablement[]; complete: boolean }> {
  const groupVersions = [
    ...(core.versions ?? []),
    ...(groups.groups ?? []).flatMap((g) => (g.versions ?? []).map((v) => v.groupVersion)),
  ].sort();
  // All group versions at once, as client-go's discovery fetches them: a member that stops
  // answering costs one timeout, not one per group version.
  const lists = await Promise.all(
    groupVersions.map((gv) =>
      getJson<{ resources?: Array<{ name: string; kind: string }> }>(
        gv.includes("/") ? `/apis/${gv}` : `/api/${gv}`,
      ).then(
        (list) => ({ gv, list }),
        () => ({ gv, list: undefined }),
      ),
    ),
  );
  const out: APIEnablement[] = [];
  for (const { gv, list } of lists) {
    if (!list) continue;
    const resources = (list.resources ?? [])
      .filter((res) => !res.name.includes("/"))
      .map((res) => ({ name: res.name, kind: res.kind }))
      .sort(byName);
    out.push({ groupVersion: gv, resources });
  }
  return { enablements: out, complete: out.length === groupVersions.length };
}
