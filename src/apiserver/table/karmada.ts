/**
 * Karmada kinds whose tables upstream's karmada-apiserver prints with Go code rather than CRD
 * printer columns (pkg/printers/internalversion): so far the Cluster.
 */

import { AGE_COLUMN, ageOf, column, NAME_COLUMN, nameOf } from "./cells.ts";
import { at, str } from "./read.ts";
import type { KindPrinter } from "./types.ts";

const orNone = (s: string): string => (s === "" ? "<none>" : s);

export const clusterPrinter: KindPrinter = {
  columns: [
    NAME_COLUMN,
    column("Version", "string", "KubernetesVersion represents version of the member cluster."),
    column("Mode", "string", "SyncMode describes how a cluster sync resources from karmada control plane."),
    column("Ready", "string", "The aggregate readiness state of this cluster for accepting workloads."),
    AGE_COLUMN,
    column(
      "Zones",
      "string",
      "Zones represents the failure zones(also called availability zones) of the member cluster. The zones are presented as a slice to support the case that cluster runs across multiple failure zones.",
      { priority: 1 },
    ),
    column("Region", "string", "Region represents the region of the member cluster locate in.", {
      priority: 1,
    }),
    column("Provider", "string", "Provider represents the cloud provider name of the member cluster.", {
      priority: 1,
    }),
    column("API-Endpoint", "string", "The API endpoint of the member cluster.", { priority: 1 }),
    column("Proxy-URL", "string", "ProxyURL is the proxy URL for the cluster.", { priority: 1 }),
  ],
  row(cluster, now) {
    const conditions = at(cluster, "status", "conditions");
    const ready = Array.isArray(conditions) ? conditions.find((c) => str(c, "type") === "Ready") : undefined;
    const zones = at(cluster, "spec", "zones");
    return [
      nameOf(cluster),
      str(cluster, "status", "kubernetesVersion"),
      str(cluster, "spec", "syncMode"),
      ready === undefined ? "Unknown" : str(ready, "status"),
      ageOf(cluster, now),
      Array.isArray(zones) && zones.length > 0 ? zones.join(",") : "<none>",
      orNone(str(cluster, "spec", "region")),
      orNone(str(cluster, "spec", "provider")),
      str(cluster, "spec", "apiEndpoint"),
      orNone(str(cluster, "spec", "proxyURL")),
    ];
  },
};
