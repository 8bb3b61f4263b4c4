/**
 * Kubernetes toleration semantics (`corev1.Toleration.ToleratesTaint`) as upstream's
 * TaintToleration plugin uses them: comparison operators (`Lt`, `Gt`) are not enabled, so a
 * toleration using one tolerates nothing.
 */
import type { Taint, Toleration } from "../../karmada/types.ts";

export function tolerates(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key && toleration.key !== taint.key) return false;
  switch (toleration.operator ?? "") {
    case "":
    case "Equal":
      return (toleration.value ?? "") === (taint.value ?? "");
    case "Exists":
      return true;
    default:
      return false;
  }
}

/** The first taint accepted by `applies` that no toleration tolerates. */
export function findUntoleratedTaint(
  taints: readonly Taint[] | undefined,
  tolerations: readonly Toleration[] | undefined,
  applies: (taint: Taint) => boolean,
): Taint | undefined {
  for (const taint of taints ?? []) {
    if (!applies(taint)) continue;
    if (!(tolerations ?? []).some((t) => tolerates(t, taint))) return taint;
  }
  return undefined;
}

/** `Taint.ToString()`: `key=value:Effect`, or `key:Effect` without a value. */
export function taintToString(taint: Taint): string {
  return taint.value ? `${taint.key}=${taint.value}:${taint.effect}` : `${taint.key}:${taint.effect}`;
}
