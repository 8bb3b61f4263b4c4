/**
 * MultiClusterIngress (an Ingress spec, checked with the Kubernetes 1.27 Ingress rules Karmada
 * carries, plus its load-balancer status on update) and MultiClusterService (permanent id,
 * DNS-1035 name, ports, one exposure type that never changes, valid cluster names).
 */

import { deepEqual } from "../../../machinery/equality.ts";
import type { FieldError } from "../../../machinery/errors.ts";
import type { StoredObject } from "../../meta.ts";
import { child, duplicate, index, invalid, notSupported, required } from "../../validation/field.ts";
import { type Obj, obj, objs, str, strs } from "../../validation/json.ts";
import {
  isDNS1035Label,
  isDNS1123Subdomain,
  isValidPathSegmentName,
  isValidPortName,
  isValidPortNum,
  isWildcardDNS1123Subdomain,
  parseIPFamily,
} from "../../validation/names.ts";
import { ensurePermanentId } from "./binding.ts";
import { clusterNameErrors } from "./cluster.ts";
import type { MutationContext } from "./context.ts";
import { isDNS1123Label } from "./formats.ts";

export const MULTI_CLUSTER_SERVICE_PERMANENT_ID = "multiclusterservice.karmada.io/permanent-id";

// ---- MultiClusterIngress --------------------------------------------------------------------

function validateTypedLocalObjectReference(ref: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const group = str(ref.apiGroup);
  if (group !== undefined)
    for (const m of isDNS1123Subdomain(group)) errs.push(invalid(child(path, "apiGroup"), group, m));
  for (const f of ["kind", "name"]) {
    const v = str(ref[f]) ?? "";
    if (!v) errs.push(required(child(path, f), `${f} is required`));
    else for (const m of isValidPathSegmentName(v)) errs.push(invalid(child(path, f), v, m));
  }
  return errs;
}

function validateBackend(backend: Obj, path: string): FieldError[] {
  const resource = obj(backend.resource);
  const service = obj(backend.service);
  if (resource && service) return [invalid(path, "", "cannot set both resource and service backends")];
  if (resource) return validateTypedLocalObjectReference(resource, child(path, "resource"));
  if (!service) return [invalid(path, "", "resource or service backend is required")];
  const errs: FieldError[] = [];
  const name = str(service.name) ?? "";
  if (!name) errs.push(required(child(path, "service", "name")));
  else for (const m of isDNS1035Label(name)) errs.push(invalid(child(path, "service", "name"), name, m));
  const port = obj(service.port) ?? {};
  const portName = str(port.name) ?? "";
  const portNumber = typeof port.number === "number" ? port.number : 0;
  if (portName && portNumber) errs.push(invalid(path, "", "cannot set both port name & port number"));
  else if (portName)
    for (const m of isValidPortName(portName))
      errs.push(invalid(child(path, "service", "port", "name"), portName, m));
  else if (portNumber) {
    for (const m of isValidPortNum(portNumber))
      errs.push(invalid(child(path, "service", "port", "number"), portNumber, m));
  } else errs.push(required(path, "port name or number is required"));
  return errs;
}

const PATH_TYPES = ["Exact", "ImplementationSpecific", "Prefix"];

function validateHttpPath(p: Obj, path: string): FieldError[] {
  if (p.pathType == null) return [required(child(path, "pathType"), "pathType must be specified")];
  const errs: FieldError[] = [];
  const value = str(p.path) ?? "";
  const pp = child(path, "path");
  if (p.pathType === "Exact" || p.pathType === "Prefix") {
    if (!value.startsWith("/")) errs.push(invalid(pp, value, "must be an absolute path"));
    if (value) {
      for (const seq of ["//", "/./", "/../", "%2f", "%2F"]) {
        if (value.includes(seq)) errs.push(invalid(pp, value, `must not contain '${seq}'`));
      }
      for (const suffix of ["/..", "/."])
        if (value.endsWith(suffix)) errs.push(invalid(pp, value, `cannot end with '${suffix}'`));
    }
  } else if (p.pathType === "ImplementationSpecific") {
    if (value && !value.startsWith("/")) errs.push(invalid(pp, value, "must be an absolute path"));
  } else {
    errs.push(notSupported(child(path, "pathType"), p.pathType, PATH_TYPES));
  }
  errs.push(...validateBackend(obj(p.backend) ?? {}, child(path, "backend")));
  return errs;
}

function hostErrors(host: string): string[] {
  return host.includes("*") ? isWildcardDNS1123Subdomain(host) : isDNS1123Subdomain(host);
}

function validateRules(rules: Obj[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  rules.forEach((rule, i) => {
    const p = index(path, i);
    const host = str(rule.host) ?? "";
    if (host) {
      if (parseIPFamily(host) !== 0)
        errs.push(invalid(child(p, "host"), host, "must be a DNS name, not an IP address"));
      for (const m of hostErrors(host)) errs.push(invalid(child(p, "host"), host, m));
    }
    const http = obj(rule.http);
    if (!http) return;
    const paths = objs(http.paths);
    if (paths.length === 0) errs.push(required(child(p, "http", "paths")));
    paths.forEach((hp, j) => {
      errs.push(...validateHttpPath(hp, index(child(p, "http", "paths"), j)));
    });
  });
  return errs;
}

/** networking/v1 IngressSpec with secret names and wildcard-host rules checked strictly. */
export function validateIngressSpec(spec: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const rules = objs(spec.rules);
  if (rules.length === 0 && spec.defaultBackend == null) {
    errs.push(invalid(path, spec.rules ?? null, "either `defaultBackend` or `rules` must be specified"));
  }
  const defaultBackend = obj(spec.defaultBackend);
  if (defaultBackend) errs.push(...validateBackend(defaultBackend, child(path, "defaultBackend")));
  errs.push(...validateRules(rules, child(path, "rules")));
  objs(spec.tls).forEach((tls, i) => {
    const p = index(child(path, "tls"), i);
    strs(tls.hosts).forEach((host, j) => {
      for (const m of hostErrors(host)) errs.push(invalid(index(child(p, "hosts"), j), host, m));
    });
    const secretName = str(tls.secretName) ?? "";
    if (secretName)
      for (const m of isDNS1123Subdomain(secretName))
        errs.push(invalid(child(p, "secretName"), secretName, m));
  });
  const className = str(spec.ingressClassName);
  if (className !== undefined) {
    for (const m of isDNS1123Subdomain(className))
      errs.push(invalid(child(path, "ingressClassName"), className, m));
  }
  return errs;
}

/** Load-balancer ingress points: IPs must parse, host names must be DNS names and not IPs. */
export function validateLoadBalancerStatus(status: Obj | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  objs(status?.ingress).forEach((ing, i) => {
    const p = index(child(path, "ingress"), i);
    const ip = str(ing.ip) ?? "";
    if (ip && parseIPFamily(ip) === 0) errs.push(invalid(child(p, "ip"), ip, "must be a valid IP address"));
    const hostname = str(ing.hostname) ?? "";
    if (hostname) {
      for (const m of isDNS1123Subdomain(hostname)) errs.push(invalid(child(p, "hostname"), hostname, m));
      if (parseIPFamily(hostname) !== 0) {
        errs.push(invalid(child(p, "hostname"), hostname, "must be a DNS name, not an IP address"));
      }
    }
  });
  return errs;
}

export function validateMultiClusterIngress(mci: StoredObject, old?: StoredObject): FieldError[] {
  const errs = validateIngressSpec(obj(mci.spec) ?? {}, "spec");
  if (old)
    errs.push(...validateLoadBalancerStatus(obj(obj(mci.status)?.loadBalancer), "status.loadBalancer"));
  return errs;
}

// ---- MultiClusterService --------------------------------------------------------------------

export function mutateMultiClusterService(
  mcs: StoredObject,
  _old: StoredObject | undefined,
  ctx: MutationContext,
): void {
  ensurePermanentId(mcs, MULTI_CLUSTER_SERVICE_PERMANENT_ID, ctx);
}

function validateClusterList(clusters: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  objs(clusters).forEach((c, i) => {
    const name = str(c.name) ?? "";
    const msgs = clusterNameErrors(name);
    if (msgs.length > 0) errs.push(invalid(index(path, i), name, msgs.join(",")));
  });
  return errs;
}

export function validateMultiClusterService(mcs: StoredObject, old?: StoredObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = obj(mcs.spec) ?? {};
  if (old) {
    const before = obj(old.spec)?.types;
    if (!deepEqual(before ?? null, spec.types ?? null)) {
      errs.push(invalid("spec.types", before ?? null, "MultiClusterService types are immutable"));
    }
  }
  const name = mcs.metadata.name ?? "";
  if (name) for (const m of isDNS1035Label(name)) errs.push(invalid("metadata.name", name, m));
  const portNames = new Set<string>();
  objs(spec.ports).forEach((port, i) => {
    const p = index("spec.ports", i);
    const portName = str(port.name) ?? "";
    if (portName) {
      for (const m of isDNS1123Label(portName)) errs.push(invalid(child(p, "name"), portName, m));
      if (portNames.has(portName)) errs.push(duplicate(child(p, "name"), portName));
      else portNames.add(portName);
    }
    const number = typeof port.port === "number" ? port.port : 0;
    for (const m of isValidPortNum(number)) errs.push(invalid(child(p, "port"), number, m));
  });
  const types = strs(spec.types);
  types.forEach((t, i) => {
    if (t !== "CrossCluster" && t !== "LoadBalancer")
      errs.push(invalid(index("spec.types", i), t, "ExposureType Error"));
  });
  if (new Set(types).size > 1) {
    errs.push(
      invalid("spec.types", spec.types, "MultiClusterService types should not contain more than one type"),
    );
  }
  // Upstream reports these under `spec.range`, though the fields sit directly in spec.
  errs.push(...validateClusterList(spec.providerClusters, "spec.range.providerClusters"));
  errs.push(...validateClusterList(spec.consumerClusters, "spec.range.consumerClusters"));
  if (old)
    errs.push(...validateLoadBalancerStatus(obj(obj(mcs.status)?.loadBalancer), "status.loadBalancer"));
  return errs;
}
