/**
 * A binding's resource template as events name it: the binding's reference is enough, no read
 * of the template needed.
 */
import type { KubeObject } from "../api/meta.ts";
import type { BindingSpec } from "./types.ts";

export function templateRef(binding: { spec: Pick<BindingSpec, "resource"> }): KubeObject {
  const r = binding.spec.resource;
  return {
    apiVersion: r.apiVersion,
    kind: r.kind,
    metadata: {
      name: r.name,
      ...(r.namespace ? { namespace: r.namespace } : {}),
      ...(r.uid ? { uid: r.uid } : {}),
    },
  };
}
