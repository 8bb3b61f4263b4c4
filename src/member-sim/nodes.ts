/**
 * Simulated nodes: what `kubectl get nodes -o yaml` shows of a kubelet-registered node
 * (capacity, allocatable, conditions, addresses, nodeInfo, pod CIDR, well-known labels), and
 * the objects every cluster has besides namespaces (the `kubernetes` Service and its
 * Endpoints/EndpointSlice).
 *
 * Names: `<cluster>-node-<i>`, i from 0. Node i gets InternalIP 172.18.<c>.<i+2> (c derived
 * from the cluster name, so clusters differ) and pod CIDR 10.244.<i>.0/24.
 */
import { randomUUID } from "node:crypto";
import type { KubeObject, StoredObject } from "../api/meta.ts";
import { VERSION } from "../apiserver/server.ts";
import { type Client, RESOURCES } from "../client/client.ts";
import { isAlreadyExists } from "../machinery/errors.ts";
import { ENDPOINTSLICES } from "./context.ts";
import type { BuiltinCondition, NodeStatus } from "./types.ts";
import { fnv32a, timestamp } from "./workload.ts";

export interface NodeOptions {
  cluster: string;
  count: number;
  cpu: string;
  memory: string;
  pods: number;
  ephemeralStorage?: string;
  region?: string;
  zone?: string;
  provider?: string;
}

export const KUBELET_VERSION = `v${VERSION.major}.${VERSION.minor}.0`;

export function nodeName(cluster: string, i: number): string {
  return `${cluster}-node-${i}`;
}

export function nodeIp(cluster: string, i: number): string {
  return `172.18.${(fnv32a(cluster) % 250) + 1}.${i + 2}`;
}

export function nodeCapacity(
  opts: Pick<NodeOptions, "cpu" | "memory" | "pods" | "ephemeralStorage">,
): Record<string, string> {
  return {
    cpu: opts.cpu,
    "ephemeral-storage": opts.ephemeralStorage ?? "100Gi",
    "hugepages-1Gi": "0",
    "hugepages-2Mi": "0",
    memory: opts.memory,
    pods: String(opts.pods),
  };
}

/** The conditions a healthy kubelet reports. */
export function healthyConditions(
  now: string,
  previous: readonly BuiltinCondition[] = [],
): BuiltinCondition[] {
  const cond = (
    type: string,
    status: "True" | "False",
    reason: string,
    message: string,
  ): BuiltinCondition => {
    const prev = previous.find((c) => c.type === type);
    return {
      type,
      status,
      reason,
      message,
      lastHeartbeatTime: now,
      lastTransitionTime: prev?.status === status && prev.lastTransitionTime ? prev.lastTransitionTime : now,
    };
  };
  return [
    cond("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
    cond("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
    cond("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
    cond("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
  ];
}

/** What the node lifecycle controller writes once a kubelet stopped reporting. */
export function unknownConditions(now: string, previous: readonly BuiltinCondition[]): BuiltinCondition[] {
  const types = ["MemoryPressure", "DiskPressure", "PIDPressure", "Ready"];
  return types.map((type) => {
    const prev = previous.find((c) => c.type === type);
    if (prev?.status === "Unknown") return prev;
    return {
      type,
      status: "Unknown",
      reason: "NodeStatusUnknown",
      message: "Kubelet stopped posting node status.",
      lastHeartbeatTime: prev?.lastHeartbeatTime ?? now,
      lastTransitionTime: now,
    };
  });
}

export function buildNode(opts: NodeOptions, i: number): KubeObject {
  const name = nodeName(opts.cluster, i);
  const labels: Record<string, string> = {
    "beta.kubernetes.io/arch": "amd64",
    "beta.kubernetes.io/os": "linux",
    "kubernetes.io/arch": "amd64",
    "kubernetes.io/hostname": name,
    "kubernetes.io/os": "linux",
    "node.kubernetes.io/instance-type": "member-sim",
  };
  if (opts.region) labels["topology.kubernetes.io/region"] = opts.region;
  if (opts.zone) labels["topology.kubernetes.io/zone"] = opts.zone;
  const cidr = `10.244.${i % 256}.0/24`;
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name,
      labels,
      annotations: {
        "node.alpha.kubernetes.io/ttl": "0",
        "volumes.kubernetes.io/controller-managed-attach-detach": "true",
      },
    },
    spec: {
      podCIDR: cidr,
      podCIDRs: [cidr],
      ...(opts.provider ? { providerID: `${opts.provider}://${opts.cluster}/${name}` } : {}),
    },
  };
}

/** The status a kubelet posts on registration. */
export function initialNodeStatus(opts: NodeOptions, i: number, now: string): NodeStatus {
  const capacity = nodeCapacity(opts);
  return {
    capacity,
    allocatable: { ...capacity },
    conditions: healthyConditions(now),
    addresses: [
      { type: "InternalIP", address: nodeIp(opts.cluster, i) },
      { type: "Hostname", address: nodeName(opts.cluster, i) },
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    nodeInfo: {
      machineID: randomUUID().replaceAll("-", ""),
      systemUUID: randomUUID(),
      bootID: randomUUID(),
      kernelVersion: "6.1.0-member-sim",
      osImage: "karmada-ts member-sim (simulated Linux)",
      containerRuntimeVersion: "containerd://1.7.24",
      kubeletVersion: KUBELET_VERSION,
      kubeProxyVersion: KUBELET_VERSION,
      operatingSystem: "linux",
      architecture: "amd64",
    },
  };
}

/** Registers the nodes that do not exist yet (a persistent store keeps the others). */
export async function registerNodes(client: Client, opts: NodeOptions, now: () => number): Promise<void> {
  for (let i = 0; i < opts.count; i++) {
    let node: StoredObject;
    try {
      node = await client.create(RESOURCES.nodes, buildNode(opts, i));
    } catch (err) {
      if (isAlreadyExists(err)) continue;
      throw err;
    }
    await client.updateStatus(RESOURCES.nodes, {
      ...node,
      status: initialNodeStatus(opts, i, timestamp(now())),
    });
  }
}

const KUBERNETES_SERVICE_IP = "10.96.0.1";

/** The `kubernetes` Service, Endpoints and EndpointSlice in `default`, pointing at "the API server" on node 0. */
export async function createKubernetesService(client: Client, cluster: string): Promise<void> {
  const ip = nodeIp(cluster, 0);
  const labels = { component: "apiserver", provider: "kubernetes" };
  const objects: Array<[typeof RESOURCES.services | typeof ENDPOINTSLICES, KubeObject]> = [
    [
      RESOURCES.services,
      {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "kubernetes", namespace: "default", labels },
        spec: {
          type: "ClusterIP",
          clusterIP: KUBERNETES_SERVICE_IP,
          clusterIPs: [KUBERNETES_SERVICE_IP],
          ports: [{ name: "https", port: 443, protocol: "TCP", targetPort: 6443 }],
          sessionAffinity: "None",
        },
      },
    ],
    [
      RESOURCES.endpoints,
      {
        apiVersion: "v1",
        kind: "Endpoints",
        metadata: {
          name: "kubernetes",
          namespace: "default",
          labels: { "endpointslice.kubernetes.io/skip-mirror": "true" },
        },
        subsets: [{ addresses: [{ ip }], ports: [{ name: "https", port: 6443, protocol: "TCP" }] }],
      },
    ],
    [
      ENDPOINTSLICES,
      {
        apiVersion: "discovery.k8s.io/v1",
        kind: "EndpointSlice",
        metadata: {
          name: "kubernetes",
          namespace: "default",
          labels: { "kubernetes.io/service-name": "kubernetes" },
        },
        addressType: "IPv4",
        endpoints: [{ addresses: [ip], conditions: { ready: true } }],
        ports: [{ name: "https", port: 6443, protocol: "TCP" }],
      },
    ],
  ];
  for (const [res, obj] of objects) {
    try {
      await client.create(res, obj);
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
  }
}
