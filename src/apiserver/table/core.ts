/** Printers of the core (`v1`) kinds, except Pod (`pod.ts`) and Event (`events.ts`). */

import {
  AGE_COLUMN,
  ageOf,
  CONTAINERS_COLUMN,
  column,
  containerCells,
  fieldColumn,
  formatLabels,
  IMAGES_COLUMN,
  NAME_COLUMN,
  nameOf,
} from "./cells.ts";
import { at, has, int, isObject, list, obj, quantity, size, str } from "./read.ts";
import type { KindPrinter, KubeObject } from "./types.ts";

export const namespacePrinter: KindPrinter = {
  columns: [NAME_COLUMN, column("Status", "string", "The status of the namespace"), AGE_COLUMN],
  row: (ns, now) => [nameOf(ns), str(ns, "status", "phase"), ageOf(ns, now)],
};

export const configMapPrinter: KindPrinter = {
  columns: [NAME_COLUMN, fieldColumn("Data", "string", "ConfigMap.data"), AGE_COLUMN],
  row: (cm, now) => [nameOf(cm), size(cm, "data") + size(cm, "binaryData"), ageOf(cm, now)],
};

export const secretPrinter: KindPrinter = {
  columns: [
    NAME_COLUMN,
    fieldColumn("Type", "string", "Secret.type"),
    fieldColumn("Data", "string", "Secret.data"),
    AGE_COLUMN,
  ],
  // The apiserver defaults an unset type to Opaque.
  row: (secret, now) => [
    nameOf(secret),
    str(secret, "type") || "Opaque",
    size(secret, "data"),
    ageOf(secret, now),
  ],
};

export const serviceAccountPrinter: KindPrinter = {
  columns: [NAME_COLUMN, fieldColumn("Secrets", "string", "ServiceAccount.secrets"), AGE_COLUMN],
  row: (sa, now) => [nameOf(sa), list(sa, "secrets").length, ageOf(sa, now)],
};

/** Load-balancer ingress points: IPs or else hostnames, sorted and de-duplicated. */
export function loadBalancerIngress(status: unknown): string {
  const points = new Set<string>();
  for (const ingress of list(status, "ingress")) {
    const point = str(ingress, "ip") || str(ingress, "hostname");
    if (point !== "") points.add(point);
  }
  return [...points].sort().join(",");
}

function serviceExternalIP(svc: KubeObject, type: string): string {
  const externalIPs = list(svc, "spec", "externalIPs").filter((ip): ip is string => typeof ip === "string");
  switch (type) {
    case "ClusterIP":
    case "NodePort":
      return externalIPs.length > 0 ? externalIPs.join(",") : "<none>";
    case "LoadBalancer": {
      const lb = loadBalancerIngress(at(svc, "status", "loadBalancer"));
      if (externalIPs.length > 0) return [...(lb === "" ? [] : lb.split(",")), ...externalIPs].join(",");
      return lb === "" ? "<pending>" : lb;
    }
    case "ExternalName":
      return str(svc, "spec", "externalName");
    default:
      return "<unknown>";
  }
}

function servicePorts(svc: KubeObject): string {
  const text = list(svc, "spec", "ports")
    .map((p) => {
      // The apiserver defaults an unset protocol to TCP.
      const protocol = str(p, "protocol") || "TCP";
      const nodePort = int(p, "nodePort");
      return nodePort > 0 ? `${int(p, "port")}:${nodePort}/${protocol}` : `${int(p, "port")}/${protocol}`;
    })
    .join(",");
  return text === "" ? "<none>" : text;
}

export const servicePrinter: KindPrinter = {
  columns: [
    NAME_COLUMN,
    fieldColumn("Type", "string", "ServiceSpec.type"),
    fieldColumn("Cluster-IP", "string", "ServiceSpec.clusterIP"),
    fieldColumn("External-IP", "string", "ServiceSpec.externalIPs"),
    fieldColumn("Port(s)", "string", "ServiceSpec.ports"),
    AGE_COLUMN,
    fieldColumn("Selector", "string", "ServiceSpec.selector", { priority: 1 }),
  ],
  row(svc, now) {
    // The apiserver defaults an unset type to ClusterIP and keeps clusterIPs[0] equal to clusterIP.
    const type = str(svc, "spec", "type") || "ClusterIP";
    const clusterIP = str(list(svc, "spec", "clusterIPs")[0]) || str(svc, "spec", "clusterIP") || "<none>";
    return [
      nameOf(svc),
      type,
      clusterIP,
      serviceExternalIP(svc, type),
      servicePorts(svc),
      ageOf(svc, now),
      formatLabels(at(svc, "spec", "selector")),
    ];
  },
};

/** `net.JoinHostPort`: IPv6 addresses in brackets. */
function joinHostPort(host: string, port: number): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

const ENDPOINTS_SHOWN = 3;

/** The first three endpoints (`ip:port`, or `ip` for headless subsets without ports) and how many more. */
export function formatEndpoints(endpoints: KubeObject): string {
  const subsets = list(endpoints, "subsets");
  if (subsets.length === 0) return "<none>";
  const shown: string[] = [];
  let count = 0;
  let more = false;
  for (const subset of subsets) {
    const addresses = list(subset, "addresses").map((a) => str(a, "ip"));
    const ports = list(subset, "ports");
    if (ports.length === 0) {
      count += addresses.length;
      for (const ip of addresses) {
        if (shown.length === ENDPOINTS_SHOWN) {
          more = true;
          break;
        }
        shown.push(ip);
      }
      continue;
    }
    for (const port of ports) {
      count += addresses.length;
      for (const ip of addresses) {
        if (shown.length === ENDPOINTS_SHOWN) {
          more = true;
          break;
        }
        shown.push(joinHostPort(ip, int(port, "port")));
      }
    }
  }
  const text = shown.join(",");
  return more ? `${text} + ${count - ENDPOINTS_SHOWN} more...` : text;
}

export const endpointsPrinter: KindPrinter = {
  columns: [NAME_COLUMN, fieldColumn("Endpoints", "string", "Endpoints.subsets"), AGE_COLUMN],
  row: (ep, now) => [nameOf(ep), formatEndpoints(ep), ageOf(ep, now)],
};

const NODE_ROLE_PREFIX = "node-role.kubernetes.io/";
const NODE_ROLE_LABEL = "kubernetes.io/role";

/** Roles from `node-role.kubernetes.io/<role>` label keys and the `kubernetes.io/role` label value. */
export function nodeRoles(node: KubeObject): string[] {
  const roles = new Set<string>();
  for (const [key, value] of Object.entries(obj(node, "metadata", "labels"))) {
    if (key.startsWith(NODE_ROLE_PREFIX)) {
      const role = key.slice(NODE_ROLE_PREFIX.length);
      if (role !== "") roles.add(role);
    } else if (key === NODE_ROLE_LABEL && typeof value === "string" && value !== "") {
      roles.add(value);
    }
  }
  return [...roles].sort();
}

function nodeStatus(node: KubeObject): string {
  const status: string[] = [];
  const ready = list(node, "status", "conditions")
    .filter((c) => str(c, "type") === "Ready")
    .at(-1);
  if (ready !== undefined) status.push(str(ready, "status") === "True" ? "Ready" : "NotReady");
  else status.push("Unknown");
  if (at(node, "spec", "unschedulable") === true) status.push("SchedulingDisabled");
  return status.join(",");
}

function nodeAddress(node: KubeObject, type: string): string {
  const found = list(node, "status", "addresses").find((a) => str(a, "type") === type);
  return found === undefined ? "<none>" : str(found, "address");
}

export const nodePrinter: KindPrinter = {
  columns: [
    NAME_COLUMN,
    column("Status", "string", "The status of the node"),
    column("Roles", "string", "The roles of the node"),
    AGE_COLUMN,
    fieldColumn("Version", "string", "NodeSystemInfo.kubeletVersion"),
    fieldColumn("Internal-IP", "string", "NodeStatus.addresses", { priority: 1 }),
    fieldColumn("External-IP", "string", "NodeStatus.addresses", { priority: 1 }),
    fieldColumn("OS-Image", "string", "NodeSystemInfo.osImage", { priority: 1 }),
    fieldColumn("Kernel-Version", "string", "NodeSystemInfo.kernelVersion", { priority: 1 }),
    fieldColumn("Container-Runtime", "string", "NodeSystemInfo.containerRuntimeVersion", { priority: 1 }),
  ],
  row(node, now) {
    const info = (key: string) => str(node, "status", "nodeInfo", key);
    return [
      nameOf(node),
      nodeStatus(node),
      nodeRoles(node).join(",") || "<none>",
      ageOf(node, now),
      info("kubeletVersion"),
      nodeAddress(node, "InternalIP"),
      nodeAddress(node, "ExternalIP"),
      info("osImage") || "<unknown>",
      info("kernelVersion") || "<unknown>",
      info("containerRuntimeVersion") || "<unknown>",
    ];
  },
};

/** `GetAccessModesAsString`: RWO, ROX, RWX, RWOP in that order, each once. */
export function accessModes(modes: unknown[]): string {
  const short: Array<[string, string]> = [
    ["ReadWriteOnce", "RWO"],
    ["ReadOnlyMany", "ROX"],
    ["ReadWriteMany", "RWX"],
    ["ReadWriteOncePod", "RWOP"],
  ];
  return short
    .filter(([mode]) => modes.includes(mode))
    .map(([, abbreviation]) => abbreviation)
    .join(",");
}

const BETA_STORAGE_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class";

/** The storage class of a PV or PVC: the beta annotation wins over `spec.storageClassName`. */
function storageClassOf(volume: KubeObject): string {
  const annotations = obj(volume, "metadata", "annotations");
  const beta = annotations[BETA_STORAGE_CLASS_ANNOTATION];
  if (typeof beta === "string") return beta;
  return str(volume, "spec", "storageClassName");
}

function volumePhase(volume: KubeObject): string {
  return has(volume, "metadata", "deletionTimestamp") ? "Terminating" : str(volume, "status", "phase");
}

export const persistentVolumePrinter: KindPrinter = {
  columns: [
    NAME_COLUMN,
    fieldColumn("Capacity", "string", "PersistentVolumeSpec.capacity"),
    fieldColumn("Access Modes", "string", "PersistentVolumeSpec.accessModes"),
    fieldColumn("Reclaim Policy", "string", "PersistentVolumeSpec.persistentVolumeReclaimPolicy"),
    fieldColumn("Status", "string", "PersistentVolumeStatus.phase"),
    fieldColumn("Claim", "string", "PersistentVolumeSpec.claimRef"),
    column("StorageClass", "string", "StorageClass of the pv"),
    column("VolumeAttributesClass", "string", "VolumeAttributesClass of the pv"),
    fieldColumn("Reason", "string", "PersistentVolumeStatus.reason"),
    AGE_COLUMN,
    fieldColumn("VolumeMode", "string", "PersistentVolumeSpec.volumeMode", { priority: 1 }),
  ],
  row(pv, now) {
    const claimRef = at(pv, "spec", "claimRef");
    const claim = isObject(claimRef) ? `${str(claimRef, "namespace")}/${str(claimRef, "name")}` : "";
    return [
      nameOf(pv),
      quantity(at(pv, "spec", "capacity", "storage")),
      accessModes(list(pv, "spec", "accessModes")),
      str(pv, "spec", "persistentVolumeReclaimPolicy"),
      volumePhase(pv),
      claim,
      storageClassOf(pv),
      str(pv, "spec", "volumeAttributesClassName") || "<unset>",
      str(pv, "status", "reason"),
      ageOf(pv, now),
      str(pv, "spec", "volumeMode") || "<unset>",
    ];
  },
};

export const persistentVolumeClaimPrinter: KindPrinter = {
  columns: [
    NAME_COLUMN,
    fieldColumn("Status", "string", "PersistentVolumeClaimStatus.phase"),
    fieldColumn("Volume", "string", "PersistentVolumeClaimSpec.volumeName"),
    fieldColumn("Capacity", "string", "PersistentVolumeClaimStatus.capacity"),
    fieldColumn("Access Modes", "string", "PersistentVolumeClaimStatus.accessModes"),
    column("StorageClass", "string", "StorageClass of the pvc"),
    column("VolumeAttributesClass", "string", "VolumeAttributesClass of the pvc"),
    AGE_COLUMN,
    fieldColumn("VolumeMode", "string", "PersistentVolumeClaimSpec.volumeMode", { priority: 1 }),
  ],
  row(pvc, now) {
    const volumeName = str(pvc, "spec", "volumeName");
    // Capacity and access modes are only shown once the claim is bound to a volume.
    const bound = volumeName !== "";
    return [
      nameOf(pvc),
      volumePhase(pvc),
      volumeName,
      bound ? quantity(at(pvc, "status", "capacity", "storage")) : "",
      bound ? accessModes(list(pvc, "status", "accessModes")) : "",
      storageClassOf(pvc),
      str(pvc, "spec", "volumeAttributesClassName") || "<unset>",
      ageOf(pvc, now),
      str(pvc, "spec", "volumeMode") || "<unset>",
    ];
  },
};

/** The apiserver defaults unset replicas of controllers to 1. */
export function desiredReplicas(workload: KubeObject): number {
  return has(workload, "spec", "replicas") ? int(workload, "spec", "replicas") : 1;
}

export const replicationControllerPrinter: KindPrinter = {
  columns: [
    NAME_COLUMN,
    fieldColumn("Desired", "integer", "ReplicationControllerSpec.replicas"),
    fieldColumn("Current", "integer", "ReplicationControllerStatus.replicas"),
    fieldColumn("Ready", "integer", "ReplicationControllerStatus.readyReplicas"),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    fieldColumn("Selector", "string", "ReplicationControllerSpec.selector", { priority: 1 }),
  ],
  row(rc, now) {
    const [names, images] = containerCells(list(rc, "spec", "template", "spec", "containers"));
    return [
      nameOf(rc),
      desiredReplicas(rc),
      int(rc, "status", "replicas"),
      int(rc, "status", "readyReplicas"),
      ageOf(rc, now),
      names,
      images,
      formatLabels(at(rc, "spec", "selector")),
    ];
  },
};

export const podTemplatePrinter: KindPrinter = {
  columns: [
    NAME_COLUMN,
    column("Containers", "string", "Names of each container in the template."),
    column("Images", "string", "Images referenced by each container in the template."),
    column("Pod Labels", "string", "The labels for the pod template."),
  ],
  row(template) {
    const [names, images] = containerCells(list(template, "template", "spec", "containers"));
    return [nameOf(template), names, images, formatLabels(at(template, "template", "metadata", "labels"))];
  },
};

/** `used/hard` per resource of `status.hard`, sorted; `limits.*` resources go to the Limit cell. */
function quotaCells(quota: KubeObject): [request: string, limit: string] {
  const hard = obj(quota, "status", "hard");
  const used = obj(quota, "status", "used");
  const request: string[] = [];
  const limit: string[] = [];
  for (const resource of Object.keys(hard).sort()) {
    const pieces = resource.split(".");
    const target = pieces.length > 1 && pieces[0] === "limits" ? limit : request;
    target.push(`${resource}: ${quantity(used[resource])}/${quantity(hard[resource])}`);
  }
  return [request.join(", "), limit.join(", ")];
}

/** Kubernetes 1.32 order (1.33 moved Age to the end). */
export const resourceQuotaPrinter: KindPrinter = {
  columns: [
    NAME_COLUMN,
    AGE_COLUMN,
    column(
      "Request",
      "string",
      "Request represents a minimum amount of cpu/memory that a container may consume.",
    ),
    column(
      "Limit",
      "string",
      "Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.",
    ),
  ],
  row(quota, now) {
    const [request, limit] = quotaCells(quota);
    return [nameOf(quota), ageOf(quota, now), request, limit];
  },
};
