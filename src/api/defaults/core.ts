/**
 * Defaults of the `core/v1` kinds other than the pod spec itself
 * (kubernetes `pkg/apis/core/v1/defaults.go`).
 */

import { cloneJson } from "../../machinery/merge-patch.ts";
import {
  ensureObj,
  type Obj,
  obj,
  objs,
  setDefault,
  setDefaultString,
  str,
  strMap,
} from "../validation/json.ts";
import {
  defaultPersistentVolumeClaimSpec,
  defaultPodTemplate,
  defaultResourceList,
  defaultSharedVolumeSources,
  podQOSClass,
} from "./pod.ts";

export function defaultService(svc: Obj): void {
  const spec = ensureObj(svc, "spec");
  setDefaultString(spec, "sessionAffinity", "None");
  if (spec.sessionAffinity === "None") delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === "ClientIP") {
    const timeout = obj(obj(obj(spec.sessionAffinityConfig)?.clientIP))?.timeoutSeconds;
    if (timeout === undefined || timeout === null)
      spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: 10800 } };
  }
  setDefaultString(spec, "type", "ClusterIP");
  for (const p of objs(spec.ports)) {
    setDefaultString(p, "protocol", "TCP");
    if (p.targetPort === undefined || p.targetPort === null || p.targetPort === 0 || p.targetPort === "") {
      p.targetPort = p.port;
    }
  }
  const type = spec.type;
  const externalIPs = Array.isArray(spec.externalIPs) ? spec.externalIPs.length : 0;
  const externallyAccessible =
    type === "LoadBalancer" || type === "NodePort" || (type === "ClusterIP" && externalIPs > 0);
  if (externallyAccessible) setDefaultString(spec, "externalTrafficPolicy", "Cluster");
  if (type === "NodePort" || type === "LoadBalancer" || type === "ClusterIP") {
    setDefault(spec, "internalTrafficPolicy", "Cluster");
  }
  if (type === "LoadBalancer") {
    setDefault(spec, "allocateLoadBalancerNodePorts", true);
    for (const ing of objs(obj(obj(svc.status)?.loadBalancer)?.ingress)) {
      if (str(ing.ip)) setDefault(ing, "ipMode", "VIP");
    }
  }
}

/** `stringData` is write-only: conversion merges it into `data` (base64), overriding keys. */
export function defaultSecret(secret: Obj): void {
  setDefaultString(secret, "type", "Opaque");
  const stringData = strMap(secret.stringData);
  if (stringData) {
    const data = ensureObj(secret, "data");
    for (const [k, v] of Object.entries(stringData)) data[k] = Buffer.from(v, "utf8").toString("base64");
  }
  delete secret.stringData;
}

export function defaultNamespace(ns: Obj): void {
  const meta = ensureObj(ns, "metadata");
  const name = str(meta.name);
  if (name) ensureObj(meta, "labels")["kubernetes.io/metadata.name"] = name;
  setDefaultString(ensureObj(ns, "status"), "phase", "Active");
}

export function defaultPersistentVolume(pv: Obj): void {
  const spec = ensureObj(pv, "spec");
  setDefaultString(ensureObj(pv, "status"), "phase", "Pending");
  setDefaultString(spec, "persistentVolumeReclaimPolicy", "Retain");
  setDefault(spec, "volumeMode", "Filesystem");
  defaultResourceList(spec.capacity);
  defaultSharedVolumeSources(spec);
}

export function defaultPersistentVolumeClaim(pvc: Obj): void {
  setDefaultString(ensureObj(pvc, "status"), "phase", "Pending");
  defaultPersistentVolumeClaimSpec(ensureObj(pvc, "spec"));
  const status = ensureObj(pvc, "status");
  defaultResourceList(status.capacity);
  defaultResourceList(status.allocatedResources);
}

export function defaultEndpoints(ep: Obj): void {
  for (const subset of objs(ep.subsets))
    for (const p of objs(subset.ports)) setDefaultString(p, "protocol", "TCP");
}

export function defaultNode(node: Obj): void {
  const status = obj(node.status);
  if (!status) return;
  defaultResourceList(status.capacity);
  defaultResourceList(status.allocatable);
  if ((status.allocatable === undefined || status.allocatable === null) && obj(status.capacity)) {
    status.allocatable = { ...obj(status.capacity) };
  }
}

/** Container limit ranges fill default limits from max, and default requests from default or min. */
export function defaultLimitRange(lr: Obj): void {
  for (const item of objs(obj(lr.spec)?.limits)) {
    for (const f of ["max", "min", "default", "defaultRequest", "maxLimitRequestRatio"])
      defaultResourceList(item[f]);
    if (item.type !== "Container") continue;
    const defaults: Obj = { ...(obj(item.default) ?? {}) };
    const requests: Obj = { ...(obj(item.defaultRequest) ?? {}) };
    for (const [k, v] of Object.entries(obj(item.max) ?? {})) if (!(k in defaults)) defaults[k] = v;
    for (const [k, v] of Object.entries(defaults)) if (!(k in requests)) requests[k] = v;
    for (const [k, v] of Object.entries(obj(item.min) ?? {})) if (!(k in requests)) requests[k] = v;
    // Empty maps are omitted by Go's JSON encoding; only materialize non-empty ones.
    if (Object.keys(defaults).length > 0) item.default = defaults;
    if (Object.keys(requests).length > 0) item.defaultRequest = requests;
  }
}

export function defaultResourceQuota(rq: Obj): void {
  defaultResourceList(obj(rq.spec)?.hard);
  defaultResourceList(obj(rq.status)?.hard);
  defaultResourceList(obj(rq.status)?.used);
}

export function defaultReplicationController(rc: Obj): void {
  const spec = ensureObj(rc, "spec");
  const template = obj(spec.template);
  const labels = obj(obj(template?.metadata)?.labels);
  if (labels) {
    if (Object.keys(obj(spec.selector) ?? {}).length === 0) spec.selector = { ...labels };
    const meta = ensureObj(rc, "metadata");
    if (Object.keys(obj(meta.labels) ?? {}).length === 0) meta.labels = { ...labels };
  }
  setDefault(spec, "replicas", 1);
  defaultPodTemplate(template);
}

export function defaultPodTemplateObject(pt: Obj): void {
  defaultPodTemplate(pt.template);
}

export { defaultPod } from "./pod.ts";

/** Create-time Pod status, as the pod strategy's PrepareForCreate sets it. */
export function preparePodForCreate(pod: Obj): void {
  const spec = ensureObj(pod, "spec");
  const status: Obj = { phase: "Pending", qosClass: podQOSClass(spec) };
  if (Array.isArray(spec.schedulingGates) && spec.schedulingGates.length > 0) {
    status.conditions = [
      {
        type: "PodScheduled",
        status: "False",
        reason: "SchedulingGated",
        message: "Scheduling is blocked due to non-empty scheduling gates",
      },
    ];
  }
  pod.status = status;
}

/**
 * Create-time Namespace state: phase Active, and the `kubernetes` finalizer the namespace
 * controller removes once the namespace is empty (create-only, so it may be removed later).
 */
export function prepareNamespaceForCreate(ns: Obj): void {
  ns.status = { phase: "Active" };
  const spec = ensureObj(ns, "spec");
  const finalizers = Array.isArray(spec.finalizers) ? spec.finalizers : [];
  if (!finalizers.includes("kubernetes")) spec.finalizers = [...finalizers, "kubernetes"];
}

export interface ServiceCreateOptions {
  /** The cluster's service IP families, primary first. Default `["IPv4"]`. */
  ipFamilies?: readonly ("IPv4" | "IPv6")[];
}

/**
 * Create-time Service fields the REST allocator fills: `clusterIP`/`clusterIPs` kept in step,
 * and the IP family policy and families (ClusterIP allocation itself is not done here).
 */
export function prepareServiceForCreate(svc: Obj, opts: ServiceCreateOptions = {}): void {
  const spec = ensureObj(svc, "spec");
  if (spec.type === "ExternalName") return;
  const clusterIP = str(spec.clusterIP);
  const clusterIPs = Array.isArray(spec.clusterIPs) ? spec.clusterIPs : [];
  if (clusterIP && clusterIPs.length === 0) spec.clusterIPs = [clusterIP];
  if (!clusterIP && typeof clusterIPs[0] === "string") spec.clusterIP = clusterIPs[0];
  const families = opts.ipFamilies ?? ["IPv4"];
  const headless = spec.clusterIP === "None";
  const selector = Object.keys(obj(spec.selector) ?? {}).length > 0;
  if (spec.ipFamilyPolicy === undefined || spec.ipFamilyPolicy === null) {
    spec.ipFamilyPolicy = headless && !selector && families.length > 1 ? "RequireDualStack" : "SingleStack";
  }
  if (!Array.isArray(spec.ipFamilies) || spec.ipFamilies.length === 0) {
    spec.ipFamilies = spec.ipFamilyPolicy === "SingleStack" ? [families[0]] : [...families];
  }
}

/**
 * Update-time Service fields the REST layer keeps for clients that resubmit their original
 * manifest (`patchAllocatedValues`): allocated cluster IPs, node ports and the health-check
 * port, plus the IP family fields, when the new object leaves them unset.
 */
export function prepareServiceForUpdate(svc: Obj, old: Obj): void {
  const spec = ensureObj(svc, "spec");
  const before = obj(old.spec) ?? {};
  const needsClusterIP = (s: Obj) => s.type !== "ExternalName";
  const needsNodePort = (s: Obj) =>
    s.type === "NodePort" || (s.type === "LoadBalancer" && s.allocateLoadBalancerNodePorts !== false);
  if (needsClusterIP(before) && needsClusterIP(spec)) {
    if (!str(spec.clusterIP) && str(before.clusterIP)) spec.clusterIP = before.clusterIP;
    const ips = Array.isArray(spec.clusterIPs) ? spec.clusterIPs : [];
    if (ips.length === 0 && Array.isArray(before.clusterIPs) && before.clusterIPs.length > 0) {
      spec.clusterIPs = [...before.clusterIPs];
    }
    if (spec.ipFamilyPolicy == null && before.ipFamilyPolicy != null)
      spec.ipFamilyPolicy = before.ipFamilyPolicy;
    const families = Array.isArray(spec.ipFamilies) ? spec.ipFamilies : [];
    if (families.length === 0 && Array.isArray(before.ipFamilies) && before.ipFamilies.length > 0) {
      spec.ipFamilies = [...before.ipFamilies];
    }
  }
  if (needsNodePort(before) && needsNodePort(spec)) keepNodePorts(spec, before);
  const needsHealthCheck = (s: Obj) => s.type === "LoadBalancer" && s.externalTrafficPolicy === "Local";
  if (needsHealthCheck(before) && needsHealthCheck(spec) && !spec.healthCheckNodePort) {
    if (before.healthCheckNodePort != null) spec.healthCheckNodePort = before.healthCheckNodePort;
  }
}

/** Ports without a nodePort get their previous one back, by port name, unless another port took it. */
function keepNodePorts(spec: Obj, before: Obj): void {
  const nodePortOf = (p: Obj) => (typeof p.nodePort === "number" ? p.nodePort : 0);
  const used = new Set(
    objs(spec.ports)
      .map(nodePortOf)
      .filter((n) => n !== 0),
  );
  const byName = new Map(objs(before.ports).map((p) => [str(p.name) ?? "", nodePortOf(p)]));
  for (const p of objs(spec.ports)) {
    const previous = byName.get(str(p.name) ?? "") ?? 0;
    if (nodePortOf(p) === 0 && previous !== 0 && !used.has(previous)) p.nodePort = previous;
  }
}

/** Namespace finalizers change only through `/finalize`, and status only through `/status`. */
export function prepareNamespaceForUpdate(ns: Obj, old: Obj): void {
  const spec = ensureObj(ns, "spec");
  const oldFinalizers = obj(old.spec)?.finalizers;
  if (oldFinalizers === undefined) delete spec.finalizers;
  else spec.finalizers = cloneJson(oldFinalizers);
  if (old.status === undefined) delete ns.status;
  else ns.status = cloneJson(old.status);
}

/** A CertificateSigningRequest's spec never changes, and its status only through subresources. */
export function prepareCertificateSigningRequestForUpdate(csr: Obj, old: Obj): void {
  for (const f of ["spec", "status"]) {
    if (old[f] === undefined) delete csr[f];
    else csr[f] = cloneJson(old[f]);
  }
}
