/** Builders for the scheduler core's tests: Clusters, binding specs and ranked cluster details. */
import type {
  BindingSpec,
  ClusterObject,
  ClusterSpec,
  ClusterStatus,
  Placement,
  ReplicaSchedulingStrategy,
} from "../../src/karmada/types.ts";
import type { ClusterDetail } from "../../src/scheduler/core/spread.ts";

export interface ClusterOptions extends ClusterSpec {
  labels?: Record<string, string>;
  deleting?: boolean;
  /** The status as given (no API enablements are added). */
  status?: ClusterStatus;
  /** Shorthand for a resourceSummary with only these allocatable pods. */
  pods?: number;
}

/** What every test cluster serves unless `status` says otherwise: Deployments and ConfigMaps. */
export const SERVED_APIS: NonNullable<ClusterStatus["apiEnablements"]> = [
  { groupVersion: "apps/v1", resources: [{ name: "deployments", kind: "Deployment" }] },
  { groupVersion: "v1", resources: [{ name: "configmaps", kind: "ConfigMap" }] },
];

export function cluster(name: string, options: ClusterOptions = {}): ClusterObject {
  const { labels, deleting, status, pods, ...spec } = options;
  const metadata: ClusterObject["metadata"] = { name, uid: `uid-${name}` };
  if (labels) metadata.labels = labels;
  if (deleting) metadata.deletionTimestamp = "2026-01-01T00:00:00Z";
  const out: ClusterObject = { apiVersion: "cluster.karmada.io/v1alpha1", kind: "Cluster", metadata, spec };
  if (status) out.status = status;
  else if (pods !== undefined) {
    out.status = { apiEnablements: SERVED_APIS, resourceSummary: { allocatable: { pods: String(pods) } } };
  } else out.status = { apiEnablements: SERVED_APIS };
  return out;
}

export function spec(fields: Partial<BindingSpec> = {}): BindingSpec {
  return {
    resource: { apiVersion: "apps/v1", kind: "Deployment", namespace: "default", name: "nginx" },
    placement: {},
    ...fields,
  };
}

export const duplicated: ReplicaSchedulingStrategy = { replicaSchedulingType: "Duplicated" };
export const aggregated: ReplicaSchedulingStrategy = {
  replicaSchedulingType: "Divided",
  replicaDivisionPreference: "Aggregated",
};
export const dynamicWeight: ReplicaSchedulingStrategy = {
  replicaSchedulingType: "Divided",
  replicaDivisionPreference: "Weighted",
  weightPreference: { dynamicWeight: "AvailableReplicas" },
};
export const equalWeights: ReplicaSchedulingStrategy = {
  replicaSchedulingType: "Divided",
  replicaDivisionPreference: "Weighted",
};

/** `Divided`/`Weighted` with `staticWeightList` naming one cluster per entry. */
export function staticWeights(weights: Record<string, number>): ReplicaSchedulingStrategy {
  return {
    replicaSchedulingType: "Divided",
    replicaDivisionPreference: "Weighted",
    weightPreference: {
      staticWeightList: Object.entries(weights).map(([name, weight]) => ({
        targetCluster: { clusterNames: [name] },
        weight,
      })),
    },
  };
}

export function placement(replicaScheduling?: ReplicaSchedulingStrategy, rest: Placement = {}): Placement {
  return replicaScheduling ? { ...rest, replicaScheduling } : rest;
}

/** A ranked cluster as selection/assignment see it; available defaults to allocatable. */
export function detail(
  name: string,
  fields: Partial<Omit<ClusterDetail, "name">> & { region?: string } = {},
): ClusterDetail {
  const { region, ...rest } = fields;
  const allocatable = rest.allocatable ?? 0;
  return {
    name,
    cluster: cluster(name, region ? { region } : {}),
    score: 0,
    overflowOrder: 0,
    allocatable,
    available: allocatable,
    ...rest,
  };
}

/** `{name: replicas}` of a result, for compact expectations. */
export function replicasOf(
  clusters: ReadonlyArray<{ name: string; replicas?: number }>,
): Record<string, number> {
  return Object.fromEntries(clusters.map((c) => [c.name, c.replicas ?? 0]));
}
