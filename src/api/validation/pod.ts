/**
 * PodSpec and PodTemplateSpec validation: the checks of kubernetes `pkg/apis/core/validation`
 * that users hit (containers, ports, env, probes, resources, volumes, tolerations, ...),
 * with the upstream messages. Runs on defaulted objects, as upstream does.
 */

import type { FieldError } from "../../machinery/errors.ts";
import { compareQuantities, formatQuantity, parseQuantity, quantitySign } from "../../machinery/quantity.ts";
import {
  child,
  duplicate,
  forbidden,
  index,
  invalid,
  key,
  notFound,
  notSupported,
  required,
  sorted,
} from "./field.ts";
import { isObj, num, type Obj, obj, objs, str, strs } from "./json.ts";
import { validateAnnotations, validateNonnegative } from "./metadata.ts";
import {
  checkName,
  inclusiveRangeError,
  isConfigMapKey,
  isDNS1123Label,
  isDNS1123Subdomain,
  isEnvVarName,
  isHTTPHeaderName,
  isQualifiedName,
  isValidIP,
  isValidLabelValue,
  isValidPortName,
  isValidPortNum,
} from "./names.ts";
import {
  isHugePages,
  isOvercommitAllowed,
  validateContainerResourceList,
  validateContainerResourceName,
  validateQuantityValue,
} from "./resources.ts";
import { validateLabelName, validateLabels } from "./selectors.ts";

export interface PodSpecOptions {
  /** The spec belongs to a Pod (not a template): stricter hostNetwork and image checks. */
  isPod?: boolean;
}

const MAX_INT32 = 2147483647;
const PORT_PROTOCOLS = ["SCTP", "TCP", "UDP"];
const FILE_MODE_ERROR = "must be a number between 0 and 0777 (octal), both inclusive";

function dnsLabel(value: string, field: string): FieldError[] {
  return isDNS1123Label(value).map((m) => invalid(field, value, m));
}

function dnsSubdomain(value: string, field: string): FieldError[] {
  return isDNS1123Subdomain(value).map((m) => invalid(field, value, m));
}

function qualifiedName(value: string, field: string): FieldError[] {
  return isQualifiedName(value).map((m) => invalid(field, value, m));
}

export function validatePodTemplateSpec(
  template: unknown,
  path: string,
  opts: PodSpecOptions = {},
): FieldError[] {
  const t = obj(template) ?? {};
  const meta = obj(t.metadata) ?? {};
  const spec = obj(t.spec) ?? {};
  // Upstream reports template labels at `<path>.labels`, not `<path>.metadata.labels`.
  const errs = [
    ...validateLabels(meta.labels, child(path, "labels")),
    ...validateAnnotations(meta.annotations, child(path, "annotations")),
    ...validatePodSpec(spec, child(path, "spec"), opts),
  ];
  if (objs(spec.ephemeralContainers).length > 0) {
    errs.push(
      forbidden(
        child(path, "spec", "ephemeralContainers"),
        "ephemeral containers not allowed in pod template",
      ),
    );
  }
  return errs;
}

export function validatePodSpec(spec: Obj, path: string, opts: PodSpecOptions = {}): FieldError[] {
  const errs: FieldError[] = [];
  if (spec.terminationGracePeriodSeconds === undefined || spec.terminationGracePeriodSeconds === null) {
    errs.push(required(child(path, "terminationGracePeriodSeconds")));
  }
  const gracePeriod = num(spec.terminationGracePeriodSeconds);
  const { volumes, errors: volumeErrors } = validateVolumes(spec.volumes, child(path, "volumes"));
  errs.push(...volumeErrors);
  errs.push(...validateContainers(spec, volumes, gracePeriod, path));
  errs.push(...validateInitContainers(spec, volumes, gracePeriod, path));
  errs.push(...validateEphemeralContainerNames(spec, path));
  errs.push(...validateHostNetworkPorts(spec, path, opts));
  errs.push(
    ...validateEnum(spec.restartPolicy, child(path, "restartPolicy"), ["Always", "OnFailure", "Never"]),
  );
  errs.push(
    ...validateEnum(spec.dnsPolicy, child(path, "dnsPolicy"), [
      "ClusterFirstWithHostNet",
      "ClusterFirst",
      "Default",
      "None",
    ]),
  );
  errs.push(...validateLabels(spec.nodeSelector, child(path, "nodeSelector")));
  errs.push(...validatePodSecurityContext(spec.securityContext, child(path, "securityContext")));
  objs(spec.imagePullSecrets).forEach((s, i) => {
    if (Object.keys(s).some((k) => k !== "name"))
      errs.push(invalid(index(child(path, "imagePullSecrets"), i), s, "only name may be set"));
  });
  errs.push(...validateDNSConfig(spec, child(path, "dnsConfig")));
  objs(spec.readinessGates).forEach((g, i) => {
    errs.push(
      ...qualifiedName(
        str(g.conditionType) ?? "",
        child(index(child(path, "readinessGates"), i), "conditionType"),
      ),
    );
  });
  errs.push(...validateSchedulingGates(spec.schedulingGates, child(path, "schedulingGates")));
  errs.push(
    ...validateTopologySpreadConstraints(
      spec.topologySpreadConstraints,
      child(path, "topologySpreadConstraints"),
    ),
  );
  for (const [field, rule] of [
    ["serviceAccountName", "subdomain"],
    ["nodeName", "subdomain"],
    ["priorityClassName", "subdomain"],
  ] as const) {
    const v = str(spec[field]);
    if (v) for (const m of checkName(rule, v, false)) errs.push(invalid(child(path, field), v, m));
  }
  const ads = num(spec.activeDeadlineSeconds);
  if (ads !== undefined && (ads < 1 || ads > MAX_INT32)) {
    errs.push(invalid(child(path, "activeDeadlineSeconds"), ads, inclusiveRangeError(1, MAX_INT32)));
  }
  for (const field of ["hostname", "subdomain"]) {
    const v = str(spec[field]);
    if (v) errs.push(...dnsLabel(v, child(path, field)));
  }
  errs.push(...validateTolerations(spec.tolerations, child(path, "tolerations")));
  objs(spec.hostAliases).forEach((alias, i) => {
    const p = index(child(path, "hostAliases"), i);
    errs.push(...isValidIP(child(p, "ip"), str(alias.ip) ?? ""));
    strs(alias.hostnames).forEach((h, j) => {
      errs.push(...dnsSubdomain(h, index(child(p, "hostnames"), j)));
    });
  });
  const runtimeClassName = str(spec.runtimeClassName);
  if (runtimeClassName !== undefined)
    errs.push(...dnsSubdomain(runtimeClassName, child(path, "runtimeClassName")));
  if (spec.preemptionPolicy !== undefined && spec.preemptionPolicy !== null) {
    errs.push(
      ...validateEnum(spec.preemptionPolicy, child(path, "preemptionPolicy"), [
        "PreemptLowerPriority",
        "Never",
      ]),
    );
  }
  if (isObj(spec.overhead))
    errs.push(...validateContainerResourceList(spec.overhead, child(path, "overhead")));
  const os = obj(spec.os);
  if (os) errs.push(...validateEnum(os.name, child(path, "os", "name"), ["linux", "windows"], true));
  return errs;
}

/** Required when empty, NotSupported when outside `values` (listed in the given order). */
export function validateEnum(
  value: unknown,
  field: string,
  values: readonly string[],
  sortValues = false,
): FieldError[] {
  const v = str(value) ?? "";
  if (v === "") return [required(field)];
  if (values.includes(v)) return [];
  return [notSupported(field, v, sortValues ? sorted(values) : values)];
}

const VOLUME_SOURCES = [
  "emptyDir",
  "hostPath",
  "gitRepo",
  "gcePersistentDisk",
  "awsElasticBlockStore",
  "secret",
  "nfs",
  "iscsi",
  "glusterfs",
  "flocker",
  "persistentVolumeClaim",
  "rbd",
  "cinder",
  "cephfs",
  "quobyte",
  "downwardAPI",
  "fc",
  "flexVolume",
  "configMap",
  "azureFile",
  "vsphereVolume",
  "photonPersistentDisk",
  "portworxVolume",
  "azureDisk",
  "storageos",
  "projected",
  "scaleIO",
  "csi",
  "ephemeral",
  "image",
];

function validateVolumes(
  volumes: unknown,
  path: string,
): { volumes: Map<string, Obj>; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const byName = new Map<string, Obj>();
  objs(volumes).forEach((v, i) => {
    const p = index(path, i);
    const name = str(v.name) ?? "";
    const el = validateVolumeSource(v, p);
    if (!name) el.push(required(child(p, "name")));
    else el.push(...dnsLabel(name, child(p, "name")));
    if (byName.has(name)) el.push(duplicate(child(p, "name"), name));
    if (el.length === 0) byName.set(name, v);
    else errors.push(...el);
  });
  return { volumes: byName, errors };
}

function validateVolumeSource(v: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let count = 0;
  for (const source of VOLUME_SOURCES) {
    const s = obj(v[source]);
    if (!s) continue;
    if (count > 0) {
      errs.push(forbidden(child(path, source), "may not specify more than 1 volume type"));
      continue;
    }
    count++;
    errs.push(...validateOneVolumeSource(source, s, child(path, source)));
  }
  if (count === 0) errs.push(required(path, "must specify a volume type"));
  return errs;
}

function validateFileMode(mode: unknown, field: string): FieldError[] {
  const m = num(mode);
  return m !== undefined && (m > 0o777 || m < 0) ? [invalid(field, m, FILE_MODE_ERROR)] : [];
}

function validateLocalPath(p: string, field: string): FieldError[] {
  const errs: FieldError[] = [];
  if (p.startsWith("/")) errs.push(invalid(field, p, "must be a relative path"));
  if (p.split("/").includes("..")) errs.push(invalid(field, p, "must not contain '..'"));
  else if (p.startsWith("..")) errs.push(invalid(field, p, "must not start with '..'"));
  return errs;
}

function validateKeyToPaths(items: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  objs(items).forEach((item, i) => {
    const p = index(path, i);
    if (!str(item.key)) errs.push(required(child(p, "key")));
    const itemPath = str(item.path) ?? "";
    if (!itemPath) errs.push(required(child(p, "path")));
    errs.push(...validateLocalPath(itemPath, child(p, "path")));
    errs.push(...validateFileMode(item.mode, child(p, "mode")));
  });
  return errs;
}

function validateOneVolumeSource(source: string, s: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  switch (source) {
    case "hostPath": {
      const p = str(s.path) ?? "";
      if (!p) return [required(child(path, "path"))];
      if (p.split("/").includes("..")) errs.push(invalid(child(path, "path"), p, "must not contain '..'"));
      const types = [
        "",
        "BlockDevice",
        "CharDevice",
        "Directory",
        "DirectoryOrCreate",
        "File",
        "FileOrCreate",
        "Socket",
      ];
      const t = s.type;
      if (typeof t === "string" && !types.includes(t)) errs.push(notSupported(child(path, "type"), t, types));
      return errs;
    }
    case "secret":
      if (!str(s.secretName)) errs.push(required(child(path, "secretName")));
      errs.push(...validateFileMode(s.defaultMode, child(path, "defaultMode")));
      errs.push(...validateKeyToPaths(s.items, child(path, "items")));
      return errs;
    case "configMap":
      if (!str(s.name)) errs.push(required(child(path, "name")));
      errs.push(...validateFileMode(s.defaultMode, child(path, "defaultMode")));
      errs.push(...validateKeyToPaths(s.items, child(path, "items")));
      return errs;
    case "persistentVolumeClaim":
      return str(s.claimName) ? [] : [required(child(path, "claimName"))];
    case "nfs": {
      if (!str(s.server)) errs.push(required(child(path, "server")));
      const p = str(s.path) ?? "";
      if (!p) errs.push(required(child(path, "path")));
      else if (!p.startsWith("/")) errs.push(invalid(child(path, "path"), p, "must be an absolute path"));
      return errs;
    }
    case "csi":
      return str(s.driver) ? [] : [required(child(path, "driver"))];
    case "emptyDir": {
      const limit = s.sizeLimit === undefined ? undefined : parseQuantity(s.sizeLimit);
      if (limit && quantitySign(limit) < 0)
        errs.push(forbidden(child(path, "sizeLimit"), "SizeLimit field must be a valid resource quantity"));
      return errs;
    }
    case "projected":
    case "downwardAPI":
      return validateFileMode(s.defaultMode, child(path, "defaultMode"));
    default:
      return errs;
  }
}

function validateContainerCommon(c: Obj, volumes: Map<string, Obj>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(c.name) ?? "";
  if (!name) errs.push(required(child(path, "name")));
  else errs.push(...dnsLabel(name, child(path, "name")));
  if (!str(c.image)) errs.push(required(child(path, "image")));
  errs.push(
    ...validateEnum(c.terminationMessagePolicy, child(path, "terminationMessagePolicy"), [
      "File",
      "FallbackToLogsOnError",
    ]),
  );
  errs.push(...validateContainerPorts(c.ports, child(path, "ports")));
  errs.push(...validateEnv(c.env, child(path, "env")));
  errs.push(...validateEnvFrom(c.envFrom, child(path, "envFrom")));
  errs.push(...validateVolumeMounts(c, volumes, child(path, "volumeMounts")));
  errs.push(
    ...validateEnum(
      c.imagePullPolicy,
      child(path, "imagePullPolicy"),
      ["Always", "IfNotPresent", "Never"],
      true,
    ),
  );
  errs.push(...validateResourceRequirements(c.resources, child(path, "resources")));
  errs.push(...validateContainerSecurityContext(c.securityContext, child(path, "securityContext")));
  return errs;
}

const MAX_ID = 2147483647;

function validateID(value: unknown, field: string): FieldError[] {
  const v = num(value);
  if (v === undefined || (v >= 0 && v <= MAX_ID)) return [];
  return [invalid(field, v, inclusiveRangeError(0, MAX_ID))];
}

function validateSeccompProfile(profile: unknown, path: string): FieldError[] {
  const p = obj(profile);
  if (!p) return [];
  const errs: FieldError[] = [];
  const type = str(p.type) ?? "";
  const types = ["Localhost", "RuntimeDefault", "Unconfined"];
  if (!type) errs.push(required(child(path, "type"), "type is required when seccompProfile is set"));
  else if (!types.includes(type)) errs.push(notSupported(child(path, "type"), type, types));
  const localhost = p.localhostProfile;
  if (type === "Localhost") {
    if (!str(localhost))
      errs.push(required(child(path, "localhostProfile"), "must be set when seccomp type is Localhost"));
    else
      errs.push(
        ...validateLocalPath(str(localhost) ?? "", child(path, "localhostProfile")).filter(
          (e) => e.detail !== "must not start with '..'",
        ),
      );
  } else if (localhost != null) {
    errs.push(invalid(child(path, "localhostProfile"), p, "can only be set when seccomp type is Localhost"));
  }
  return errs;
}

function validateContainerSecurityContext(securityContext: unknown, path: string): FieldError[] {
  const sc = obj(securityContext);
  if (!sc) return [];
  const errs = [
    ...validateID(sc.runAsUser, child(path, "runAsUser")),
    ...validateID(sc.runAsGroup, child(path, "runAsGroup")),
  ];
  if (sc.procMount != null && sc.procMount !== "Default" && sc.procMount !== "Unmasked") {
    errs.push(notSupported(child(path, "procMount"), sc.procMount, ["Default", "Unmasked"]));
  }
  errs.push(...validateSeccompProfile(sc.seccompProfile, child(path, "seccompProfile")));
  if (sc.allowPrivilegeEscalation === false) {
    if (sc.privileged === true) {
      errs.push(invalid(path, sc, "cannot set `allowPrivilegeEscalation` to false and `privileged` to true"));
    }
    if (strs(obj(sc.capabilities)?.add).includes("CAP_SYS_ADMIN")) {
      errs.push(
        invalid(
          path,
          sc,
          "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN",
        ),
      );
    }
  }
  return errs;
}

function validatePodSecurityContext(securityContext: unknown, path: string): FieldError[] {
  const sc = obj(securityContext);
  if (!sc) return [];
  const errs = [
    ...validateID(sc.fsGroup, child(path, "fsGroup")),
    ...validateID(sc.runAsUser, child(path, "runAsUser")),
    ...validateID(sc.runAsGroup, child(path, "runAsGroup")),
  ];
  (Array.isArray(sc.supplementalGroups) ? sc.supplementalGroups : []).forEach((g, i) => {
    errs.push(...validateID(g, index(child(path, "supplementalGroups"), i)));
  });
  const policy = sc.fsGroupChangePolicy;
  if (policy != null && policy !== "OnRootMismatch" && policy !== "Always") {
    errs.push(notSupported(child(path, "fsGroupChangePolicy"), policy, ["Always", "OnRootMismatch"]));
  }
  errs.push(...validateSeccompProfile(sc.seccompProfile, child(path, "seccompProfile")));
  const names = new Set<string>();
  objs(sc.sysctls).forEach((s, i) => {
    const p = index(child(path, "sysctls"), i);
    const name = str(s.name) ?? "";
    if (!name) errs.push(required(child(p, "name")));
    else if (!/^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$/.test(name)) {
      errs.push(
        invalid(
          child(p, "name"),
          name,
          "must have at most 253 characters and match regex ^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$",
        ),
      );
    }
    if (names.has(name)) errs.push(duplicate(child(p, "name"), name));
    names.add(name);
  });
  return errs;
}

function validateContainers(spec: Obj, volumes: Map<string, Obj>, grace: number | undefined, path: string) {
  const p = child(path, "containers");
  const containers = objs(spec.containers);
  if (containers.length === 0) return [required(p)];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  containers.forEach((c, i) => {
    const cp = index(p, i);
    errs.push(...validateContainerCommon(c, volumes, cp));
    const name = str(c.name) ?? "";
    if (names.has(name)) errs.push(duplicate(child(cp, "name"), name));
    else names.add(name);
    errs.push(...validateProbesAndLifecycle(c, grace, cp));
    if (c.restartPolicy !== undefined && c.restartPolicy !== null) {
      errs.push(forbidden(child(cp, "restartPolicy"), "may not be set for non-init containers"));
    }
  });
  errs.push(...checkHostPortConflicts(containers, p));
  return errs;
}

function validateInitContainers(
  spec: Obj,
  volumes: Map<string, Obj>,
  grace: number | undefined,
  path: string,
) {
  const p = child(path, "initContainers");
  const errs: FieldError[] = [];
  const names = new Set(objs(spec.containers).map((c) => str(c.name) ?? ""));
  objs(spec.initContainers).forEach((c, i) => {
    const cp = index(p, i);
    errs.push(...validateContainerCommon(c, volumes, cp));
    let restartAlways = false;
    if (c.restartPolicy !== undefined && c.restartPolicy !== null) {
      const rp = str(c.restartPolicy) ?? "";
      if (rp !== "Always") errs.push(notSupported(child(cp, "restartPolicy"), rp, ["Always"]));
      restartAlways = rp === "Always";
    }
    const name = str(c.name) ?? "";
    if (names.has(name)) errs.push(duplicate(child(cp, "name"), name));
    else if (name) names.add(name);
    errs.push(...checkHostPortConflicts([c], p));
    if (restartAlways) {
      errs.push(...validateProbesAndLifecycle(c, grace, cp));
    } else {
      for (const f of ["lifecycle", "livenessProbe", "readinessProbe", "startupProbe"]) {
        if (c[f] !== undefined && c[f] !== null)
          errs.push(
            forbidden(child(cp, f), "may not be set for init containers without restartPolicy=Always"),
          );
      }
    }
  });
  return errs;
}

function validateEphemeralContainerNames(spec: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set(
    [...objs(spec.containers), ...objs(spec.initContainers)].map((c) => str(c.name) ?? ""),
  );
  objs(spec.ephemeralContainers).forEach((c, i) => {
    const cp = index(child(path, "ephemeralContainers"), i);
    const name = str(c.name) ?? "";
    if (!name) errs.push(required(child(cp, "name")));
    else errs.push(...dnsLabel(name, child(cp, "name")));
    if (!str(c.image)) errs.push(required(child(cp, "image")));
    if (names.has(name)) errs.push(duplicate(child(cp, "name"), name));
    else names.add(name);
  });
  return errs;
}

function validateContainerPorts(ports: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  objs(ports).forEach((port, i) => {
    const p = index(path, i);
    const name = str(port.name) ?? "";
    if (name) {
      const msgs = isValidPortName(name);
      if (msgs.length > 0) for (const m of msgs) errs.push(invalid(child(p, "name"), name, m));
      else if (names.has(name)) errs.push(duplicate(child(p, "name"), name));
      else names.add(name);
    }
    const containerPort = num(port.containerPort) ?? 0;
    if (containerPort === 0) errs.push(required(child(p, "containerPort")));
    else
      for (const m of isValidPortNum(containerPort))
        errs.push(invalid(child(p, "containerPort"), containerPort, m));
    const hostPort = num(port.hostPort) ?? 0;
    if (hostPort !== 0)
      for (const m of isValidPortNum(hostPort)) errs.push(invalid(child(p, "hostPort"), hostPort, m));
    errs.push(...validatePortProtocol(port.protocol, child(p, "protocol")));
  });
  return errs;
}

export function validatePortProtocol(protocol: unknown, field: string): FieldError[] {
  const v = str(protocol) ?? "";
  if (!v) return [required(field)];
  return PORT_PROTOCOLS.includes(v) ? [] : [notSupported(field, v, PORT_PROTOCOLS)];
}

function checkHostPortConflicts(containers: Obj[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  containers.forEach((c, ci) => {
    objs(c.ports).forEach((port, pi) => {
      const hostPort = num(port.hostPort) ?? 0;
      if (hostPort === 0) return;
      const k = `${str(port.protocol) ?? ""}/${str(port.hostIP) ?? ""}/${hostPort}`;
      if (seen.has(k)) errs.push(duplicate(child(index(child(index(path, ci), "ports"), pi), "hostPort"), k));
      else seen.add(k);
    });
  });
  return errs;
}

function validateHostNetworkPorts(spec: Obj, path: string, opts: PodSpecOptions): FieldError[] {
  if (spec.hostNetwork !== true) return [];
  const errs: FieldError[] = [];
  objs(spec.containers).forEach((c, i) => {
    objs(c.ports).forEach((port, j) => {
      const hp = num(port.hostPort) ?? 0;
      const cp = num(port.containerPort) ?? 0;
      if ((opts.isPod || hp !== 0) && hp !== cp) {
        errs.push(
          invalid(
            child(index(child(index(child(path, "containers"), i), "ports"), j), "hostPort"),
            hp,
            "must match `containerPort` when `hostNetwork` is true",
          ),
        );
      }
    });
  });
  return errs;
}

const ENV_FIELD_PATHS = [
  "metadata.name",
  "metadata.namespace",
  "metadata.uid",
  "spec.nodeName",
  "spec.serviceAccountName",
  "status.hostIP",
  "status.hostIPs",
  "status.podIP",
  "status.podIPs",
];
const CONVERTIBLE_FIELD_PATHS = new Set([
  ...ENV_FIELD_PATHS,
  "metadata.annotations",
  "metadata.labels",
  "spec.restartPolicy",
  "spec.schedulerName",
  "status.phase",
  "spec.host",
]);

function validateEnv(env: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  objs(env).forEach((e, i) => {
    const p = index(path, i);
    const name = str(e.name) ?? "";
    if (!name) errs.push(required(child(p, "name")));
    else for (const m of isEnvVarName(name)) errs.push(invalid(child(p, "name"), name, m));
    errs.push(...validateEnvValueFrom(e, child(p, "valueFrom")));
  });
  return errs;
}

function validateEnvValueFrom(e: Obj, path: string): FieldError[] {
  const from = obj(e.valueFrom);
  if (!from) return [];
  const errs: FieldError[] = [];
  let sources = 0;
  const fieldRef = obj(from.fieldRef);
  if (fieldRef) {
    sources++;
    errs.push(...validateObjectFieldSelector(fieldRef, child(path, "fieldRef")));
  }
  const resourceFieldRef = obj(from.resourceFieldRef);
  if (resourceFieldRef) {
    sources++;
    if (!str(resourceFieldRef.resource)) errs.push(required(child(path, "resourceFieldRef", "resource")));
  }
  for (const [refName, label] of [
    ["configMapKeyRef", "configMapKeyRef"],
    ["secretKeyRef", "secretKeyRef"],
  ] as const) {
    const ref = obj(from[refName]);
    if (!ref) continue;
    sources++;
    const rp = child(path, label);
    const refNameValue = str(ref.name) ?? "";
    for (const m of isDNS1123Subdomain(refNameValue)) errs.push(invalid(child(rp, "name"), refNameValue, m));
    const k = str(ref.key) ?? "";
    if (!k) errs.push(required(child(rp, "key")));
    else for (const m of isConfigMapKey(k)) errs.push(invalid(child(rp, "key"), k, m));
  }
  if (sources === 0) {
    errs.push(
      invalid(
        path,
        "",
        "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`",
      ),
    );
  } else if (str(e.value)) {
    errs.push(invalid(path, "", "may not be specified when `value` is not empty"));
  } else if (sources > 1) {
    errs.push(invalid(path, "", "may not have more than one field specified at a time"));
  }
  return errs;
}

function validateObjectFieldSelector(fs: Obj, path: string): FieldError[] {
  const apiVersion = str(fs.apiVersion) ?? "";
  if (!apiVersion) return [required(child(path, "apiVersion"))];
  const fieldPath = str(fs.fieldPath) ?? "";
  if (!fieldPath) return [required(child(path, "fieldPath"))];
  if (apiVersion !== "v1") {
    return [
      invalid(
        child(path, "fieldPath"),
        fieldPath,
        `error converting fieldPath: unsupported pod version: ${apiVersion}`,
      ),
    ];
  }
  const sub =
    /^(metadata\.(?:annotations|labels))\['(.*)'\]$/.exec(fieldPath) ?? /^([^[]+)\[(.*)\]$/.exec(fieldPath);
  if (sub) {
    const [, base = "", subscript = ""] = sub;
    if (base === "metadata.annotations") return qualifiedName(subscript.toLowerCase(), path);
    if (base === "metadata.labels") return qualifiedName(subscript, path);
    return [
      invalid(
        child(path, "fieldPath"),
        fieldPath,
        `error converting fieldPath: field label does not support subscript: ${fieldPath}`,
      ),
    ];
  }
  if (!CONVERTIBLE_FIELD_PATHS.has(fieldPath)) {
    return [
      invalid(
        child(path, "fieldPath"),
        fieldPath,
        `error converting fieldPath: field label not supported: ${fieldPath}`,
      ),
    ];
  }
  const internal = fieldPath === "spec.host" ? "spec.nodeName" : fieldPath;
  if (!ENV_FIELD_PATHS.includes(internal))
    return [notSupported(child(path, "fieldPath"), internal, ENV_FIELD_PATHS)];
  return [];
}

function validateEnvFrom(envFrom: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  objs(envFrom).forEach((e, i) => {
    const p = index(path, i);
    const prefix = str(e.prefix) ?? "";
    if (prefix) for (const m of isEnvVarName(prefix)) errs.push(invalid(child(p, "prefix"), prefix, m));
    let sources = 0;
    for (const refName of ["configMapRef", "secretRef"]) {
      const ref = obj(e[refName]);
      if (!ref) continue;
      sources++;
      const name = str(ref.name) ?? "";
      if (!name) errs.push(required(child(p, refName, "name")));
      else
        for (const m of checkName("subdomain", name, true))
          errs.push(invalid(child(p, refName, "name"), name, m));
    }
    if (sources === 0) errs.push(invalid(path, "", "must specify one of: `configMapRef` or `secretRef`"));
    else if (sources > 1)
      errs.push(invalid(path, "", "may not have more than one field specified at a time"));
  });
  return errs;
}

function validateVolumeMounts(c: Obj, volumes: Map<string, Obj>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const mountPaths = new Set<string>();
  objs(c.volumeMounts).forEach((m, i) => {
    const p = index(path, i);
    const name = str(m.name) ?? "";
    if (!name) errs.push(required(child(p, "name")));
    if (!volumes.has(name)) errs.push(notFound(child(p, "name"), name));
    const mountPath = str(m.mountPath) ?? "";
    if (!mountPath) errs.push(required(child(p, "mountPath")));
    if (mountPaths.has(mountPath)) errs.push(invalid(child(p, "mountPath"), mountPath, "must be unique"));
    mountPaths.add(mountPath);
    const subPath = str(m.subPath) ?? "";
    if (subPath)
      errs.push(
        ...validateLocalPath(subPath, child(path, "subPath")).filter(
          (e) => e.detail !== "must not start with '..'",
        ),
      );
    const subPathExpr = str(m.subPathExpr) ?? "";
    if (subPathExpr && subPath) {
      errs.push(
        invalid(child(p, "subPathExpr"), subPathExpr, "subPathExpr and subPath are mutually exclusive"),
      );
    }
    const propagation = str(m.mountPropagation);
    if (propagation !== undefined) {
      const supported = ["Bidirectional", "HostToContainer", "None"];
      if (!supported.includes(propagation))
        errs.push(notSupported(child(path, "mountPropagation"), propagation, supported));
      const privileged = obj(c.securityContext)?.privileged === true;
      if (propagation === "Bidirectional" && !privileged) {
        errs.push(
          forbidden(
            child(path, "mountPropagation"),
            "Bidirectional mount propagation is available only to privileged containers",
          ),
        );
      }
    }
  });
  return errs;
}

function validateProbesAndLifecycle(c: Obj, grace: number | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const lifecycle = obj(c.lifecycle);
  if (lifecycle) {
    for (const hook of ["postStart", "preStop"]) {
      const h = obj(lifecycle[hook]);
      if (h) errs.push(...validateHandler(h, grace, child(path, "lifecycle", hook), true));
    }
  }
  for (const probe of ["livenessProbe", "readinessProbe", "startupProbe"]) {
    const p = obj(c[probe]);
    if (!p) continue;
    const pp = child(path, probe);
    errs.push(...validateHandler(p, grace, pp, false));
    for (const f of [
      "initialDelaySeconds",
      "timeoutSeconds",
      "periodSeconds",
      "successThreshold",
      "failureThreshold",
    ]) {
      errs.push(...validateNonnegative(num(p[f]), child(pp, f)));
    }
    const tgps = num(p.terminationGracePeriodSeconds);
    if (tgps !== undefined && tgps <= 0) {
      errs.push(invalid(child(pp, "terminationGracePeriodSeconds"), tgps, "must be greater than 0"));
    }
    const success = num(p.successThreshold) ?? 0;
    if (probe !== "readinessProbe" && success !== 1) {
      errs.push(invalid(child(pp, "successThreshold"), success, "must be 1"));
    }
    if (probe === "readinessProbe" && p.terminationGracePeriodSeconds != null) {
      errs.push(
        invalid(
          child(pp, "terminationGracePeriodSeconds"),
          p.terminationGracePeriodSeconds,
          "must not be set for readinessProbes",
        ),
      );
    }
  }
  return errs;
}

function validateHandler(h: Obj, grace: number | undefined, path: string, lifecycle: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const kinds = lifecycle
    ? ["exec", "httpGet", "tcpSocket", "sleep"]
    : ["exec", "httpGet", "tcpSocket", "grpc"];
  let count = 0;
  for (const k of kinds) {
    const a = obj(h[k]);
    if (!a) continue;
    if (count > 0) {
      errs.push(forbidden(child(path, k), "may not specify more than 1 handler type"));
      continue;
    }
    count++;
    errs.push(...validateHandlerAction(k, a, grace, child(path, k)));
  }
  if (count === 0) errs.push(required(path, "must specify a handler type"));
  return errs;
}

function validateHandlerAction(kind: string, a: Obj, grace: number | undefined, path: string): FieldError[] {
  switch (kind) {
    case "exec":
      return strs(a.command).length === 0 ? [required(child(path, "command"))] : [];
    case "httpGet": {
      const errs: FieldError[] = [];
      if (!str(a.path)) errs.push(required(child(path, "path")));
      errs.push(...validatePortNumOrName(a.port, child(path, "port")));
      const scheme = str(a.scheme) ?? "";
      if (scheme !== "HTTP" && scheme !== "HTTPS")
        errs.push(notSupported(child(path, "scheme"), scheme, ["HTTP", "HTTPS"]));
      for (const header of objs(a.httpHeaders)) {
        const hn = str(header.name) ?? "";
        for (const m of isHTTPHeaderName(hn)) errs.push(invalid(child(path, "httpHeaders"), hn, m));
      }
      return errs;
    }
    case "sleep": {
      const seconds = num(a.seconds) ?? 0;
      if (grace === undefined || (seconds > 0 && seconds <= grace)) return [];
      return [
        invalid(
          path,
          seconds,
          `must be greater than 0 and less than terminationGracePeriodSeconds (${grace}). Enable AllowPodLifecycleSleepActionZeroValue feature gate for zero sleep.`,
        ),
      ];
    }
    default:
      return validatePortNumOrName(a.port, child(path, "port"));
  }
}

/** An int-or-string port: a number in 1-65535 or a valid port name. */
export function validatePortNumOrName(port: unknown, field: string): FieldError[] {
  if (typeof port === "number") return isValidPortNum(port).map((m) => invalid(field, port, m));
  if (typeof port === "string") return isValidPortName(port).map((m) => invalid(field, port, m));
  return isValidPortNum(0).map((m) => invalid(field, 0, m));
}

export function validateResourceRequirements(resources: unknown, path: string): FieldError[] {
  const r = obj(resources) ?? {};
  const limPath = child(path, "limits");
  const reqPath = child(path, "requests");
  const limits = obj(r.limits) ?? {};
  const requests = obj(r.requests) ?? {};
  const errs = validateContainerResourceList(limits, limPath);
  for (const [name, value] of Object.entries(requests)) {
    const p = key(reqPath, name);
    errs.push(...validateContainerResourceName(name, p));
    errs.push(...validateQuantityValue(name, value, p));
    const req = parseQuantity(value);
    const lim = name in limits ? parseQuantity(limits[name]) : undefined;
    if (req && lim) {
      const cmp = compareQuantities(req, lim);
      if (cmp !== 0 && !isOvercommitAllowed(name)) {
        errs.push(
          invalid(reqPath, formatQuantity(req), `must be equal to ${name} limit of ${formatQuantity(lim)}`),
        );
      } else if (cmp > 0) {
        errs.push(
          invalid(
            reqPath,
            formatQuantity(req),
            `must be less than or equal to ${name} limit of ${formatQuantity(lim)}`,
          ),
        );
      }
    } else if (!(name in limits) && !isOvercommitAllowed(name)) {
      errs.push(required(limPath, "Limit must be set for non overcommitable resources"));
    }
  }
  const names = [...Object.keys(limits), ...Object.keys(requests)];
  if (names.some(isHugePages) && !names.some((n) => n === "cpu" || n === "memory")) {
    errs.push(forbidden(path, "HugePages require cpu or memory"));
  }
  return errs;
}

function validateDNSConfig(spec: Obj, path: string): FieldError[] {
  const config = obj(spec.dnsConfig);
  if (spec.dnsPolicy === "None") {
    if (!config) return [required(path, "must provide `dnsConfig` when `dnsPolicy` is None")];
    if (strs(config.nameservers).length === 0) {
      return [
        required(
          child(path, "nameservers"),
          "must provide at least one DNS nameserver when `dnsPolicy` is None",
        ),
      ];
    }
  }
  if (!config) return [];
  const errs: FieldError[] = [];
  const nameservers = strs(config.nameservers);
  if (nameservers.length > 3)
    errs.push(invalid(child(path, "nameservers"), nameservers, "must not have more than 3 nameservers"));
  nameservers.forEach((ns, i) => {
    errs.push(...isValidIP(index(child(path, "nameservers"), i), ns));
  });
  const searches = strs(config.searches);
  if (searches.length > 32)
    errs.push(invalid(child(path, "searches"), searches, "must not have more than 32 search paths"));
  searches.forEach((s, i) => {
    errs.push(...dnsSubdomain(s.replace(/\.$/, ""), index(child(path, "searches"), i)));
  });
  objs(config.options).forEach((o, i) => {
    if (!str(o.name)) errs.push(required(index(child(path, "options"), i), "must not be empty"));
  });
  return errs;
}

function validateSchedulingGates(gates: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  objs(gates).forEach((g, i) => {
    const name = str(g.name) ?? "";
    errs.push(...qualifiedName(name, index(path, i)));
    if (seen.has(name)) errs.push(duplicate(index(path, i), name));
    seen.add(name);
  });
  return errs;
}

function validateTopologySpreadConstraints(constraints: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  objs(constraints).forEach((c, i) => {
    const p = index(path, i);
    const maxSkew = num(c.maxSkew) ?? 0;
    if (maxSkew <= 0) errs.push(invalid(child(p, "maxSkew"), maxSkew, "must be greater than zero"));
    const topologyKey = str(c.topologyKey) ?? "";
    if (!topologyKey) errs.push(required(child(p, "topologyKey"), "can not be empty"));
    else errs.push(...validateLabelName(topologyKey, child(p, "topologyKey")));
    const action = str(c.whenUnsatisfiable) ?? "";
    const actions = ["DoNotSchedule", "ScheduleAnyway"];
    if (!actions.includes(action)) errs.push(notSupported(child(p, "whenUnsatisfiable"), action, actions));
    const pair = `{${topologyKey}, ${action}}`;
    if (seen.has(pair)) errs.push(duplicate(child(p, "{topologyKey, whenUnsatisfiable}"), pair));
    seen.add(pair);
  });
  return errs;
}

const TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"];

export function validateTaintEffect(effect: unknown, allowEmpty: boolean, field: string): FieldError[] {
  const e = str(effect) ?? "";
  if (!allowEmpty && !e) return [required(field)];
  return TAINT_EFFECTS.includes(e) ? [] : [notSupported(field, e, TAINT_EFFECTS)];
}

export function validateTolerations(tolerations: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  objs(tolerations).forEach((t, i) => {
    const p = index(path, i);
    const k = str(t.key) ?? "";
    const op = str(t.operator) ?? "";
    const effect = str(t.effect) ?? "";
    const value = str(t.value) ?? "";
    if (k) errs.push(...validateLabelName(k, child(p, "key")));
    if (!k && op !== "Exists") {
      errs.push(
        invalid(
          child(p, "operator"),
          op,
          'operator must be Exists when `key` is empty, which means "match all values and all keys"',
        ),
      );
    }
    if (t.tolerationSeconds != null && effect !== "NoExecute") {
      errs.push(
        invalid(child(p, "effect"), effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"),
      );
    }
    if (op === "Equal" || op === "") {
      const msgs = isValidLabelValue(value);
      if (msgs.length > 0) errs.push(invalid(child(p, "operator"), value, msgs.join(";")));
    } else if (op === "Exists") {
      if (value)
        errs.push(invalid(child(p, "operator"), value, "value must be empty when `operator` is 'Exists'"));
    } else {
      errs.push(notSupported(child(p, "operator"), op, ["Equal", "Exists"]));
    }
    if (effect) errs.push(...validateTaintEffect(effect, true, child(p, "effect")));
  });
  return errs;
}

/** Pod-only container checks (`validateContainersOnlyForPod`). */
export function validateContainersOnlyForPod(spec: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const list of ["containers", "initContainers"]) {
    objs(spec[list]).forEach((c, i) => {
      const image = str(c.image) ?? "";
      if (image.length !== image.trim().length) {
        errs.push(
          invalid(
            child(index(child(path, list), i), "image"),
            image,
            "must not have leading or trailing whitespace",
          ),
        );
      }
    });
  }
  return errs;
}
