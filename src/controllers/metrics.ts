/**
 * The controller manager's and the agent's own metrics, with upstream's names and labels
 * (karmada `pkg/metrics`): policy matching and application by the detector, work syncing by the
 * binding controller, workload syncing and member writes by the execution controller, cluster
 * state and resources by cluster status, and the taint manager's eviction queue. Histograms use
 * upstream's buckets: exponential from 1 ms, doubling, 12 buckets (15 for eviction latency).
 */
import type { StoredObject } from "../api/meta.ts";
import {
  counter,
  exponentialBuckets,
  gauge,
  histogram,
  type Registry,
  resultOf,
} from "../metrics/registry.ts";

const SYNC_BUCKETS = exponentialBuckets(0.001, 2, 12);
const MEMBER = "member_cluster";

export interface ClusterFigures {
  ready: boolean;
  nodes?: { total: number; ready: number };
  allocatable?: { cpu: number; memory: number; pods: number };
  allocated?: { cpu: number; memory: number; pods: number };
}

/** What the controllers record; each call is one observation. */
export interface KarmadaMetrics {
  /** The detector looked for the policy of a template (seconds). */
  matchedPolicy(seconds: number): void;
  /** The detector applied a policy to a template: its binding written, or an error. */
  appliedPolicy(err: unknown, seconds: number): void;
  /** A template was taken over by a policy of higher priority. */
  preempted(err: unknown): void;
  /** The binding controller synced a binding's Works. */
  syncedWorks(err: unknown, seconds: number): void;
  /** The execution controller synced one Work's workload to its member. */
  syncedWorkload(err: unknown, seconds: number): void;
  /** A write to a member: create (`recreate` when it was gone), update (`operationResult`: unchanged / updated), delete. */
  memberWrite(
    op: "create" | "update" | "delete",
    err: unknown,
    target: { apiVersion: string; kind: string; cluster: string },
    detail?: { recreate?: boolean; operationResult?: string },
  ): void;
  /** The state cluster status reported for a cluster. */
  clusterStatus(cluster: string, figures: ClusterFigures): void;
  /** One cluster status sync took so long. */
  clusterSynced(cluster: string, seconds: number): void;
  /** The cluster is gone: its series go too. */
  clusterRemoved(cluster: string): void;
  /** The eviction queue `name` holds so many tasks. */
  evictionQueueDepth(name: string, depth: number): void;
  /** A task of `kind` for `cluster` entered (+1) or left (-1) the eviction queue. */
  evictionKind(cluster: string, kind: string, delta: 1 | -1): void;
  /** An eviction task of queue `name` was processed. */
  evictionProcessed(name: string, err: unknown, seconds: number): void;
}

export function karmadaMetrics(registry: Registry): KarmadaMetrics {
  const matchPolicy = histogram(registry, {
    name: "resource_match_policy_duration_seconds",
    help: "Duration in seconds to find a matched PropagationPolicy or ClusterPropagationPolicy for the resource templates.",
    buckets: SYNC_BUCKETS,
  });
  const applyPolicy = histogram(registry, {
    name: "resource_apply_policy_duration_seconds",
    help: "Duration in seconds to apply a PropagationPolicy or ClusterPropagationPolicy for the resource templates. By the result, 'error' means a resource template failed to apply the policy. Otherwise 'success'.",
    labelNames: ["result"],
    buckets: SYNC_BUCKETS,
  });
  const applyAttempts = counter(registry, {
    name: "policy_apply_attempts_total",
    help: "Number of attempts to be applied for a PropagationPolicy or ClusterPropagationPolicy. By the result, 'error' means a resource template failed to apply the policy. Otherwise 'success'.",
    labelNames: ["result"],
  });
  const preemption = counter(registry, {
    name: "policy_preemption_total",
    help: "Number of preemption for the resource template. By the result, 'error' means a resource template failed to be preempted by other propagation policies. Otherwise 'success'.",
    labelNames: ["result"],
  });
  const syncWork = histogram(registry, {
    name: "binding_sync_work_duration_seconds",
    help: "Duration in seconds to sync works for ResourceBinding and ClusterResourceBinding objects. By the result, 'error' means a binding failed to sync works. Otherwise 'success'.",
    labelNames: ["result"],
    buckets: SYNC_BUCKETS,
  });
  const syncWorkload = histogram(registry, {
    name: "work_sync_workload_duration_seconds",
    help: "Duration in seconds to sync the workload to a target cluster. By the result, 'error' means a work failed to sync workloads. Otherwise 'success'.",
    labelNames: ["result"],
    buckets: SYNC_BUCKETS,
  });
  const creates = counter(registry, {
    name: "create_resource_to_cluster",
    help: "Number of creation operations against a target member cluster. The 'result' label indicates outcome ('success' or 'error'), 'recreate' indicates whether the operation is recreated (true/false). Labels 'apiversion', 'kind', and 'member_cluster' specify the resource type, API version, and target cluster respectively.",
    labelNames: ["result", "apiversion", "kind", MEMBER, "recreate"],
  });
  const updates = counter(registry, {
    name: "update_resource_to_cluster",
    help: "Number of updating operation of the resource to a target member cluster. By the result, 'error' means a resource updated failed. Otherwise 'success'. member_cluster means the target member cluster. operationResult means the result of the update operation.",
    labelNames: ["result", "apiversion", "kind", MEMBER, "operationResult"],
  });
  const deletes = counter(registry, {
    name: "delete_resource_from_cluster",
    help: "Number of deletion operations against a target member cluster. The 'result' label indicates outcome ('success' or 'error'). Labels 'apiversion', 'kind', and 'member_cluster' specify the resource's API version, type, and source cluster respectively.",
    labelNames: ["result", "apiversion", "kind", MEMBER],
  });
  const clusterGauge = (name: string, help: string) => gauge(registry, { name, help, labelNames: [MEMBER] });
  const ready = clusterGauge("cluster_ready_state", "State of the cluster (1 if ready, 0 otherwise).");
  const nodes = clusterGauge("cluster_node_number", "Number of nodes in the cluster.");
  const readyNodes = clusterGauge("cluster_ready_node_number", "Number of ready nodes in the cluster.");
  const allocatable = {
    memory: clusterGauge("cluster_memory_allocatable_bytes", "Allocatable cluster memory resource in bytes."),
    cpu: clusterGauge("cluster_cpu_allocatable_number", "Number of allocatable CPU in the cluster."),
    pods: clusterGauge("cluster_pod_allocatable_number", "Number of allocatable pods in the cluster."),
  };
  const allocated = {
    memory: clusterGauge("cluster_memory_allocated_bytes", "Allocated cluster memory resource in bytes."),
    cpu: clusterGauge("cluster_cpu_allocated_number", "Number of allocated CPU in the cluster."),
    pods: clusterGauge("cluster_pod_allocated_number", "Number of allocated pods in the cluster."),
  };
  const clusterSync = histogram(registry, {
    name: "cluster_sync_status_duration_seconds",
    help: "Duration in seconds for syncing the status of the cluster once.",
    labelNames: [MEMBER],
  });
  const evictionDepth = gauge(registry, {
    name: "eviction_queue_depth",
    help: "Current depth of the eviction queue",
    labelNames: ["name"],
  });
  const evictionKinds = gauge(registry, {
    name: "eviction_kind_total",
    help: "Number of resources in the eviction queue by resource kind",
    labelNames: [MEMBER, "resource_kind"],
  });
  const evictionLatency = histogram(registry, {
    name: "eviction_processing_latency_seconds",
    help: "Latency of processing an eviction task in seconds",
    labelNames: ["name"],
    buckets: exponentialBuckets(0.001, 2, 15),
  });
  const evictionTotal = counter(registry, {
    name: "eviction_processing_total",
    help: "Total number of evictions processed",
    labelNames: ["name", "result"],
  });
  const perCluster = [
    ready,
    nodes,
    readyNodes,
    ...Object.values(allocatable),
    ...Object.values(allocated),
    clusterSync,
  ];
  return {
    matchedPolicy: (seconds) => matchPolicy.observe(seconds),
    appliedPolicy(err, seconds) {
      const result = resultOf(err);
      applyPolicy.observe({ result }, seconds);
      applyAttempts.inc({ result });
    },
    preempted: (err) => preemption.inc({ result: resultOf(err) }),
    syncedWorks: (err, seconds) => syncWork.observe({ result: resultOf(err) }, seconds),
    syncedWorkload: (err, seconds) => syncWorkload.observe({ result: resultOf(err) }, seconds),
    memberWrite(op, err, target, detail = {}) {
      const labels = {
        result: resultOf(err),
        apiversion: target.apiVersion,
        kind: target.kind,
        [MEMBER]: target.cluster,
      };
      if (op === "create") creates.inc({ ...labels, recreate: String(detail.recreate === true) });
      else if (op === "update") updates.inc({ ...labels, operationResult: detail.operationResult ?? "" });
      else deletes.inc(labels);
    },
    clusterStatus(cluster, f) {
      const at = { [MEMBER]: cluster };
      ready.set(at, f.ready ? 1 : 0);
      if (f.nodes) {
        nodes.set(at, f.nodes.total);
        readyNodes.set(at, f.nodes.ready);
      }
      for (const [figures, gauges] of [
        [f.allocatable, allocatable],
        [f.allocated, allocated],
      ] as const) {
        if (!figures) continue;
        gauges.memory.set(at, figures.memory);
        gauges.cpu.set(at, figures.cpu);
        gauges.pods.set(at, figures.pods);
      }
    },
    clusterSynced: (cluster, seconds) => clusterSync.observe({ [MEMBER]: cluster }, seconds),
    clusterRemoved(cluster) {
      for (const m of perCluster) m.remove({ [MEMBER]: cluster });
    },
    evictionQueueDepth: (name, depth) => evictionDepth.set({ name }, depth),
    evictionKind(cluster, kind, delta) {
      if (!cluster || !kind) return;
      evictionKinds.inc({ [MEMBER]: cluster, resource_kind: kind }, delta);
    },
    evictionProcessed(name, err, seconds) {
      evictionLatency.observe({ name }, seconds);
      evictionTotal.inc({ name, result: resultOf(err) });
    },
  };
}

/** A manifest's apiVersion and kind, for the member-write labels. */
export function manifestType(manifest: StoredObject | { apiVersion?: unknown; kind?: unknown }): {
  apiVersion: string;
  kind: string;
} {
  return {
    apiVersion: typeof manifest.apiVersion === "string" ? manifest.apiVersion : "",
    kind: typeof manifest.kind === "string" ? manifest.kind : "",
  };
}
