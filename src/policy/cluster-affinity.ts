/**
 * Whether a cluster matches a ClusterAffinity (placement filters, override rules' targetCluster,
 * static weights), as upstream's util.ClusterMatches: `exclude` first, then the label
 * selector, the field selector (provider, region, zones), and the names, all ANDed.
 */

import type { ClusterAffinity, ClusterObject, NodeSelectorRequirement } from "../karmada/types.ts";
import { fromLabelSelector, matches, type Selector } from "../machinery/labels.ts";
import { requirementMatches } from "../machinery/node-selector.ts";

/** A requirement upstream's selector parser rejects (wrong value count) matches nothing. */
function wellFormed(r: NodeSelectorRequirement): boolean {
  const n = r.values?.length ?? 0;
  if (r.operator === "In" || r.operator === "NotIn") return n > 0;
  if (r.operator === "Exists" || r.operator === "DoesNotExist") return n === 0;
  return true;
}

function zonesHold(r: NodeSelectorRequirement, zones: readonly string[]): boolean {
  const values = r.values ?? [];
  switch (r.operator) {
    case "In":
      return zones.some((z) => values.includes(z));
    case "NotIn":
      return !zones.some((z) => values.includes(z));
    case "Exists":
      return zones.length > 0;
    case "DoesNotExist":
      return zones.length === 0;
    default:
      return false;
  }
}

/** The zones of a cluster (`spec.zones`; admission migrates the deprecated `spec.zone` into it). */
export function clusterZones(cluster: ClusterObject): string[] {
  return cluster.spec?.zones ?? [];
}

/** A field selector requirement on provider, region or zones (any other key has no value). */
function fieldHolds(r: NodeSelectorRequirement, cluster: ClusterObject): boolean {
  if (r.key === "zone") return zonesHold(r, clusterZones(cluster));
  const spec = cluster.spec ?? {};
  const value =
    r.key === "provider"
      ? spec.provider || undefined
      : r.key === "region"
        ? spec.region || undefined
        : undefined;
  return requirementMatches(r, value);
}

export function clusterMatches(cluster: ClusterObject, affinity: ClusterAffinity | undefined): boolean {
  return clusterMatcher(affinity)(cluster);
}

/**
 * `clusterMatches` for one affinity against many clusters: the label selector is parsed once
 * (the scheduler tests every cluster of the fleet for every binding).
 */
export function clusterMatcher(affinity: ClusterAffinity | undefined): (cluster: ClusterObject) => boolean {
  if (!affinity) return () => true;
  let selector: Selector | undefined;
  if (affinity.labelSelector) {
    try {
      selector = fromLabelSelector(affinity.labelSelector);
    } catch {
      return () => false; // upstream: a selector that does not parse matches no cluster
    }
  }
  return (cluster) => {
    const name = cluster.metadata.name;
    if (affinity.exclude?.includes(name)) return false;
    if (selector && !matches(selector, cluster.metadata.labels)) return false;
    for (const r of affinity.fieldSelector?.matchExpressions ?? []) {
      if (!wellFormed(r) || !fieldHolds(r, cluster)) return false;
    }
    if (affinity.clusterNames?.length && !affinity.clusterNames.includes(name)) return false;
    return true;
  };
}
