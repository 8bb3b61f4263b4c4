/** Spec validation of `networking.k8s.io/v1` Ingress and IngressClass. */

import type { FieldError } from "../../machinery/errors.ts";
import { child, index, invalid, notSupported, required, tooLong } from "./field.ts";
import { num, type Obj, obj, objs, str, strs } from "./json.ts";
import { validateImmutable } from "./metadata.ts";
import {
  checkName,
  isDNS1035Label,
  isDNS1123Subdomain,
  isDomainPrefixedPath,
  isValidPortName,
  isValidPortNum,
  isWildcardDNS1123Subdomain,
  parseIPFamily,
} from "./names.ts";

const PATH_TYPES = ["Exact", "ImplementationSpecific", "Prefix"];
const INVALID_SEQUENCES = ["//", "/./", "/../", "%2f", "%2F"];
const INVALID_SUFFIXES = ["/..", "/."];

export function validateIngress(ing: Obj): FieldError[] {
  const s = obj(ing.spec) ?? {};
  const errs: FieldError[] = [];
  const rules = objs(s.rules);
  if (rules.length === 0 && s.defaultBackend == null) {
    errs.push(invalid("spec", s.rules ?? null, "either `defaultBackend` or `rules` must be specified"));
  }
  const defaultBackend = obj(s.defaultBackend);
  if (defaultBackend) errs.push(...validateBackend(defaultBackend, "spec.defaultBackend"));
  rules.forEach((rule, i) => {
    errs.push(...validateRule(rule, index("spec.rules", i)));
  });
  objs(s.tls).forEach((tls, i) => {
    strs(tls.hosts).forEach((host, j) => {
      const p = index(child(index("spec.tls", i), "hosts"), j);
      const msgs = host.includes("*") ? isWildcardDNS1123Subdomain(host) : isDNS1123Subdomain(host);
      for (const m of msgs) errs.push(invalid(p, host, m));
    });
  });
  const className = str(s.ingressClassName);
  if (className !== undefined) {
    for (const m of checkName("subdomain", className, false))
      errs.push(invalid("spec.ingressClassName", className, m));
  }
  return errs;
}

function validateRule(rule: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const host = str(rule.host) ?? "";
  if (host) {
    if (parseIPFamily(host) !== 0)
      errs.push(invalid(child(path, "host"), host, "must be a DNS name, not an IP address"));
    const msgs = host.includes("*") ? isWildcardDNS1123Subdomain(host) : isDNS1123Subdomain(host);
    for (const m of msgs) errs.push(invalid(child(path, "host"), host, m));
  }
  const http = obj(rule.http);
  if (!http) return errs;
  const paths = objs(http.paths);
  if (paths.length === 0) errs.push(required(child(path, "http", "paths")));
  paths.forEach((p, i) => {
    errs.push(...validatePath(p, index(child(path, "http", "paths"), i)));
  });
  return errs;
}

function validatePath(p: Obj, path: string): FieldError[] {
  const pathType = p.pathType;
  if (pathType == null) return [required(child(path, "pathType"), "pathType must be specified")];
  const errs: FieldError[] = [];
  const value = str(p.path) ?? "";
  const pp = child(path, "path");
  if (pathType === "Exact" || pathType === "Prefix") {
    if (!value.startsWith("/")) errs.push(invalid(pp, value, "must be an absolute path"));
    if (value) {
      for (const seq of INVALID_SEQUENCES)
        if (value.includes(seq)) errs.push(invalid(pp, value, `must not contain '${seq}'`));
      for (const suf of INVALID_SUFFIXES)
        if (value.endsWith(suf)) errs.push(invalid(pp, value, `cannot end with '${suf}'`));
    }
  } else if (pathType === "ImplementationSpecific") {
    if (value && !value.startsWith("/")) errs.push(invalid(pp, value, "must be an absolute path"));
  } else {
    errs.push(notSupported(child(path, "pathType"), pathType, PATH_TYPES));
  }
  errs.push(...validateBackend(obj(p.backend) ?? {}, child(path, "backend")));
  return errs;
}

function validateBackend(backend: Obj, path: string): FieldError[] {
  const resource = obj(backend.resource);
  const service = obj(backend.service);
  if (resource && service) return [invalid(path, "", "cannot set both resource and service backends")];
  if (resource) {
    const errs: FieldError[] = [];
    if (!str(resource.kind)) errs.push(required(child(path, "resource", "kind")));
    if (!str(resource.name)) errs.push(required(child(path, "resource", "name")));
    return errs;
  }
  if (!service) return [invalid(path, "", "resource or service backend is required")];
  const errs: FieldError[] = [];
  const name = str(service.name) ?? "";
  if (!name) errs.push(required(child(path, "service", "name")));
  else for (const m of isDNS1035Label(name)) errs.push(invalid(child(path, "service", "name"), name, m));
  const port = obj(service.port) ?? {};
  const portName = str(port.name) ?? "";
  const portNumber = num(port.number) ?? 0;
  if (portName && portNumber) {
    errs.push(invalid(path, "", "cannot set both port name & port number"));
  } else if (portName) {
    for (const m of isValidPortName(portName))
      errs.push(invalid(child(path, "service", "port", "name"), portName, m));
  } else if (portNumber) {
    for (const m of isValidPortNum(portNumber))
      errs.push(invalid(child(path, "service", "port", "number"), portNumber, m));
  } else {
    errs.push(required(path, "port name or number is required"));
  }
  return errs;
}

export function validateIngressClass(ic: Obj, old?: Obj): FieldError[] {
  const s = obj(ic.spec) ?? {};
  const controller = str(s.controller) ?? "";
  const errs: FieldError[] = [];
  if (controller.length > 250) errs.push(tooLong("spec.controller", 250));
  errs.push(...isDomainPrefixedPath("spec.controller", controller));
  const params = obj(s.parameters);
  if (params) {
    if (!str(params.kind)) errs.push(required("spec.parameters.kind"));
    if (!str(params.name)) errs.push(required("spec.parameters.name"));
    const scope = str(params.scope);
    if (scope !== undefined && scope !== "Namespace" && scope !== "Cluster") {
      errs.push(notSupported("spec.parameters.scope", scope, ["Cluster", "Namespace"]));
    }
    if (scope === "Namespace" && !str(params.namespace)) {
      errs.push(required("spec.parameters.namespace", "`parameters.scope` is set to 'Namespace'"));
    }
  }
  if (old)
    errs.push(...validateImmutable(controller, str(obj(old.spec)?.controller) ?? "", "spec.controller"));
  return errs;
}
