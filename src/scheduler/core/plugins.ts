/**
 * The in-tree filter and score plugins, and the registry: the order filters run in (upstream
 * iterates a Go map, so its order is unspecified; ours is the registry's) and the scores that
 * are summed. A filter returns upstream's reason when it rejects a cluster.
 */
import type { BindingSpec, ClusterAffinity, ClusterObject, Placement } from "../../karmada/types.ts";
import { findUntoleratedTaint, taintToString } from "../../machinery/tolerations.ts";
import { clusterZones } from "../../policy/cluster-affinity.ts";
import { affinityMatcher, observedTerm } from "./affinity.ts";
import { isWorkload, targetNames } from "./binding.ts";
import type { BindingSchedulingStatus, FilterPluginName, ScorePluginName } from "./types.ts";

/** What every plugin may read, built once per scheduling run. */
export interface PluginContext {
  spec: BindingSpec;
  placement: Placement;
  status: BindingSchedulingStatus;
  /** Names in `spec.clusters`. */
  targets: ReadonlySet<string>;
  /** The affinities a cluster must match one of, parsed once per run; undefined = no restriction. */
  affinities: ReadonlyArray<(cluster: ClusterObject) => boolean> | undefined;
  /** Plugins turned off by `--plugins`. */
  disabled?: ReadonlySet<string>;
}

export interface FilterPlugin {
  name: FilterPluginName;
  /** undefined when the cluster fits, else upstream's reason. */
  filter(ctx: PluginContext, cluster: ClusterObject): string | undefined;
}

export interface ScorePlugin {
  name: ScorePluginName;
  score(ctx: PluginContext, cluster: ClusterObject): number;
}

export const MIN_CLUSTER_SCORE = 0;
export const MAX_CLUSTER_SCORE = 100;

export function pluginContext(
  spec: BindingSpec,
  placement: Placement,
  status: BindingSchedulingStatus,
  disabled?: ReadonlySet<string>,
): PluginContext {
  return {
    ...(disabled?.size ? { disabled } : {}),
    spec,
    placement,
    status,
    targets: targetNames(spec.clusters),
    affinities: affinitiesOf(spec, placement, status)?.map((a) => affinityMatcher(a)),
  };
}

/**
 * The single clusterAffinity, or the observed clusterAffinities term plus (for workloads
 * only: overflow is about compute capacity) its overflowAffinities.
 */
function affinitiesOf(
  spec: BindingSpec,
  placement: Placement,
  status: BindingSchedulingStatus,
): ClusterAffinity[] | undefined {
  if (placement.clusterAffinity) return [placement.clusterAffinity];
  const term = observedTerm(placement, status);
  if (!term) return undefined;
  return isWorkload(spec) ? [term, ...(term.overflowAffinities ?? [])] : [term];
}

/** The API of the bound resource must be served by the cluster; clusters already targeted stay. */
export const apiEnablement = {
  name: "APIEnablement",
  filter(ctx, cluster) {
    if (ctx.targets.has(cluster.metadata.name)) return undefined;
    const { apiVersion, kind } = ctx.spec.resource;
    // Not listed is "disabled" with a complete list and "unknown" with a partial one; both fail.
    return servesApi(cluster, apiVersion, kind) ? undefined : "cluster(s) did not have the API resource";
  },
} satisfies FilterPlugin;

/** Whether the cluster's reported API enablements list the kind. */
export function servesApi(cluster: ClusterObject, apiVersion: string, kind: string): boolean {
  return (cluster.status?.apiEnablements ?? []).some(
    (e) => e.groupVersion === apiVersion && (e.resources ?? []).some((r) => r.kind === kind),
  );
}

/** NoSchedule and NoExecute taints must be tolerated; clusters already targeted stay (eviction is the taint manager's). */
export const taintToleration = {
  name: "TaintToleration",
  filter(ctx, cluster) {
    if (ctx.targets.has(cluster.metadata.name)) return undefined;
    const taint = findUntoleratedTaint(
      cluster.spec?.taints,
      ctx.placement.clusterTolerations,
      (t) => t.effect === "NoSchedule" || t.effect === "NoExecute",
    );
    return taint ? `cluster(s) had untolerated taint {${taintToString(taint)}}` : undefined;
  },
} satisfies FilterPlugin;

export const clusterAffinityFilter = {
  name: "ClusterAffinity",
  filter(ctx, cluster) {
    if (!ctx.affinities) return undefined;
    return ctx.affinities.some((matches) => matches(cluster))
      ? undefined
      : "cluster(s) did not match the placement cluster affinity constraint";
  },
} satisfies FilterPlugin;

/** Spreading by provider, region or zone needs the cluster to declare it. */
export const spreadConstraintFilter = {
  name: "SpreadConstraint",
  filter(ctx, cluster) {
    for (const c of ctx.placement.spreadConstraints ?? []) {
      if (c.spreadByField === "provider" && !cluster.spec?.provider) {
        return "cluster(s) did not have provider property";
      }
      if (c.spreadByField === "region" && !cluster.spec?.region) {
        return "cluster(s) did not have region property";
      }
      if (c.spreadByField === "zone" && clusterZones(cluster).length === 0) {
        return "cluster(s) did not have zones property";
      }
    }
    return undefined;
  },
} satisfies FilterPlugin;

/** A cluster the binding is being evicted from is not a candidate. */
export const clusterEviction = {
  name: "ClusterEviction",
  filter(ctx, cluster) {
    const name = cluster.metadata.name;
    return (ctx.spec.gracefulEvictionTasks ?? []).some((t) => t.fromCluster === name)
      ? "cluster(s) is in the process of eviction"
      : undefined;
  },
} satisfies FilterPlugin;

/** Clusters that already run the binding score highest, so rescheduling moves little. */
export const clusterLocality = {
  name: "ClusterLocality",
  score(ctx, cluster) {
    return ctx.targets.has(cluster.metadata.name) ? MAX_CLUSTER_SCORE : MIN_CLUSTER_SCORE;
  },
} satisfies ScorePlugin;

/** Upstream registers ClusterAffinity as a score plugin too; it scores every cluster 0. */
export const clusterAffinityScore = {
  name: "ClusterAffinity",
  score() {
    return MIN_CLUSTER_SCORE;
  },
} satisfies ScorePlugin;

/** Upstream's in-tree registry (WorkloadAffinity/WorkloadAntiAffinity are gated off). */
export const FILTER_PLUGINS: readonly FilterPlugin[] = [
  apiEnablement,
  taintToleration,
  clusterAffinityFilter,
  spreadConstraintFilter,
  clusterEviction,
];

export const SCORE_PLUGINS: readonly ScorePlugin[] = [clusterLocality, clusterAffinityScore];
