/**
 * Whether a cluster matches a ClusterAffinity (placement filters, override rules' targetCluster,
 * static weights), as upstream's util.ClusterMatches: `exclude` first, then the label
 * selector, the field selector (provider, region, zones), and the names, all ANDed.
 */

import type { ClusterAffinity, ClusterObject, NodeSelectorRequirement } from "../karmada/types.ts";
import { fromLabelSelector, matches } from "../machinery/labels.ts";

function requirementHolds(r: NodeSelectorRequirement, value: string | undefined): boolean {
  const values = r.values ?? [];
  switch (r.operator) {
    case "In":
      return value !== undefined && values.includes(value);
    case "NotIn":
      return value === undefined || !values.includes(value);
    case "Exists":
      return value !== undefined;
    case "DoesNotExist":
      return value === undefined;
    default:
      return false;
  }
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

/** The zones of a cluster: `spec.zones`, or the deprecated `spec.zone`. */
export function clusterZones(cluster: ClusterObject): string[] {
  const spec = cluster.spec ?? {};
  if (spec.zones?.length) return spec.zones;
  return spec.zone ? [spec.zone] : [];
}

export function clusterMatches(cluster: ClusterObject, affinity: ClusterAffinity | undefined): boolean {
  if (!affinity) return true;
  const name = cluster.metadata.name!;
  const spec = cluster.spec ?? {};
  if (affinity.exclude?.includes(name)) return false;
  if (
    affinity.labelSelector &&
    !matches(fromLabelSelector(affinity.labelSelector), cluster.metadata.labels)
  ) {
    return false;
  }
  for (const r of affinity.fieldSelector?.matchExpressions ?? []) {
    const ok =
      r.key === "zone"
        ? zonesHold(r, clusterZones(cluster))
        : requirementHolds(
            r,
            r.key === "provider"
              ? spec.provider || undefined
              : r.key === "region"
                ? spec.region || undefined
                : undefined,
          );
    if (!ok) return false;
  }
  if (affinity.clusterNames?.length && !affinity.clusterNames.includes(name)) return false;
  return true;
}
