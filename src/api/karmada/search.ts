/**
 * search.karmada.io/v1alpha1: ResourceRegistry.
 *
 * Upstream serves it from karmada-search, not as a CRD; this is the CRD shape controller-gen
 * would give `pkg/apis/search/v1alpha1`. We serve it natively.
 */

import { type CustomResourceDefinition, crd, described, type Schema, s, topLevel } from "../schema.ts";
import { localSecretReference } from "./cluster.ts";
import { condition } from "./kubernetes.ts";
import { clusterAffinity } from "./policy.ts";

export const SEARCH_GROUP = "search.karmada.io";

/** ResourceSelector (search's own: no name or labels) */
export function searchResourceSelector(): Schema {
  return s.object(
    {
      apiVersion: s.string({ description: "apiVersion of the resources to cache." }),
      kind: s.string({ description: "Kind of the resources to cache." }),
      namespace: s.string({ description: "Namespace to cache; empty caches every namespace." }),
    },
    { required: ["apiVersion", "kind"] },
  );
}

/** OpenSearchConfig */
export function openSearchConfig(): Schema {
  return s.object(
    {
      addresses: s.array(s.string(), { description: "OpenSearch node endpoints." }),
      secretRef: described(localSecretReference(), "Secret holding the OpenSearch credentials."),
    },
    { required: ["addresses", "secretRef"] },
  );
}

/** BackendStoreConfig */
export function backendStoreConfig(): Schema {
  return s.object({ openSearch: openSearchConfig() });
}

/** ResourceRegistrySpec */
export function resourceRegistrySpec(): Schema {
  return s.object(
    {
      targetCluster: described(clusterAffinity(), "The clusters to cache resources from."),
      resourceSelectors: s.array(searchResourceSelector(), {
        description: "The kinds of resources to cache.",
      }),
      backendStore: described(backendStoreConfig(), "Where to store the cache; in memory when empty."),
    },
    { required: ["resourceSelectors", "targetCluster"] },
  );
}

/** ResourceRegistryStatus */
export function resourceRegistryStatus(): Schema {
  return s.object({ conditions: s.array(condition()) });
}

export const resourceRegistryCrd: CustomResourceDefinition = crd({
  group: SEARCH_GROUP,
  names: {
    kind: "ResourceRegistry",
    listKind: "ResourceRegistryList",
    plural: "resourceregistries",
    singular: "resourceregistry",
  },
  scope: "Cluster",
  versions: [
    {
      name: "v1alpha1",
      served: true,
      storage: true,
      schema: {
        openAPIV3Schema: topLevel(
          {
            spec: described(resourceRegistrySpec(), "Which resources of which clusters to cache."),
            status: described(resourceRegistryStatus(), "Conditions of the cache."),
          },
          { description: "Selects member-cluster resources for karmada-search to cache." },
        ),
      },
      // karmada-search serves resourceregistries/status.
      subresources: { status: {} },
    },
  ],
});
