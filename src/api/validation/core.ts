import { GoStringMap } from "../../machinery/errors.ts";

/**
 * Spec validation of the `core/v1` kinds (kubernetes `pkg/apis/core/validation`). Metadata
 * is validated by the registry (`index.ts`); these functions check everything else.
 */

import { deepEqual } from "../../machinery/equality.ts";
import type { FieldError } from "../../machinery/errors.ts";
import { cloneJson } from "../../machinery/merge-patch.ts";
import { compareQuantities, formatQuantity, parseQuantity, quantitySign } from "../../machinery/quantity.ts";
import {
  child,
  duplicate,
  forbidden,
  index,
  invalid,
  key,
  notSupported,
  required,
  sortedMap,
  tooLong,
} from "./field.ts";
import { byteLength, num, type Obj, obj, objs, str, strMap, strs } from "./json.ts";
import { validateFinalizerName, validateImmutable, validateNonnegative } from "./metadata.ts";
import {
  isConfigMapKey,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidCIDR,
  isValidIP,
  isValidLabelValue,
  isValidPortNum,
  parseIPFamily,
} from "./names.ts";
import {
  validateContainersOnlyForPod,
  validatePodSpec,
  validatePodTemplateSpec,
  validatePortNumOrName,
  validatePortProtocol,
  validateTaintEffect,
} from "./pod.ts";
import {
  isOvercommitAllowed,
  validateContainerResourceName,
  validateQuantityValue,
  validateQuotaResourceName,
  validateResourceName,
} from "./resources.ts";
import {
  compileSelector,
  selectorMatches,
  validateLabelName,
  validateLabelSelector,
  validateLabels,
} from "./selectors.ts";

export const MAX_SECRET_SIZE = 1024 * 1024;
const IMMUTABLE_WHEN_SET = "field is immutable when `immutable` is set";

function spec(o: Obj): Obj {
  return obj(o.spec) ?? {};
}

export function validatePod(pod: Obj, old?: Obj): FieldError[] {
  const s = spec(pod);
  const errs = validatePodSpec(s, "spec", { isPod: true });
  errs.push(...validateContainersOnlyForPod(s, "spec"));
  if (!str(s.serviceAccountName)) {
    objs(s.volumes).forEach((v, vi) => {
      objs(obj(v.projected)?.sources).forEach((source, si) => {
        if (source.serviceAccountToken) {
          errs.push(
            forbidden(
              `spec.volumes[${vi}].projected.sources[${si}].serviceAccountToken`,
              "must not be specified when serviceAccountName is not set",
            ),
          );
        }
      });
    });
  }
  if (old) errs.push(...validatePodSpecUpdate(s, spec(old)));
  return errs;
}

const POD_UPDATE_FORBIDDEN =
  "pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)";

function validatePodSpecUpdate(now: Obj, before: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const nowContainers = objs(now.containers);
  const beforeContainers = objs(before.containers);
  if (nowContainers.length !== beforeContainers.length) return [forbidden("spec", POD_UPDATE_FORBIDDEN)];
  // Copy the mutable fields from the new spec onto the old one and compare what is left.
  const mutated = cloneJson(before);
  for (const list of ["containers", "initContainers"]) {
    const target = objs(mutated[list]);
    objs(now[list]).forEach((c, i) => {
      const t = target[i];
      if (t && str(c.image)) t.image = c.image;
    });
  }
  for (const f of ["activeDeadlineSeconds", "tolerations", "schedulingGates"]) {
    if (now[f] === undefined) delete mutated[f];
    else mutated[f] = now[f];
  }
  const beforeGrace = num(before.terminationGracePeriodSeconds);
  if (beforeGrace !== undefined && beforeGrace < 0 && now.terminationGracePeriodSeconds === 1) {
    mutated.terminationGracePeriodSeconds = 1;
  }
  if (!deepEqual(mutated, now)) errs.push(forbidden("spec", POD_UPDATE_FORBIDDEN));
  const beforeDeadline = num(before.activeDeadlineSeconds);
  const nowDeadline = num(now.activeDeadlineSeconds);
  if (beforeDeadline !== undefined) {
    if (nowDeadline === undefined) {
      errs.push(
        invalid("spec.activeDeadlineSeconds", null, "must not update from a positive integer to nil value"),
      );
    } else if (nowDeadline > beforeDeadline) {
      errs.push(
        invalid("spec.activeDeadlineSeconds", nowDeadline, "must be less than or equal to previous value"),
      );
    }
  }
  return errs;
}

export function validatePodTemplate(pt: Obj): FieldError[] {
  return validatePodTemplateSpec(pt.template, "template");
}

export function validateNamespace(ns: Obj): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of strs(spec(ns).finalizers)) errs.push(...validateFinalizerName(f, "spec.finalizers"));
  return errs;
}

function validateImmutableData(now: Obj, before: Obj | undefined, fields: string[]): FieldError[] {
  if (before?.immutable !== true) return [];
  const errs: FieldError[] = [];
  if (now.immutable !== true) errs.push(forbidden("immutable", IMMUTABLE_WHEN_SET));
  for (const f of fields) {
    if (!deepEqual(obj(now[f]) ?? {}, obj(before[f]) ?? {})) errs.push(forbidden(f, IMMUTABLE_WHEN_SET));
  }
  return errs;
}

function base64Size(v: unknown): number {
  const s = str(v) ?? "";
  return Buffer.from(s, "base64").length;
}

export function validateConfigMap(cm: Obj, old?: Obj): FieldError[] {
  const errs = validateImmutableData(cm, old, ["data", "binaryData"]);
  const data = strMap(cm.data) ?? {};
  const binary = obj(cm.binaryData) ?? {};
  let total = 0;
  for (const [k, v] of Object.entries(data)) {
    for (const m of isConfigMapKey(k)) errs.push(invalid(key("data", k), k, m));
    if (k in binary) errs.push(invalid(key("data", k), k, "duplicate of key present in binaryData"));
    total += byteLength(v);
  }
  for (const [k, v] of Object.entries(binary)) {
    for (const m of isConfigMapKey(k)) errs.push(invalid(key("binaryData", k), k, m));
    total += base64Size(v);
  }
  if (total > MAX_SECRET_SIZE) errs.push(tooLong("", MAX_SECRET_SIZE));
  return errs;
}

export function validateSecret(secret: Obj, old?: Obj): FieldError[] {
  const errs: FieldError[] = [];
  if (old) {
    errs.push(...validateImmutable(str(secret.type) ?? "", str(old.type) ?? "", "type"));
    errs.push(...validateImmutableData(secret, old, ["data"]));
  }
  const data = obj(secret.data) ?? {};
  let total = 0;
  for (const [k, v] of Object.entries(data)) {
    for (const m of isConfigMapKey(k)) errs.push(invalid(key("data", k), k, m));
    total += base64Size(v);
  }
  if (total > MAX_SECRET_SIZE) errs.push(tooLong("data", MAX_SECRET_SIZE));
  errs.push(...validateSecretType(secret, data));
  return errs;
}

function validateSecretType(secret: Obj, data: Obj): FieldError[] {
  const type = str(secret.type) ?? "";
  const has = (k: string) => k in data;
  const requireKeys = (...keys: string[]) => keys.filter((k) => !has(k)).map((k) => required(key("data", k)));
  switch (type) {
    case "kubernetes.io/service-account-token": {
      const annotations = strMap(obj(secret.metadata)?.annotations) ?? {};
      const saName = "kubernetes.io/service-account.name";
      return annotations[saName] ? [] : [required(key("metadata.annotations", saName))];
    }
    case "kubernetes.io/dockercfg":
      return requireJSONKey(data, ".dockercfg");
    case "kubernetes.io/dockerconfigjson":
      return requireJSONKey(data, ".dockerconfigjson");
    case "kubernetes.io/basic-auth":
      return has("username") || has("password") ? [] : requireKeys("username", "password");
    case "kubernetes.io/ssh-auth":
      return base64Size(data["ssh-privatekey"]) > 0 ? [] : [required(key("data", "ssh-privatekey"))];
    case "kubernetes.io/tls":
      return requireKeys("tls.crt", "tls.key");
    default:
      return [];
  }
}

function requireJSONKey(data: Obj, k: string): FieldError[] {
  if (!(k in data)) return [required(key("data", k))];
  try {
    const parsed: unknown = JSON.parse(Buffer.from(str(data[k]) ?? "", "base64").toString("utf8"));
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
      throw new Error("not an object");
    return [];
  } catch (e) {
    const detail = e instanceof Error ? e.message : String(e);
    return [invalid(key("data", k), "<secret contents redacted>", detail)];
  }
}

function isHeadless(s: Obj): boolean {
  const ips = clusterIPsOf(s);
  return ips.length === 1 && ips[0] === "None";
}

const SERVICE_TYPES = ["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"];

export function validateService(svc: Obj, old?: Obj): FieldError[] {
  const s = spec(svc);
  const errs: FieldError[] = [];
  if (old) errs.push(...validateClusterIPsUpdate(s, spec(old)));
  const type = str(s.type) ?? "";
  const headless = isHeadless(s);
  const ports = objs(s.ports);
  if (ports.length === 0 && !headless && type !== "ExternalName") errs.push(required("spec.ports"));
  if ((type === "LoadBalancer" || type === "NodePort") && headless) {
    errs.push(invalid("spec.clusterIPs[0]", "None", `may not be set to 'None' for ${type} services`));
  }
  if (type === "ExternalName") errs.push(...validateExternalName(s));
  const names = new Set<string>();
  ports.forEach((p, i) => {
    errs.push(...validateServicePort(p, ports.length > 1, names, index("spec.ports", i)));
  });
  errs.push(...validateLabels(s.selector, "spec.selector"));
  const affinity = str(s.sessionAffinity) ?? "";
  if (!affinity) errs.push(required("spec.sessionAffinity"));
  else if (affinity !== "ClientIP" && affinity !== "None")
    errs.push(notSupported("spec.sessionAffinity", affinity, ["ClientIP", "None"]));
  if (affinity === "ClientIP") errs.push(...validateClientIPAffinity(s.sessionAffinityConfig));
  if (affinity === "None" && s.sessionAffinityConfig != null) {
    errs.push(forbidden("spec.sessionAffinityConfig", "must not be set when session affinity is None"));
  }
  errs.push(...validateClusterIPs(s));
  strs(s.externalIPs).forEach((ip, i) => {
    const ipErrs = isValidIP(index("spec.externalIPs", i), ip);
    errs.push(...(ipErrs.length > 0 ? ipErrs : validateNonSpecialIP(ip, index("spec.externalIPs", i))));
  });
  if (!type) errs.push(required("spec.type"));
  else if (!SERVICE_TYPES.includes(type)) errs.push(notSupported("spec.type", type, SERVICE_TYPES));
  errs.push(...validateServicePortsByType(type, ports));
  const ranges = strs(s.loadBalancerSourceRanges);
  if (ranges.length > 0) {
    if (type !== "LoadBalancer")
      errs.push(forbidden("spec.LoadBalancerSourceRanges", "may only be used when `type` is 'LoadBalancer'"));
    ranges.forEach((r, i) => {
      errs.push(...isValidCIDR(index("spec.LoadBalancerSourceRanges", i), r.trim()));
    });
  }
  if (s.allocateLoadBalancerNodePorts != null && type !== "LoadBalancer") {
    errs.push(
      forbidden("spec.allocateLoadBalancerNodePorts", "may only be used when `type` is 'LoadBalancer'"),
    );
  }
  errs.push(...validateTrafficPolicies(s, type));
  return errs;
}

function validateExternalName(s: Obj): FieldError[] {
  const errs: FieldError[] = [];
  if (Array.isArray(s.clusterIPs) && s.clusterIPs.length > 0)
    errs.push(forbidden("spec.clusterIPs", "may not be set for ExternalName services"));
  if (Array.isArray(s.ipFamilies) && s.ipFamilies.length > 0)
    errs.push(forbidden("spec.ipFamilies", "may not be set for ExternalName services"));
  if (s.ipFamilyPolicy != null)
    errs.push(forbidden("spec.ipFamilyPolicy", "may not be set for ExternalName services"));
  const cname = (str(s.externalName) ?? "").replace(/\.$/, "");
  if (cname) for (const m of isDNS1123Subdomain(cname)) errs.push(invalid("spec.externalName", cname, m));
  else errs.push(required("spec.externalName"));
  return errs;
}

function validateServicePort(p: Obj, requireName: boolean, names: Set<string>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(p.name) ?? "";
  if (requireName && !name) errs.push(required(child(path, "name")));
  else if (name) {
    for (const m of isDNS1123Label(name)) errs.push(invalid(child(path, "name"), name, m));
    if (names.has(name)) errs.push(duplicate(child(path, "name"), name));
    else names.add(name);
  }
  const port = num(p.port) ?? 0;
  for (const m of isValidPortNum(port)) errs.push(invalid(child(path, "port"), port, m));
  errs.push(...validatePortProtocol(p.protocol, child(path, "protocol")));
  errs.push(...validatePortNumOrName(p.targetPort, child(path, "targetPort")));
  const appProtocol = str(p.appProtocol);
  if (appProtocol !== undefined) {
    for (const m of isQualifiedName(appProtocol))
      errs.push(invalid(child(path, "appProtocol"), appProtocol, m));
  }
  return errs;
}

function validateServicePortsByType(type: string, ports: Obj[]): FieldError[] {
  const errs: FieldError[] = [];
  const nodePorts = new Set<string>();
  const seen = new Set<string>();
  ports.forEach((p, i) => {
    const path = index("spec.ports", i);
    const nodePort = num(p.nodePort) ?? 0;
    if (type === "ClusterIP" && nodePort !== 0) {
      errs.push(forbidden(child(path, "nodePort"), "may not be used when `type` is 'ClusterIP'"));
    }
    if (nodePort !== 0) {
      const k = `${str(p.protocol) ?? ""}/${nodePort}`;
      if (nodePorts.has(k)) errs.push(duplicate(child(path, "nodePort"), nodePort));
      nodePorts.add(k);
    }
    const k = `${str(p.protocol) ?? ""}/${num(p.port) ?? 0}`;
    if (seen.has(k)) errs.push(duplicate(path, { protocol: p.protocol, port: p.port }));
    seen.add(k);
  });
  return errs;
}

function validateClientIPAffinity(config: unknown): FieldError[] {
  const path = "spec.sessionAffinityConfig";
  const detail = "when session affinity type is ClientIP";
  const c = obj(config);
  if (!c) return [required(path, detail)];
  const clientIP = obj(c.clientIP);
  if (!clientIP) return [required(`${path}.clientIP`, detail)];
  const timeout = num(clientIP.timeoutSeconds);
  if (timeout === undefined) return [required(`${path}.clientIP.timeoutSeconds`, detail)];
  if (timeout <= 0 || timeout > 86400) {
    return [
      invalid(`${path}.clientIP.timeoutSeconds`, timeout, "must be greater than 0 and less than 86400"),
    ];
  }
  return [];
}

/** clusterIP and clusterIPs as the service strategy normalizes them before validation. */
function clusterIPsOf(s: Obj): string[] {
  const ips = strs(s.clusterIPs);
  const ip = str(s.clusterIP) ?? "";
  return ips.length === 0 && ip ? [ip] : ips;
}

function validateClusterIPs(s: Obj): FieldError[] {
  if (s.type === "ExternalName") return [];
  const errs: FieldError[] = [];
  const ips = clusterIPsOf(s);
  const clusterIP = str(s.clusterIP) || (ips[0] ?? "");
  if (ips.length > 0 && clusterIP !== ips[0]) {
    errs.push(invalid("spec.clusterIPs", ips, "first value must match `clusterIP`"));
  }
  const seen = new Set<string>();
  strs(s.ipFamilies).forEach((f, i) => {
    if (f !== "IPv4" && f !== "IPv6")
      errs.push(notSupported(index("spec.ipFamilies", i), f, ["IPv4", "IPv6"]));
    if (seen.has(f)) errs.push(duplicate(index("spec.ipFamilies", i), f));
    seen.add(f);
  });
  const policy = s.ipFamilyPolicy;
  const policies = ["PreferDualStack", "RequireDualStack", "SingleStack"];
  if (policy != null && !policies.includes(str(policy) ?? ""))
    errs.push(notSupported("spec.ipFamilyPolicy", policy, policies));
  let invalidIPs = false;
  ips.forEach((ip, i) => {
    if (i === 0 && ip === "None") {
      if (ips.length > 1) {
        invalidIPs = true;
        errs.push(invalid("spec.clusterIPs", ips, "'None' must be the first and only value"));
      }
      return;
    }
    const ipErrs = isValidIP(index("spec.clusterIPs", i), ip);
    if (ipErrs.length > 0) invalidIPs = true;
    errs.push(...ipErrs);
  });
  if (ips.length > 2) errs.push(invalid("spec.clusterIPs", ips, "may only hold up to 2 values"));
  if (invalidIPs) return errs;
  const families = ips.map(parseIPFamily);
  if (ips.length === 2 && families[0] === families[1]) {
    errs.push(invalid("spec.clusterIPs", ips, "may specify no more than one IP for each IP family"));
  }
  const ipFamilies = strs(s.ipFamilies);
  if (!isHeadless(s)) {
    ips.forEach((ip, i) => {
      if (ipFamilies[i] === "IPv4" && families[i] === 6) {
        errs.push(
          invalid(
            index("spec.clusterIPs", i),
            ip,
            `expected an IPv4 value as indicated by \`ipFamilies[${i}]\``,
          ),
        );
      }
      if (ipFamilies[i] === "IPv6" && families[i] !== 6) {
        errs.push(
          invalid(
            index("spec.clusterIPs", i),
            ip,
            `expected an IPv6 value as indicated by \`ipFamilies[${i}]\``,
          ),
        );
      }
    });
  }
  return errs;
}

function validateClusterIPsUpdate(now: Obj, before: Obj): FieldError[] {
  if (now.type === "ExternalName" || before.type === "ExternalName") return [];
  if (isHeadless(now) && isHeadless(before)) return [];
  const nowIPs = clusterIPsOf(now);
  const beforeIPs = clusterIPsOf(before);
  const errs: FieldError[] = [];
  if (nowIPs.length === beforeIPs.length) {
    beforeIPs.forEach((ip, i) => {
      if (ip !== nowIPs[i])
        errs.push(invalid(index("spec.clusterIPs", i), nowIPs, "may not change once set"));
    });
  } else if (beforeIPs.length > nowIPs.length) {
    if (nowIPs.length === 0)
      errs.push(invalid("spec.clusterIPs[0]", nowIPs, "primary clusterIP can not be unset"));
    if (nowIPs.length > 0 && nowIPs[0] !== beforeIPs[0]) {
      errs.push(invalid("spec.clusterIPs[0]", nowIPs, "may not change once set"));
    }
    if (nowIPs.length === 1 && now.ipFamilyPolicy !== "SingleStack") {
      errs.push(
        invalid(
          "spec.ipFamilyPolicy",
          now.ipFamilyPolicy ?? null,
          "must be set to 'SingleStack' when releasing the secondary clusterIP",
        ),
      );
    }
  } else if (beforeIPs.length > 0 && nowIPs[0] !== beforeIPs[0]) {
    errs.push(invalid("spec.clusterIPs[0]", nowIPs, "may not change once set"));
  }
  return errs;
}

function validateTrafficPolicies(s: Obj, type: string): FieldError[] {
  const errs: FieldError[] = [];
  const externallyAccessible =
    type === "LoadBalancer" ||
    type === "NodePort" ||
    (type === "ClusterIP" && strs(s.externalIPs).length > 0);
  const etp = str(s.externalTrafficPolicy) ?? "";
  if (!externallyAccessible) {
    if (etp)
      errs.push(
        invalid("spec.externalTrafficPolicy", etp, "may only be set for externally-accessible services"),
      );
  } else if (!etp) {
    errs.push(required("spec.externalTrafficPolicy"));
  } else if (etp !== "Cluster" && etp !== "Local") {
    errs.push(notSupported("spec.externalTrafficPolicy", etp, ["Cluster", "Local"]));
  }
  const itp = s.internalTrafficPolicy;
  if (itp == null) {
    if (type === "NodePort" || type === "LoadBalancer" || type === "ClusterIP") {
      errs.push(required("spec.internalTrafficPolicy"));
    }
  } else if (itp !== "Cluster" && itp !== "Local") {
    errs.push(notSupported("spec.internalTrafficPolicy", itp, ["Cluster", "Local"]));
  }
  return errs;
}

export function validateEndpoints(ep: Obj): FieldError[] {
  const errs: FieldError[] = [];
  objs(ep.subsets).forEach((ss, i) => {
    const p = index("subsets", i);
    if (objs(ss.addresses).length === 0 && objs(ss.notReadyAddresses).length === 0) {
      errs.push(required(p, "must specify `addresses` or `notReadyAddresses`"));
    }
    for (const list of ["addresses", "notReadyAddresses"]) {
      objs(ss[list]).forEach((a, j) => {
        errs.push(...validateEndpointAddress(a, index(child(p, list), j)));
      });
    }
    const ports = objs(ss.ports);
    ports.forEach((port, j) => {
      const pp = index(child(p, "ports"), j);
      const name = str(port.name) ?? "";
      if (ports.length > 1 && !name) errs.push(required(child(pp, "name")));
      else if (name) for (const m of isDNS1123Label(name)) errs.push(invalid(child(pp, "name"), name, m));
      const n = num(port.port) ?? 0;
      for (const m of isValidPortNum(n)) errs.push(invalid(child(pp, "port"), n, m));
      errs.push(...validatePortProtocol(port.protocol, child(pp, "protocol")));
    });
  });
  return errs;
}

/** Endpoint IPs may not be special: unspecified, loopback, link-local or link-local multicast. */
export function validateNonSpecialIP(ip: string, field: string): FieldError[] {
  const family = parseIPFamily(ip);
  if (family === 0) return [invalid(field, ip, "must be a valid IP address")];
  const v = ip.toLowerCase();
  const errs: FieldError[] = [];
  if (v === "0.0.0.0" || /^[0:]+$/.test(v)) errs.push(invalid(field, ip, `may not be unspecified (${ip})`));
  if ((family === 4 && v.startsWith("127.")) || v === "::1") {
    errs.push(invalid(field, ip, "may not be in the loopback range (127.0.0.0/8, ::1/128)"));
  }
  if ((family === 4 && v.startsWith("169.254.")) || (family === 6 && /^fe[89ab][0-9a-f]:/.test(v))) {
    errs.push(invalid(field, ip, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"));
  }
  if ((family === 4 && v.startsWith("224.0.0.")) || (family === 6 && v.startsWith("ff02:"))) {
    errs.push(invalid(field, ip, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"));
  }
  return errs;
}

function validateEndpointAddress(a: Obj, path: string): FieldError[] {
  const ip = str(a.ip) ?? "";
  const errs = isValidIP(child(path, "ip"), ip);
  const hostname = str(a.hostname) ?? "";
  if (hostname)
    for (const m of isDNS1123Label(hostname)) errs.push(invalid(child(path, "hostname"), hostname, m));
  const nodeName = str(a.nodeName);
  if (nodeName !== undefined) {
    for (const m of isDNS1123Subdomain(nodeName)) errs.push(invalid(child(path, "nodeName"), nodeName, m));
  }
  errs.push(...validateNonSpecialIP(ip, child(path, "ip")));
  return errs;
}

const REPORTING_LIMIT = 128;
const NOTE_LIMIT = 1024;

/**
 * Events. The core/v1 API only runs the legacy checks; events.k8s.io/v1 objects (already
 * mapped to core field names by the caller: regarding -> involvedObject, note -> message) get
 * the strict ones too.
 */
export function validateEvent(event: Obj, strict: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const namespace = str(obj(event.metadata)?.namespace) ?? "";
  const involvedNs = str(obj(event.involvedObject)?.namespace) ?? "";
  const mismatch = invalid("involvedObject.namespace", involvedNs, "does not match event.namespace");
  if (!event.eventTime) {
    // Old-style events: the namespaces must agree ("default" stands in for cluster-scoped objects).
    if (involvedNs ? namespace !== involvedNs : namespace !== "" && namespace !== "default")
      errs.push(mismatch);
  } else {
    if (!involvedNs && namespace !== "default" && namespace !== "kube-system") errs.push(mismatch);
    errs.push(...validateEventReporting(event, strict));
  }
  for (const m of isDNS1123Subdomain(namespace)) errs.push(invalid("namespace", namespace, m));
  if (strict) errs.push(...validateStrictEvent(event));
  return errs;
}

/** New-style events (with eventTime) must say who reported them and why. */
function validateEventReporting(event: Obj, strict: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const reportingField = strict ? "reportingController" : "reportingComponent";
  const reporting = str(event.reportingController) ?? str(event.reportingComponent) ?? "";
  if (!reporting) errs.push(required(reportingField));
  for (const m of isQualifiedName(reporting)) errs.push(invalid(reportingField, reporting, m));
  const instance = str(event.reportingInstance) ?? "";
  if (!instance) errs.push(required("reportingInstance"));
  if (instance.length > REPORTING_LIMIT) {
    errs.push(invalid("reportingInstance", "", `can have at most ${REPORTING_LIMIT} characters`));
  }
  for (const f of ["action", "reason"]) {
    const v = str(event[f]) ?? "";
    if (!v) errs.push(required(f));
    if (v.length > REPORTING_LIMIT)
      errs.push(invalid(f, "", `can have at most ${REPORTING_LIMIT} characters`));
  }
  if ((str(event.message) ?? "").length > NOTE_LIMIT) {
    errs.push(invalid("message", "", `can have at most ${NOTE_LIMIT} characters`));
  }
  return errs;
}

function validateStrictEvent(event: Obj): FieldError[] {
  const errs: FieldError[] = [];
  if (!event.eventTime) errs.push(required("eventTime"));
  const type = str(event.type) ?? "";
  if (type !== "Normal" && type !== "Warning") errs.push(invalid("type", "", `has invalid value: ${type}`));
  if (event.firstTimestamp) errs.push(invalid("firstTimestamp", "", "needs to be unset"));
  if (event.lastTimestamp) errs.push(invalid("lastTimestamp", "", "needs to be unset"));
  if (num(event.count)) errs.push(invalid("count", "", "needs to be unset"));
  const source = obj(event.source) ?? {};
  if (str(source.component) || str(source.host)) errs.push(invalid("source", "", "needs to be unset"));
  return errs;
}

export function validateNode(node: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const taints = objs(spec(node).taints);
  const seen = new Set<string>();
  taints.forEach((t, i) => {
    const p = index("spec.taints", i);
    const k = str(t.key) ?? "";
    errs.push(...validateLabelName(k, child(p, "key")));
    const v = str(t.value) ?? "";
    const msgs = isValidLabelValue(v);
    if (msgs.length > 0) errs.push(invalid(child(p, "value"), v, msgs.join(";")));
    errs.push(...validateTaintEffect(t.effect, false, child(p, "effect")));
    const pair = `${str(t.effect) ?? ""}/${k}`;
    if (seen.has(pair)) {
      errs.push({ ...duplicate(p, t), detail: "taints must be unique by key and effect pair" });
      return;
    }
    seen.add(pair);
  });
  const podCIDRs = strs(spec(node).podCIDRs);
  podCIDRs.forEach((c, i) => {
    errs.push(...isValidCIDR(index("spec.podCIDRs", i), c));
  });
  return errs;
}

const ACCESS_MODES = ["ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"];

function validateAccessModes(modes: unknown, path: string, requireOne: string): FieldError[] {
  const errs: FieldError[] = [];
  const list = strs(modes);
  if (list.length === 0) errs.push(required(path, requireOne));
  for (const m of list) if (!ACCESS_MODES.includes(m)) errs.push(notSupported(path, m, ACCESS_MODES));
  if (list.includes("ReadWriteOncePod") && list.some((m) => m !== "ReadWriteOncePod")) {
    errs.push(forbidden(path, "may not use ReadWriteOncePod with other access modes"));
  }
  return errs;
}

function validateVolumeMode(mode: unknown, path: string): FieldError[] {
  if (mode == null) return [];
  const modes = ["Block", "Filesystem"];
  return modes.includes(str(mode) ?? "") ? [] : [notSupported(path, mode, modes)];
}

function validateStorageClassName(name: unknown, path: string): FieldError[] {
  const v = str(name);
  if (!v) return [];
  return isDNS1123Subdomain(v).map((m) => invalid(path, v, m));
}

export function validatePersistentVolumeClaimSpec(s: Obj, path: string): FieldError[] {
  const errs = validateAccessModes(
    s.accessModes,
    child(path, "accessModes"),
    "at least 1 access mode is required",
  );
  if (s.selector != null) errs.push(...validateLabelSelector(s.selector, child(path, "selector")));
  const requests = obj(obj(s.resources)?.requests) ?? {};
  const storagePath = key(child(path, "resources"), "storage");
  if (!("storage" in requests)) {
    errs.push(required(storagePath));
  } else {
    const q = parseQuantity(requests.storage);
    if (q && quantitySign(q) <= 0)
      errs.push(invalid(storagePath, formatQuantity(q), "must be greater than zero"));
    else errs.push(...validateQuantityValue("storage", requests.storage, storagePath));
  }
  errs.push(...validateStorageClassName(s.storageClassName, child(path, "storageClassName")));
  errs.push(...validateVolumeMode(s.volumeMode, child(path, "volumeMode")));
  return errs;
}

export function validatePersistentVolumeClaim(pvc: Obj, old?: Obj): FieldError[] {
  const s = spec(pvc);
  const errs = validatePersistentVolumeClaimSpec(s, "spec");
  if (!old) return errs;
  const before = spec(old);
  const clone = cloneJson(s);
  if (!str(before.volumeName)) clone.volumeName = before.volumeName;
  const bound = obj(pvc.status)?.phase === "Bound";
  const cloneRequests = obj(obj(clone.resources)?.requests);
  if (bound && cloneRequests) cloneRequests.storage = obj(obj(before.resources)?.requests)?.storage;
  clone.volumeAttributesClassName = before.volumeAttributesClassName;
  if (!deepEqual(clone, before)) {
    errs.push(
      forbidden(
        "spec",
        "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims",
      ),
    );
  }
  const newSize = parseQuantity(obj(obj(s.resources)?.requests)?.storage);
  const oldSize = parseQuantity(obj(obj(before.resources)?.requests)?.storage);
  if (newSize && oldSize && compareQuantities(newSize, oldSize) < 0) {
    errs.push(forbidden("spec.resources.requests.storage", "field can not be less than previous value"));
  }
  return errs;
}

const PV_SOURCES = [
  "gcePersistentDisk",
  "awsElasticBlockStore",
  "hostPath",
  "glusterfs",
  "nfs",
  "rbd",
  "quobyte",
  "cinder",
  "cephfs",
  "fc",
  "flocker",
  "flexVolume",
  "azureFile",
  "vsphereVolume",
  "azureDisk",
  "photonPersistentDisk",
  "portworxVolume",
  "scaleIO",
  "local",
  "storageos",
  "csi",
  "iscsi",
];

export function validatePersistentVolume(pv: Obj, old?: Obj): FieldError[] {
  const s = spec(pv);
  const errs = validateAccessModes(s.accessModes, "spec.accessModes", "");
  const capacity = obj(s.capacity) ?? {};
  if (Object.keys(capacity).length === 0) errs.push(required("spec.capacity"));
  else if (!("storage" in capacity) || Object.keys(capacity).length > 1) {
    errs.push(notSupported("spec.capacity", Object.keys(capacity), ["storage"]));
  }
  for (const [k, v] of Object.entries(capacity))
    errs.push(...validateQuantityValue(k, v, key("spec.capacity", k)));
  const reclaim = str(s.persistentVolumeReclaimPolicy) ?? "";
  const policies = ["Delete", "Recycle", "Retain"];
  if (reclaim && !policies.includes(reclaim)) {
    errs.push(notSupported("spec.persistentVolumeReclaimPolicy", reclaim, policies));
  }
  errs.push(...validateStorageClassName(s.storageClassName, "spec.storageClassName"));
  errs.push(...validateVolumeMode(s.volumeMode, "spec.volumeMode"));
  const sources = PV_SOURCES.filter((src) => obj(s[src]));
  if (sources.length === 0) errs.push(required("spec", "must specify a volume type"));
  for (const extra of sources.slice(1))
    errs.push(forbidden(child("spec", extra), "may not specify more than 1 volume type"));
  const hostPath = obj(s.hostPath);
  if (hostPath && !str(hostPath.path)) errs.push(required("spec.hostPath.path"));
  if (old) {
    const before = spec(old);
    // Upstream reports this one without the `spec.` prefix.
    errs.push(...validateImmutable(s.volumeMode, before.volumeMode, "volumeMode"));
  }
  return errs;
}

const LIMIT_TYPES = new Set(["Container", "Pod", "PersistentVolumeClaim"]);
const LIMIT_LISTS = ["max", "min", "default", "defaultRequest", "maxLimitRequestRatio"];

export function validateLimitRange(lr: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const types = new Set<string>();
  objs(spec(lr).limits).forEach((item, i) => {
    const p = index("spec.limits", i);
    const type = str(item.type) ?? "";
    const typeErrs = isQualifiedName(type).map((m) => invalid(child(p, "type"), type, m));
    if (typeErrs.length === 0 && !type.includes("/") && !LIMIT_TYPES.has(type)) {
      typeErrs.push(invalid(child(p, "type"), type, "must be a standard limit type or fully qualified"));
    }
    errs.push(...typeErrs);
    if (types.has(type)) errs.push(duplicate(child(p, "type"), type));
    types.add(type);
    const lists: Record<string, Obj> = {};
    for (const f of LIMIT_LISTS) {
      lists[f] = obj(item[f]) ?? {};
      if (type === "Pod" && (f === "default" || f === "defaultRequest")) {
        if (Object.keys(lists[f]!).length > 0)
          errs.push(forbidden(child(p, f), "may not be specified when `type` is 'Pod'"));
        lists[f] = {};
        continue;
      }
      for (const [k, v] of Object.entries(lists[f]!)) {
        const kp = key(child(p, f), k);
        errs.push(
          ...(type === "Pod" || type === "Container"
            ? validateContainerResourceName(k, kp)
            : validateResourceName(k, kp)),
        );
        errs.push(...validateQuantityValue(k, v, kp));
      }
    }
    if (type === "PersistentVolumeClaim" && !("storage" in lists.min!) && !("storage" in lists.max!)) {
      errs.push(
        required(
          child(p, "limits"),
          "either minimum or maximum storage value is required, but neither was provided",
        ),
      );
    }
    errs.push(...validateLimitOrdering(lists, p));
  });
  return errs;
}

type Q = NonNullable<ReturnType<typeof parseQuantity>>;

/** The min <= defaultRequest <= default <= max checks of one resource, in upstream order. */
function validateLimitOrdering(lists: Record<string, Obj>, p: string): FieldError[] {
  const errs: FieldError[] = [];
  const q = (f: string, k: string) => (k in lists[f]! ? parseQuantity(lists[f]![k]) : undefined);
  const fmt = formatQuantity;
  const keys = new Set(Object.values(lists).flatMap((l) => Object.keys(l)));
  for (const k of keys) {
    const min = q("min", k);
    const max = q("max", k);
    const def = q("default", k);
    const req = q("defaultRequest", k);
    const ratio = q("maxLimitRequestRatio", k);
    // [field reported, value reported, smaller, larger, message]
    const pairs: Array<[string, Q | undefined, Q | undefined, Q | undefined, () => string]> = [
      ["min", min, min, max, () => `min value ${fmt(min!)} is greater than max value ${fmt(max!)}`],
      [
        "defaultRequest",
        req,
        min,
        req,
        () => `min value ${fmt(min!)} is greater than default request value ${fmt(req!)}`,
      ],
      [
        "defaultRequest",
        req,
        req,
        max,
        () => `default request value ${fmt(req!)} is greater than max value ${fmt(max!)}`,
      ],
      [
        "defaultRequest",
        req,
        req,
        def,
        () => `default request value ${fmt(req!)} is greater than default limit value ${fmt(def!)}`,
      ],
      ["default", min, min, def, () => `min value ${fmt(min!)} is greater than default value ${fmt(def!)}`],
      ["default", max, def, max, () => `default value ${fmt(def!)} is greater than max value ${fmt(max!)}`],
    ];
    for (const [f, value, small, large, msg] of pairs) {
      if (value && small && large && compareQuantities(small, large) > 0) {
        errs.push(invalid(key(child(p, f), k), fmt(value), msg()));
      }
    }
    if (ratio && compareQuantities(ratio, { n: 1n, scale: 0, format: "DecimalSI" }) < 0) {
      errs.push(
        invalid(key(child(p, "maxLimitRequestRatio"), k), fmt(ratio), `ratio ${fmt(ratio)} is less than 1`),
      );
    }
    if (!isOvercommitAllowed(k) && def && req && compareQuantities(def, req) !== 0) {
      errs.push(
        invalid(
          key(child(p, "defaultRequest"), k),
          fmt(req),
          `default value ${fmt(def)} must equal to defaultRequest value ${fmt(req)} in ${k}`,
        ),
      );
    }
  }
  return errs;
}

const QUOTA_SCOPES = [
  "BestEffort",
  "CrossNamespacePodAffinity",
  "NotBestEffort",
  "NotTerminating",
  "PriorityClass",
  "Terminating",
];

export function validateResourceQuota(rq: Obj, old?: Obj): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(obj(spec(rq).hard) ?? {})) {
    const p = key("spec.hard", k);
    errs.push(...validateQuotaResourceName(k, p));
    errs.push(...validateQuantityValue(k, v, p));
  }
  strs(spec(rq).scopes).forEach((scope, i) => {
    if (!QUOTA_SCOPES.includes(scope)) errs.push(notSupported(index("spec.scopes", i), scope, QUOTA_SCOPES));
  });
  if (old) {
    const now = new Set(strs(spec(rq).scopes));
    const before = new Set(strs(spec(old).scopes));
    if (now.size !== before.size || [...now].some((x) => !before.has(x))) {
      errs.push(invalid("spec.scopes", strs(spec(rq).scopes), "field is immutable"));
    }
  }
  return errs;
}

export function validateReplicationController(rc: Obj): FieldError[] {
  const s = spec(rc);
  const errs = [
    ...validateNonnegative(num(s.minReadySeconds), "spec.minReadySeconds"),
    ...validateNonnegative(num(s.replicas), "spec.replicas"),
  ];
  const selector = strMap(s.selector) ?? {};
  if (Object.keys(selector).length === 0) errs.push(required("spec.selector"));
  errs.push(...validateLabels(selector, "spec.selector"));
  const template = obj(s.template);
  if (!template) {
    errs.push(required("spec.template"));
    return errs;
  }
  const labels = obj(template.metadata)?.labels;
  const sel = compileSelector(Object.keys(selector).length > 0 ? { matchLabels: selector } : {});
  if (sel.kind === "requirements" && !selectorMatches(sel, labels)) {
    errs.push(
      invalid(
        "spec.template.metadata.labels",
        new GoStringMap(strMap(labels) ?? {}),
        "`selector` does not match template `labels`",
      ),
    );
  }
  errs.push(...validatePodTemplateSpec(template, "spec.template"));
  errs.push(...requireRestartAlways(template, "spec.template", "ReplicationController"));
  return errs;
}

/** Controllers whose pods must run forever: restartPolicy Always and no activeDeadlineSeconds. */
export function requireRestartAlways(template: Obj, path: string, kind: string): FieldError[] {
  const s = obj(template.spec) ?? {};
  const errs: FieldError[] = [];
  const rp = str(s.restartPolicy) ?? "";
  if (rp !== "Always") errs.push(notSupported(child(path, "spec", "restartPolicy"), rp, ["Always"]));
  if (s.activeDeadlineSeconds != null) {
    errs.push(
      forbidden(
        child(path, "spec", "activeDeadlineSeconds"),
        `activeDeadlineSeconds in ${kind} is not Supported`,
      ),
    );
  }
  return errs;
}
