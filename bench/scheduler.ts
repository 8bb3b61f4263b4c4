/**
 * Scheduler core throughput: bindings scheduled per second against a fleet of N clusters spread
 * over regions, zones and providers with filled resource summaries (some with resource models),
 * for the placements that cost the most: Divided by dynamic weight under region and cluster
 * spread constraints, under a cluster constraint alone, Duplicated, and static weights. Every
 * binding is a fresh object (its request is parsed again, as a new informer object would be);
 * the clusters are the same objects throughout, as an informer cache keeps them.
 */
import type { BindingSpec, ClusterObject, Placement } from "../src/karmada/types.ts";
import { schedule } from "../src/scheduler/core/schedule.ts";

/** The goal for the scheduler core with 100 clusters: every scenario at least this many bindings/s. */
export const SCHEDULER_GOAL_PER_SECOND = 2000;
/** The fleet size the goal is stated for. */
export const SCHEDULER_GOAL_CLUSTERS = 100;
const BASE_REGIONS = ["us-east", "us-west", "eu-central", "eu-west", "ap-south"];
const PROVIDERS = ["aws", "gcp", "azure"];
/** Clusters per region a larger fleet aims for; 5 regions at least, 20 at most (region spread combines them). */
const CLUSTERS_PER_REGION = 50;
const MAX_REGIONS = 20;

/**
 * The regions of an N-cluster fleet: the 5 base regions up to 250 clusters (so 100 clusters
 * is the fleet the goal was set on), then one per 50 clusters up to 20, numbered per base.
 */
export function fleetRegions(clusters: number): string[] {
  const count = Math.min(
    MAX_REGIONS,
    Math.max(BASE_REGIONS.length, Math.round(clusters / CLUSTERS_PER_REGION)),
  );
  return Array.from({ length: count }, (_, i) => {
    const base = BASE_REGIONS[i % BASE_REGIONS.length]!;
    const n = Math.floor(i / BASE_REGIONS.length);
    return n === 0 ? base : `${base}-${n + 1}`;
  });
}

/**
 * N clusters in the same proportions whatever N: regions round-robin, 3 zones per region,
 * 3 providers, a quarter labelled edge, 1 in 25 tainted not-ready, 1 in 10 with resource models.
 */
export function fleet(count: number): ClusterObject[] {
  const regions = fleetRegions(count);
  const digits = Math.max(3, String(count - 1).length);
  return Array.from({ length: count }, (_, i) => {
    const region = regions[i % regions.length]!;
    const cpu = 16 + (i % 7) * 8;
    const c: ClusterObject = {
      apiVersion: "cluster.karmada.io/v1alpha1",
      kind: "Cluster",
      metadata: {
        name: `member${String(i).padStart(digits, "0")}`,
        uid: `uid-${i}`,
        labels: { tier: i % 4 === 0 ? "edge" : "core" },
      },
      spec: {
        provider: PROVIDERS[i % PROVIDERS.length]!,
        region,
        zones: [`${region}-${(i % 3) + 1}`],
        taints: i % 25 === 0 ? [{ key: "cluster.karmada.io/not-ready", effect: "NoSchedule" }] : [],
      },
      status: {
        apiEnablements: [
          { groupVersion: "apps/v1", resources: [{ name: "deployments", kind: "Deployment" }] },
        ],
        conditions: [{ type: "Ready", status: "True" }],
        resourceSummary: {
          allocatable: { cpu: String(cpu), memory: `${cpu * 4}Gi`, pods: "1100" },
          allocated: { cpu: `${(i % 5) * 1500}m`, memory: `${(i % 5) * 3}Gi`, pods: String((i % 5) * 20) },
          allocating: { cpu: "250m", memory: "512Mi", pods: "2" },
        },
      },
    };
    if (i % 10 === 0) {
      c.spec!.resourceModels = [
        {
          grade: 0,
          ranges: [
            { name: "cpu", min: "0", max: "4" },
            { name: "memory", min: "0", max: "16Gi" },
          ],
        },
        {
          grade: 1,
          ranges: [
            { name: "cpu", min: "4", max: "16" },
            { name: "memory", min: "16Gi", max: "64Gi" },
          ],
        },
      ];
      c.status!.resourceSummary!.allocatableModelings = [
        { grade: 0, count: 2 },
        { grade: 1, count: 3 },
      ];
    }
    return c;
  });
}

export interface Scenario {
  name: string;
  placement: Placement;
  /** Replicas of binding i (varied so results differ). */
  replicas: (i: number) => number;
}

const dynamic = {
  replicaSchedulingType: "Divided",
  replicaDivisionPreference: "Weighted",
  weightPreference: { dynamicWeight: "AvailableReplicas" },
} as const;

/** The placements measured; static weights name every region of the fleet (one rule each). */
export function scenarios(regions: readonly string[]): Scenario[] {
  return [
    {
      name: "Divided dynamic weight, spread by region (2-3) and cluster (4-12)",
      placement: {
        clusterAffinity: { labelSelector: { matchLabels: { tier: "core" } } },
        spreadConstraints: [
          { spreadByField: "region", minGroups: 2, maxGroups: 3 },
          { spreadByField: "cluster", minGroups: 4, maxGroups: 12 },
        ],
        replicaScheduling: dynamic,
      },
      replicas: (i) => 10 + (i % 40),
    },
    {
      name: "Divided dynamic weight, spread by cluster (3-10)",
      placement: {
        spreadConstraints: [{ spreadByField: "cluster", minGroups: 3, maxGroups: 10 }],
        replicaScheduling: dynamic,
      },
      replicas: (i) => 10 + (i % 40),
    },
    {
      name: "Duplicated, all clusters",
      placement: { replicaScheduling: { replicaSchedulingType: "Duplicated" } },
      replicas: (i) => 1 + (i % 5),
    },
    {
      name: "Divided static weights by region",
      placement: {
        replicaScheduling: {
          replicaSchedulingType: "Divided",
          replicaDivisionPreference: "Weighted",
          weightPreference: {
            staticWeightList: regions.map((r, w) => ({
              targetCluster: {
                fieldSelector: { matchExpressions: [{ key: "region", operator: "In", values: [r] }] },
              },
              weight: w + 1,
            })),
          },
        },
      },
      replicas: (i) => 20 + (i % 80),
    },
  ];
}

export function bindingSpec(scenario: Scenario, i: number): BindingSpec {
  return {
    resource: {
      apiVersion: "apps/v1",
      kind: "Deployment",
      namespace: "bench",
      name: `app-${i}`,
      uid: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
    },
    replicas: scenario.replicas(i),
    replicaRequirements: {
      resourceRequest: { cpu: `${100 + (i % 4) * 100}m`, memory: `${128 * (1 + (i % 3))}Mi` },
    },
    placement: structuredClone(scenario.placement),
  };
}

function rate(scenario: Scenario, clusters: ClusterObject[], count: number): number {
  const specs = Array.from({ length: count }, (_, i) => bindingSpec(scenario, i));
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    schedule({ binding: { namespace: "bench", name: `app-${i}`, spec: specs[i]! }, clusters });
  }
  return count / ((performance.now() - started) / 1000);
}

/** One scenario at one fleet size. */
export interface SchedulerFigure {
  scenario: string;
  clusters: number;
  /** Regions of that fleet (static weights have one rule per region). */
  regions: number;
  bindingsPerSecond: number;
}

/**
 * Bindings per round: 2,000 at 100 clusters, fewer for larger fleets so a round takes about as
 * long whatever the fleet (the cost of a binding grows with the clusters it weighs).
 */
export const bindingsPerRound = (clusters: number): number => Math.max(100, Math.round(200_000 / clusters));

/** Every scenario at every fleet size in `clusterCounts`, best of three rounds after a warm-up. */
export async function benchScheduler(clusterCounts: readonly number[]): Promise<SchedulerFigure[]> {
  const figures: SchedulerFigure[] = [];
  for (const count of clusterCounts) {
    const clusters = fleet(count);
    const perRound = bindingsPerRound(count);
    const regions = fleetRegions(count);
    for (const scenario of scenarios(regions)) {
      rate(scenario, clusters, Math.ceil(perRound * 0.15)); // warm up
      // Best of three, like the other benchmarks report.
      let best = 0;
      for (let round = 0; round < 3; round++) best = Math.max(best, rate(scenario, clusters, perRound));
      figures.push({
        scenario: scenario.name,
        clusters: count,
        regions: regions.length,
        bindingsPerSecond: best,
      });
      await Promise.resolve();
    }
  }
  return figures;
}
