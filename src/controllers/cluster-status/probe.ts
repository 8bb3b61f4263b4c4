/**
 * What cluster status asks a member, over its connection: health (`/readyz`, else
 * `/healthz`), version, and the API it serves (legacy discovery). Nothing here knows the
 * controller: each function takes a MemberConnection and a timeout.
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

/**
 * Every group version and its resources (no subresources), sorted, from legacy discovery;
 * `complete` is false when some group version's list could not be read.
 */
export async function apiEnablements(
  conn: MemberConnection,
  timeoutMs: number,
): Promise<{ enablements: APIEnablement[]; complete: boolean }> {
  const getJson = async <T>(path: string): Promise<T> => {
    const r = await conn.getRaw(path, timeoutMs);
    if (r.status !== 200) throw new Error(`GET ${path}: HTTP ${r.status}`);
    return JSON.parse(r.body) as T;
  };
  const [core, groups] = await Promise.all([
    getJson<{ versions?: string[] }>("/api"),
    getJson<{ groups?: Array<{ versions?: Array<{ groupVersion: string }> }> }>("/apis"),
  ]);
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
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    out.push({ groupVersion: gv, resources });
  }
  return { enablements: out, complete: out.length === groupVersions.length };
}
