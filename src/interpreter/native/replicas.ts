/**
 * InterpretReplica and ReviseReplica for the built-in workloads: how many pods a template asks
 * for and what each needs, and the per-cluster copy with its share of the replicas.
 */
import type { KubeObject } from "../../api/meta.ts";
import type { ReplicaRequirements } from "../../karmada/types.ts";
import { cloneJson } from "../../machinery/merge-patch.ts";
import { isObject, optionalIntAt, valueAt } from "./fields.ts";
import { GVK } from "./kinds.ts";
import { type RequirementOptions, replicaRequirements } from "./replica-requirements.ts";

export interface Replicas {
  replicas: number;
  requirements?: ReplicaRequirements;
}

type ReplicaReader = (obj: KubeObject, options: RequirementOptions) => Replicas;

function withRequirements(replicas: number, podSpec: unknown, options: RequirementOptions): Replicas {
  const requirements = replicaRequirements(podSpec, options);
  return requirements ? { replicas, requirements } : { replicas };
}

/** `spec.replicas` (absent counts as 0, as upstream reads it) and the pod template's needs. */
const specReplicas: ReplicaReader = (obj, options) =>
  withRequirements(
    optionalIntAt(obj, "spec", "replicas") ?? 0,
    valueAt(obj, "spec", "template", "spec"),
    options,
  );

/**
 * A Job runs `parallelism` pods at once, but never more than its `completions` (a fixed
 * completion count caps the pods that can run in parallel).
 */
const jobReplicas: ReplicaReader = (obj, options) => {
  const parallelism = optionalIntAt(obj, "spec", "parallelism") ?? 0;
  const completions = optionalIntAt(obj, "spec", "completions") ?? parallelism;
  return withRequirements(
    Math.min(parallelism, completions),
    valueAt(obj, "spec", "template", "spec"),
    options,
  );
};

const podReplicas: ReplicaReader = (obj, options) => withRequirements(1, valueAt(obj, "spec"), options);

export const REPLICA_READERS: Record<string, ReplicaReader> = {
  [GVK.deployment]: specReplicas,
  [GVK.replicaSet]: specReplicas,
  [GVK.statefulSet]: specReplicas,
  [GVK.job]: jobReplicas,
  [GVK.pod]: podReplicas,
};

type ReplicaReviser = (obj: KubeObject, replicas: number) => KubeObject;

/**
 * Sets `spec.<field>` only when the object already has it: upstream leaves a template without
 * the field (relying on the member's defaulting) as it is.
 */
function reviseField(field: string): ReplicaReviser {
  return (obj, replicas) => {
    const out = cloneJson(obj);
    const spec = out.spec;
    if (isObject(spec) && typeof spec[field] === "number") spec[field] = replicas;
    return out;
  };
}

export const REPLICA_REVISERS: Record<string, ReplicaReviser> = {
  [GVK.deployment]: reviseField("replicas"),
  [GVK.replicaSet]: reviseField("replicas"),
  [GVK.statefulSet]: reviseField("replicas"),
  [GVK.job]: reviseField("parallelism"),
};
