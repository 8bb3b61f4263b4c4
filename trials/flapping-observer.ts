/**
 * What the flapping trials watch: the bindings of their namespace (every change of
 * `spec.clusters` and `spec.gracefulEvictionTasks`, timed as the trial sees it), the Clusters'
 * Ready condition and NoExecute taints, and the member objects' uids.
 */
import { isObject, type StoredObject } from "../src/api/meta.ts";
import { type Client, RESOURCES, type ResourceRef } from "../src/client/client.ts";
import { KARMADA } from "../src/karmada/resources.ts";
import { isApiError } from "../src/machinery/errors.ts";
import type { EvictionTaskSeen, ObservedEviction } from "./flapping-oracle.ts";

const RESUME_PAUSE_MS = 200;

/**
 * List, then watch from the list's revision, resuming from the last revision seen whenever the
 * stream ends, until stopped: `onObject` sees every version. Only when the revision has expired
 * (410) is the list read again (it replays the current versions and reports as deleted what is
 * gone), so no change in between is missed unless the server compacted it away.
 */
export function keepWatching(
  client: Pick<Client, "list" | "watch">,
  res: ResourceRef,
  namespace: string | undefined,
  onObject: (obj: StoredObject, deleted: boolean) => void,
): { stop(): Promise<void> } {
  let stopped = false;
  let handle: { stop(): void } | undefined;
  const known = new Set<string>();
  /** Where to resume; undefined: list first. */
  let revision: string | undefined;
  const relist = async (): Promise<string> => {
    const list = await client.list(res, namespace);
    const names = new Set(list.items.map((o) => o.metadata.name));
    for (const name of known) {
      if (!names.has(name)) {
        known.delete(name);
        onObject({ apiVersion: "", kind: "", metadata: { name } } as StoredObject, true);
      }
    }
    for (const o of list.items) {
      known.add(o.metadata.name);
      onObject(o, false);
    }
    return list.metadata.resourceVersion ?? "0";
  };
  const loop = (async () => {
    while (!stopped) {
      try {
        revision ??= await relist();
        if (stopped) break;
        const watch = client.watch(
          res,
          namespace,
          { resourceVersion: revision, allowWatchBookmarks: true },
          (e) => {
            if (e.type === "ERROR") {
              // Expired (or any other end the server explains): read the list again.
              revision = undefined;
              return;
            }
            const o = e.object as StoredObject;
            if (o.metadata?.resourceVersion) revision = o.metadata.resourceVersion;
            if (e.type === "BOOKMARK") return;
            if (e.type === "DELETED") known.delete(o.metadata.name);
            else known.add(o.metadata.name);
            onObject(o, e.type === "DELETED");
          },
        );
        handle = watch;
        await watch.done;
      } catch (err) {
        // A connection lost resumes where it was; an expired revision lists again.
        if (isApiError(err) && err.status.code === 410) revision = undefined;
      }
      if (!stopped) await new Promise((r) => setTimeout(r, RESUME_PAUSE_MS));
    }
  })();
  return {
    async stop() {
      stopped = true;
      handle?.stop();
      await loop;
    },
  };
}

interface Task {
  fromCluster: string;
}

function clustersOf(b: StoredObject): string[] {
  const spec = isObject(b.spec) ? b.spec : {};
  return Array.isArray(spec.clusters)
    ? spec.clusters.flatMap((c) => (isObject(c) && typeof c.name === "string" ? [c.name] : []))
    : [];
}

function tasksOf(b: StoredObject): Task[] {
  const spec = isObject(b.spec) ? b.spec : {};
  return Array.isArray(spec.gracefulEvictionTasks) ? (spec.gracefulEvictionTasks as Task[]) : [];
}

/** The template a binding is for: `Kind name`. */
export function templateOf(b: StoredObject): string {
  const spec = isObject(b.spec) ? b.spec : {};
  const r = isObject(spec.resource) ? spec.resource : {};
  return `${String(r.kind)} ${String(r.name)}`;
}

/** Evictions and eviction tasks in one namespace's ResourceBindings, as they happen. */
export class BindingObserver {
  readonly evictions: ObservedEviction[] = [];
  /** Tasks in bindings now, by `binding cluster`. */
  readonly tasks = new Map<string, EvictionTaskSeen>();
  tasksSeen = 0;
  tasksEnded = 0;
  /** Bindings by `namespace/name`, as last seen. */
  readonly bindings = new Map<string, StoredObject>();
  #watch: { stop(): Promise<void> };
  #t0: number;
  #now: () => number;

  constructor(client: Pick<Client, "list" | "watch">, namespace: string, t0: number, now = Date.now) {
    this.#t0 = t0;
    this.#now = now;
    this.#watch = keepWatching(client, KARMADA.resourceBindings, namespace, (b, deleted) =>
      this.#seen(b, deleted),
    );
  }

  #seen(b: StoredObject, deleted: boolean): void {
    const key = `${b.metadata.namespace}/${b.metadata.name}`;
    const at = this.#now() - this.#t0;
    const before = this.bindings.get(key);
    if (deleted) {
      this.bindings.delete(key);
      return;
    }
    this.bindings.set(key, b);
    const now = new Set(clustersOf(b));
    const tasks = new Set(tasksOf(b).map((t) => t.fromCluster));
    if (before) {
      for (const c of clustersOf(before)) {
        if (!now.has(c)) this.evictions.push({ binding: key, cluster: c, at, withTask: tasks.has(c) });
      }
    }
    for (const c of tasks) {
      const id = `${key} ${c}`;
      if (!this.tasks.has(id)) {
        this.tasks.set(id, { binding: key, cluster: c, firstSeen: at });
        this.tasksSeen++;
      }
    }
    for (const [id, task] of this.tasks) {
      if (task.binding === key && !tasks.has(task.cluster)) {
        this.tasks.delete(id);
        this.tasksEnded++;
      }
    }
  }

  stop(): Promise<void> {
    return this.#watch.stop();
  }
}

export interface ClusterHealthEvent {
  cluster: string;
  at: number;
  ready: string | undefined;
  noExecute: string[];
}

/** Ready and NoExecute taints of the Clusters, each change timed. */
export class ClusterObserver {
  readonly changes: ClusterHealthEvent[] = [];
  #last = new Map<string, string>();
  #watch: { stop(): Promise<void> };

  constructor(client: Pick<Client, "list" | "watch">, t0: number, now = Date.now) {
    this.#watch = keepWatching(client, RESOURCES.clusters, undefined, (c, deleted) => {
      if (deleted) return;
      const status = isObject(c.status) ? c.status : {};
      const conditions = Array.isArray(status.conditions) ? status.conditions : [];
      const ready = conditions.find((x) => isObject(x) && x.type === "Ready") as
        | { status?: string }
        | undefined;
      const spec = isObject(c.spec) ? c.spec : {};
      const taints = Array.isArray(spec.taints)
        ? (spec.taints as Array<{ key: string; effect: string }>)
        : [];
      const event: ClusterHealthEvent = {
        cluster: c.metadata.name,
        at: now() - t0,
        ready: ready?.status,
        noExecute: taints.filter((t) => t.effect === "NoExecute").map((t) => t.key),
      };
      const sig = `${event.ready} ${event.noExecute.join(",")}`;
      if (this.#last.get(event.cluster) === sig) return;
      this.#last.set(event.cluster, sig);
      this.changes.push(event);
    });
  }

  /** How often the cluster's Ready left True, and whether it ever had a NoExecute taint. */
  summary(cluster: string): { notReady: number; tainted: number } {
    let notReady = 0;
    let tainted = 0;
    let wasReady = true;
    let wasTainted = false;
    for (const e of this.changes) {
      if (e.cluster !== cluster) continue;
      const ready = e.ready === "True";
      if (wasReady && !ready) notReady++;
      if (!wasTainted && e.noExecute.length > 0) tainted++;
      wasReady = ready;
      wasTainted = e.noExecute.length > 0;
    }
    return { notReady, tainted };
  }

  stop(): Promise<void> {
    return this.#watch.stop();
  }
}

/** The uids of a namespace's objects of these kinds on a member: `Kind namespace/name` → uid. */
export async function memberUids(
  member: Pick<Client, "list">,
  namespace: string,
  kinds: ReadonlyArray<ResourceRef>,
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const res of kinds) {
    for (const o of (await member.list(res, namespace)).items) {
      out.set(`${res.kind} ${namespace}/${o.metadata.name}`, o.metadata.uid ?? "");
    }
  }
  return out;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls `check` every `everyMs` until it is truthy (the elapsed ms) or `ms` pass (undefined). */
export async function within(
  check: () => Promise<boolean>,
  ms: number,
  everyMs = 250,
): Promise<number | undefined> {
  const start = Date.now();
  while (Date.now() - start <= ms) {
    try {
      if (await check()) return Date.now() - start;
    } catch {
      // Not yet: a member or the control plane is unreachable right now.
    }
    await sleep(everyMs);
  }
  return undefined;
}
