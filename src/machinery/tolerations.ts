/**
 * Taints and tolerations as Kubernetes defines them (`corev1.Taint`, `corev1.Toleration`) and
 * Karmada reuses for cluster taints: one matching rule, `Toleration.ToleratesTaint`, for the
 * Karmada scheduler, the taint manager and the simulated members' kube-scheduler and
 * node lifecycle. The comparison operators (`Lt`, `Gt`) are behind a feature gate upstream that
 * neither kube-scheduler 1.32 nor Karmada enables, so a toleration using one tolerates nothing.
 */

export interface Taint {
  key: string;
  value?: string;
  /** `NoSchedule`, `PreferNoSchedule` or `NoExecute`. */
  effect: string;
  /** RFC 3339; when a NoExecute taint was added (tolerationSeconds count from it). */
  timeAdded?: string;
}

export interface Toleration {
  /** Empty, with operator `Exists`: every key. */
  key?: string;
  /** `Equal` (the default) or `Exists`. */
  operator?: string;
  value?: string;
  /** Empty: every effect. */
  effect?: string;
  /** NoExecute only: how long the taint is tolerated once added; unset: for good. */
  tolerationSeconds?: number;
}

/**
 * `Toleration.ToleratesTaint`: the effect (when set) and the key (when set) must match; then
 * `Exists` tolerates any value and `Equal` (or no operator) needs the same value.
 */
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

/** `TolerationsTolerateTaint`: whether any of the tolerations tolerates the taint. */
export function tolerationsTolerate(tolerations: readonly Toleration[] | undefined, taint: Taint): boolean {
  return (tolerations ?? []).some((t) => tolerates(t, taint));
}

/** The first taint accepted by `applies` that no toleration tolerates. */
export function findUntoleratedTaint<T extends Taint>(
  taints: readonly T[] | undefined,
  tolerations: readonly Toleration[] | undefined,
  applies: (taint: T) => boolean,
): T | undefined {
  return (taints ?? []).find((taint) => applies(taint) && !tolerationsTolerate(tolerations, taint));
}

/** `Taint.ToString()`: `key=value:Effect`, or `key:Effect` without a value. */
export function taintToString(taint: Taint): string {
  return taint.value ? `${taint.key}=${taint.value}:${taint.effect}` : `${taint.key}:${taint.effect}`;
}
