/**
 * multicluster.x-k8s.io/v1alpha1: ServiceExport and ServiceImport, the Multi-Cluster Services API
 * that Karmada ships as CRDs. Their upstream CRDs are written by hand rather than generated.
 */

import { type CustomResourceDefinition, crd, described, type Schema, s, topLevel } from "../schema.ts";
import { conditionMap, sessionAffinityConfig } from "./kubernetes.ts";

export const MULTICLUSTER_GROUP = "multicluster.x-k8s.io";

// ---- ServiceExport -------------------------------------------------------------------------

/** ServiceExportStatus */
export function serviceExportStatus(): Schema {
  return s.object({ conditions: conditionMap() });
}

export const serviceExportCrd: CustomResourceDefinition = crd({
  group: MULTICLUSTER_GROUP,
  names: {
    kind: "ServiceExport",
    // Upstream leaves listKind out; the API server defaults it to this.
    listKind: "ServiceExportList",
    plural: "serviceexports",
    singular: "serviceexport",
    shortNames: ["svcex"],
  },
  scope: "Namespaced",
  versions: [
    {
      name: "v1alpha1",
      served: true,
      storage: true,
      schema: {
        openAPIV3Schema: topLevel(
          { status: described(serviceExportStatus(), "Whether the export took effect.") },
          { description: "Marks the Service of the same name for export to the cluster set." },
        ),
      },
      subresources: { status: {} },
      additionalPrinterColumns: [{ name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" }],
    },
  ],
});

// ---- ServiceImport -------------------------------------------------------------------------

/** ServicePort */
export function servicePort(): Schema {
  return s.object(
    { name: s.string(), protocol: s.string(), appProtocol: s.string(), port: s.int32() },
    { required: ["port"] },
  );
}

/** ServiceImportSpec */
export function serviceImportSpec(): Schema {
  return s.object(
    {
      ports: s.array(servicePort(), { "x-kubernetes-list-type": "atomic" }),
      ips: s.array(s.string(), { maxItems: 1, description: "The cluster-set IP, if any." }),
      type: s.enum(["ClusterSetIP", "Headless"], { description: "How the imported Service is reached." }),
      sessionAffinity: s.string(),
      sessionAffinityConfig: sessionAffinityConfig(),
    },
    { required: ["ports", "type"] },
  );
}

/** ClusterStatus */
export function serviceImportClusterStatus(): Schema {
  return s.object({ cluster: s.string() }, { required: ["cluster"] });
}

/** ServiceImportStatus */
export function serviceImportStatus(): Schema {
  return s.object({
    clusters: s.array(serviceImportClusterStatus(), {
      "x-kubernetes-list-map-keys": ["cluster"],
      "x-kubernetes-list-type": "map",
      description: "The clusters that export the Service.",
    }),
  });
}

export const serviceImportCrd: CustomResourceDefinition = crd({
  group: MULTICLUSTER_GROUP,
  names: {
    kind: "ServiceImport",
    // Upstream leaves listKind out; the API server defaults it to this.
    listKind: "ServiceImportList",
    plural: "serviceimports",
    singular: "serviceimport",
    shortNames: ["svcim"],
  },
  scope: "Namespaced",
  versions: [
    {
      name: "v1alpha1",
      served: true,
      storage: true,
      schema: {
        openAPIV3Schema: topLevel(
          {
            spec: described(serviceImportSpec(), "The ports and address type of the imported Service."),
            status: described(serviceImportStatus(), "Where the Service is exported from."),
          },
          { description: "A Service imported from the clusters that export it." },
        ),
      },
      subresources: { status: {} },
      additionalPrinterColumns: [
        { name: "Type", type: "string", jsonPath: ".spec.type" },
        { name: "IP", type: "string", jsonPath: ".spec.ips" },
        { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
      ],
    },
  ],
});
