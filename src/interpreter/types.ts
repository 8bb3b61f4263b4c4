/**
 * The resource interpreter: what Karmada needs to know about a kind it propagates (upstream's
 * `pkg/resourceinterpreter`). Each operation returns `undefined` when no interpreter has a hook
 * for the kind, so callers can apply upstream's fallbacks (no replicas, reflect the whole
 * status, Healthy, ...). The native interpreter implements the built-in kinds; Lua
 * customizations and webhooks (issue D) take precedence per operation.
 */
import type { KubeObject } from "../api/meta.ts";
import type { AggregatedStatusItem, ReplicaRequirements } from "../karmada/types.ts";

export type Health = "Healthy" | "Unhealthy" | "Unknown";

export interface DependentObjectReference {
  apiVersion: string;
  kind: string;
  namespace: string;
  name?: string;
  labelSelector?: { matchLabels?: Record<string, string>; matchExpressions?: unknown[] };
}

export interface ResourceInterpreter {
  /** InterpretReplica: replicas and per-replica requirements of a workload. */
  getReplicas(obj: KubeObject): { replicas: number; requirements?: ReplicaRequirements } | undefined;
  /** ReviseReplica: the object with its replicas set (Deployment/ReplicaSet/StatefulSet `spec.replicas`, Job `spec.parallelism`). */
  reviseReplica(obj: KubeObject, replicas: number): KubeObject | undefined;
  /** Retain: `desired` with the fields the member owns taken from `observed`. */
  retain(desired: KubeObject, observed: KubeObject): KubeObject | undefined;
  /**
   * InterpretStatus (ReflectStatus): the status to record in the Work; `null` when there is
   * nothing to record (e.g. a ClusterIP Service), `undefined` when no hook handles the kind
   * (then the whole `.status` is recorded).
   */
  reflectStatus(obj: KubeObject): Record<string, unknown> | null | undefined;
  /** InterpretHealth. */
  interpretHealth(obj: KubeObject): Health | undefined;
  /** AggregateStatus: the template with its status aggregated from the members'. */
  aggregateStatus(template: KubeObject, items: readonly AggregatedStatusItem[]): KubeObject | undefined;
  /** InterpretDependency. */
  getDependencies(obj: KubeObject): DependentObjectReference[] | undefined;
}
