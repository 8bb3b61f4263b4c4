/** Printers of the `networking.k8s.io` and `discovery.k8s.io` kinds. */

import { AGE_COLUMN, ageOf, column, fieldColumn, formatLabelSelector, NAME_COLUMN, nameOf } from "./cells.ts";
import { loadBalancerIngress } from "./core.ts";
import { at, has, isObject, list, str } from "./read.ts";
import type { KindPrinter, KubeObject } from "./types.ts";

const SHOWN = 3;

/** Up to three hosts of the rules, then `+ N more...`; `*` when no rule names a host. */
function ingressHosts(ingress: KubeObject): string {
  const rules = list(ingress, "spec", "rules");
  const hosts: string[] = [];
  let more = false;
  for (const rule of rules) {
    if (hosts.length === SHOWN) more = true;
    const host = str(rule, "host");
    if (!more && host !== "") hosts.push(host);
  }
  if (hosts.length === 0) return "*";
  const text = hosts.join(",");
  return more ? `${text} + ${rules.length - SHOWN} more...` : text;
}

export const ingressPrinter: KindPrinter = {
  columns: [
    NAME_COLUMN,
    column(
      "Class",
      "string",
      "The name of the IngressClass resource that should be used for additional configuration",
    ),
    column("Hosts", "string", "Hosts that incoming requests are matched against before the ingress rule"),
    column("Address", "string", "Address is a list containing ingress points for the load-balancer"),
    column("Ports", "string", "Ports of TLS configurations that open"),
    AGE_COLUMN,
  ],
  row(ingress, now) {
    return [
      nameOf(ingress),
      has(ingress, "spec", "ingressClassName") ? str(ingress, "spec", "ingressClassName") : "<none>",
      ingressHosts(ingress),
      loadBalancerIngress(at(ingress, "status", "loadBalancer")),
      list(ingress, "spec", "tls").length > 0 ? "80, 443" : "80",
      ageOf(ingress, now),
    ];
  },
};

export const ingressClassPrinter: KindPrinter = {
  columns: [
    NAME_COLUMN,
    column("Controller", "string", "Controller that is responsible for handling this class"),
    column("Parameters", "string", "A reference to a resource with additional parameters"),
    AGE_COLUMN,
  ],
  row(ingressClass, now) {
    const params = at(ingressClass, "spec", "parameters");
    let parameters = "<none>";
    if (isObject(params)) {
      const group = has(params, "apiGroup") ? `.${str(params, "apiGroup")}` : "";
      parameters = `${str(params, "kind")}${group}/${str(params, "name")}`;
    }
    return [
      nameOf(ingressClass),
      str(ingressClass, "spec", "controller"),
      parameters,
      ageOf(ingressClass, now),
    ];
  },
};

export const networkPolicyPrinter: KindPrinter = {
  columns: [NAME_COLUMN, fieldColumn("Pod-Selector", "string", "NetworkPolicySpec.podSelector"), AGE_COLUMN],
  // podSelector is a struct, not a pointer: absent means "all pods", shown as <none>.
  row: (policy, now) => [
    nameOf(policy),
    formatLabelSelector(at(policy, "spec", "podSelector") ?? {}),
    ageOf(policy, now),
  ],
};

/** Up to three entries, then `+ N more...`; `<unset>` when there are none. */
function firstThree(entries: string[]): string {
  const text = entries.slice(0, SHOWN).join(",");
  if (entries.length > SHOWN) return `${text} + ${entries.length - SHOWN} more...`;
  return text === "" ? "<unset>" : text;
}

export const endpointSlicePrinter: KindPrinter = {
  columns: [
    NAME_COLUMN,
    fieldColumn("AddressType", "string", "EndpointSlice.addressType"),
    fieldColumn("Ports", "string", "EndpointSlice.ports"),
    fieldColumn("Endpoints", "string", "EndpointSlice.endpoints"),
    AGE_COLUMN,
  ],
  row(slice, now) {
    const ports = list(slice, "ports").map((p) => {
      const port = at(p, "port");
      if (typeof port === "number") return String(port);
      return has(p, "name") ? str(p, "name") : "*";
    });
    const addresses = list(slice, "endpoints").flatMap((e) =>
      list(e, "addresses").filter((a): a is string => typeof a === "string"),
    );
    return [
      nameOf(slice),
      str(slice, "addressType"),
      firstThree(ports),
      firstThree(addresses),
      ageOf(slice, now),
    ];
  },
};
