/**
 * The set of resources the server serves right now: built-ins registered at start, CRD
 * resources added and removed as CRDs come and go. Discovery, OpenAPI and routing read it;
 * `generation` changes whenever the set does, so caches know when to rebuild.
 */
import { gvrKey, type ResourceType } from "./resource-type.ts";

export interface GroupVersions {
  group: string;
  /** Ordered by preference; the first is the preferred version. */
  versions: string[];
}

export class Registry {
  #byGvr = new Map<string, ResourceType>();
  #groupOrder: string[] = [];
  #generation = 0;
  #listeners = new Set<() => void>();

  get generation(): number {
    return this.#generation;
  }

  add(rt: ResourceType): void {
    this.#byGvr.set(gvrKey(rt.group, rt.version, rt.plural), rt);
    if (!this.#groupOrder.includes(rt.group)) this.#groupOrder.push(rt.group);
    this.#changed();
  }

  /** Replaces every resource served from the named CRD with `types` (empty: stop serving it). */
  setCrd(crdName: string, types: ResourceType[]): void {
    for (const [key, rt] of this.#byGvr) if (rt.crd === crdName) this.#byGvr.delete(key);
    for (const rt of types) {
      this.#byGvr.set(gvrKey(rt.group, rt.version, rt.plural), rt);
      if (!this.#groupOrder.includes(rt.group)) this.#groupOrder.push(rt.group);
    }
    this.#groupOrder = this.#groupOrder.filter((g) => [...this.#byGvr.values()].some((rt) => rt.group === g));
    this.#changed();
  }

  get(group: string, version: string, plural: string): ResourceType | undefined {
    return this.#byGvr.get(gvrKey(group, version, plural));
  }

  /** The resource of a kind in a given group version. */
  byKind(group: string, version: string, kind: string): ResourceType | undefined {
    for (const rt of this.#byGvr.values()) {
      if (rt.group === group && rt.version === version && rt.kind === kind) return rt;
    }
    return undefined;
  }

  /** Every served version of the resource stored at `storageResource` (e.g. `apps/deployments`). */
  byStorage(storageResource: string): ResourceType[] {
    return [...this.#byGvr.values()].filter((rt) => rt.storage.resource === storageResource);
  }

  /** One resource type per storage location, in the preferred version: what to walk when visiting every object. */
  storageResources(): ResourceType[] {
    const out = new Map<string, ResourceType>();
    for (const rt of this.#byGvr.values()) {
      const seen = out.get(rt.storage.resource);
      if (!seen || (seen.version !== rt.storage.version && rt.version === rt.storage.version)) {
        out.set(rt.storage.resource, rt);
      }
    }
    return [...out.values()];
  }

  all(): ResourceType[] {
    return [...this.#byGvr.values()];
  }

  groups(): GroupVersions[] {
    return this.#groupOrder.map((group) => {
      const versions = new Set<string>();
      for (const rt of this.#byGvr.values()) if (rt.group === group) versions.add(rt.version);
      return { group, versions: [...versions].sort(compareVersions) };
    });
  }

  resources(group: string, version: string): ResourceType[] {
    return [...this.#byGvr.values()].filter((rt) => rt.group === group && rt.version === version);
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #changed(): void {
    this.#generation++;
    for (const l of this.#listeners) l();
  }
}

const VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

/**
 * Kubernetes version priority: GA before beta before alpha, higher numbers first; versions
 * that don't look like Kubernetes versions come last, alphabetically.
 */
export function compareVersions(a: string, b: string): number {
  const ma = VERSION.exec(a);
  const mb = VERSION.exec(b);
  if (!ma || !mb) {
    if (ma) return -1;
    if (mb) return 1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  const stage = (m: RegExpExecArray): number => (m[2] === undefined ? 3 : m[2] === "beta" ? 2 : 1);
  if (stage(ma) !== stage(mb)) return stage(mb) - stage(ma);
  if (ma[1] !== mb[1]) return Number(mb[1]) - Number(ma[1]);
  return Number(mb[3] ?? 0) - Number(ma[3] ?? 0);
}
