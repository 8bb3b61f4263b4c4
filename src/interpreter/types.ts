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
  /** Whether there is a hook for the operation on the kind (upstream's HookEnabled); absent: unknown, taken as no. */
  handles?(operation: InterpreterOperation, apiVersion: string, kind: string): boolean;
}

/** Upstream's InterpreterOperation names (config/v1alpha1). */
export type InterpreterOperation =
  | "InterpretReplica"
  | "ReviseReplica"
  | "Retain"
  | "AggregateStatus"
  | "InterpretStatus"
  | "InterpretHealth"
  | "InterpretDependency"
  | "InterpretComponent";

/**
 * One source of interpretation (Lua customizations, interpreter webhooks, our bundled
 * third-party scripts, the native interpreter) for some kinds and operations. `handles` says
 * whether it has a hook for an operation on a kind; the operation methods are called only
 * when it does, and may be asynchronous (webhooks). They throw when the hook fails (a Lua
 * error, a webhook that does not answer): the caller reports that, it does not fall back.
 */
export interface InterpreterSource {
  readonly name: string;
  handles(operation: InterpreterOperation, apiVersion: string, kind: string): boolean;
  getReplicas(obj: KubeObject): Promise<{ replicas: number; requirements?: ReplicaRequirements }>;
  reviseReplica(obj: KubeObject, replicas: number): Promise<KubeObject>;
  retain(desired: KubeObject, observed: KubeObject): Promise<KubeObject>;
  /** `null`: nothing to record. */
  reflectStatus(obj: KubeObject): Promise<Record<string, unknown> | null>;
  interpretHealth(obj: KubeObject): Promise<Health>;
  aggregateStatus(template: KubeObject, items: readonly AggregatedStatusItem[]): Promise<KubeObject>;
  getDependencies(obj: KubeObject): Promise<DependentObjectReference[]>;
}
