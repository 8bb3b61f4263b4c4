/** networking.karmada.io/v1alpha1: MultiClusterIngress and MultiClusterService. */

import { type CustomResourceDefinition, crd, described, type Schema, s, topLevel } from "../schema.ts";
import { ingressSpec, ingressStatusProperties, serviceStatus } from "./kubernetes.ts";

export const NETWORKING_GROUP = "networking.karmada.io";

// ---- MultiClusterIngress -------------------------------------------------------------------

/** ServiceLocation */
export function serviceLocation(): Schema {
  return s.object({ name: s.string(), clusters: s.array(s.string()) }, { required: ["name"] });
}

/** MultiClusterIngressStatus: the Ingress status plus where the backends run. */
export function multiClusterIngressStatus(): Schema {
  return s.object({
    ...ingressStatusProperties(),
    trafficBlockClusters: s.array(s.string(), { description: "Clusters that must receive no traffic." }),
    serviceLocations: s.array(serviceLocation(), {
      description: "The clusters each backend Service runs in.",
    }),
  });
}

export const multiClusterIngressCrd: CustomResourceDefinition = crd({
  group: NETWORKING_GROUP,
  names: {
    kind: "MultiClusterIngress",
    listKind: "MultiClusterIngressList",
    plural: "multiclusteringresses",
    singular: "multiclusteringress",
    shortNames: ["mci"],
    categories: ["karmada-io"],
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
            spec: described(ingressSpec(), "An Ingress spec whose backends may run in any cluster."),
            status: described(multiClusterIngressStatus(), "Load balancer status and backend locations."),
          },
          { description: "An Ingress that routes to Services across member clusters." },
        ),
      },
      subresources: { status: {} },
    },
  ],
});

// ---- MultiClusterService -------------------------------------------------------------------

/** ExposurePort */
export function exposurePort(): Schema {
  return s.object({ name: s.string(), port: s.int32() }, { required: ["port"] });
}

/** ExposureRange */
export function exposureRange(): Schema {
  return s.object({ clusterNames: s.array(s.string()) });
}

/** ClusterSelector */
export function clusterSelector(): Schema {
  return s.object({ name: s.string() }, { required: ["name"] });
}

/** MultiClusterServiceSpec */
export function multiClusterServiceSpec(): Schema {
  return s.object(
    {
      types: s.array(s.string(), {
        description: "How the Service is exposed: CrossCluster or LoadBalancer.",
      }),
      ports: s.array(exposurePort(), { description: "The ports to expose." }),
      range: exposureRange(),
      serviceProvisionClusters: s.array(s.string()),
      serviceConsumptionClusters: s.array(s.string()),
      providerClusters: s.array(clusterSelector(), { description: "Clusters that run the Service's pods." }),
      consumerClusters: s.array(clusterSelector(), {
        description: "Clusters whose clients reach the Service.",
      }),
    },
    { required: ["types"] },
  );
}

export const multiClusterServiceCrd: CustomResourceDefinition = crd({
  group: NETWORKING_GROUP,
  names: {
    kind: "MultiClusterService",
    listKind: "MultiClusterServiceList",
    plural: "multiclusterservices",
    singular: "multiclusterservice",
    shortNames: ["mcs"],
    categories: ["karmada-io"],
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
            spec: described(
              multiClusterServiceSpec(),
              "How and between which clusters to expose the Service.",
            ),
            status: described(serviceStatus(), "The Service status."),
          },
          { description: "Exposes a Service of the same name across member clusters.", required: ["spec"] },
        ),
      },
      subresources: { status: {} },
    },
  ],
});
