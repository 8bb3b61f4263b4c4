/**
 * Built-in kinds and Karmada's natively served kinds as ResourceTypes: names and schemas
 * from `src/api`, plus what the server adds (field selectors, name rules, review handling).
 */
import type { BuiltinKind } from "../api/builtin/kinds.ts";
import { builtinSchema } from "../api/builtin/schemas.ts";
import { applyCreateDefaults, applyDefaults, applyUpdateDefaults } from "../api/defaults/index.ts";
import { isObject, type StoredObject } from "../api/meta.ts";
import type { CustomResourceDefinition } from "../api/schema.ts";
import { nameRuleFor, validate } from "../api/validation/index.ts";
import { crdResourceTypes } from "./crd-types.ts";
import type { NameRule, ResourceType } from "./resource-type.ts";

type Getter = (obj: StoredObject) => string | undefined;

function at(...path: string[]): Getter {
  return (obj) => {
    let cur: unknown = obj;
    for (const p of path) {
      if (!isObject(cur)) return undefined;
      cur = cur[p];
    }
    return cur === undefined || cur === null ? undefined : String(cur);
  };
}

const EVENT_FIELDS: Record<string, Getter> = {
  "involvedObject.kind": at("involvedObject", "kind"),
  "involvedObject.namespace": at("involvedObject", "namespace"),
  "involvedObject.name": at("involvedObject", "name"),
  "involvedObject.uid": at("involvedObject", "uid"),
  "involvedObject.apiVersion": at("involvedObject", "apiVersion"),
  "involvedObject.resourceVersion": at("involvedObject", "resourceVersion"),
  "involvedObject.fieldPath": at("involvedObject", "fieldPath"),
  reason: at("reason"),
  reportingComponent: at("reportingComponent"),
  source: at("source", "component"),
  type: at("type"),
};

const EVENTS_V1_FIELDS: Record<string, Getter> = {
  "regarding.kind": at("regarding", "kind"),
  "regarding.namespace": at("regarding", "namespace"),
  "regarding.name": at("regarding", "name"),
  "regarding.uid": at("regarding", "uid"),
  "regarding.apiVersion": at("regarding", "apiVersion"),
  "regarding.resourceVersion": at("regarding", "resourceVersion"),
  "regarding.fieldPath": at("regarding", "fieldPath"),
  reason: at("reason"),
  reportingController: at("reportingController"),
  type: at("type"),
};

/** Field selectors Kubernetes supports per kind, beyond metadata.name/namespace. */
const FIELD_SELECTORS: Record<string, Record<string, Getter>> = {
  "/Pod": {
    "spec.nodeName": at("spec", "nodeName"),
    "spec.restartPolicy": at("spec", "restartPolicy"),
    "spec.schedulerName": at("spec", "schedulerName"),
    "spec.serviceAccountName": at("spec", "serviceAccountName"),
    "spec.hostNetwork": (o) =>
      String(Boolean((o.spec as { hostNetwork?: boolean } | undefined)?.hostNetwork)),
    "status.phase": at("status", "phase"),
    "status.podIP": at("status", "podIP"),
    "status.nominatedNodeName": at("status", "nominatedNodeName"),
  },
  "/Event": EVENT_FIELDS,
  "events.k8s.io/Event": EVENTS_V1_FIELDS,
  "/Secret": { type: at("type") },
  "/Namespace": { "status.phase": at("status", "phase") },
  "/Node": {
    "spec.unschedulable": (o) =>
      String(Boolean((o.spec as { unschedulable?: boolean } | undefined)?.unschedulable)),
  },
  "/ReplicationController": { "status.replicas": at("status", "replicas") },
  "apps/ReplicaSet": { "status.replicas": at("status", "replicas") },
  "batch/Job": { "status.successful": at("status", "successful") },
  "certificates.k8s.io/CertificateSigningRequest": { "spec.signerName": at("spec", "signerName") },
};

/** Built-in kinds whose strategies keep metadata.generation (set to 1 on create, bumped on spec change). */
const VERSIONED_KINDS = new Set([
  "/ReplicationController",
  "apps/Deployment",
  "apps/ReplicaSet",
  "apps/StatefulSet",
  "apps/DaemonSet",
  "batch/Job",
  "batch/CronJob",
  "policy/PodDisruptionBudget",
  "networking.k8s.io/Ingress",
  "networking.k8s.io/IngressClass",
  "discovery.k8s.io/EndpointSlice",
  "apiextensions.k8s.io/CustomResourceDefinition",
  "autoscaling/HorizontalPodAutoscaler",
]);

export function builtinResourceType(kind: BuiltinKind): ResourceType {
  const key = `${kind.group}/${kind.kind}`;
  const storage = kind.storage
    ? { resource: `${kind.storage.group || "core"}/${kind.storage.resource}`, version: kind.storage.version }
    : { resource: `${kind.group || "core"}/${kind.plural}`, version: kind.version };
  const rt: ResourceType = {
    group: kind.group,
    version: kind.version,
    kind: kind.kind,
    listKind: kind.listKind,
    plural: kind.plural,
    singular: kind.singular,
    namespaced: kind.namespaced,
    shortNames: kind.shortNames,
    categories: kind.categories,
    verbs: kind.verbs,
    schema: builtinSchema(kind.model),
    builtin: true,
    storage,
    status: kind.subresources.some((s) => s.name === "status"),
    extraSubresources: kind.subresources
      .filter((s) => s.name !== "status" && s.name !== "scale")
      .map((s) => ({ name: s.name, group: s.group, version: s.version, kind: s.kind, verbs: s.verbs })),
    fieldSelectors: FIELD_SELECTORS[key] ?? {},
    nameRule: nameRuleFor(kind.group, kind.kind),
    defaults: (obj, old, subresource) => {
      applyDefaults(kind.group, kind.version, kind.kind, obj);
      // Update defaults carry over what the main resource may not change (a namespace's
      // finalizers, a CSR's status); a subresource exists precisely to change those.
      if (!old) applyCreateDefaults(kind.group, kind.version, kind.kind, obj);
      else if (!subresource) applyUpdateDefaults(kind.group, kind.version, kind.kind, obj, old);
    },
    validate: (obj, old) => validate(kind.group, kind.version, kind.kind, obj, old),
    generationFrom: VERSIONED_KINDS.has(key) ? "spec" : "none",
  };
  if (kind.subresources.some((s) => s.name === "scale")) {
    rt.scale = {
      specReplicasPath: ".spec.replicas",
      statusReplicasPath: ".status.replicas",
      labelSelectorPath: ".spec.selector",
    };
  }
  return rt;
}

/** Karmada kinds served natively (not as CRDs): Cluster, ResourceRegistry. */
export function nativeResourceTypes(defs: readonly CustomResourceDefinition[]): ResourceType[] {
  return defs.flatMap((d) =>
    crdResourceTypes(d, { native: true }).map(
      (rt): ResourceType => ({
        ...rt,
        // Cluster names become parts of namespace names (karmada-es-<cluster>): a DNS label.
        nameRule: rt.group === "cluster.karmada.io" ? "label" : rt.nameRule,
        // Served by the cluster proxy next to the API (src/cluster/cluster-proxy.ts), as
        // upstream's aggregated API server lists its connect subresource.
        extraSubresources:
          rt.group === "cluster.karmada.io" && rt.plural === "clusters"
            ? [
                {
                  name: "proxy",
                  group: rt.group,
                  version: rt.version,
                  kind: "ClusterProxyOptions",
                  verbs: ["create", "delete", "get", "patch", "update"],
                },
              ]
            : rt.extraSubresources,
      }),
    ),
  );
}

/** Review kinds are evaluated, not stored. */
export function isReviewKind(rt: ResourceType): boolean {
  return (
    (rt.group === "authorization.k8s.io" || rt.group === "authentication.k8s.io") &&
    rt.kind.endsWith("Review")
  );
}
