/**
 * The ResourceRegistry reconciler behind the search API and the proxy, as upstream's proxy
 * controller: for every registry and every cluster that matches its `targetCluster`, is Ready
 * and does not report the kind's API as disabled, a cache of the selected kinds (namespaces
 * merged across registries; none named means all). Caches of clusters or kinds that leave the
 * set are stopped; when a cluster joins the view, every proxy watch is ended so clients
 * relist. Unlike upstream (which never writes it), each registry's `status.conditions` says
 * what is cached, what is not and why.
 */
import { isObject, type StoredObject } from "../api/meta.ts";
import { type Client, RESOURCES, type ResourceRef } from "../client/client.ts";
import type { MemberConnections } from "../cluster/connections.ts";
import { isClusterReady } from "../controllers/execution.ts";
import type { ClusterAffinity, ClusterObject } from "../karmada/types.ts";
import type { Logger } from "../log.ts";
import { type Condition, type ConditionUpdate, setCondition } from "../machinery/conditions.ts";
import { errorMessage } from "../machinery/errors.ts";
import { cloneJson } from "../machinery/merge-patch.ts";
import { clusterMatches } from "../policy/cluster-affinity.ts";
import { commit } from "../runtime/commit.ts";
import {
  done,
  type ReconcileContext,
  type ReconcileResult,
  type RunningController,
  runController,
} from "../runtime/controller.ts";
import { InformerFactory } from "../runtime/informer.ts";
import { tupleKey } from "../runtime/keys.ts";
import { servesApi } from "../scheduler/core/plugins.ts";
import { CacheBudget, ResourceCache } from "./resource-cache.ts";

export const RESOURCE_REGISTRIES: ResourceRef = {
  group: "search.karmada.io",
  version: "v1alpha1",
  resource: "resourceregistries",
  namespaced: false,
  kind: "ResourceRegistry",
};

interface SearchSelector {
  apiVersion: string;
  kind: string;
  namespace?: string;
}

interface RegistrySpec {
  targetCluster?: ClusterAffinity;
  resourceSelectors?: SearchSelector[];
}

/** `group/version/resource`: how the view names a kind. */
export function gvrKey(ref: Pick<ResourceRef, "group" | "version" | "resource">): string {
  return `${ref.group}/${ref.version}/${ref.resource}`;
}

/** What one cluster should cache of one kind. */
interface Want {
  resource: ResourceRef;
  namespaces: Set<string>;
  /** Every namespace (an empty selector namespace, or a cluster-scoped kind). */
  all: boolean;
  registries: Set<string>;
}

export interface FleetViewOptions {
  /** The control plane, as karmada-search (reads clusters, registries, cluster secrets). */
  client: Client;
  members: MemberConnections;
  /** Bytes all caches together may hold (0: no bound). */
  maxBytes: number;
  log: Logger;
  now?: () => number;
}

const CONDITION = "Ready";
/** The whole view is reconciled at once: one key. */
const VIEW_KEY = "view";
/** A cache of the view: one kind of one cluster. */
const cacheKeys = tupleKey(["cluster", "group", "version", "resource"]);

export class FleetView {
  readonly budget: CacheBudget;
  #opts: FleetViewOptions;
  #factory: InformerFactory;
  #clusters;
  #registries;
  #run: RunningController;
  #caches = new Map<string, ResourceCache>();
  /** Kinds named by any registry (what the proxy serves from the view). */
  #registered = new Map<string, ResourceRef>();
  #resources = new Map<string, Promise<ResourceRef>>();
  /** Caches dropped because the budget ran out, until their registry or cluster changes. */
  #overflowed = new Set<string>();
  #invalidators = new Set<() => void>();

  constructor(opts: FleetViewOptions) {
    this.#opts = opts;
    this.budget = new CacheBudget(opts.maxBytes);
    this.#factory = new InformerFactory(opts.client, {
      log: opts.log,
      transform: (obj) => {
        const { managedFields: _m, ...metadata } = obj.metadata as typeof obj.metadata & {
          managedFields?: unknown;
        };
        return { ...obj, metadata };
      },
    });
    this.#clusters = this.#factory.informer(RESOURCES.clusters);
    this.#registries = this.#factory.informer(RESOURCE_REGISTRIES);
    const whole = (): string[] => [VIEW_KEY];
    this.#run = runController(
      {
        name: "search-view",
        watches: [
          { informer: this.#clusters, map: whole },
          { informer: this.#registries, map: whole },
        ],
        baseDelayMs: 100,
        reconcile: (rc) => this.#reconcile(rc),
      },
      { log: opts.log },
    );
  }

  start(): void {
    this.#factory.start();
  }

  /** Resolves when the informers are synced and every cache of the first reconcile has listed. */
  async waitForSync(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    await Promise.race([
      Promise.all([this.#clusters.waitForSync(), this.#registries.waitForSync()]),
      new Promise((r) => setTimeout(r, timeoutMs).unref()),
    ]);
    await this.#run.queue.idle();
    const left = Math.max(0, deadline - Date.now());
    await Promise.race([
      Promise.all([...this.#caches.values()].map((c) => c.waitForSync())),
      new Promise((r) => setTimeout(r, left).unref()),
    ]);
  }

  stop(): void {
    this.#run.stop();
    this.#factory.stop();
    for (const c of this.#caches.values()) c.stop();
    this.#caches.clear();
  }

  /** Whether any registry names this kind (whether or not a cluster caches it). */
  registered(ref: Pick<ResourceRef, "group" | "version" | "resource">): ResourceRef | undefined {
    return this.#registered.get(gvrKey(ref));
  }

  /**
   * The caches of a kind that have listed their cluster, by cluster name in ascending order.
   * A cache joins the view once synced (and open watches end then, so clients relist and see it).
   */
  cachesOf(ref: Pick<ResourceRef, "group" | "version" | "resource">): ResourceCache[] {
    const key = gvrKey(ref);
    return [...this.#caches.values()]
      .filter((c) => c.synced && gvrKey(c.resource) === key)
      .sort((a, b) => (a.cluster < b.cluster ? -1 : a.cluster > b.cluster ? 1 : 0));
  }

  /** Every cache, for the search API (which reads per cluster). */
  allCaches(): ResourceCache[] {
    return [...this.#caches.values()];
  }

  /** Calls `fn` whenever a cache joins the view (a cluster or kind added): proxy watches end so clients relist. */
  onClusterAdded(fn: () => void): () => void {
    this.#invalidators.add(fn);
    return () => this.#invalidators.delete(fn);
  }

  #kick(): void {
    this.#run.enqueue(VIEW_KEY);
  }

  async #resourceOf(sel: SearchSelector): Promise<ResourceRef> {
    const key = `${sel.apiVersion}/${sel.kind}`;
    let found = this.#resources.get(key);
    if (!found) {
      found = this.#opts.client.resourceFor(sel.apiVersion, sel.kind);
      this.#resources.set(key, found);
      // A kind that is not served yet (a CRD still to come) is looked up again next time.
      found.catch(() => this.#resources.delete(key));
    }
    return found;
  }

  /** A registry's kinds as the control plane serves them; kinds it does not serve go to `problems`. */
  async #kindsOf(
    spec: RegistrySpec,
    registered: Map<string, ResourceRef>,
    problems: string[],
  ): Promise<Array<{ resource: ResourceRef; namespace: string }>> {
    const kinds: Array<{ resource: ResourceRef; namespace: string }> = [];
    for (const sel of spec.resourceSelectors ?? []) {
      try {
        const resource = await this.#resourceOf(sel);
        registered.set(gvrKey(resource), resource);
        kinds.push({ resource, namespace: resource.namespaced ? (sel.namespace ?? "") : "" });
      } catch (err) {
        problems.push(
          `${sel.apiVersion} ${sel.kind} is not served by the control plane (${errorMessage(err)})`,
        );
      }
    }
    return kinds;
  }

  async #reconcile(rc: ReconcileContext): Promise<ReconcileResult> {
    const clusters = this.#clusters.list() as ClusterObject[];
    const registries = this.#registries.list();
    const wants = new Map<string, Want>();
    const registered = new Map<string, ResourceRef>();
    const notes = new Map<string, string[]>();
    for (const rr of registries) {
      const name = rr.metadata.name;
      const spec = (isObject(rr.spec) ? rr.spec : {}) as RegistrySpec;
      const problems: string[] = [];
      notes.set(name, problems);
      const kinds = await this.#kindsOf(spec, registered, problems);
      for (const cluster of clusters) {
        if (cluster.metadata.deletionTimestamp || !clusterMatches(cluster, spec.targetCluster)) continue;
        addWants(wants, name, cluster, kinds, problems);
      }
    }
    this.#registered = registered;
    await this.#applyWants(rc, wants, clusters);
    await this.#writeStatuses(registries, wants, notes);
    return done;
  }

  /** Starts and stops caches to match `wants`. */
  async #applyWants(
    rc: ReconcileContext,
    wants: Map<string, Want>,
    clusters: ClusterObject[],
  ): Promise<void> {
    for (const [key, cache] of this.#caches) {
      const want = wants.get(key);
      if (!want || !sameNamespaces(cache.namespaces, want)) {
        cache.stop();
        this.#caches.delete(key);
      }
    }
    for (const key of this.#overflowed) if (!wants.has(key)) this.#overflowed.delete(key);
    const byName = new Map(clusters.map((c) => [c.metadata.name, c]));
    for (const [key, want] of wants) {
      if (this.#caches.has(key) || this.#overflowed.has(key)) continue;
      const cname = cacheKeys.parse(key).cluster ?? "";
      let conn: Awaited<ReturnType<MemberConnections["connect"]>>;
      try {
        conn = await this.#opts.members.connect(byName.get(cname)! as StoredObject);
      } catch (err) {
        rc.log.warn("search cannot reach cluster", { cluster: cname, err: errorMessage(err) });
        continue;
      }
      const cache = new ResourceCache({
        cluster: cname,
        resource: want.resource,
        namespaces: want.all ? new Set() : want.namespaces,
        client: conn.client,
        budget: this.budget,
        log: this.#opts.log.child({ cluster: cname, resource: want.resource.resource }),
        onOverflow: () => {
          this.#caches.delete(key);
          this.#overflowed.add(key);
          this.#kick();
        },
      });
      this.#caches.set(key, cache);
      cache.start();
      void cache.waitForSync().then(() => {
        // Watches that started without this cache would never see its objects: end them.
        if (this.#caches.get(key) === cache) for (const fn of this.#invalidators) fn();
        this.#kick();
      });
    }
  }

  async #writeStatuses(
    registries: StoredObject[],
    wants: Map<string, Want>,
    notes: Map<string, string[]>,
  ): Promise<void> {
    const now = new Date((this.#opts.now ?? Date.now)()).toISOString().replace(/\.\d+Z$/, "Z");
    for (const rr of registries) {
      const name = rr.metadata.name;
      const mine = [...wants.entries()].filter(([, w]) => w.registries.has(name));
      const condition = this.#conditionFor(
        mine.map(([key]) => key),
        notes.get(name) ?? [],
      );
      const next = cloneJson(rr);
      const status = isObject(next.status) ? next.status : {};
      const conditions = [...((status.conditions ?? []) as Condition[])];
      if (!setCondition(conditions, condition, now)) continue;
      next.status = { ...status, conditions };
      await commit(this.#opts.client, RESOURCE_REGISTRIES, rr, next);
    }
  }

  #conditionFor(keys: string[], problems: string[]): ConditionUpdate {
    const overflowed = keys.filter((k) => this.#overflowed.has(k));
    const caches = keys.map((k) => this.#caches.get(k)).filter((c): c is ResourceCache => c !== undefined);
    const syncing = caches.filter((c) => !c.synced);
    const cached = describe(caches.filter((c) => c.synced));
    if (overflowed.length > 0) {
      return {
        type: CONDITION,
        status: "False",
        reason: "CacheLimitReached",
        message:
          `the search cache limit of ${this.budget.limit} bytes was reached: not caching ` +
          `${overflowed.map(describeKey).join(", ")}; raise --search-cache-max-bytes ` +
          `or narrow the registry${cached ? `. Cached: ${cached}` : ""}`,
      };
    }
    if (syncing.length > 0) {
      return { type: CONDITION, status: "False", reason: "Syncing", message: `listing ${describe(syncing)}` };
    }
    const tail = problems.length > 0 ? `; not cached: ${problems.join("; ")}` : "";
    if (caches.length === 0) {
      return {
        type: CONDITION,
        status: "False",
        reason: "NothingCached",
        message: `no cluster matched${tail}`,
      };
    }
    return { type: CONDITION, status: "True", reason: "Cached", message: `cached ${cached}${tail}` };
  }
}

/** What one registry wants of one matching cluster, merged into `wants` (namespaces unioned). */
function addWants(
  wants: Map<string, Want>,
  registry: string,
  cluster: ClusterObject,
  kinds: Array<{ resource: ResourceRef; namespace: string }>,
  problems: string[],
): void {
  const cname = cluster.metadata.name;
  if (!isClusterReady(cluster)) {
    problems.push(`cluster ${cname} is not Ready`);
    return;
  }
  for (const { resource, namespace } of kinds) {
    if (apiDisabled(cluster, resource)) {
      problems.push(`cluster ${cname} does not serve ${resource.resource}.${resource.group || "core"}`);
      continue;
    }
    const key = cacheKeys.encode({
      cluster: cname,
      group: resource.group,
      version: resource.version,
      resource: resource.resource,
    });
    const want = wants.get(key) ?? { resource, namespaces: new Set(), all: false, registries: new Set() };
    if (namespace === "") want.all = true;
    else want.namespaces.add(namespace);
    want.registries.add(registry);
    wants.set(key, want);
  }
}

/** `pods from member1` for a cache's key. */
function describeKey(key: string): string {
  const { cluster, group, resource } = cacheKeys.parse(key);
  return `${group ? `${resource}.${group}` : resource} from ${cluster}`;
}

/** `pods (member1, member2), nodes (member1)`. */
function describe(caches: ResourceCache[]): string {
  const byKind = new Map<string, string[]>();
  for (const c of caches) {
    const kind = c.resource.group ? `${c.resource.resource}.${c.resource.group}` : c.resource.resource;
    byKind.set(kind, [...(byKind.get(kind) ?? []), c.cluster]);
  }
  return [...byKind].map(([kind, names]) => `${kind} (${names.sort().join(", ")})`).join(", ");
}

function sameNamespaces(current: ReadonlySet<string>, want: Want): boolean {
  if (want.all) return current.size === 0;
  return current.size === want.namespaces.size && [...want.namespaces].every((n) => current.has(n));
}

/**
 * Upstream's Cluster.APIEnablement: listed is enabled; not listed is disabled only when the
 * cluster says its list is complete, otherwise unknown, which is cached.
 */
function apiDisabled(cluster: ClusterObject, resource: ResourceRef): boolean {
  const gv = resource.group ? `${resource.group}/${resource.version}` : resource.version;
  if (servesApi(cluster, gv, resource.kind ?? "")) return false;
  const complete = cluster.status?.conditions?.some(
    (c) => c.type === "CompleteAPIEnablements" && c.status === "True",
  );
  return complete === true;
}
