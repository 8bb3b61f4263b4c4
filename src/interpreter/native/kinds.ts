/**
 * The exact group/version/kinds the native interpreter knows. Upstream keys its handlers by
 * GVK, so `extensions/v1beta1` Ingress or `autoscaling/v1` HPA get no native hook.
 */
import type { KubeObject } from "../../api/meta.ts";

export const GVK = {
  deployment: "apps/v1/Deployment",
  replicaSet: "apps/v1/ReplicaSet",
  statefulSet: "apps/v1/StatefulSet",
  daemonSet: "apps/v1/DaemonSet",
  job: "batch/v1/Job",
  cronJob: "batch/v1/CronJob",
  pod: "v1/Pod",
  service: "v1/Service",
  serviceAccount: "v1/ServiceAccount",
  secret: "v1/Secret",
  persistentVolume: "v1/PersistentVolume",
  persistentVolumeClaim: "v1/PersistentVolumeClaim",
  ingress: "networking.k8s.io/v1/Ingress",
  podDisruptionBudget: "policy/v1/PodDisruptionBudget",
  horizontalPodAutoscaler: "autoscaling/v2/HorizontalPodAutoscaler",
  serviceImport: "multicluster.x-k8s.io/v1alpha1/ServiceImport",
} as const;

export type NativeGvk = (typeof GVK)[keyof typeof GVK];

/** `apps/v1/Deployment`, `v1/Pod`: the key handlers are registered under. */
export function gvkOf(obj: KubeObject): string {
  return `${obj.apiVersion ?? ""}/${obj.kind ?? ""}`;
}

/** `kind(namespace/name)` for error messages. */
export function describeObject(obj: KubeObject): string {
  return `${obj.kind ?? ""}(${obj.metadata?.namespace ?? ""}/${obj.metadata?.name ?? ""})`;
}
