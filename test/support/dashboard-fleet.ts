/**
 * A large fleet as the dashboard sees it, written straight into a control plane without
 * controllers (what is written stays): `clusters` Ready clusters over 5 regions and 3 zones
 * each, with varied capacity use, and `workloads` ResourceBindings in one namespace, each
 * scheduled on 2 clusters (workload i on clusters i and i + n/2, modulo n) and reported healthy.
 */
import type { Client } from "../../src/client/client.ts";
import { RESOURCES } from "../../src/client/client.ts";
import { KARMADA } from "../../src/karmada/resources.ts";

async function pool(n: number, concurrency: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, n) }, async () => {
      while (next < n) await fn(next++);
    }),
  );
}

export const clusterName = (i: number): string => `cluster-${String(i).padStart(3, "0")}`;
export const workloadName = (i: number): string => `app-${String(i).padStart(4, "0")}`;

export async function seedFleet(
  client: Pick<Client, "create" | "updateStatus">,
  opts: { clusters: number; workloads: number; namespace: string },
): Promise<void> {
  const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  await pool(opts.clusters, 16, async (i) => {
    const region = i % 5;
    const created = await client.create(RESOURCES.clusters, {
      apiVersion: "cluster.karmada.io/v1alpha1",
      kind: "Cluster",
      metadata: { name: clusterName(i) },
      spec: {
        syncMode: i % 4 === 3 ? "Pull" : "Push",
        apiEndpoint: `https://${clusterName(i)}.example.invalid:6443`,
        region: `region-${region}`,
        zones: [`region-${region}-${"abc"[Math.floor(i / 5) % 3]}`],
        provider: "example",
      },
    });
    await client.updateStatus(RESOURCES.clusters, {
      ...created,
      status: {
        kubernetesVersion: "v1.32.0",
        conditions: [
          {
            type: "Ready",
            status: "True",
            reason: "ClusterReady",
            message: "cluster is healthy and ready to accept workloads",
            lastTransitionTime: now,
          },
        ],
        nodeSummary: { totalNum: 3, readyNum: 3 },
        resourceSummary: {
          allocatable: { cpu: "64", memory: "256Gi", pods: "330" },
          allocated: {
            cpu: String((i * 7) % 60),
            memory: `${(i * 13) % 240}Gi`,
            pods: String((i * 11) % 300),
          },
        },
      },
    });
  });
  await client.create(RESOURCES.namespaces, {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: opts.namespace },
  });
  const half = Math.max(1, Math.floor(opts.clusters / 2));
  await pool(opts.workloads, 32, async (i) => {
    const placed = [clusterName(i % opts.clusters), clusterName((i + half) % opts.clusters)];
    const created = await client.create(KARMADA.resourceBindings, {
      apiVersion: "work.karmada.io/v1alpha2",
      kind: "ResourceBinding",
      metadata: {
        name: `${workloadName(i)}-deployment`,
        namespace: opts.namespace,
        annotations: {
          "propagationpolicy.karmada.io/name": "shop-policy",
          "propagationpolicy.karmada.io/namespace": opts.namespace,
        },
      },
      spec: {
        resource: {
          apiVersion: "apps/v1",
          kind: "Deployment",
          namespace: opts.namespace,
          name: workloadName(i),
        },
        replicas: 2,
        clusters: placed.map((name) => ({ name, replicas: 1 })),
      },
    });
    await client.updateStatus(KARMADA.resourceBindings, {
      ...created,
      status: {
        conditions: [
          {
            type: "Scheduled",
            status: "True",
            reason: "Success",
            message: "Binding has been scheduled successfully.",
            lastTransitionTime: now,
          },
          {
            type: "FullyApplied",
            status: "True",
            reason: "FullyAppliedSuccess",
            message: "All works have been successfully applied",
            lastTransitionTime: now,
          },
        ],
        aggregatedStatus: placed.map((clusterName) => ({
          clusterName,
          applied: true,
          health: "Healthy",
          status: { replicas: 1, readyReplicas: 1, availableReplicas: 1 },
        })),
      },
    });
  });
}
