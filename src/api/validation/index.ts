/**
 * The registry of Kubernetes v1.32 validation for built-in kinds: metadata rules per kind
 * (name format, scope) and the spec checks users hit, returning apimachinery-shaped field
 * errors. Run it on defaulted objects (see `src/api/defaults`), after create-time steps.
 */

import type { FieldError } from "../../machinery/errors.ts";
import { validateCustomResourceDefinition } from "./apiextensions.ts";
import { validateDaemonSet, validateDeployment, validateReplicaSet, validateStatefulSet } from "./apps.ts";
import { validateHorizontalPodAutoscaler } from "./autoscaling.ts";
import { validateCronJob, validateJob } from "./batch.ts";
import { validateCertificateSigningRequest } from "./certificates.ts";
import { validateLease, validatePriorityClass, validateStorageClass } from "./cluster-policy.ts";
import {
  validateConfigMap,
  validateEndpoints,
  validateEvent,
  validateLimitRange,
  validateNamespace,
  validateNode,
  validatePersistentVolume,
  validatePersistentVolumeClaim,
  validatePod,
  validatePodTemplate,
  validateReplicationController,
  validateResourceQuota,
  validateSecret,
  validateService,
} from "./core.ts";
import { validateEndpointSlice } from "./discovery.ts";
import { type Obj, obj } from "./json.ts";
import { validateObjectMeta } from "./metadata.ts";
import type { NameRule } from "./names.ts";
import { validateIngress, validateIngressClass } from "./networking.ts";
import { validatePodDisruptionBudget } from "./policy.ts";
import { validateBinding, validateRole } from "./rbac.ts";

export { validateObjectMeta } from "./metadata.ts";
export type { NameRule } from "./names.ts";

type KindValidator = (obj: Obj, old: Obj | undefined, version: string) => FieldError[];

interface KindRules {
  nameRule: NameRule;
  namespaced: boolean;
  /** CRDs follow apimachinery's generic metadata rules, without core's finalizer-name check. */
  kubeFinalizers?: boolean;
  validate: KindValidator;
}

const none: KindValidator = () => [];

/** events.k8s.io/v1 field names mapped to the core Event fields upstream validates (and reports). */
function eventsV1AsCore(e: Obj): Obj {
  const renamed: Record<string, string> = {
    regarding: "involvedObject",
    note: "message",
    deprecatedCount: "count",
    deprecatedFirstTimestamp: "firstTimestamp",
    deprecatedLastTimestamp: "lastTimestamp",
    deprecatedSource: "source",
  };
  const out: Obj = {};
  for (const [k, v] of Object.entries(e)) out[renamed[k] ?? k] = v;
  return out;
}

const RBAC = "rbac.authorization.k8s.io";

/**
 * Keyed by GroupKind (`Kind` for core, `Kind.group` otherwise). Name rules: Namespace uses
 * DNS-1123 labels, Service DNS-1035 labels, StatefulSet DNS-1123 labels (its pods' hostnames),
 * RBAC kinds, CSRs and core Events only the path-segment rule; everything else DNS-1123 subdomains.
 */
const KINDS: Record<string, KindRules> = {
  // Namespace updates check metadata only; spec.finalizers change through /finalize.
  Namespace: {
    nameRule: "label",
    namespaced: false,
    validate: (o, old) => (old ? [] : validateNamespace(o)),
  },
  Service: { nameRule: "dns1035", namespaced: true, validate: (o, old) => validateService(o, old) },
  Pod: { nameRule: "subdomain", namespaced: true, validate: (o, old) => validatePod(o, old) },
  PodTemplate: { nameRule: "subdomain", namespaced: true, validate: (o) => validatePodTemplate(o) },
  ConfigMap: { nameRule: "subdomain", namespaced: true, validate: (o, old) => validateConfigMap(o, old) },
  Secret: { nameRule: "subdomain", namespaced: true, validate: (o, old) => validateSecret(o, old) },
  ServiceAccount: { nameRule: "subdomain", namespaced: true, validate: none },
  Endpoints: { nameRule: "subdomain", namespaced: true, validate: (o) => validateEndpoints(o) },
  Event: { nameRule: "path-segment", namespaced: true, validate: (o) => validateEvent(o, false) },
  Node: { nameRule: "subdomain", namespaced: false, validate: (o) => validateNode(o) },
  PersistentVolume: {
    nameRule: "subdomain",
    namespaced: false,
    validate: (o, old) => validatePersistentVolume(o, old),
  },
  PersistentVolumeClaim: {
    nameRule: "subdomain",
    namespaced: true,
    validate: (o, old) => validatePersistentVolumeClaim(o, old),
  },
  LimitRange: { nameRule: "subdomain", namespaced: true, validate: (o) => validateLimitRange(o) },
  ResourceQuota: {
    nameRule: "subdomain",
    namespaced: true,
    validate: (o, old) => validateResourceQuota(o, old),
  },
  ReplicationController: {
    nameRule: "subdomain",
    namespaced: true,
    validate: (o) => validateReplicationController(o),
  },
  "Deployment.apps": {
    nameRule: "subdomain",
    namespaced: true,
    validate: (o, old) => validateDeployment(o, old),
  },
  "ReplicaSet.apps": {
    nameRule: "subdomain",
    namespaced: true,
    validate: (o, old) => validateReplicaSet(o, old),
  },
  "DaemonSet.apps": {
    nameRule: "subdomain",
    namespaced: true,
    validate: (o, old) => validateDaemonSet(o, old),
  },
  "StatefulSet.apps": {
    nameRule: "label",
    namespaced: true,
    validate: (o, old) => validateStatefulSet(o, old),
  },
  "Job.batch": { nameRule: "subdomain", namespaced: true, validate: (o, old) => validateJob(o, old) },
  "CronJob.batch": { nameRule: "subdomain", namespaced: true, validate: (o, old) => validateCronJob(o, old) },
  "Ingress.networking.k8s.io": {
    nameRule: "subdomain",
    namespaced: true,
    validate: (o) => validateIngress(o),
  },
  "IngressClass.networking.k8s.io": {
    nameRule: "subdomain",
    namespaced: false,
    validate: (o, old) => validateIngressClass(o, old),
  },
  "NetworkPolicy.networking.k8s.io": { nameRule: "subdomain", namespaced: true, validate: none },
  "PodDisruptionBudget.policy": {
    nameRule: "subdomain",
    namespaced: true,
    validate: (o) => validatePodDisruptionBudget(o),
  },
  "HorizontalPodAutoscaler.autoscaling": {
    nameRule: "subdomain",
    namespaced: true,
    validate: (o, _old, v) => validateHorizontalPodAutoscaler(o, v),
  },
  [`Role.${RBAC}`]: { nameRule: "path-segment", namespaced: true, validate: (o) => validateRole(o, true) },
  [`ClusterRole.${RBAC}`]: {
    nameRule: "path-segment",
    namespaced: false,
    validate: (o) => validateRole(o, false),
  },
  [`RoleBinding.${RBAC}`]: {
    nameRule: "path-segment",
    namespaced: true,
    validate: (o, old) => validateBinding(o, true, old),
  },
  [`ClusterRoleBinding.${RBAC}`]: {
    nameRule: "path-segment",
    namespaced: false,
    validate: (o, old) => validateBinding(o, false, old),
  },
  "CertificateSigningRequest.certificates.k8s.io": {
    nameRule: "path-segment",
    namespaced: false,
    validate: (o) => validateCertificateSigningRequest(o),
  },
  "CustomResourceDefinition.apiextensions.k8s.io": {
    nameRule: "subdomain",
    namespaced: false,
    kubeFinalizers: false,
    validate: (o, old) => validateCustomResourceDefinition(o, old),
  },
  "EndpointSlice.discovery.k8s.io": {
    nameRule: "subdomain",
    namespaced: true,
    validate: (o, old) => validateEndpointSlice(o, old),
  },
  "PriorityClass.scheduling.k8s.io": {
    nameRule: "subdomain",
    namespaced: false,
    validate: (o, old) => validatePriorityClass(o, old),
  },
  "StorageClass.storage.k8s.io": {
    nameRule: "subdomain",
    namespaced: false,
    validate: (o, old) => validateStorageClass(o, old),
  },
  "Lease.coordination.k8s.io": { nameRule: "subdomain", namespaced: true, validate: (o) => validateLease(o) },
  "Event.events.k8s.io": {
    nameRule: "subdomain",
    namespaced: true,
    validate: (o) => validateEvent(eventsV1AsCore(o), true),
  },
};

function groupKind(group: string, kind: string): string {
  return group ? `${kind}.${group}` : kind;
}

/** The name rule of every built-in kind we validate, keyed by GroupKind string. */
export const NAME_RULES: Readonly<Record<string, NameRule>> = Object.fromEntries(
  Object.entries(KINDS).map(([gk, r]) => [gk, r.nameRule]),
);

/** The name rule of a kind; kinds we do not know get the path-segment rule every name obeys. */
export function nameRuleFor(group: string, kind: string): NameRule {
  return KINDS[groupKind(group, kind)]?.nameRule ?? "path-segment";
}

/** Whether a built-in kind is namespaced; undefined for kinds this registry does not know. */
export function isNamespacedBuiltin(group: string, kind: string): boolean | undefined {
  return KINDS[groupKind(group, kind)]?.namespaced;
}

/**
 * Validates a built-in object on create (`old` absent) or update (`old` = the stored object).
 * Unknown kinds get no errors. Errors come in upstream order: metadata first, then spec.
 */
export function validate(
  group: string,
  version: string,
  kind: string,
  obj_: Record<string, unknown>,
  old?: Record<string, unknown>,
): FieldError[] {
  const rules = KINDS[groupKind(group, kind)];
  if (!rules) return [];
  const metaOpts = {
    namespaced: rules.namespaced,
    nameRule: rules.nameRule,
    ...(rules.kubeFinalizers === false ? { kubeFinalizers: false } : {}),
  };
  const metaErrs = validateObjectMeta(obj_.metadata, metaOpts, old ? (obj(old.metadata) ?? {}) : undefined);
  return [...metaErrs, ...rules.validate(obj_, old, version)];
}
