/**
 * InterpretHealth for the built-in kinds: whether a member object has converged on its spec.
 * Kinds without a rule here get no native hook (the work-status controller then counts them
 * healthy).
 */
import type { KubeObject } from "../../api/meta.ts";
import { arrayAt, numberAt, optionalIntAt, stringAt } from "./fields.ts";
import { GVK } from "./kinds.ts";

type HealthRule = (obj: KubeObject) => boolean;

/** The controller has seen the latest spec. */
function observedLatest(obj: KubeObject): boolean {
  return numberAt(obj, "status", "observedGeneration") === (obj.metadata?.generation ?? 0);
}

/** Deployment and StatefulSet: every desired replica updated, every updated one available. */
const rolledOut: HealthRule = (obj) => {
  if (!observedLatest(obj)) return false;
  const updated = numberAt(obj, "status", "updatedReplicas");
  const desired = optionalIntAt(obj, "spec", "replicas");
  if (desired !== undefined && updated < desired) return false;
  return numberAt(obj, "status", "availableReplicas") >= updated;
};

const replicaSetHealthy: HealthRule = (obj) => {
  if (!observedLatest(obj)) return false;
  const desired = optionalIntAt(obj, "spec", "replicas");
  return desired === undefined || numberAt(obj, "status", "availableReplicas") >= desired;
};

const daemonSetHealthy: HealthRule = (obj) => {
  if (!observedLatest(obj)) return false;
  const updated = numberAt(obj, "status", "updatedNumberScheduled");
  if (updated < numberAt(obj, "status", "desiredNumberScheduled")) return false;
  return numberAt(obj, "status", "numberAvailable") >= updated;
};

function hasLoadBalancerAddress(obj: KubeObject): boolean {
  return arrayAt(obj, "status", "loadBalancer", "ingress").some(
    (ingress) => stringAt(ingress, "ip") !== "" || stringAt(ingress, "hostname") !== "",
  );
}

/** Only a LoadBalancer Service waits for something: an address from the cloud provider. */
const serviceHealthy: HealthRule = (obj) =>
  stringAt(obj, "spec", "type") !== "LoadBalancer" || hasLoadBalancerAddress(obj);

const persistentVolumeClaimHealthy: HealthRule = (obj) => stringAt(obj, "status", "phase") === "Bound";

const podHealthy: HealthRule = (obj) => {
  const phase = stringAt(obj, "status", "phase");
  if (phase === "Succeeded") return true;
  const ready = arrayAt(obj, "status", "conditions").find((c) => stringAt(c, "type") === "Ready");
  return phase === "Running" && stringAt(ready, "status") === "True";
};

const podDisruptionBudgetHealthy: HealthRule = (obj) =>
  numberAt(obj, "status", "currentHealthy") >= numberAt(obj, "status", "desiredHealthy");

export const HEALTH_RULES: Record<string, HealthRule> = {
  [GVK.deployment]: rolledOut,
  [GVK.statefulSet]: rolledOut,
  [GVK.replicaSet]: replicaSetHealthy,
  [GVK.daemonSet]: daemonSetHealthy,
  [GVK.service]: serviceHealthy,
  [GVK.ingress]: hasLoadBalancerAddress,
  [GVK.persistentVolumeClaim]: persistentVolumeClaimHealthy,
  [GVK.pod]: podHealthy,
  [GVK.podDisruptionBudget]: podDisruptionBudgetHealthy,
};
