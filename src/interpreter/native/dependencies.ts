/**
 * InterpretDependency for the built-in kinds: the objects a workload needs in the member
 * cluster to run (PropagateDeps propagates them along with it). For pod templates these are
 * the ConfigMaps, Secrets, ServiceAccount and PersistentVolumeClaims the pod spec names, found
 * the way Kubernetes' own pod reference visitors find them. All live in the workload's namespace.
 */
import type { KubeObject } from "../../api/meta.ts";
import type { DependentObjectReference } from "../types.ts";
import { arrayAt, isObject, objectAt, stringAt, valueAt } from "./fields.ts";
import { GVK } from "./kinds.ts";

type DependencyReader = (obj: KubeObject) => DependentObjectReference[];

/** Init, app and ephemeral containers, in the order Kubernetes visits them. */
function allContainers(podSpec: unknown): unknown[] {
  return [
    ...arrayAt(podSpec, "initContainers"),
    ...arrayAt(podSpec, "containers"),
    ...arrayAt(podSpec, "ephemeralContainers"),
  ];
}

/** Names referenced from env (`valueFrom.<keyRef>`) and envFrom (`<fromRef>`) of every container. */
function containerRefs(podSpec: unknown, fromRef: string, keyRef: string): string[] {
  return allContainers(podSpec).flatMap((c) => [
    ...arrayAt(c, "envFrom").map((e) => stringAt(e, fromRef, "name")),
    ...arrayAt(c, "env").map((e) => stringAt(e, "valueFrom", keyRef, "name")),
  ]);
}

/**
 * Where each volume source keeps a Secret name. A volume is read through its first set source
 * only, in this order, as Kubernetes' visitor does.
 */
const SECRET_VOLUME_SOURCES: ReadonlyArray<[source: string, path: string[]]> = [
  ["azureFile", ["secretName"]],
  ["cephfs", ["secretRef", "name"]],
  ["cinder", ["secretRef", "name"]],
  ["flexVolume", ["secretRef", "name"]],
  ["projected", []],
  ["rbd", ["secretRef", "name"]],
  ["secret", ["secretName"]],
  ["scaleIO", ["secretRef", "name"]],
  ["iscsi", ["secretRef", "name"]],
  ["storageos", ["secretRef", "name"]],
  ["csi", ["nodePublishSecretRef", "name"]],
];

function projectedNames(projected: unknown, kind: "secret" | "configMap"): string[] {
  return arrayAt(projected, "sources").map((s) => stringAt(s, kind, "name"));
}

function secretNames(podSpec: unknown): string[] {
  const names = [
    ...arrayAt(podSpec, "imagePullSecrets").map((ref) => stringAt(ref, "name")),
    ...containerRefs(podSpec, "secretRef", "secretKeyRef"),
  ];
  for (const volume of arrayAt(podSpec, "volumes")) {
    const found = SECRET_VOLUME_SOURCES.find(([source]) => isObject(valueAt(volume, source)));
    if (!found) continue;
    const [source, path] = found;
    const sourceValue = valueAt(volume, source);
    if (source === "projected") names.push(...projectedNames(sourceValue, "secret"));
    else names.push(stringAt(sourceValue, ...path));
  }
  return names;
}

function configMapNames(podSpec: unknown): string[] {
  const names = containerRefs(podSpec, "configMapRef", "configMapKeyRef");
  for (const volume of arrayAt(podSpec, "volumes")) {
    const projected = objectAt(volume, "projected");
    if (projected) names.push(...projectedNames(projected, "configMap"));
    else names.push(stringAt(volume, "configMap", "name"));
  }
  return names;
}

function persistentVolumeClaimNames(podSpec: unknown): string[] {
  return arrayAt(podSpec, "volumes").map((v) => stringAt(v, "persistentVolumeClaim", "claimName"));
}

/** The default ServiceAccount exists in every namespace of every member. */
function serviceAccountNames(podSpec: unknown): string[] {
  const name = stringAt(podSpec, "serviceAccountName");
  return name !== "default" ? [name] : [];
}

/** Non-empty, distinct, sorted names. */
function distinct(names: readonly string[]): string[] {
  return [...new Set(names.filter((n) => n !== ""))].sort();
}

function coreRefs(kind: string, namespace: string, names: readonly string[]): DependentObjectReference[] {
  return distinct(names).map((name) => ({ apiVersion: "v1", kind, namespace, name }));
}

/** ConfigMaps, then Secrets, the ServiceAccount and PersistentVolumeClaims; names sorted in each. */
export function podSpecDependencies(podSpec: unknown, namespace: string): DependentObjectReference[] {
  return [
    ...coreRefs("ConfigMap", namespace, configMapNames(podSpec)),
    ...coreRefs("Secret", namespace, secretNames(podSpec)),
    ...coreRefs("ServiceAccount", namespace, serviceAccountNames(podSpec)),
    ...coreRefs("PersistentVolumeClaim", namespace, persistentVolumeClaimNames(podSpec)),
  ];
}

function fromPodTemplate(...path: string[]): DependencyReader {
  return (obj) => podSpecDependencies(valueAt(obj, ...path), obj.metadata?.namespace ?? "");
}

/**
 * The claims a StatefulSet's volumeClaimTemplates produce are created by the StatefulSet
 * controller in the member; a same-named PVC in the template's namespace is only a placeholder.
 */
const statefulSetDependencies: DependencyReader = (obj) => {
  const templated = new Set(
    arrayAt(obj, "spec", "volumeClaimTemplates").map((t) => stringAt(t, "metadata", "name")),
  );
  return fromPodTemplate(
    "spec",
    "template",
    "spec",
  )(obj).filter((ref) => ref.kind !== "PersistentVolumeClaim" || !templated.has(ref.name ?? ""));
};

/** The TLS certificate Secrets, in spec order. */
const ingressDependencies: DependencyReader = (obj) => {
  const namespace = obj.metadata?.namespace ?? "";
  const names = arrayAt(obj, "spec", "tls").map((tls) => stringAt(tls, "secretName"));
  return [...new Set(names.filter((n) => n !== ""))].map((name) => ({
    apiVersion: "v1",
    kind: "Secret",
    namespace,
    name,
  }));
};

/** The derived Service multi-cluster service discovery creates, and its EndpointSlices. */
const serviceImportDependencies: DependencyReader = (obj) => {
  const namespace = obj.metadata?.namespace ?? "";
  const derived = `derived-${obj.metadata?.name ?? ""}`;
  return [
    { apiVersion: "v1", kind: "Service", namespace, name: derived },
    {
      apiVersion: "discovery.k8s.io/v1",
      kind: "EndpointSlice",
      namespace,
      labelSelector: { matchLabels: { "kubernetes.io/service-name": derived } },
    },
  ];
};

export const DEPENDENCY_READERS: Record<string, DependencyReader> = {
  [GVK.deployment]: fromPodTemplate("spec", "template", "spec"),
  [GVK.replicaSet]: fromPodTemplate("spec", "template", "spec"),
  [GVK.daemonSet]: fromPodTemplate("spec", "template", "spec"),
  [GVK.job]: fromPodTemplate("spec", "template", "spec"),
  [GVK.cronJob]: fromPodTemplate("spec", "jobTemplate", "spec", "template", "spec"),
  [GVK.pod]: fromPodTemplate("spec"),
  [GVK.statefulSet]: statefulSetDependencies,
  [GVK.ingress]: ingressDependencies,
  [GVK.serviceImport]: serviceImportDependencies,
};
