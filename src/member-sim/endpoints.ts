/**
 * The endpoints and EndpointSlice controllers for Services with a selector: pods matching
 * the selector with an IP, ready ones as `addresses` (not ready: `notReadyAddresses`, unless
 * publishNotReadyAddresses), ports resolved by number or container port name, one subset
 * (and one EndpointSlice) per distinct port set. Slices are named `<service>-<hash>`,
 * labelled `kubernetes.io/service-name` and `endpointslice.kubernetes.io/managed-by`, owned
 * by the Service. Services without a selector are left to their owners.
 */
import type { KubeObject, StoredObject } from "../api/meta.ts";
import { RESOURCES, type ResourceRef } from "../client/client.ts";
import { deepEqual } from "../machinery/equality.ts";
import { isNotFound } from "../machinery/errors.ts";
import { matches, type Selector } from "../machinery/labels.ts";
import type { Controller } from "../runtime/controller.ts";
import { objectKey } from "../runtime/keys.ts";
import { ENDPOINTSLICES, type Sim } from "./context.ts";
import type { IntOrString } from "./types.ts";
import {
  BY_NAMESPACE,
  controllerKey,
  controllerRef,
  isReady,
  isTerminal,
  podSpec,
  podStatus,
  templateHash,
  timestamp,
} from "./workload.ts";

const SERVICE_NAME_LABEL = "kubernetes.io/service-name";
const MANAGED_BY_LABEL = "endpointslice.kubernetes.io/managed-by";
const MANAGED_BY = "endpointslice-controller.k8s.io";

interface ServicePort {
  name?: string;
  port: number;
  protocol?: string;
  targetPort?: IntOrString;
  appProtocol?: string;
}

interface ServiceSpec {
  selector?: Record<string, string>;
  ports?: ServicePort[];
  clusterIP?: string;
  publishNotReadyAddresses?: boolean;
}

interface EndpointPort {
  name?: string;
  port: number;
  protocol: string;
  appProtocol?: string;
}

interface Member {
  pod: StoredObject;
  ip: string;
  ready: boolean;
  ports: EndpointPort[];
}

/** The pod's port for a service port, or undefined when a named target is not among its containers. */
export function resolvePort(pod: StoredObject, sp: ServicePort): EndpointPort | undefined {
  const protocol = sp.protocol ?? "TCP";
  const target = sp.targetPort ?? sp.port;
  let port: number | undefined;
  if (typeof target === "number") port = target;
  else if (/^\d+$/.test(target)) port = Number(target);
  else {
    for (const c of podSpec(pod).containers ?? []) {
      const found = c.ports?.find((p) => p.name === target && (p.protocol ?? "TCP") === protocol);
      if (found) {
        port = found.containerPort;
        break;
      }
    }
  }
  if (port === undefined) return undefined;
  return {
    ...(sp.name ? { name: sp.name } : {}),
    port,
    protocol,
    ...(sp.appProtocol ? { appProtocol: sp.appProtocol } : {}),
  };
}

function selectorOf(labels: Record<string, string>): Selector {
  return Object.entries(labels)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([key, value]) => ({ key, operator: "=" as const, values: [value] }));
}

/** The pods behind a Service, grouped by the ports they resolve (sorted by IP). */
export function serviceMembers(svc: StoredObject, pods: readonly StoredObject[]): Map<string, Member[]> {
  const spec = (svc.spec ?? {}) as ServiceSpec;
  const selector = selectorOf(spec.selector ?? {});
  const members: Member[] = [];
  for (const pod of pods) {
    const ip = podStatus(pod).podIP;
    if (!ip || isTerminal(pod) || !matches(selector, pod.metadata.labels)) continue;
    if (pod.metadata.deletionTimestamp && !spec.publishNotReadyAddresses) continue;
    const ports = (spec.ports ?? []).map((sp) => resolvePort(pod, sp)).filter((p): p is EndpointPort => !!p);
    members.push({ pod, ip, ready: spec.publishNotReadyAddresses === true || isReady(pod), ports });
  }
  members.sort((a, b) => (a.ip < b.ip ? -1 : a.ip > b.ip ? 1 : 0));
  const groups = new Map<string, Member[]>();
  for (const m of members) {
    const k = JSON.stringify(m.ports);
    groups.set(k, [...(groups.get(k) ?? []), m]);
  }
  return groups;
}

function podRef(m: Member): Record<string, unknown> {
  return {
    kind: "Pod",
    namespace: m.pod.metadata.namespace,
    name: m.pod.metadata.name,
    uid: m.pod.metadata.uid,
  };
}

/** Endpoints subsets: one per port set, ready and not-ready addresses apart. */
export function endpointSubsets(groups: Map<string, Member[]>): Array<Record<string, unknown>> {
  const address = (m: Member) => ({
    ip: m.ip,
    ...(podSpec(m.pod).nodeName ? { nodeName: podSpec(m.pod).nodeName } : {}),
    targetRef: podRef(m),
  });
  const subsets: Array<Record<string, unknown>> = [];
  for (const group of groups.values()) {
    if (group[0]!.ports.length === 0) continue;
    const ready = group.filter((m) => m.ready).map(address);
    const notReady = group.filter((m) => !m.ready).map(address);
    subsets.push({
      ...(ready.length > 0 ? { addresses: ready } : {}),
      ...(notReady.length > 0 ? { notReadyAddresses: notReady } : {}),
      ports: group[0]!.ports,
    });
  }
  return subsets;
}

function sliceEndpoint(m: Member, zoneOf: (node: string) => string | undefined): Record<string, unknown> {
  const nodeName = podSpec(m.pod).nodeName;
  const zone = nodeName ? zoneOf(nodeName) : undefined;
  return {
    addresses: [m.ip],
    conditions: { ready: m.ready, serving: m.ready, terminating: !!m.pod.metadata.deletionTimestamp },
    ...(nodeName ? { nodeName } : {}),
    ...(zone ? { zone } : {}),
    targetRef: podRef(m),
  };
}

/** Service labels (+ headless marker) that Endpoints and EndpointSlices carry. */
function serviceLabels(svc: StoredObject): Record<string, string> {
  const labels: Record<string, string> = { ...svc.metadata.labels };
  if ((svc.spec as ServiceSpec | undefined)?.clusterIP === "None")
    labels["service.kubernetes.io/headless"] = "";
  return labels;
}

export function endpointsController(sim: Sim): Controller {
  const { services, pods, endpoints, endpointslices, nodes } = sim.informers;

  const servicesSelecting = (pod: StoredObject): string[] =>
    services
      .list(pod.metadata.namespace)
      .filter((svc) => {
        const sel = (svc.spec as ServiceSpec | undefined)?.selector;
        return sel && Object.keys(sel).length > 0 && matches(selectorOf(sel), pod.metadata.labels);
      })
      .map(objectKey);

  const upsert = async (
    res: ResourceRef,
    current: StoredObject | undefined,
    wanted: KubeObject,
    same: (a: StoredObject) => boolean,
  ): Promise<void> => {
    if (!current) await sim.client.create(res, wanted);
    else if (!same(current)) {
      await sim.client.update(res, { ...wanted, metadata: { ...current.metadata, ...wanted.metadata } });
    }
  };

  const remove = async (res: ResourceRef, namespace: string, name: string): Promise<void> => {
    try {
      await sim.client.delete(res, namespace, name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  };

  const syncEndpoints = async (svc: StoredObject, groups: Map<string, Member[]>): Promise<void> => {
    const { namespace, name } = svc.metadata as { namespace: string; name: string };
    const subsets = endpointSubsets(groups);
    const labels = serviceLabels(svc);
    const wanted: KubeObject = {
      apiVersion: "v1",
      kind: "Endpoints",
      metadata: {
        name,
        namespace,
        ...(Object.keys(labels).length > 0 ? { labels } : {}),
        annotations: { "endpoints.kubernetes.io/last-change-trigger-time": timestamp(sim.now()) },
      },
      ...(subsets.length > 0 ? { subsets } : {}),
    };
    await upsert(
      RESOURCES.endpoints,
      endpoints.get(namespace, name),
      wanted,
      (ep) => deepEqual(ep.subsets ?? [], subsets) && deepEqual(ep.metadata.labels ?? {}, labels),
    );
  };

  const syncSlices = async (svc: StoredObject, groups: Map<string, Member[]>): Promise<void> => {
    const { namespace, name } = svc.metadata as { namespace: string; name: string };
    const labels = { ...serviceLabels(svc), [SERVICE_NAME_LABEL]: name, [MANAGED_BY_LABEL]: MANAGED_BY };
    const zoneOf = (node: string) => nodes.getByKey(node)?.metadata.labels?.["topology.kubernetes.io/zone"];
    const existing = endpointslices
      .list(namespace)
      .filter(
        (s) =>
          s.metadata.labels?.[SERVICE_NAME_LABEL] === name &&
          s.metadata.labels?.[MANAGED_BY_LABEL] === MANAGED_BY,
      );
    const portSets: Array<[string, Member[]]> = groups.size > 0 ? [...groups.entries()] : [["[]", []]];
    const wantedNames = new Set<string>();
    for (const [portKey, group] of portSets) {
      const sliceName = `${name}-${templateHash(portKey).slice(0, 5)}`;
      wantedNames.add(sliceName);
      const body = { endpoints: group.map((m) => sliceEndpoint(m, zoneOf)), ports: group[0]?.ports ?? [] };
      await upsert(
        ENDPOINTSLICES,
        existing.find((s) => s.metadata.name === sliceName),
        {
          apiVersion: "discovery.k8s.io/v1",
          kind: "EndpointSlice",
          metadata: { name: sliceName, namespace, labels, ownerReferences: [controllerRef(svc)] },
          addressType: "IPv4",
          ...body,
        },
        (s) =>
          deepEqual(
            { e: s.endpoints ?? [], p: s.ports ?? [], l: s.metadata.labels ?? {} },
            { e: body.endpoints, p: body.ports, l: labels },
          ),
      );
    }
    for (const s of existing)
      if (!wantedNames.has(s.metadata.name)) await remove(ENDPOINTSLICES, namespace, s.metadata.name);
  };

  return {
    name: "endpoints",
    for: services,
    watches: [
      { informer: pods, map: (pod) => servicesSelecting(pod) },
      { informer: endpointslices, map: (slice) => controllerKey(slice, "Service") },
    ],
    async reconcile(_ctx, key) {
      const svc = services.getByKey(key);
      const [namespace = "", name = ""] = key.split("/");
      if (!svc) {
        // Endpoints are not owned by their Service: removed with it. (Slices go by GC.)
        if (endpoints.get(namespace, name)) await remove(RESOURCES.endpoints, namespace, name);
        return undefined;
      }
      const selector = (svc.spec as ServiceSpec | undefined)?.selector;
      if (!selector || Object.keys(selector).length === 0) return undefined;
      const groups = serviceMembers(svc, pods.byIndex(BY_NAMESPACE, namespace));
      await syncEndpoints(svc, groups);
      await syncSlices(svc, groups);
      return undefined;
    },
  };
}
