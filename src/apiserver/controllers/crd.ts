/**
 * CRD lifecycle: a new or changed CRD gets `NamesAccepted` and `Established` conditions,
 * `acceptedNames` and `storedVersions`; a deleted CRD first loses every object of its kind
 * (finalizer `customresourcecleanup.apiextensions.k8s.io`), then goes.
 */
import { isObject, rfc3339, type StoredObject } from "../../api/meta.ts";
import type { CustomResourceDefinition } from "../../api/schema.ts";
import { isNotFound } from "../../machinery/errors.ts";
import { requestContext, type ServerContext } from "../context.ts";
import { decodeStored } from "../objects.ts";
import { type ResourceType, storagePrefix } from "../resource-type.ts";
import { CRD_CLEANUP_FINALIZER, deleteObject } from "../verbs/delete.ts";
import { getObject } from "../verbs/read.ts";
import { controllerQueue, followKeys } from "./follow.ts";
import { systemWriter } from "./writer.ts";

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
  lastTransitionTime?: string;
}

function desiredConditions(now: string, existing: Condition[], terminating: boolean): Condition[] {
  const want: Condition[] = [
    { type: "NamesAccepted", status: "True", reason: "NoConflicts", message: "no conflicts found" },
    {
      type: "Established",
      status: "True",
      reason: "InitialNamesAccepted",
      message: "the initial names have been accepted",
    },
  ];
  if (terminating) {
    want.push({
      type: "Terminating",
      status: "True",
      reason: "InstanceDeletionInProgress",
      message: "CustomResource deletion is in progress",
    });
  }
  return want.map((c) => {
    const old = existing.find((e) => e.type === c.type);
    return {
      ...c,
      lastTransitionTime: old && old.status === c.status ? (old.lastTransitionTime ?? now) : now,
    };
  });
}

export function startCrdController(server: ServerContext): () => void {
  const crdType = server.registry.get("apiextensions.k8s.io", "v1", "customresourcedefinitions")!;
  const writer = systemWriter(server, "apiextensions-controller");

  const reconcile = async (name: string): Promise<{ requeueAfterMs: number } | undefined> => {
    let crd: StoredObject;
    try {
      crd = await getObject(server, crdType, undefined, name);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
    const spec = (crd as unknown as CustomResourceDefinition).spec;
    if (crd.metadata.deletionTimestamp) {
      if (!(crd.metadata.finalizers ?? []).includes(CRD_CLEANUP_FINALIZER)) return undefined;
      const remaining = await deleteInstances(server, spec);
      if (remaining > 0) return { requeueAfterMs: 200 };
      await writer.removeFinalizer(crdType, crd, CRD_CLEANUP_FINALIZER);
      return undefined;
    }
    const status = isObject(crd.status) ? crd.status : {};
    const storage = spec.versions.find((v) => v.storage)?.name;
    const stored = Array.isArray(status.storedVersions) ? (status.storedVersions as string[]) : [];
    const conditions = desiredConditions(
      rfc3339(server.clock.now()),
      (status.conditions as Condition[] | undefined) ?? [],
      false,
    );
    const desired = {
      ...status,
      conditions,
      acceptedNames: spec.names,
      storedVersions: storage && !stored.includes(storage) ? [...stored, storage] : stored,
    };
    if (JSON.stringify(desired) === JSON.stringify(status)) return undefined;
    await writer.change(crdType, crd, (cur) => ({ ...cur, status: desired }), "status");
    return undefined;
  };

  const queue = controllerQueue(server, "crd reconcile", reconcile, { baseDelayMs: 20 });

  const following = followKeys(server, storagePrefix(crdType), "crd", (name, value) => {
    if (value !== undefined) queue.add(name);
  });
  return () => {
    following.stop();
    queue.stop();
  };
}

/** Deletes the CRD's objects; returns how many still exist (kept by their own finalizers). */
async function deleteInstances(
  server: ServerContext,
  spec: CustomResourceDefinition["spec"],
): Promise<number> {
  const types = server.registry.byStorage(`${spec.group}/${spec.names.plural}`);
  const rt: ResourceType | undefined = types[0];
  if (!rt) {
    const { kvs } = await server.store.list(`/registry/${spec.group}/${spec.names.plural}/`);
    for (const kv of kvs) await server.store.delete(kv.key).catch(() => undefined);
    return 0;
  }
  const { kvs } = await server.store.list(storagePrefix(rt));
  const ctx = requestContext();
  for (const kv of kvs) {
    const obj = decodeStored(rt, kv);
    if (obj.metadata.deletionTimestamp) continue;
    try {
      await deleteObject(server, ctx, rt, obj.metadata.namespace, obj.metadata.name!, {});
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
  return await server.store.count(storagePrefix(rt));
}
