/**
 * Whether a cluster matches a ClusterAffinity (placement filters, override rules' targetCluster,
 * static weights), as upstream's util.ClusterMatches: `exclude` first, then the label
 * selector, the field selector (provider, region, zones), and the names, all ANDed.
 */

import type { ClusterAffinity, ClusterObject, NodeSelectorRequirement } from "../karmada/types.ts";
import { fromLabelSelector, matches } from "../machinery/labels.ts";
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

export function clusterMatches(cluster: ClusterObject, affinity: ClusterAffinity | undefined): boolean {
  if (!affinity) return true;
  const name = cluster.metadata.name;
  const spec = cluster.spec ?? {};
  if (affinity.exclude?.includes(name)) return false;
  if (affinity.labelSelector) {
    let selector: ReturnType<typeof fromLabelSelector>;
    try {
      selector = fromLabelSelector(affinity.labelSelector);
    } catch {
      return false; // upstream: a selector that does not parse matches no cluster
    }
    if (!matches(selector, cluster.metadata.labels)) return false;
  }
  for (const r of affinity.fieldSelector?.matchExpressions ?? []) {
    if (!wellFormed(r)) return false;
    const ok =
      r.key === "zone"
        ? zonesHold(r, clusterZones(cluster))
        : requirementMatches(
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
