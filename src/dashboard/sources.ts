/**
 * What the dashboard reads, per signed-in user: one informer per (resource, namespace,
 * selectors), listing then watching with that user's client only (so the cache holds exactly
 * what RBAC lets the user list), relisting on 410 and reconnecting with backoff (the informer's
 * list-watch loop). A source that the API server refuses keeps the refusal as a `Problem` for
 * the page to show, and keeps retrying, so granting the rights later brings the data.
 *
 * Sources are shared by the views of one user and reference-counted: a page's stream acquires
 * what it reads and releases it when it ends; an unused source stops after a short linger, so
 * moving between pages does not relist.
 */
import type { StoredObject } from "../api/meta.ts";
import type { Client, ResourceRef } from "../client/client.ts";
import { silentLogger } from "../log.ts";
import { isApiError } from "../machinery/errors.ts";
import { Informer } from "../runtime/informer.ts";
import type { Problem } from "./wire.ts";

export interface SourceSpec {
  resource: ResourceRef;
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Keeps what the views read of each object (see the informer's `transform`). */
  transform?: (obj: StoredObject) => StoredObject;
  /** Names the transform, since two specs differing only in it must not share a cache. */
  shape?: string;
}

export function sourceKey(spec: SourceSpec): string {
  const r = spec.resource;
  return [
    r.group,
    r.version,
    r.resource,
    spec.namespace ?? "",
    spec.labelSelector ?? "",
    spec.fieldSelector ?? "",
    spec.shape ?? "",
  ].join("|");
}

/** `clusters.cluster.karmada.io`, `events`. */
export function qualifiedName(r: ResourceRef): string {
  return r.group ? `${r.resource}.${r.group}` : r.resource;
}

/** An error as the page shows it. */
export function problemOf(spec: Pick<SourceSpec, "resource" | "namespace">, err: unknown): Problem {
  const status = isApiError(err) ? err.status : undefined;
  return {
    resource: qualifiedName(spec.resource),
    ...(spec.namespace ? { namespace: spec.namespace } : {}),
    code: status?.code ?? 500,
    reason: status?.reason ?? "InternalError",
    message: status?.message ?? (err instanceof Error ? err.message : String(err)),
  };
}

/** A client whose list and watch outcomes are reported, the rest passed through. */
function reportingClient(client: Client, report: (err: unknown) => void): Client {
  return {
    get: (...a) => client.get(...a),
    list: async (...a) => {
      try {
        const list = await client.list(...a);
        report(undefined);
        return list;
      } catch (err) {
        report(err);
        throw err;
      }
    },
    watch: (res, ns, opts, onEvent) => {
      const handle = client.watch(res, ns, opts, onEvent);
      // The loop awaits `done` itself; this only observes the failure.
      handle.done.catch((err: unknown) => report(err));
      return handle;
    },
    create: (...a) => client.create(...a),
    update: (...a) => client.update(...a),
    updateStatus: (...a) => client.updateStatus(...a),
    patch: (...a) => client.patch(...a),
    delete: (...a) => client.delete(...a),
    resourceFor: (...a) => client.resourceFor(...a),
  };
}

export class Source {
  readonly spec: SourceSpec;
  readonly informer: Informer;
  #problem: Problem | undefined;
  #listeners = new Set<() => void>();
  #refs = 0;
  #linger: NodeJS.Timeout | undefined;

  constructor(client: Client, spec: SourceSpec) {
    this.spec = spec;
    const reporting = reportingClient(client, (err) => this.#report(err));
    this.informer = new Informer(reporting, spec.resource, {
      ...(spec.namespace ? { namespace: spec.namespace } : {}),
      ...(spec.labelSelector ? { labelSelector: spec.labelSelector } : {}),
      ...(spec.fieldSelector ? { fieldSelector: spec.fieldSelector } : {}),
      ...(spec.transform ? { transform: spec.transform } : {}),
      // Failures (a forbidden list above all) are shown on the page, not logged per retry.
      log: silentLogger,
    });
    const changed = (): void => this.#notify();
    this.informer.addHandler({ onAdd: changed, onUpdate: changed, onDelete: changed });
    // An empty first list adds nothing, yet views waiting for it must hear it is in.
    void this.informer.waitForSync().then(changed);
  }

  /** The refusal or failure of the last list or watch, while it lasts. */
  get problem(): Problem | undefined {
    return this.#problem;
  }

  /** Listed once, or known to fail: a view can say something either way. */
  get settled(): boolean {
    return this.informer.hasSynced() || this.#problem !== undefined;
  }

  get synced(): boolean {
    return this.informer.hasSynced();
  }

  list(): StoredObject[] {
    return this.informer.list();
  }

  /** Calls `listener` on every change of objects or problem; returns the remover. */
  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #report(err: unknown): void {
    const next = err === undefined ? undefined : problemOf(this.spec, err);
    if (JSON.stringify(next) === JSON.stringify(this.#problem)) return;
    this.#problem = next;
    this.#notify();
  }

  #notify(): void {
    for (const l of [...this.#listeners]) l();
  }

  /** Takes a reference: starts the informer if it is not running. */
  acquire(): void {
    this.#refs++;
    if (this.#linger) {
      clearTimeout(this.#linger);
      this.#linger = undefined;
    }
    this.informer.start();
  }

  /** Drops a reference; the last one stops the informer after `lingerMs` (calling `onIdle`). */
  release(lingerMs: number, onIdle: () => void): void {
    this.#refs = Math.max(0, this.#refs - 1);
    if (this.#refs > 0) return;
    const stop = (): void => {
      this.#linger = undefined;
      if (this.#refs > 0) return;
      this.informer.stop();
      onIdle();
    };
    if (lingerMs <= 0) {
      stop();
      return;
    }
    this.#linger = setTimeout(stop, lingerMs);
    this.#linger.unref();
  }

  get referenced(): boolean {
    return this.#refs > 0;
  }

  stop(): void {
    if (this.#linger) clearTimeout(this.#linger);
    this.#linger = undefined;
    this.informer.stop();
  }
}

/** One user's sources, shared by that user's streams. */
export class SourceSet {
  #client: Client;
  #lingerMs: number;
  #sources = new Map<string, Source>();

  constructor(client: Client, lingerMs: number) {
    this.#client = client;
    this.#lingerMs = lingerMs;
  }

  /** The source for `spec`, acquired: call `release` with it when done. */
  acquire(spec: SourceSpec): Source {
    const key = sourceKey(spec);
    let source = this.#sources.get(key);
    if (!source) {
      source = new Source(this.#client, spec);
      this.#sources.set(key, source);
    }
    source.acquire();
    return source;
  }

  release(source: Source): void {
    const key = sourceKey(source.spec);
    source.release(this.#lingerMs, () => {
      if (this.#sources.get(key) === source) this.#sources.delete(key);
    });
  }

  /** Whether any source is in use (a stream is open). */
  get busy(): boolean {
    return [...this.#sources.values()].some((s) => s.referenced);
  }

  get size(): number {
    return this.#sources.size;
  }

  stop(): void {
    for (const s of this.#sources.values()) s.stop();
    this.#sources.clear();
  }
}
