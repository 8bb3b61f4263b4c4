/**
 * The registry of built-in printers, keyed `group/Kind` (`"/Pod"` for the core group), as
 * Kubernetes 1.32's apiserver prints them. Kinds absent here get `defaultPrinter` (Name, Created At),
 * custom resources `customResourcePrinter`.
 */

import { apiServicePrinter } from "./apiregistration.ts";
import {
  controllerRevisionPrinter,
  daemonSetPrinter,
  deploymentPrinter,
  replicaSetPrinter,
  statefulSetPrinter,
} from "./apps.ts";
import { horizontalPodAutoscalerPrinter } from "./autoscaling.ts";
import { cronJobPrinter, jobPrinter } from "./batch.ts";
import { certificateSigningRequestPrinter } from "./certificates.ts";
import { leasePrinter } from "./coordination.ts";
import {
  configMapPrinter,
  endpointsPrinter,
  namespacePrinter,
  nodePrinter,
  persistentVolumeClaimPrinter,
  persistentVolumePrinter,
  podTemplatePrinter,
  replicationControllerPrinter,
  resourceQuotaPrinter,
  secretPrinter,
  serviceAccountPrinter,
  servicePrinter,
} from "./core.ts";
import { eventPrinter, eventsApiEventPrinter } from "./events.ts";
import { defaultPrinter } from "./generic.ts";
import { clusterPrinter } from "./karmada.ts";
import {
  endpointSlicePrinter,
  ingressClassPrinter,
  ingressPrinter,
  networkPolicyPrinter,
} from "./networking.ts";
import { podPrinter } from "./pod.ts";
import { podDisruptionBudgetPrinter } from "./policy.ts";
import { clusterRoleBindingPrinter, roleBindingPrinter } from "./rbac.ts";
import { priorityClassPrinter } from "./scheduling.ts";
import { storageClassPrinter } from "./storage.ts";
import type { KindPrinter } from "./types.ts";

export const printers: Readonly<Record<string, KindPrinter>> = {
  "/Namespace": namespacePrinter,
  "/ConfigMap": configMapPrinter,
  "/Secret": secretPrinter,
  "/Service": servicePrinter,
  "/ServiceAccount": serviceAccountPrinter,
  "/Endpoints": endpointsPrinter,
  "/Event": eventPrinter,
  "/Node": nodePrinter,
  "/Pod": podPrinter,
  "/PodTemplate": podTemplatePrinter,
  "/PersistentVolume": persistentVolumePrinter,
  "/PersistentVolumeClaim": persistentVolumeClaimPrinter,
  "/ReplicationController": replicationControllerPrinter,
  "/ResourceQuota": resourceQuotaPrinter,
  // Served with the apiserver's default table upstream.
  "/LimitRange": defaultPrinter,
  "events.k8s.io/Event": eventsApiEventPrinter,
  "coordination.k8s.io/Lease": leasePrinter,
  "cluster.karmada.io/Cluster": clusterPrinter,
  "apps/Deployment": deploymentPrinter,
  "apps/ReplicaSet": replicaSetPrinter,
  "apps/StatefulSet": statefulSetPrinter,
  "apps/DaemonSet": daemonSetPrinter,
  "apps/ControllerRevision": controllerRevisionPrinter,
  "batch/Job": jobPrinter,
  "batch/CronJob": cronJobPrinter,
  "autoscaling/HorizontalPodAutoscaler": horizontalPodAutoscalerPrinter,
  "policy/PodDisruptionBudget": podDisruptionBudgetPrinter,
  "networking.k8s.io/Ingress": ingressPrinter,
  "networking.k8s.io/IngressClass": ingressClassPrinter,
  "networking.k8s.io/NetworkPolicy": networkPolicyPrinter,
  "discovery.k8s.io/EndpointSlice": endpointSlicePrinter,
  "rbac.authorization.k8s.io/Role": defaultPrinter,
  "rbac.authorization.k8s.io/ClusterRole": defaultPrinter,
  "rbac.authorization.k8s.io/RoleBinding": roleBindingPrinter,
  "rbac.authorization.k8s.io/ClusterRoleBinding": clusterRoleBindingPrinter,
  "certificates.k8s.io/CertificateSigningRequest": certificateSigningRequestPrinter,
  "apiextensions.k8s.io/CustomResourceDefinition": defaultPrinter,
  "apiregistration.k8s.io/APIService": apiServicePrinter,
  "scheduling.k8s.io/PriorityClass": priorityClassPrinter,
  "storage.k8s.io/StorageClass": storageClassPrinter,
};

/** The printer of a built-in kind, or the default table for kinds without one. */
export function hasPrinter(kindKey: string): boolean {
  return Object.hasOwn(printers, kindKey);
}

export function printerFor(kindKey: string): KindPrinter {
  return printers[kindKey] ?? defaultPrinter;
}
