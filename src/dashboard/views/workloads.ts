/**
 * The workloads page's rows: one per ResourceBinding / ClusterResourceBinding (a template a
 * policy claimed), with its replicas per cluster and one health word over all its clusters,
 * worst first, and a sentence saying why. Computed from the binding alone, so a row is
 * recomputed only when its binding changes (callers memoise by object).
 */
import type { StoredObject } from "../../api/meta.ts";
import { ANNOTATION } from "../../karmada/names.ts";
import type { AggregatedStatusItem, BindingSpec } from "../../karmada/types.ts";
import type { Placement, PolicyRef, WorkloadHealth, WorkloadRow, WorkloadsMeta } from "../wire.ts";

interface BindingStatus {
  conditions?: Array<{
    type: string;
    status: string;
    reason?: string;
    message?: string;
    lastTransitionTime?: string;
  }>;
  aggregatedStatus?: AggregatedStatusItem[];
}

/** The key of a binding's row and page: `rb/<namespace>/<name>` or `crb/<name>`. */
export function workloadKey(obj: StoredObject): string {
  return obj.metadata.namespace
    ? `rb/${obj.metadata.namespace}/${obj.metadata.name}`
    : `crb/${obj.metadata.name}`;
}

/** The binding a workload key names; undefined for a key that is not one. */
export function parseWorkloadKey(key: string): { namespace?: string; name: string } | undefined {
  const parts = key.split("/");
  if (parts[0] === "rb" && parts.length === 3 && parts[1] && parts[2]) {
    return { namespace: parts[1], name: parts[2] };
  }
  if (parts[0] === "crb" && parts.length === 2 && parts[1]) return { name: parts[1] };
  return undefined;
}

/** The policy that claimed the binding, from the claim annotations the detector writes. */
export function policyOfBinding(obj: StoredObject): PolicyRef | undefined {
  const a = obj.metadata.annotations ?? {};
  const pp = a[ANNOTATION.ppName];
  const ppNamespace = a[ANNOTATION.ppNamespace];
  if (pp) return { kind: "PropagationPolicy", name: pp, ...(ppNamespace ? { namespace: ppNamespace } : {}) };
  const cpp = a[ANNOTATION.cppName];
  if (cpp) return { kind: "ClusterPropagationPolicy", name: cpp };
  return undefined;
}

/** `2/3` from a reflected workload status that has replica counts (Deployments, StatefulSets ...). */
export function readyOf(
  status: Record<string, unknown> | undefined,
  desired: number | undefined,
): string | undefined {
  if (!status) return undefined;
  const ready = status.readyReplicas ?? status.availableReplicas;
  const want = desired ?? status.replicas;
  if (typeof want !== "number") return undefined;
  return `${typeof ready === "number" ? ready : 0}/${want}`;
}

function names(list: readonly string[]): string {
  if (list.length <= 3) return list.join(", ");
  return `${list.slice(0, 3).join(", ")} and ${list.length - 3} more`;
}

export function placementsOf(spec: BindingSpec, status: BindingStatus): Placement[] {
  const items = new Map((status.aggregatedStatus ?? []).map((i) => [i.clusterName, i]));
  const placement = (cluster: string, replicas: number | undefined, evicting: boolean): Placement => {
    const item = items.get(cluster);
    const ready = readyOf(item?.status, replicas);
    return {
      cluster,
      ...(replicas !== undefined && (spec.replicas ?? 0) > 0 ? { replicas } : {}),
      ...(item?.health ? { health: item.health } : {}),
      ...(item?.applied !== undefined ? { applied: item.applied } : {}),
      ...(item?.appliedMessage ? { appliedMessage: item.appliedMessage } : {}),
      ...(ready ? { ready } : {}),
      ...(evicting ? { evicting: true } : {}),
    };
  };
  const targets = (spec.clusters ?? []).map((c) => placement(c.name, c.replicas, false));
  const leaving = (spec.gracefulEvictionTasks ?? [])
    .filter((t) => !targets.some((p) => p.cluster === t.fromCluster))
    .map((t) => placement(t.fromCluster, t.replicas, true));
  return [...targets, ...leaving];
}

/** The binding's health over its target clusters, worst first, and why. */
export function healthOf(
  spec: BindingSpec,
  status: BindingStatus,
  placements: readonly Placement[],
): { health: WorkloadHealth; text: string } {
  const scheduled = status.conditions?.find((c) => c.type === "Scheduled");
  if (scheduled?.status === "False") {
    return {
      health: "Unschedulable",
      text: scheduled.message || scheduled.reason || "The scheduler found no cluster.",
    };
  }
  const targets = placements.filter((p) => !p.evicting);
  if (targets.length === 0) {
    return {
      health: "Pending",
      text: scheduled?.status === "True" ? "Placed on no cluster." : "Waiting for the scheduler.",
    };
  }
  const failed = targets.filter((p) => p.applied === false && p.appliedMessage);
  if (failed.length > 0) {
    return {
      health: "Unhealthy",
      text: `Failed to apply on ${failed[0]!.cluster}: ${failed[0]!.appliedMessage}`,
    };
  }
  const unhealthy = targets.filter((p) => p.health === "Unhealthy").map((p) => p.cluster);
  if (unhealthy.length > 0) return { health: "Unhealthy", text: `Unhealthy on ${names(unhealthy)}.` };
  const waiting = targets.filter((p) => p.health === undefined || p.applied === false).map((p) => p.cluster);
  const leaving = placements.filter((p) => p.evicting).map((p) => p.cluster);
  if (waiting.length > 0) {
    return { health: "Progressing", text: `Waiting for ${names(waiting)} to apply and report.` };
  }
  if (leaving.length > 0) {
    return {
      health: "Progressing",
      text: `Moving off ${names(leaving)}: the old copy stays until the new ones are healthy.`,
    };
  }
  const unknown = targets.filter((p) => p.health === "Unknown").map((p) => p.cluster);
  if (unknown.length > 0) return { health: "Unknown", text: `Health unknown on ${names(unknown)}.` };
  const n = targets.length;
  const replicas = spec.replicas ?? 0;
  return {
    health: "Healthy",
    text:
      replicas > 0
        ? `${replicas} replica${replicas === 1 ? "" : "s"} healthy on ${n} cluster${n === 1 ? "" : "s"}.`
        : `Healthy on ${n} cluster${n === 1 ? "" : "s"}.`,
  };
}

export function workloadRow(obj: StoredObject): WorkloadRow {
  const spec = (obj.spec ?? {}) as BindingSpec;
  const status = (obj.status ?? {}) as BindingStatus;
  const r = spec.resource ?? { apiVersion: "", kind: "", name: "" };
  const placements = placementsOf(spec, status);
  const { health, text } = healthOf(spec, status, placements);
  // RFC 3339 times in UTC sort as text: the last is the newest.
  const updated = (status.conditions ?? [])
    .map((c) => c.lastTransitionTime ?? "")
    .sort()
    .at(-1);
  const policy = policyOfBinding(obj);
  return {
    key: workloadKey(obj),
    bindingKind: obj.metadata.namespace ? "ResourceBinding" : "ClusterResourceBinding",
    bindingName: obj.metadata.name,
    apiVersion: r.apiVersion,
    kind: r.kind,
    ...(r.namespace ? { namespace: r.namespace } : {}),
    name: r.name,
    ...(policy ? { policy } : {}),
    replicas: spec.replicas ?? 0,
    placements,
    health,
    healthText: text,
    ...(updated ? { updated } : {}),
  };
}

export function workloadsMeta(rows: Iterable<WorkloadRow>): WorkloadsMeta {
  const byHealth: WorkloadsMeta["byHealth"] = {};
  let total = 0;
  for (const r of rows) {
    total++;
    byHealth[r.health] = (byHealth[r.health] ?? 0) + 1;
  }
  return { total, byHealth };
}
