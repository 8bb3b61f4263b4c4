/**
 * Cluster affinity as the scheduler uses it: which affinities a binding currently places by
 * (its single clusterAffinity, or the observed clusterAffinities term and its overflow
 * groups), and each cluster's overflow order.
 */
import type { ClusterAffinity, ClusterAffinityTerm, ClusterObject, Placement } from "../../karmada/types.ts";
import { clusterMatcher } from "../../policy/cluster-affinity.ts";
import type { BindingSchedulingStatus } from "./types.ts";

/**
 * `clusterMatches`, except that a selector that cannot be parsed (an unknown operator) matches
 * nothing, as upstream's `LabelSelectorAsSelector` error does.
 */
export function affinityMatches(cluster: ClusterObject, affinity: ClusterAffinity | undefined): boolean {
  return affinityMatcher(affinity)(cluster);
}

/** `affinityMatches` for one affinity against many clusters: its selectors are parsed once. */
export function affinityMatcher(affinity: ClusterAffinity | undefined): (cluster: ClusterObject) => boolean {
  let match: (cluster: ClusterObject) => boolean;
  try {
    match = clusterMatcher(affinity);
  } catch {
    return () => false;
  }
  return (cluster) => {
    try {
      return match(cluster);
    } catch {
      return false;
    }
  };
}

/** The clusterAffinities term named by `status.schedulerObservingAffinityName`. */
export function observedTerm(
  placement: Placement,
  status: BindingSchedulingStatus | undefined,
): ClusterAffinityTerm | undefined {
  if (placement.clusterAffinity || !placement.clusterAffinities?.length) return undefined;
  const name = status?.schedulerObservingAffinityName ?? "";
  return placement.clusterAffinities.find((t) => t.affinityName === name);
}

/**
 * 0 when the cluster matches the observed term itself (or there are no clusterAffinities),
 * i+1 when it matches `overflowAffinities[i]` first, 1000 otherwise (sorted last).
 */
export function overflowOrder(
  cluster: ClusterObject,
  placement: Placement,
  status: BindingSchedulingStatus | undefined,
): number {
  return overflowOrderOf(placement, status)(cluster);
}

/** `overflowOrder` for one binding against many clusters: the term and its overflows are parsed once. */
export function overflowOrderOf(
  placement: Placement,
  status: BindingSchedulingStatus | undefined,
): (cluster: ClusterObject) => number {
  if (placement.clusterAffinity || !placement.clusterAffinities?.length) return () => 0;
  const term = observedTerm(placement, status);
  if (!term) return () => 1000;
  const matchers = [term, ...(term.overflowAffinities ?? [])].map(affinityMatcher);
  return (cluster) => {
    const i = matchers.findIndex((match) => match(cluster));
    return i < 0 ? 1000 : i;
  };
}

/** Overflow applies when the observed term declares overflowAffinities (upstream `enableOverflow`). */
export function overflowEnabled(placement: Placement, status: BindingSchedulingStatus | undefined): boolean {
  if (placement.clusterAffinity || !placement.clusterAffinities || !status?.schedulerObservingAffinityName) {
    return false;
  }
  return placement.clusterAffinities.some(
    (t) => t.affinityName === status.schedulerObservingAffinityName && t.overflowAffinities !== undefined,
  );
}
