/**
 * The dependency objects of a binding. The interpreter says which objects a template depends
 * on (references by name or by label selector); `dependencyObjects` turns each reference into
 * objects. A kind is
 * watched from its first use (an unknown kind is looked up again next time: a CRD may come
 * later). Objects are read from the cache once it has synced, from the server before, so that
 * one just created is not taken for missing. A change of a watched object is reported through
 * `changed`, for the bindings depending on it to re-sync.
 */
import type { StoredObject } from "../../api/meta.ts";
import type { ResourceRef } from "../../client/client.ts";
import type { Interpreter } from "../../interpreter/index.ts";
import type { DependentObjectReference } from "../../interpreter/types.ts";
import type { Binding } from "../../karmada/bindings.ts";
import { deepEqual } from "../../machinery/equality.ts";
import { isNotFound } from "../../machinery/errors.ts";
import { matches, type Selector, selectorToString } from "../../machinery/labels.ts";
import type { EventRecorder } from "../../runtime/events.ts";
import type { Informer } from "../../runtime/informer.ts";
import type { ControllerContext } from "../context.ts";
import { formatDependencies } from "./annotation.ts";
import { selectorOf } from "./match.ts";

/** What `template` depends on, says the interpreter (undefined: nothing to say), with upstream's events. */
export async function dependenciesOf(
  interpreter: Pick<Interpreter, "getDependencies">,
  events: EventRecorder,
  template: StoredObject,
): Promise<DependentObjectReference[] | undefined> {
  let deps: DependentObjectReference[] | undefined;
  try {
    deps = await interpreter.getDependencies(template);
  } catch (err) {
    events.event(template, "Warning", "GetDependenciesFailed", (err as Error).message);
    throw err;
  }
  if (deps === undefined) return undefined;
  events.event(
    template,
    "Normal",
    "GetDependenciesSucceed",
    `Get dependencies(${formatDependencies(deps)}) succeed.`,
  );
  return deps;
}

interface Kind {
  ref: ResourceRef;
  informer: Informer;
}

/** An update of a dependency object worth a re-sync: more than status and bookkeeping changed. */
function specificationChanged(old: StoredObject, obj: StoredObject): boolean {
  const strip = (o: StoredObject) => {
    const { status: _s, ...rest } = o;
    const { managedFields: _m, resourceVersion: _r, ...meta } = o.metadata;
    return { ...rest, metadata: meta };
  };
  return !deepEqual(strip(old), strip(obj));
}

export interface DependencyObjects {
  /** The dependency objects one reference names or selects (none when a named one does not exist). */
  objectsOf(dep: DependentObjectReference): Promise<StoredObject[]>;
  /** One object of a dependency kind, or undefined when it does not exist. */
  object(
    apiVersion: string,
    kind: string,
    namespace: string | undefined,
    name: string,
  ): Promise<StoredObject | undefined>;
  /** The template a binding stands for, read from the server (undefined: gone). */
  templateOf(b: Binding): Promise<StoredObject | undefined>;
  /** Removes the handlers on the dependency kinds' informers. */
  stop(): void;
}

export function dependencyObjects(
  ctx: Pick<ControllerContext, "client" | "informers">,
  /** A dependency object was added, changed (also called with the old one when its labels changed) or deleted. */
  changed: (apiVersion: string, kind: string, obj: StoredObject) => void,
): DependencyObjects {
  const kinds = new Map<string, Promise<Kind>>();
  const removers: Array<() => void> = [];

  /** The informer of a dependency kind, started (and watched) on first use. */
  function kindOf(apiVersion: string, kind: string): Promise<Kind> {
    const key = `${apiVersion}|${kind}`;
    let p = kinds.get(key);
    if (!p) {
      p = ctx.client.resourceFor(apiVersion, kind).then((ref) => {
        const informer = ctx.informers.informer(ref);
        removers.push(
          informer.addHandler({
            onAdd: (obj) => changed(apiVersion, kind, obj),
            onUpdate: (old, obj) => {
              if (!specificationChanged(old, obj)) return;
              if (!deepEqual(old.metadata.labels, obj.metadata.labels)) changed(apiVersion, kind, old);
              changed(apiVersion, kind, obj);
            },
            onDelete: (obj) => changed(apiVersion, kind, obj),
          }),
        );
        return { ref, informer };
      });
      // An unknown kind is looked up again next time (a CRD may be installed later).
      p.catch(() => kinds.delete(key));
      kinds.set(key, p);
    }
    return p;
  }

  async function getObject(
    k: Kind,
    namespace: string | undefined,
    name: string,
  ): Promise<StoredObject | undefined> {
    const ns = k.ref.namespaced ? namespace || undefined : undefined;
    const cached = k.informer.hasSynced() ? k.informer.get(ns, name) : undefined;
    if (cached) return cached;
    // A miss may only mean the cache is behind (the object was just created): ask the server.
    try {
      return await ctx.client.get(k.ref, ns, name);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  async function listObjects(
    k: Kind,
    namespace: string | undefined,
    selector: Selector,
  ): Promise<StoredObject[]> {
    const ns = k.ref.namespaced ? namespace || undefined : undefined;
    if (k.informer.hasSynced())
      return k.informer.list(ns).filter((o) => matches(selector, o.metadata.labels ?? {}));
    const list = await ctx.client.list(k.ref, ns, { labelSelector: selectorToString(selector) });
    return list.items.map((o) => ({
      ...o,
      apiVersion: o.apiVersion ?? list.apiVersion,
      kind: o.kind ?? k.ref.kind!,
    }));
  }

  async function objectsOf(dep: DependentObjectReference): Promise<StoredObject[]> {
    const k = await kindOf(dep.apiVersion, dep.kind);
    if (dep.name) {
      const o = await getObject(k, dep.namespace, dep.name);
      return o ? [o] : [];
    }
    const selector = selectorOf(dep);
    if (!selector)
      throw new Error(
        "the Name and LabelSelector in the DependentObjectReference cannot be empty at the same time",
      );
    return listObjects(k, dep.namespace, selector);
  }

  async function templateOf(b: Binding): Promise<StoredObject | undefined> {
    const r = b.spec.resource;
    try {
      const ref = await ctx.client.resourceFor(r.apiVersion, r.kind);
      return await ctx.client.get(ref, r.namespace, r.name);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  return {
    objectsOf,
    object: async (apiVersion, kind, namespace, name) =>
      getObject(await kindOf(apiVersion, kind), namespace, name),
    templateOf,
    stop() {
      for (const r of removers) r();
    },
  };
}
