/**
 * kube-apiserver's default admission the member needs beyond what our API server always
 * does: DefaultTolerationSeconds (pods tolerate not-ready and unreachable nodes for 300 s,
 * after which the pod stages evict them).
 */
import type { AdmissionPlugin } from "../apiserver/context.ts";
import { tolerationsTolerate } from "../machinery/tolerations.ts";
import type { PodSpec } from "./types.ts";

const DEFAULT_SECONDS = 300;

export function defaultTolerationSeconds(): AdmissionPlugin {
  return {
    name: "DefaultTolerationSeconds",
    handles: (rt) => rt.group === "" && rt.kind === "Pod",
    mutate(obj, _old, op) {
      if (op !== "CREATE") return;
      const spec = (obj.spec ?? {}) as PodSpec;
      const tolerations = [...(spec.tolerations ?? [])];
      for (const key of ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"]) {
        if (tolerationsTolerate(tolerations, { key, effect: "NoExecute" })) continue;
        tolerations.push({
          key,
          operator: "Exists",
          effect: "NoExecute",
          tolerationSeconds: DEFAULT_SECONDS,
        });
      }
      obj.spec = { ...spec, tolerations };
    },
  };
}
