/**
 * Resource types as kubectl resolves a TYPE argument (`deploy`, `rb`, `deployments.apps`,
 * `deployment.v1.apps`): by discovery against the cluster the command talks to, so types a
 * member serves and the control plane does not (or CRDs) resolve too. One resolver for every
 * karmadactl command that takes a TYPE.
 */
import type { HttpClient } from "../client/http.ts";
import { CommandError } from "./io.ts";

export interface DiscoveredResource {
  group: string;
  version: string;
  /** The group's preferred version (only those are matched without a version in the type). */
  preferred: boolean;
  resource: string;
  singularName?: string;
  shortNames?: string[];
  kind: string;
  namespaced: boolean;
}

/** What discovery needs of a client. */
export type Discovery = Pick<HttpClient, "getRaw">;

/**
 * Finds the resource a type argument names, as kubectl does: plural, singular, short name or
 * kind, case-insensitive, optionally qualified as `resource.group` (a group prefix is enough,
 * e.g. `deployments.apps`) or `resource.version.group` (e.g. `deployment.v1.apps`). As kubectl's
 * RESTMapper: the groups' preferred versions first (the core group, then discovery order),
 * then their other versions (a kind served only in an older version, like `works`).
 */
export function matchResourceType(
  resources: DiscoveredResource[],
  arg: string,
): DiscoveredResource | undefined {
  const dot = arg.indexOf(".");
  const word = (dot < 0 ? arg : arg.slice(0, dot)).toLowerCase();
  const qualifier = dot < 0 ? undefined : arg.slice(dot + 1);
  const named = resources.filter((r) =>
    [r.resource, r.singularName ?? "", r.kind.toLowerCase(), ...(r.shortNames ?? [])].includes(word),
  );
  const first = (candidates: DiscoveredResource[]) => candidates.find((r) => r.preferred) ?? candidates[0];
  if (qualifier === undefined) return first(named);
  const vdot = qualifier.indexOf(".");
  if (vdot > 0) {
    const version = qualifier.slice(0, vdot);
    const group = qualifier.slice(vdot + 1);
    const exact = named.find((r) => r.group === group && r.version === version);
    if (exact) return exact;
  }
  return first(
    named.filter((r) => r.group !== "" && (r.group === qualifier || r.group.startsWith(`${qualifier}.`))),
  );
}

interface ApiResourceList {
  resources?: Array<{
    name: string;
    singularName?: string;
    shortNames?: string[];
    kind: string;
    namespaced: boolean;
  }>;
}

interface ApiGroupList {
  groups?: Array<{
    name: string;
    versions?: Array<{ version: string }>;
    preferredVersion?: { version: string };
  }>;
}

async function discoveryJson<T>(client: Discovery, path: string): Promise<T | undefined> {
  const r = await client.getRaw(path);
  return r.status === 200 ? (JSON.parse(r.body) as T) : undefined;
}

interface GroupVersion {
  group: string;
  version: string;
  preferred: boolean;
}

/** Every served group version: the core group, then each group's preferred version and its others. */
async function groupVersions(client: Discovery): Promise<GroupVersion[]> {
  const out: GroupVersion[] = [{ group: "", version: "v1", preferred: true }];
  const groups = await discoveryJson<ApiGroupList>(client, "/apis");
  for (const g of groups?.groups ?? []) {
    const preferred = g.preferredVersion?.version ?? g.versions?.[0]?.version;
    if (preferred) out.push({ group: g.name, version: preferred, preferred: true });
    for (const v of g.versions ?? []) {
      if (v.version !== preferred) out.push({ group: g.name, version: v.version, preferred: false });
    }
  }
  return out;
}

/** The resources served in these group versions, read at once, in the order given. */
async function resourcesIn(client: Discovery, gvs: GroupVersion[]): Promise<DiscoveredResource[]> {
  const lists = await Promise.all(
    gvs.map((gv) =>
      discoveryJson<ApiResourceList>(
        client,
        gv.group ? `/apis/${gv.group}/${gv.version}` : `/api/${gv.version}`,
      ),
    ),
  );
  const out: DiscoveredResource[] = [];
  for (const [i, gv] of gvs.entries()) {
    for (const r of lists[i]?.resources ?? []) {
      // Subresources (`deployments/scale`) are not types.
      if (r.name.includes("/")) continue;
      out.push({
        ...gv,
        resource: r.name,
        ...(r.singularName ? { singularName: r.singularName } : {}),
        ...(r.shortNames ? { shortNames: r.shortNames } : {}),
        kind: r.kind,
        namespaced: r.namespaced,
      });
    }
  }
  return out;
}

/** The resource `arg` names on the cluster behind `client`, or kubectl's error when none. */
export async function resolveResourceType(client: Discovery, arg: string): Promise<DiscoveredResource> {
  const gvs = await groupVersions(client);
  // Nearly every type is served in a preferred version: the others are read only when not.
  const preferred = await resourcesIn(
    client,
    gvs.filter((gv) => gv.preferred),
  );
  let found = matchResourceType(preferred, arg);
  if (!found) {
    const others = await resourcesIn(
      client,
      gvs.filter((gv) => !gv.preferred),
    );
    found = matchResourceType([...preferred, ...others], arg);
  }
  if (!found) throw new CommandError(`the server doesn't have a resource type "${arg}"`);
  return found;
}
