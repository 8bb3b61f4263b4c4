/**
 * cluster.karmada.io/v1alpha1: Cluster.
 *
 * Upstream serves it from karmada-aggregated-apiserver, not as a CRD; this is the CRD shape
 * controller-gen would give `pkg/apis/cluster/v1alpha1`, with its validation markers. We serve
 * it natively.
 */

import { type CustomResourceDefinition, crd, described, type Schema, s, topLevel } from "../schema.ts";
import { condition, resourceList, taint } from "./kubernetes.ts";

export const CLUSTER_GROUP = "cluster.karmada.io";

/** LocalSecretReference */
export function localSecretReference(): Schema {
  return s.object(
    {
      namespace: s.string({ description: "The Secret's namespace." }),
      name: s.string({ description: "The Secret's name." }),
    },
    { required: ["name", "namespace"] },
  );
}

/** ResourceModelRange */
export function resourceModelRange(): Schema {
  return s.object(
    {
      name: s.string({ description: "The resource, e.g. cpu or memory." }),
      min: s.quantity({ description: "Lower bound, included." }),
      max: s.quantity({ description: "Upper bound, excluded." }),
    },
    { required: ["max", "min", "name"] },
  );
}

/** ResourceModel */
export function resourceModel(): Schema {
  return s.object(
    {
      grade: s.integer({ description: "Index of this model; higher grades hold bigger nodes." }),
      ranges: s.array(resourceModelRange(), { description: "The resource ranges a node of this grade has." }),
    },
    { required: ["grade", "ranges"] },
  );
}

/** ClusterSpec */
export function clusterSpec(): Schema {
  return s.object(
    {
      id: s.string({
        maxLength: 128000,
        description: "Unique id of the member cluster, set at registration.",
      }),
      syncMode: s.enum(["Push", "Pull"], {
        description: "Push: the control plane applies to the member; Pull: an agent in the member pulls.",
      }),
      apiEndpoint: s.string({ description: "URL of the member cluster's API server." }),
      secretRef: described(localSecretReference(), "Secret holding the token and CA bundle for the member."),
      impersonatorSecretRef: described(localSecretReference(), "Secret holding the impersonator's token."),
      insecureSkipTLSVerification: s.boolean({
        description: "Do not verify the member's serving certificate.",
      }),
      proxyURL: s.string({ description: "Proxy to reach the member through." }),
      proxyHeader: s.map(s.string(), { description: "HTTP headers sent to the proxy." }),
      provider: s.string({ description: "Cloud provider of the member." }),
      region: s.string({ description: "Region the member runs in." }),
      zone: s.string({ description: "Deprecated: use zones." }),
      zones: s.array(s.string(), { description: "Failure zones the member spans." }),
      taints: s.array(taint(), { description: "Taints that keep workloads away unless tolerated." }),
      resourceModels: s.array(resourceModel(), {
        description: "Node size grades used to estimate how many replicas fit.",
      }),
    },
    { required: ["syncMode"] },
  );
}

/** APIResource */
export function apiResource(): Schema {
  return s.object({ name: s.string(), kind: s.string() }, { required: ["kind", "name"] });
}

/** APIEnablement */
export function apiEnablement(): Schema {
  return s.object(
    { groupVersion: s.string(), resources: s.array(apiResource()) },
    { required: ["groupVersion"] },
  );
}

/** NodeSummary */
export function nodeSummary(): Schema {
  return s.object({ totalNum: s.int32(), readyNum: s.int32() });
}

/** AllocatableModeling */
export function allocatableModeling(): Schema {
  return s.object({ grade: s.integer(), count: s.integer() }, { required: ["count", "grade"] });
}

/** ResourceSummary */
export function resourceSummary(): Schema {
  return s.object({
    allocatable: described(resourceList(), "Allocatable resources of all nodes."),
    allocating: described(resourceList(), "Requests of pods waiting to be scheduled."),
    allocated: described(resourceList(), "Requests of pods scheduled to nodes."),
    allocatableModelings: s.array(allocatableModeling(), {
      description: "Number of nodes per resource-model grade.",
    }),
  });
}

/** ClusterStatus */
export function clusterStatus(): Schema {
  return s.object({
    kubernetesVersion: s.string({ description: "Kubernetes version of the member." }),
    apiEnablements: s.array(apiEnablement(), { description: "The APIs the member serves." }),
    conditions: s.array(condition(), { description: "Ready and CompleteAPIEnablements conditions." }),
    nodeSummary: described(nodeSummary(), "Node counts of the member."),
    resourceSummary: described(resourceSummary(), "Resource totals of the member."),
    remedyActions: s.array(s.string(), { description: "Remedy actions in effect for the member." }),
  });
}

export const clusterCrd: CustomResourceDefinition = crd({
  group: CLUSTER_GROUP,
  names: { kind: "Cluster", listKind: "ClusterList", plural: "clusters", singular: "cluster" },
  scope: "Cluster",
  versions: [
    {
      name: "v1alpha1",
      served: true,
      storage: true,
      schema: {
        openAPIV3Schema: topLevel(
          {
            spec: described(clusterSpec(), "How to reach the member cluster and what it offers."),
            status: described(clusterStatus(), "Health, version, APIs and resources of the member cluster."),
          },
          { description: "A member cluster that Karmada propagates resources to.", required: ["spec"] },
        ),
      },
      subresources: { status: {} },
      // The columns of upstream's table convertor (pkg/printers/internalversion); the server adds Name.
      additionalPrinterColumns: [
        { name: "Version", type: "string", jsonPath: ".status.kubernetesVersion" },
        { name: "Mode", type: "string", jsonPath: ".spec.syncMode" },
        { name: "Ready", type: "string", jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
        { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
        { name: "Zones", type: "string", jsonPath: ".spec.zones", priority: 1 },
        { name: "Region", type: "string", jsonPath: ".spec.region", priority: 1 },
        { name: "Provider", type: "string", jsonPath: ".spec.provider", priority: 1 },
        { name: "API-Endpoint", type: "string", jsonPath: ".spec.apiEndpoint", priority: 1 },
        { name: "Proxy-URL", type: "string", jsonPath: ".spec.proxyURL", priority: 1 },
      ],
    },
  ],
});
