/**
 * CRD lifecycle: a new or changed CRD gets `NamesAccepted` and `Established` conditions,
 * `acceptedNames` and `storedVersions`; a deleted CRD first loses every object of its kind
 * (finalizer `customresourcecleanup.apiextensions.k8s.io`), then goes.
 */
import { isObject, rfc3339, type StoredObject } from "../../api/meta.ts";
import type { CustomResourceDefinition } from "../../api/schema.ts";
import { type Condition, type ConditionUpdate, setCondition } from "../../machinery/conditions.ts";
import { deepEqual } from "../../machinery/equality.ts";
import { isNotFound } from "../../machinery/errors.ts";
import type { ReconcileContext, ReconcileResult } from "../../runtime/controller.ts";
import { requestContext, type ServerContext } from "../context.ts";
import { decodeStored } from "../objects.ts";
import { type ResourceType, storagePrefix } from "../resource-type.ts";
import { CRD_CLEANUP_FINALIZER, deleteObject } from "../verbs/delete.ts";
import { getObject } from "../verbs/read.ts";
import { runStoreController } from "./follow.ts";
import { systemWriter } from "./writer.ts";

function desiredConditions(now: string, existing: Condition[], terminating: boolean): Condition[] {
  const want: ConditionUpdate[] = [
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
  const conditions = [...existing];
  for (const c of want) setCondition(conditions, c, now);
  return conditions;
}

export function startCrdController(server: ServerContext): () => void {
  const crdType = server.registry.get("apiextensions.k8s.io", "v1", "customresourcedefinitions")!;
  const writer = systemWriter(server, "apiextensions-controller");

  const reconcile = async (_ctx: ReconcileContext, name: string): Promise<ReconcileResult> => {
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
    if (deepEqual(desired, status)) return undefined;
    await writer.change(crdType, crd, (cur) => ({ ...cur, status: desired }), "status");
    return undefined;
  };

  return runStoreController(server, {
    name: "crd",
    baseDelayMs: 20,
    sources: [{ prefix: storagePrefix(crdType), keys: (name, value) => (value !== undefined ? [name] : []) }],
    reconcile,
  });
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
      await deleteObject(server, ctx, rt, obj.metadata.namespace, obj.metadata.name, {});
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
  return await server.store.count(storagePrefix(rt));
}
