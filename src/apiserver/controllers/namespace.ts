/**
 * Namespace lifecycle: a namespace being deleted loses all its content (every namespaced
 * resource, objects with finalizers waited for), reports progress in its conditions, then
 * drops the `kubernetes` finalizer and disappears.
 */
import { isObject, rfc3339, type StoredObject } from "../../api/meta.ts";
import { type Condition, type ConditionUpdate, setCondition } from "../../machinery/conditions.ts";
import { isNotFound } from "../../machinery/errors.ts";
import type { ReconcileContext, ReconcileResult } from "../../runtime/controller.ts";
import { requestContext, type ServerContext } from "../context.ts";
import { decodeStored } from "../objects.ts";
import { storagePrefix } from "../resource-type.ts";
import { deleteObject } from "../verbs/delete.ts";
import { getObject } from "../verbs/read.ts";
import { runStoreController } from "./follow.ts";
import { systemWriter } from "./writer.ts";

export const NAMESPACE_FINALIZER = "kubernetes";

export function startNamespaceController(server: ServerContext): () => void {
  const nsType = server.registry.get("", "v1", "namespaces")!;
  const ctx = requestContext();
  const writer = systemWriter(server, "namespace-controller");

  async function setConditions(ns: StoredObject, conditions: ConditionUpdate[]): Promise<void> {
    const status = isObject(ns.status) ? ns.status : {};
    const merged = [...((status.conditions as Condition[] | undefined) ?? [])];
    const now = rfc3339(server.clock.now());
    let changed = false;
    for (const c of conditions) changed = setCondition(merged, c, now) || changed;
    if (!changed) return;
    await writer.change(
      nsType,
      ns,
      (cur) => ({ ...cur, status: { ...(isObject(cur.status) ? cur.status : {}), conditions: merged } }),
      "status",
    );
  }

  const reconcile = async (_ctx: ReconcileContext, name: string): Promise<ReconcileResult> => {
    let ns: StoredObject;
    try {
      ns = await getObject(server, nsType, undefined, name);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
    if (!ns.metadata.deletionTimestamp) return undefined;
    const specFinalizers = (
      isObject(ns.spec) && Array.isArray(ns.spec.finalizers) ? ns.spec.finalizers : []
    ) as string[];
    if (!specFinalizers.includes(NAMESPACE_FINALIZER)) return undefined;

    const remaining = new Map<string, number>();
    const finalizersLeft = new Map<string, number>();
    for (const rt of server.registry.storageResources()) {
      if (!rt.namespaced) continue;
      const { kvs } = await server.store.list(storagePrefix(rt, name));
      for (const kv of kvs) {
        const obj = decodeStored(rt, kv);
        const label = rt.group ? `${rt.plural}.${rt.group}` : rt.plural;
        remaining.set(label, (remaining.get(label) ?? 0) + 1);
        for (const f of obj.metadata.finalizers ?? [])
          finalizersLeft.set(f, (finalizersLeft.get(f) ?? 0) + 1);
        if (obj.metadata.deletionTimestamp) continue;
        try {
          await deleteObject(server, ctx, rt, name, obj.metadata.name, { propagationPolicy: "Background" });
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
      }
    }
    if (remaining.size > 0) {
      // Recount: most content is gone right away; what remains waits for its finalizers.
      let left = 0;
      for (const rt of server.registry.storageResources())
        if (rt.namespaced) left += await server.store.count(storagePrefix(rt, name));
      if (left > 0) {
        const contentMessage = `Some resources are remaining: ${[...remaining].map(([r, n]) => `${r} has ${n} resource instances`).join(", ")}`;
        const finalizerMessage = `Some content in the namespace has finalizers remaining: ${[...finalizersLeft].map(([f, n]) => `${f} in ${n} resource instances`).join(", ")}`;
        await setConditions(ns, [
          {
            type: "NamespaceDeletionDiscoveryFailure",
            status: "False",
            reason: "ResourcesDiscovered",
            message: "All resources successfully discovered",
          },
          {
            type: "NamespaceDeletionGroupVersionParsingFailure",
            status: "False",
            reason: "ParsedGroupVersions",
            message: "All legacy kube types successfully parsed",
          },
          {
            type: "NamespaceDeletionContentFailure",
            status: "False",
            reason: "ContentDeleted",
            message: "All content successfully deleted, may be waiting on finalization",
          },
          {
            type: "NamespaceContentRemaining",
            status: "True",
            reason: "SomeResourcesRemain",
            message: contentMessage,
          },
          finalizersLeft.size > 0
            ? {
                type: "NamespaceFinalizersRemaining",
                status: "True",
                reason: "SomeFinalizersRemain",
                message: finalizerMessage,
              }
            : {
                type: "NamespaceFinalizersRemaining",
                status: "False",
                reason: "ContentHasNoFinalizers",
                message: "All content-preserving finalizers finished",
              },
        ]);
        return { requeueAfterMs: 500 };
      }
    }
    await writer
      .change(
        nsType,
        ns,
        (cur) => ({
          ...cur,
          spec: {
            ...(isObject(cur.spec) ? cur.spec : {}),
            finalizers: specFinalizers.filter((f) => f !== NAMESPACE_FINALIZER),
          },
        }),
        "finalize",
      )
      .catch((err) => {
        if (!isNotFound(err)) throw err;
      });
    return undefined;
  };

  return runStoreController(server, {
    name: "namespace",
    workers: 2,
    sources: [
      {
        prefix: storagePrefix(nsType),
        keys: (name, value) => (value?.includes('"deletionTimestamp"') ? [name] : []),
      },
    ],
    reconcile,
  });
}
