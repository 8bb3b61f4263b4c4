/**
 * One type for ResourceBindings and ClusterResourceBindings (they share their spec), and the
 * helpers every controller finds and keys bindings with.
 */
import type { NewObject, StoredObject } from "../api/meta.ts";
import type { ResourceRef } from "../client/client.ts";
import { objectKeys } from "../runtime/keys.ts";
import { ANNOTATION, LABEL } from "./names.ts";
import { KARMADA } from "./resources.ts";
import type { BindingSpec } from "./types.ts";

/** A stored (Cluster)ResourceBinding. */
export type Binding = StoredObject & { spec: BindingSpec };

/** A binding about to be created or written (no uid yet). */
export type NewBinding = NewObject & { metadata: { name: string }; spec: BindingSpec };

/** The resource of ResourceBindings, or of ClusterResourceBindings. */
export function bindingResource(clusterScoped: boolean): ResourceRef {
  return clusterScoped ? KARMADA.clusterResourceBindings : KARMADA.resourceBindings;
}

/** The permanent id of the binding a Work (or member object) belongs to. */
export function bindingIdOf(obj: StoredObject): string | undefined {
  return obj.metadata.labels?.[LABEL.rbPermanentId] ?? obj.metadata.labels?.[LABEL.crbPermanentId];
}

/** The key of the binding (RB `namespace/name`, or CRB `name`) a Work was made for, from its annotations. */
export function bindingKeyOfWork(w: StoredObject, clusterScoped: boolean): string[] {
  const a = w.metadata.annotations ?? {};
  const crb = a[ANNOTATION.crbName];
  if (clusterScoped) return crb ? [crb] : [];
  const ns = a[ANNOTATION.rbNamespace];
  const name = a[ANNOTATION.rbName];
  return ns && name ? [objectKeys.encode({ namespace: ns, name })] : [];
}
