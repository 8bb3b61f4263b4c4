/**
 * The registry of server-side defaulting for built-in kinds: what Kubernetes v1.32's
 * generated and hand-written defaulters do when an object is decoded, keyed by group and kind.
 *
 * Order on create, as in the real API server: `applyDefaults` (decode) -> the server fills
 * name/uid -> `applyCreateDefaults` (strategy PrepareForCreate steps) -> validation.
 * On update: `applyDefaults` -> `applyUpdateDefaults` (PrepareForUpdate steps) -> validation.
 * Everything here is pure: it mutates the given object and reads nothing else.
 */

import type { Obj } from "../validation/json.ts";
import { defaultCustomResourceDefinition } from "./apiextensions.ts";
import { defaultDaemonSet, defaultDeployment, defaultReplicaSet, defaultStatefulSet } from "./apps.ts";
import { defaultHorizontalPodAutoscalerV1, defaultHorizontalPodAutoscalerV2 } from "./autoscaling.ts";
import { defaultCronJob, defaultJob, prepareJobForCreate } from "./batch.ts";
import {
  defaultEndpoints,
  defaultLimitRange,
  defaultNamespace,
  defaultNode,
  defaultPersistentVolume,
  defaultPersistentVolumeClaim,
  defaultPod,
  defaultPodTemplateObject,
  defaultReplicationController,
  defaultResourceQuota,
  defaultSecret,
  defaultService,
  prepareCertificateSigningRequestForUpdate,
  prepareNamespaceForCreate,
  prepareNamespaceForUpdate,
  preparePodForCreate,
  prepareServiceForCreate,
  prepareServiceForUpdate,
  type ServiceCreateOptions,
} from "./core.ts";
import { defaultEndpointSlice } from "./discovery.ts";
import { defaultIngressClass, defaultNetworkPolicy } from "./networking.ts";
import { defaultBinding } from "./rbac.ts";
import { defaultPriorityClass, defaultStorageClass } from "./storage.ts";

type Defaulter = (obj: Obj, version: string) => void;

/** Keyed by `Kind` for the core group and `Kind.group` otherwise (Kubernetes' GroupKind string). */
const DEFAULTERS: Record<string, Defaulter> = {
  Pod: defaultPod,
  PodTemplate: defaultPodTemplateObject,
  ReplicationController: defaultReplicationController,
  Service: defaultService,
  Secret: defaultSecret,
  Namespace: defaultNamespace,
  PersistentVolume: defaultPersistentVolume,
  PersistentVolumeClaim: defaultPersistentVolumeClaim,
  Endpoints: defaultEndpoints,
  Node: defaultNode,
  LimitRange: defaultLimitRange,
  ResourceQuota: defaultResourceQuota,
  "Deployment.apps": defaultDeployment,
  "DaemonSet.apps": defaultDaemonSet,
  "StatefulSet.apps": defaultStatefulSet,
  "ReplicaSet.apps": defaultReplicaSet,
  "Job.batch": defaultJob,
  "CronJob.batch": defaultCronJob,
  "HorizontalPodAutoscaler.autoscaling": (o, v) =>
    v === "v1" ? defaultHorizontalPodAutoscalerV1(o) : defaultHorizontalPodAutoscalerV2(o),
  "IngressClass.networking.k8s.io": defaultIngressClass,
  "NetworkPolicy.networking.k8s.io": defaultNetworkPolicy,
  "RoleBinding.rbac.authorization.k8s.io": defaultBinding,
  "ClusterRoleBinding.rbac.authorization.k8s.io": defaultBinding,
  "StorageClass.storage.k8s.io": defaultStorageClass,
  "PriorityClass.scheduling.k8s.io": defaultPriorityClass,
  "EndpointSlice.discovery.k8s.io": defaultEndpointSlice,
  "CustomResourceDefinition.apiextensions.k8s.io": defaultCustomResourceDefinition,
};

function groupKind(group: string, kind: string): string {
  return group ? `${kind}.${group}` : kind;
}

/** Applies the decode-time defaults of a built-in kind; unknown kinds are left untouched. */
export function applyDefaults(
  group: string,
  version: string,
  kind: string,
  obj: Record<string, unknown>,
): void {
  DEFAULTERS[groupKind(group, kind)]?.(obj, version);
}

export interface CreateDefaultsOptions {
  service?: ServiceCreateOptions;
}

/**
 * Create-only steps that need the final name and `metadata.uid` (run after the server set them):
 * Job selector and labels, Namespace finalizer and phase, Pod status, Service IP families.
 */
export function applyCreateDefaults(
  group: string,
  _version: string,
  kind: string,
  obj: Record<string, unknown>,
  opts: CreateDefaultsOptions = {},
): void {
  switch (groupKind(group, kind)) {
    case "Job.batch":
      prepareJobForCreate(obj);
      break;
    case "Namespace":
      prepareNamespaceForCreate(obj);
      break;
    case "Pod":
      preparePodForCreate(obj);
      break;
    case "Service":
      prepareServiceForCreate(obj, opts.service);
      break;
  }
}

/**
 * Update-time steps of the main resource endpoint (strategy PrepareForUpdate), run after
 * `applyDefaults` on the new object: fields clients cannot change there are taken from the
 * stored object, and values the server allocated are kept when the new object omits them.
 * Status handling common to all kinds (the status subresource) is not part of this.
 */
export function applyUpdateDefaults(
  group: string,
  _version: string,
  kind: string,
  obj: Record<string, unknown>,
  old: Record<string, unknown>,
): void {
  switch (groupKind(group, kind)) {
    case "Service":
      prepareServiceForUpdate(obj, old);
      break;
    case "Namespace":
      prepareNamespaceForUpdate(obj, old);
      break;
    case "CertificateSigningRequest.certificates.k8s.io":
      prepareCertificateSigningRequestForUpdate(obj, old);
      break;
  }
}

/** Whether `applyDefaults` knows the kind (for callers that want to report coverage). */
export function hasDefaults(group: string, kind: string): boolean {
  return groupKind(group, kind) in DEFAULTERS;
}
