/**
 * Scheduler core throughput: bindings scheduled per second against 100 clusters spread over
 * regions, zones and providers with filled resource summaries (some with resource models), for
 * the placements that cost the most: Divided by dynamic weight under region and cluster spread
 * constraints, under a cluster constraint alone, Duplicated, and static weights. Every binding
 * is a fresh object (its request is parsed again, as a new informer object would be); the
 * clusters are the same objects throughout, as an informer cache keeps them.
 */
import type { BindingSpec, ClusterObject, Placement } from "../src/karmada/types.ts";
import { schedule } from "../src/scheduler/core/schedule.ts";

/** The goal for the scheduler core with 100 clusters: every scenario at least this many bindings/s. */
export const SCHEDULER_GOAL_PER_SECOND = 2000;
const CLUSTERS = 100;
const REGIONS = ["us-east", "us-west", "eu-central", "eu-west", "ap-south"];
const PROVIDERS = ["aws", "gcp", "azure"];

function fleet(): ClusterObject[] {
  return Array.from({ length: CLUSTERS }, (_, i) => {
    const region = REGIONS[i % REGIONS.length]!;
    const cpu = 16 + (i % 7) * 8;
    const c: ClusterObject = {
      apiVersion: "cluster.karmada.io/v1alpha1",
      kind: "Cluster",
      metadata: {
        name: `member${String(i).padStart(3, "0")}`,
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

interface Scenario {
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

const SCENARIOS: Scenario[] = [
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
          staticWeightList: REGIONS.map((r, w) => ({
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

function bindingSpec(scenario: Scenario, i: number): BindingSpec {
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

export async function benchScheduler(): Promise<Array<{ name: string; value: number; unit: string }>> {
  const clusters = fleet();
  const rows: Array<{ name: string; value: number; unit: string }> = [];
  for (const scenario of SCENARIOS) {
    rate(scenario, clusters, 300); // warm up
    // Best of three, like the other benchmarks report.
    let best = 0;
    for (let round = 0; round < 3; round++) best = Math.max(best, rate(scenario, clusters, 2000));
    rows.push({
      name: `schedule, ${CLUSTERS} clusters: ${scenario.name}`,
      value: Math.round(best),
      unit: "bindings/s",
    });
    await Promise.resolve();
  }
  return rows;
}
