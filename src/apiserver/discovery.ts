/**
 * Discovery documents from the registry: the aggregated form kubectl asks for first
 * (`/api` and `/apis` as APIGroupDiscoveryList) and the legacy per-group-version lists
 * other clients read. Rebuilt only when the registry changes.
 */
import type { Registry } from "./registry.ts";
import type { ResourceType } from "./resource-type.ts";

interface Subresource {
  name: string;
  group: string;
  version: string;
  kind: string;
  verbs: string[];
}

const SUB_VERBS = ["get", "patch", "update"];

function subresourcesOf(rt: ResourceType): Subresource[] {
  const out: Subresource[] = [];
  if (rt.status)
    out.push({ name: "status", group: rt.group, version: rt.version, kind: rt.kind, verbs: SUB_VERBS });
  if (rt.scale)
    out.push({ name: "scale", group: "autoscaling", version: "v1", kind: "Scale", verbs: SUB_VERBS });
  for (const s of rt.extraSubresources) out.push(s);
  return out;
}

export class Discovery {
  #registry: Registry;
  #generation = -1;
  #cache = new Map<string, unknown>();

  constructor(registry: Registry) {
    this.#registry = registry;
  }

  #cached<T>(key: string, build: () => T): T {
    if (this.#generation !== this.#registry.generation) {
      this.#cache.clear();
      this.#generation = this.#registry.generation;
    }
    let v = this.#cache.get(key) as T | undefined;
    if (v === undefined) {
      v = build();
      this.#cache.set(key, v);
    }
    return v;
  }

  /** `/api` or `/apis` as an APIGroupDiscoveryList. */
  aggregated(core: boolean, version: "v2" | "v2beta1"): unknown {
    return this.#cached(`agg:${core}:${version}`, () => ({
      kind: "APIGroupDiscoveryList",
      apiVersion: `apidiscovery.k8s.io/${version}`,
      metadata: {},
      items: this.#registry
        .groups()
        .filter((g) => (g.group === "") === core)
        .map((g) => ({
          metadata: { name: g.group, creationTimestamp: null },
          versions: g.versions.map((v) => ({
            version: v,
            resources: this.#registry.resources(g.group, v).map((rt) => {
              const r: Record<string, unknown> = {
                resource: rt.plural,
                responseKind: { group: rt.group, version: rt.version, kind: rt.kind },
                scope: rt.namespaced ? "Namespaced" : "Cluster",
                singularResource: rt.singular,
                verbs: rt.verbs,
              };
              if (rt.shortNames.length) r.shortNames = rt.shortNames;
              if (rt.categories.length) r.categories = rt.categories;
              const subs = subresourcesOf(rt);
              if (subs.length) {
                r.subresources = subs.map((s) => ({
                  subresource: s.name,
                  responseKind: { group: s.group, version: s.version, kind: s.kind },
                  verbs: s.verbs,
                }));
              }
              return r;
            }),
            freshness: "Current",
          })),
        })),
    }));
  }

  /** `/api` (legacy). */
  apiVersions(serverAddress: string): unknown {
    return {
      kind: "APIVersions",
      versions: ["v1"],
      serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress }],
    };
  }

  #groupDoc(group: string, versions: string[]): Record<string, unknown> {
    const gvs = versions.map((v) => ({ groupVersion: `${group}/${v}`, version: v }));
    return { name: group, versions: gvs, preferredVersion: gvs[0] };
  }

  /** `/apis` (legacy). */
  groupList(): unknown {
    return this.#cached("groups", () => ({
      kind: "APIGroupList",
      apiVersion: "v1",
      groups: this.#registry
        .groups()
        .filter((g) => g.group !== "")
        .map((g) => this.#groupDoc(g.group, g.versions)),
    }));
  }

  /** `/apis/<group>`, or undefined when not served. */
  group(group: string): unknown {
    const g = this.#registry.groups().find((x) => x.group === group && group !== "");
    if (!g) return undefined;
    return { kind: "APIGroup", apiVersion: "v1", ...this.#groupDoc(g.group, g.versions) };
  }

  /** `/api/v1`, `/apis/<group>/<version>`, or undefined when not served. */
  resourceList(group: string, version: string): unknown {
    return this.#cached(`rl:${group}/${version}`, () => {
      const types = this.#registry.resources(group, version);
      if (types.length === 0) return undefined;
      const resources: Array<Record<string, unknown>> = [];
      for (const rt of types) {
        const r: Record<string, unknown> = {
          name: rt.plural,
          singularName: rt.singular,
          namespaced: rt.namespaced,
          kind: rt.kind,
          verbs: rt.verbs,
        };
        if (rt.shortNames.length) r.shortNames = rt.shortNames;
        if (rt.categories.length) r.categories = rt.categories;
        resources.push(r);
        for (const s of subresourcesOf(rt)) {
          const sub: Record<string, unknown> = {
            name: `${rt.plural}/${s.name}`,
            singularName: "",
            namespaced: rt.namespaced,
            kind: s.kind,
            verbs: s.verbs,
          };
          if (s.group !== rt.group || s.version !== rt.version) {
            sub.group = s.group;
            sub.version = s.version;
          }
          resources.push(sub);
        }
      }
      return {
        kind: "APIResourceList",
        apiVersion: "v1",
        groupVersion: group ? `${group}/${version}` : version,
        resources,
      };
    });
  }
}
