/**
 * Owner-reference garbage collection, as kube-controller-manager's garbage collector does
 * it: dependents whose owners are all gone are deleted (background); owners deleted with
 * `foregroundDeletion` wait until their blocking dependents are gone; owners deleted with
 * `orphan` release their dependents first.
 *
 * The index holds only objects that have owners (dependents by owner uid), fed by one store
 * watch over every key; values without "ownerReferences" or a deletion in progress are not
 * even parsed.
 */
import { type OwnerReference, parseApiVersion, type StoredObject } from "../../api/meta.ts";
import { isConflict, isNotFound } from "../../machinery/errors.ts";
import { runController } from "../../runtime/controller.ts";
import type { KeyKind } from "../../runtime/keys.ts";
import type { KeyValue, WatchEvent } from "../../storage/store.ts";
import { requestContext, type ServerContext } from "../context.ts";
import { decodeStored } from "../objects.ts";
import { type ResourceType, storageKey, storagePrefix } from "../resource-type.ts";
import { deleteObject, FOREGROUND_FINALIZER, ORPHAN_FINALIZER } from "../verbs/delete.ts";
import { systemWriter } from "./writer.ts";

interface Dependent {
  namespace: string | undefined;
  owners: OwnerReference[];
}

/** `/registry/<group>/<plural>/...` → the storage resource `<group>/<plural>`. */
function storageResourceOf(key: string): string {
  const parts = key.split("/");
  return `${parts[2]}/${parts[3]}`;
}

export async function startGarbageCollector(server: ServerContext): Promise<() => void> {
  const dependents = new Map<string, Dependent>();
  const byOwner = new Map<string, Set<string>>();
  const ctx = requestContext();
  const writer = systemWriter(server, "generic-garbage-collector");

  function typeOfKey(key: string): ResourceType | undefined {
    const types = server.registry.byStorage(storageResourceOf(key));
    return types.find((t) => t.version === t.storage.version) ?? types[0];
  }

  function decodeKv(kv: KeyValue): { rt: ResourceType; obj: StoredObject } | undefined {
    const rt = typeOfKey(kv.key);
    if (!rt) return undefined;
    return { rt, obj: decodeStored(rt, kv) };
  }

  function unindex(key: string): void {
    const d = dependents.get(key);
    if (!d) return;
    dependents.delete(key);
    for (const o of d.owners) {
      const set = byOwner.get(o.uid);
      set?.delete(key);
      if (set?.size === 0) byOwner.delete(o.uid);
    }
  }

  function index(key: string, obj: StoredObject): void {
    unindex(key);
    const owners = obj.metadata.ownerReferences ?? [];
    if (owners.length === 0) return;
    dependents.set(key, { namespace: obj.metadata.namespace, owners });
    for (const o of owners) {
      const set = byOwner.get(o.uid) ?? new Set<string>();
      byOwner.set(o.uid, set);
      set.add(key);
    }
  }

  /** Where an owner reference points, seen from a dependent in `namespace`. */
  function ownerKey(
    ref: OwnerReference,
    namespace: string | undefined,
  ): { rt: ResourceType; key: string } | undefined {
    const { group, version } = parseApiVersion(ref.apiVersion);
    const rt = server.registry.byKind(group, version, ref.kind);
    if (!rt) return undefined;
    if (rt.namespaced && !namespace) return undefined;
    return { rt, key: storageKey(rt, rt.namespaced ? namespace : undefined, ref.name) };
  }

  type OwnerState = "solid" | "waiting" | "dangling" | "unknown";

  async function ownerState(ref: OwnerReference, namespace: string | undefined): Promise<OwnerState> {
    const target = ownerKey(ref, namespace);
    if (!target) return "unknown";
    const { kv } = await server.store.get(target.key);
    if (!kv) return "dangling";
    const owner = decodeStored(target.rt, kv);
    if (owner.metadata.uid !== ref.uid) return "dangling";
    if (owner.metadata.deletionTimestamp && (owner.metadata.finalizers ?? []).includes(FOREGROUND_FINALIZER))
      return "waiting";
    return "solid";
  }

  async function attemptToDelete(key: string): Promise<void> {
    const { kv } = await server.store.get(key);
    if (!kv) return unindex(key);
    const decoded = decodeKv(kv);
    if (!decoded) return;
    const { rt, obj } = decoded;
    index(key, obj);
    const owners = obj.metadata.ownerReferences ?? [];
    if (owners.length === 0 || obj.metadata.deletionTimestamp) return;
    const states = await Promise.all(owners.map((o) => ownerState(o, obj.metadata.namespace)));
    const dangling = owners.filter((_, i) => states[i] === "dangling");
    const solid = states.includes("solid") || states.includes("unknown");
    const waiting = states.includes("waiting");
    if (dangling.length === 0 && !(waiting && !solid)) return;
    const name = obj.metadata.name;
    if (!solid && !waiting) {
      await deleteObject(server, ctx, rt, obj.metadata.namespace, name, {
        propagationPolicy: "Background",
        preconditions: { uid: obj.metadata.uid },
      }).catch(ignoreGone);
      return;
    }
    if (dangling.length > 0) {
      const gone = new Set(dangling.map((d) => d.uid));
      await writer.change(rt, obj, (cur) => withoutOwners(cur, gone)).catch(ignoreGone);
      return;
    }
    // Every remaining owner is being deleted in the foreground: this dependent goes first, the same way.
    await deleteObject(server, ctx, rt, obj.metadata.namespace, name, {
      propagationPolicy: "Foreground",
      preconditions: { uid: obj.metadata.uid },
    }).catch(ignoreGone);
  }

  async function processDeletingOwner(key: string): Promise<{ requeueAfterMs: number } | undefined> {
    const { kv } = await server.store.get(key);
    if (!kv) return undefined;
    const decoded = decodeKv(kv);
    if (!decoded) return undefined;
    const { rt, obj } = decoded;
    const finalizers = obj.metadata.finalizers ?? [];
    if (!obj.metadata.deletionTimestamp) return undefined;
    const uid = obj.metadata.uid;
    const deps = [...(byOwner.get(uid) ?? [])];
    if (finalizers.includes(ORPHAN_FINALIZER)) {
      for (const depKey of deps) {
        const dep = await server.store.get(depKey);
        if (!dep.kv) continue;
        const d = decodeKv(dep.kv);
        if (!d) continue;
        await writer.change(d.rt, d.obj, (cur) => withoutOwners(cur, new Set([uid]))).catch(ignoreGone);
      }
      await removeFinalizer(rt, obj, ORPHAN_FINALIZER);
      return undefined;
    }
    if (finalizers.includes(FOREGROUND_FINALIZER)) {
      let blocking = 0;
      for (const depKey of deps) {
        const dep = await server.store.get(depKey);
        if (!dep.kv) continue;
        const d = decodeKv(dep.kv);
        if (!d) continue;
        const ref = (d.obj.metadata.ownerReferences ?? []).find((o) => o.uid === uid);
        if (!ref) continue;
        if (ref.blockOwnerDeletion) blocking++;
        if (!d.obj.metadata.deletionTimestamp) queue.add("dependent", depKey);
      }
      if (blocking > 0) return { requeueAfterMs: 1000 };
      await removeFinalizer(rt, obj, FOREGROUND_FINALIZER);
    }
    return undefined;
  }

  async function removeFinalizer(rt: ResourceType, obj: StoredObject, finalizer: string): Promise<void> {
    await writer.removeFinalizer(rt, obj, finalizer).catch(ignoreGone);
  }

  // Until the runner starts, keys wait here (the initial sync below fills it).
  const pending: string[] = [];
  let enqueue = (key: string): void => void pending.push(key);
  const queue = {
    add: (check: GcKey["check"], key: string) => enqueue(gcKeys.encode({ check, key })),
  };

  /** Cheap checks on raw values: most objects have no owners and are not being deleted by policy. */
  const mayOwnOrDepend = (value: string): boolean => value.includes('"ownerReferences"');
  const deletingWithPolicy = (value: string): boolean =>
    value.includes('"deletionTimestamp"') &&
    (value.includes(`"${FOREGROUND_FINALIZER}"`) || value.includes(`"${ORPHAN_FINALIZER}"`));

  function onPut(key: string, value: string, prevValue: string | undefined): void {
    if (mayOwnOrDepend(value) || (prevValue !== undefined && mayOwnOrDepend(prevValue))) {
      // Only metadata matters here, which every version shares: no conversion or defaulting.
      const meta = (JSON.parse(value) as StoredObject).metadata ?? {};
      const owners = meta.ownerReferences ?? [];
      const before = dependents.get(key)?.owners;
      // As Kubernetes' graph builder: a dependent is checked when its owners change, not on
      // every write (a status update leaves them as they were).
      if (!before || !sameOwners(before, owners)) {
        index(key, { metadata: meta } as StoredObject);
        if (owners.length > 0) queue.add("dependent", key);
      }
    }
    if (deletingWithPolicy(value)) queue.add("owner", key);
  }

  function onEvent(e: WatchEvent): void {
    const key = e.kv.key;
    if (e.type === "delete") {
      unindex(key);
      const prev = e.prevKv;
      if (prev) {
        const meta = (JSON.parse(prev.value) as StoredObject).metadata ?? {};
        if (meta.uid) {
          for (const dep of byOwner.get(meta.uid) ?? []) queue.add("dependent", dep);
        }
        // A deleted dependent may unblock its foreground-deleting owners.
        for (const o of meta.ownerReferences ?? []) {
          const target = ownerKey(o, meta.namespace);
          if (target) queue.add("owner", target.key);
        }
      }
      return;
    }
    onPut(key, e.kv.value, e.prevKv?.value);
  }

  // Initial sync: index every dependent, check them all once (owners may have vanished while we were down).
  const revision = await server.store.currentRevision();
  for (const rt of server.registry.storageResources()) {
    const page = await server.store.list(storagePrefix(rt), { revision });
    for (const kv of page.kvs) onEvent({ type: "put", kv });
  }
  let watch: { close(): void } | undefined;
  const running = runController(
    {
      name: "garbage-collector",
      workers: 2,
      baseDelayMs: 50,
      reconcile: async (_ctx, item) => {
        const { check, key } = gcKeys.parse(item);
        if (check === "owner") return processDeletingOwner(key);
        await attemptToDelete(key);
        return undefined;
      },
      start: (add) => {
        enqueue = add;
        for (const k of pending.splice(0)) add(k);
        watch = server.store.watch("/registry/", revision, {
          onEvents: (events) => {
            for (const e of events) onEvent(e);
          },
          onError: (err) => server.log.error(err, "garbage collector watch ended"),
        });
      },
      stop: () => watch?.close(),
    },
    { log: server.log },
  );
  return () => running.stop();
}

/** What the collector checks for a storage key: a dependent whose owners may be gone, or an owner deleting by policy. */
interface GcKey {
  check: "dependent" | "owner";
  key: string;
}
const gcKeys: KeyKind<GcKey> = {
  encode: ({ check, key }) => `${check}:${key}`,
  parse: (item) => {
    const colon = item.indexOf(":");
    return { check: item.slice(0, colon) === "owner" ? "owner" : "dependent", key: item.slice(colon + 1) };
  },
};

function sameOwners(a: readonly OwnerReference[], b: readonly OwnerReference[]): boolean {
  return (
    a.length === b.length &&
    a.every((o, i) => o.uid === b[i]!.uid && o.blockOwnerDeletion === b[i]!.blockOwnerDeletion)
  );
}

function withoutOwners(obj: StoredObject, uids: Set<string>): StoredObject {
  return {
    ...obj,
    metadata: {
      ...obj.metadata,
      ownerReferences: (obj.metadata.ownerReferences ?? []).filter((o) => !uids.has(o.uid)),
    },
  };
}

/** The object went away or was replaced meanwhile: nothing left to do for it. */
function ignoreGone(err: unknown): void {
  if (!isNotFound(err) && !isConflict(err)) throw err;
}
