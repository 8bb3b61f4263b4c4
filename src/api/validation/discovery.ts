/** Validation of `discovery.k8s.io/v1` EndpointSlice. */

import type { FieldError } from "../../machinery/errors.ts";
import { validateNonSpecialIP } from "./core.ts";
import { child, duplicate, index, invalid, notSupported, required, tooMany } from "./field.ts";
import { type Obj, objs, str, strs } from "./json.ts";
import { validateImmutable } from "./metadata.ts";
import {
  isDNS1123Label,
  isDNS1123Subdomain,
  isFullyQualifiedDomainName,
  isQualifiedName,
  isValidIPv4Address,
  isValidIPv6Address,
} from "./names.ts";
import { validatePortProtocol } from "./pod.ts";

const ADDRESS_TYPES = ["FQDN", "IPv4", "IPv6"];

export function validateEndpointSlice(slice: Obj, old?: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const addressType = str(slice.addressType) ?? "";
  if (!addressType) errs.push(required("addressType"));
  else if (!ADDRESS_TYPES.includes(addressType))
    errs.push(notSupported("addressType", addressType, ADDRESS_TYPES));
  const endpoints = objs(slice.endpoints);
  if (endpoints.length > 1000) errs.push(tooMany("endpoints", endpoints.length, 1000));
  endpoints.forEach((ep, i) => {
    errs.push(...validateEndpoint(ep, addressType, index("endpoints", i)));
  });
  const names = new Set<string>();
  const ports = objs(slice.ports);
  if (ports.length > 20000) errs.push(tooMany("ports", ports.length, 20000));
  ports.forEach((p, i) => {
    const pp = index("ports", i);
    const name = str(p.name) ?? "";
    if (name) for (const m of isDNS1123Label(name)) errs.push(invalid(child(pp, "name"), name, m));
    if (names.has(name)) errs.push(duplicate(child(pp, "name"), name));
    names.add(name);
    if (p.protocol == null) errs.push(required(child(pp, "protocol")));
    else errs.push(...validatePortProtocol(p.protocol, child(pp, "protocol")));
    const appProtocol = str(p.appProtocol);
    if (appProtocol !== undefined) {
      for (const m of isQualifiedName(appProtocol))
        errs.push(invalid(child(pp, "appProtocol"), appProtocol, m));
    }
  });
  if (old) errs.push(...validateImmutable(slice.addressType, old.addressType, "addressType"));
  return errs;
}

function validateEndpoint(ep: Obj, addressType: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const addresses = strs(ep.addresses);
  const ap = child(path, "addresses");
  if (addresses.length === 0) errs.push(required(ap, "must contain at least 1 address"));
  else if (addresses.length > 100) errs.push(tooMany(ap, addresses.length, 100));
  addresses.forEach((a, i) => {
    const p = index(ap, i);
    if (addressType === "IPv4" || addressType === "IPv6") {
      const ipErrs = addressType === "IPv4" ? isValidIPv4Address(p, a) : isValidIPv6Address(p, a);
      errs.push(...(ipErrs.length > 0 ? ipErrs : validateNonSpecialIP(a, p)));
    } else if (addressType === "FQDN") {
      errs.push(...isFullyQualifiedDomainName(p, a));
    }
  });
  const nodeName = str(ep.nodeName);
  if (nodeName !== undefined) {
    for (const m of isDNS1123Subdomain(nodeName)) errs.push(invalid(child(path, "nodeName"), nodeName, m));
  }
  const hostname = str(ep.hostname);
  if (hostname !== undefined) {
    for (const m of isDNS1123Label(hostname)) errs.push(invalid(child(path, "hostname"), hostname, m));
  }
  return errs;
}
