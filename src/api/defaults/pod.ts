/**
 * Defaults of `core/v1` PodSpec and everything inside it (containers, probes, volumes), as the
 * generated defaulters apply them to Pods and to every pod template (Deployment, Job, ...).
 * Source: kubernetes `pkg/apis/core/v1/defaults.go` and the `+default` markers of `core/v1/types.go`.
 */

import { canonicalQuantity, canonicalResourceQuantity } from "../../machinery/quantity.ts";
import {
  ensureObj,
  isObj,
  type Obj,
  obj,
  objs,
  setDefault,
  setDefaultString,
  str,
} from "../validation/json.ts";

/** A ResourceList: every quantity rounded up to milli-units and written in canonical form. */
export function defaultResourceList(list: unknown): void {
  const o = obj(list);
  if (!o) return;
  for (const [k, v] of Object.entries(o)) {
    const canonical = canonicalResourceQuantity(v);
    if (canonical !== undefined) o[k] = canonical;
  }
}

export function defaultResourceRequirements(resources: unknown): void {
  const r = obj(resources);
  if (!r) return;
  defaultResourceList(r.limits);
  defaultResourceList(r.requests);
}

/** A single Quantity field (not a ResourceList): canonical form, no rounding. */
export function defaultQuantityField(parent: Obj, field: string): void {
  if (parent[field] === undefined || parent[field] === null) return;
  const canonical = canonicalQuantity(parent[field]);
  if (canonical !== undefined) parent[field] = canonical;
}

/**
 * The tag `parsers.ParseImageName` reports: "latest" when neither tag nor digest is given,
 * "" when the reference does not parse (the defaulter then picks IfNotPresent).
 */
export function imageTag(image: string): string {
  const ref =
    /^(?:((?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)(?:\.(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?))*(?::[0-9]+)?)\/)?([a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*)(?::([\w][\w.-]{0,127}))?(?:@([A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}))?$/;
  const m = ref.exec(image);
  if (!m) return "";
  const [, , , tag, digest] = m;
  if (tag) return tag;
  return digest ? "" : "latest";
}

export function defaultContainer(c: Obj): void {
  const image = str(c.image) ?? "";
  setDefaultString(c, "imagePullPolicy", imageTag(image) === "latest" ? "Always" : "IfNotPresent");
  setDefaultString(c, "terminationMessagePath", "/dev/termination-log");
  setDefaultString(c, "terminationMessagePolicy", "File");
  // Not a defaulter: Go always encodes this non-pointer struct, so real servers show `resources: {}`.
  setDefault(c, "resources", {});
  for (const p of objs(c.ports)) setDefaultString(p, "protocol", "TCP");
  for (const e of objs(c.env)) {
    const fieldRef = obj(obj(e.valueFrom)?.fieldRef);
    if (fieldRef) setDefaultString(fieldRef, "apiVersion", "v1");
    const resourceFieldRef = obj(obj(e.valueFrom)?.resourceFieldRef);
    if (resourceFieldRef) defaultQuantityField(resourceFieldRef, "divisor");
  }
  defaultResourceRequirements(c.resources);
  for (const probe of ["livenessProbe", "readinessProbe", "startupProbe"]) {
    const p = obj(c[probe]);
    if (p) defaultProbe(p);
  }
  const lifecycle = obj(c.lifecycle);
  if (lifecycle) {
    for (const hook of ["postStart", "preStop"]) {
      const h = obj(lifecycle[hook]);
      if (h) defaultHandler(h);
    }
  }
}

function defaultHandler(h: Obj): void {
  const httpGet = obj(h.httpGet);
  if (httpGet) {
    setDefaultString(httpGet, "path", "/");
    setDefaultString(httpGet, "scheme", "HTTP");
  }
}

function defaultProbe(p: Obj): void {
  defaultHandler(p);
  const grpc = obj(p.grpc);
  if (grpc) setDefault(grpc, "service", "");
  // Go zero values: a probe field of 0 is "unset".
  for (const [field, value] of [
    ["timeoutSeconds", 1],
    ["periodSeconds", 10],
    ["successThreshold", 1],
    ["failureThreshold", 3],
  ] as const) {
    if (p[field] === undefined || p[field] === null || p[field] === 0) p[field] = value;
  }
}

const VOLUME_SOURCES = [
  "hostPath",
  "emptyDir",
  "gcePersistentDisk",
  "awsElasticBlockStore",
  "gitRepo",
  "secret",
  "nfs",
  "iscsi",
  "glusterfs",
  "persistentVolumeClaim",
  "rbd",
  "flexVolume",
  "cinder",
  "cephfs",
  "flocker",
  "downwardAPI",
  "fc",
  "azureFile",
  "configMap",
  "vsphereVolume",
  "quobyte",
  "azureDisk",
  "photonPersistentDisk",
  "projected",
  "portworxVolume",
  "scaleIO",
  "storageos",
  "csi",
  "ephemeral",
  "image",
];

function defaultDownwardAPIItems(items: unknown): void {
  for (const item of objs(items)) {
    const fieldRef = obj(item.fieldRef);
    if (fieldRef) setDefaultString(fieldRef, "apiVersion", "v1");
    const resourceFieldRef = obj(item.resourceFieldRef);
    if (resourceFieldRef) defaultQuantityField(resourceFieldRef, "divisor");
  }
}

/**
 * Defaults of the volume sources shared by pod volumes and PersistentVolume specs
 * (hostPath, rbd, iscsi, azureDisk, scaleIO).
 */
export function defaultSharedVolumeSources(v: Obj): void {
  const hostPath = obj(v.hostPath);
  if (hostPath) setDefault(hostPath, "type", "");
  const rbd = obj(v.rbd);
  if (rbd) {
    setDefaultString(rbd, "pool", "rbd");
    setDefaultString(rbd, "user", "admin");
    setDefaultString(rbd, "keyring", "/etc/ceph/keyring");
  }
  const iscsi = obj(v.iscsi);
  if (iscsi) setDefaultString(iscsi, "iscsiInterface", "default");
  const azureDisk = obj(v.azureDisk);
  if (azureDisk) {
    setDefault(azureDisk, "cachingMode", "ReadWrite");
    setDefault(azureDisk, "fsType", "ext4");
    setDefault(azureDisk, "readOnly", false);
    setDefault(azureDisk, "kind", "Shared");
  }
  const scaleIO = obj(v.scaleIO);
  if (scaleIO) {
    setDefaultString(scaleIO, "storageMode", "ThinProvisioned");
    setDefaultString(scaleIO, "fsType", "xfs");
  }
}

export function defaultVolume(v: Obj): void {
  if (!VOLUME_SOURCES.some((s) => isObj(v[s]))) v.emptyDir = {};
  defaultSharedVolumeSources(v);
  const emptyDir = obj(v.emptyDir);
  if (emptyDir) defaultQuantityField(emptyDir, "sizeLimit");
  for (const source of ["secret", "configMap", "downwardAPI", "projected"]) {
    const s = obj(v[source]);
    if (s) setDefault(s, "defaultMode", 420);
  }
  defaultDownwardAPIItems(obj(v.downwardAPI)?.items);
  for (const source of objs(obj(v.projected)?.sources)) {
    const token = obj(source.serviceAccountToken);
    if (token) setDefault(token, "expirationSeconds", 3600);
    defaultDownwardAPIItems(obj(source.downwardAPI)?.items);
  }
  const image = obj(v.image);
  if (image)
    setDefaultString(
      image,
      "pullPolicy",
      imageTag(str(image.reference) ?? "") === "latest" ? "Always" : "IfNotPresent",
    );
  const claimTemplate = obj(obj(v.ephemeral)?.volumeClaimTemplate);
  if (claimTemplate) defaultPersistentVolumeClaimSpec(ensureObj(claimTemplate, "spec"));
}

export function defaultPersistentVolumeClaimSpec(spec: Obj): void {
  setDefault(spec, "volumeMode", "Filesystem");
  defaultResourceRequirements(spec.resources);
}

/** `SetDefaults_PodSpec` and everything the generated defaulters reach from a PodSpec. */
export function defaultPodSpec(spec: Obj): void {
  setDefaultString(spec, "dnsPolicy", "ClusterFirst");
  setDefaultString(spec, "restartPolicy", "Always");
  setDefault(spec, "securityContext", {});
  setDefault(spec, "terminationGracePeriodSeconds", 30);
  setDefaultString(spec, "schedulerName", "default-scheduler");
  // v1 <-> internal conversion keeps the deprecated `serviceAccount` in step with the real field.
  const sa = str(spec.serviceAccountName) || str(spec.serviceAccount);
  if (sa) {
    spec.serviceAccountName = sa;
    spec.serviceAccount = sa;
  }
  for (const v of objs(spec.volumes)) defaultVolume(v);
  for (const list of ["initContainers", "containers", "ephemeralContainers"]) {
    for (const c of objs(spec[list])) defaultContainer(c);
  }
  defaultResourceList(spec.overhead);
  defaultResourceRequirements(spec.resources);
}

/**
 * A PodTemplateSpec: the spec's defaults, plus the `creationTimestamp: null` Go's encoder writes
 * for the template's zero ObjectMeta (v1.32 still emits it), so output matches a real server.
 */
export function defaultPodTemplate(template: unknown): void {
  const t = obj(template);
  if (!t) return;
  defaultTemplateMetadata(t);
  defaultPodSpec(ensureObj(t, "spec"));
}

/** Embedded ObjectMeta (pod templates, PVC templates, job templates) always shows `creationTimestamp`. */
export function defaultTemplateMetadata(t: Obj): void {
  const meta = ensureObj(t, "metadata");
  if (!("creationTimestamp" in meta)) meta.creationTimestamp = null;
}

/** `SetDefaults_Pod`: what only real Pods get, on top of the PodSpec defaults. */
export function defaultPod(pod: Obj): void {
  const spec = ensureObj(pod, "spec");
  for (const list of ["containers", "initContainers"]) {
    for (const c of objs(spec[list])) {
      const resources = obj(c.resources);
      const limits = obj(resources?.limits);
      if (!resources || !limits) continue;
      const requests = ensureObj(resources, "requests");
      for (const [k, v] of Object.entries(limits)) if (!(k in requests)) requests[k] = v;
    }
  }
  setDefault(spec, "enableServiceLinks", true);
  if (spec.hostNetwork === true) {
    for (const list of ["containers", "initContainers"]) {
      for (const c of objs(spec[list])) {
        for (const p of objs(c.ports)) {
          if (p.hostPort === undefined || p.hostPort === null || p.hostPort === 0)
            p.hostPort = p.containerPort;
        }
      }
    }
  }
  defaultPodSpec(spec);
}

/** True when any container in the list names a resource in requests or limits. */
function hasResource(containers: Obj[], name: string, which: "requests" | "limits"): boolean {
  return containers.some((c) => obj(obj(c.resources)?.[which])?.[name] !== undefined);
}

/** `qos.GetPodQOS` over a defaulted pod spec. */
export function podQOSClass(spec: Obj): "Guaranteed" | "Burstable" | "BestEffort" {
  const containers = [...objs(spec.initContainers), ...objs(spec.containers)];
  const compute = ["cpu", "memory"];
  const any = compute.some(
    (r) => hasResource(containers, r, "requests") || hasResource(containers, r, "limits"),
  );
  if (!any) return "BestEffort";
  const guaranteed = containers.every((c) => {
    const res = obj(c.resources);
    const limits = obj(res?.limits) ?? {};
    const requests = obj(res?.requests) ?? {};
    return compute.every((r) => {
      if (limits[r] === undefined) return false;
      const req = requests[r] ?? limits[r];
      return canonicalQuantity(req) === canonicalQuantity(limits[r]);
    });
  });
  return guaranteed ? "Guaranteed" : "Burstable";
}
