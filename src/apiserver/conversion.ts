/**
 * Conversion between served versions of one stored resource. CRDs use strategy None (only
 * `apiVersion` changes); built-ins that share storage across groups convert field by field:
 * core/v1 Event ↔ events.k8s.io/v1 Event, autoscaling/v2 ↔ autoscaling/v1 HPA; Karmada's
 * (Cluster)ResourceBinding v1alpha1 ↔ v1alpha2 as upstream's conversion does it.
 */
import { isObject, type StoredObject } from "../api/meta.ts";
import { cloneJson } from "../machinery/merge-patch.ts";
import type { ResourceType } from "./resource-type.ts";

type Converter = (obj: StoredObject, to: string) => StoredObject;

const converters: Record<string, Converter> = {
  "core/events": convertEvent,
  "autoscaling/horizontalpodautoscalers": convertHpa,
  "work.karmada.io/resourcebindings": convertBinding,
  "work.karmada.io/clusterresourcebindings": convertBinding,
};

export function convertVersion(rt: ResourceType, obj: StoredObject, toApiVersion: string): StoredObject {
  const convert = converters[rt.storage.resource];
  if (convert) return convert(obj, toApiVersion);
  return { ...obj, apiVersion: toApiVersion };
}

/** Pairs of (core/v1 name, events.k8s.io/v1 name). */
const EVENT_FIELDS: Array<[string, string]> = [
  ["involvedObject", "regarding"],
  ["message", "note"],
  ["reportingComponent", "reportingController"],
  ["source", "deprecatedSource"],
  ["firstTimestamp", "deprecatedFirstTimestamp"],
  ["lastTimestamp", "deprecatedLastTimestamp"],
  ["count", "deprecatedCount"],
];

function convertEvent(obj: StoredObject, to: string): StoredObject {
  const out: StoredObject = { ...obj, apiVersion: to };
  const toCore = to === "v1";
  for (const [core, events] of EVENT_FIELDS) {
    const [from, into] = toCore ? [events, core] : [core, events];
    if (out[from] !== undefined) {
      out[into] = out[from];
      delete out[from];
    }
  }
  return out;
}

function convertHpa(obj: StoredObject, to: string): StoredObject {
  const out: StoredObject = cloneJson({ ...obj, apiVersion: to });
  const spec = isObject(out.spec) ? out.spec : undefined;
  const status = isObject(out.status) ? out.status : undefined;
  if (to === "autoscaling/v1") {
    if (spec) {
      const metrics = Array.isArray(spec.metrics) ? spec.metrics : [];
      const cpu = metrics.find(
        (m) => isObject(m) && m.type === "Resource" && isObject(m.resource) && m.resource.name === "cpu",
      ) as { resource?: { target?: { averageUtilization?: number } } } | undefined;
      const target = cpu?.resource?.target?.averageUtilization;
      if (target !== undefined) spec.targetCPUUtilizationPercentage = target;
      delete spec.metrics;
      delete spec.behavior;
    }
    if (status) {
      const current = Array.isArray(status.currentMetrics) ? status.currentMetrics : [];
      const cpu = current.find(
        (m) => isObject(m) && m.type === "Resource" && isObject(m.resource) && m.resource.name === "cpu",
      ) as { resource?: { current?: { averageUtilization?: number } } } | undefined;
      const value = cpu?.resource?.current?.averageUtilization;
      if (value !== undefined) status.currentCPUUtilizationPercentage = value;
      delete status.currentMetrics;
      delete status.conditions;
    }
    return out;
  }
  if (spec && spec.targetCPUUtilizationPercentage !== undefined) {
    spec.metrics = [
      {
        type: "Resource",
        resource: {
          name: "cpu",
          target: { type: "Utilization", averageUtilization: spec.targetCPUUtilizationPercentage },
        },
      },
    ];
    delete spec.targetCPUUtilizationPercentage;
  }
  if (status && status.currentCPUUtilizationPercentage !== undefined) {
    status.currentMetrics = [
      {
        type: "Resource",
        resource: { name: "cpu", current: { averageUtilization: status.currentCPUUtilizationPercentage } },
      },
    ];
    delete status.currentCPUUtilizationPercentage;
  }
  return out;
}

const BINDING_V1ALPHA1 = "work.karmada.io/v1alpha1";

/** Keeps the keys whose values are defined. */
function defined(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

const list = (v: unknown): Array<Record<string, unknown>> =>
  Array.isArray(v) ? v.filter((x): x is Record<string, unknown> => isObject(x)) : [];

/**
 * Upstream's ConvertBindingSpecToHub/FromHub and ConvertBindingStatusToHub/FromHub: v1alpha1
 * keeps the replicas and per-replica resources inside `spec.resource` (`replicas`,
 * `resourcePerReplicas`); v1alpha2 has `spec.replicas` and `spec.replicaRequirements.resourceRequest`.
 * Only the fields upstream converts cross; the rest of v1alpha2 has no v1alpha1 form.
 */
function convertBinding(obj: StoredObject, to: string): StoredObject {
  if (obj.apiVersion === to) return obj;
  const spec = isObject(obj.spec) ? obj.spec : {};
  const resource = isObject(spec.resource) ? spec.resource : {};
  const clusters = list(spec.clusters).map((c) => defined({ name: c.name, replicas: c.replicas }));
  const status = isObject(obj.status) ? obj.status : undefined;
  const ref = defined({
    apiVersion: resource.apiVersion,
    kind: resource.kind,
    namespace: resource.namespace,
    name: resource.name,
    resourceVersion: resource.resourceVersion,
  });
  let nextSpec: Record<string, unknown>;
  if (to === BINDING_V1ALPHA1) {
    const requirements = isObject(spec.replicaRequirements) ? spec.replicaRequirements : {};
    nextSpec = defined({
      resource: defined({
        ...ref,
        resourcePerReplicas: requirements.resourceRequest,
        replicas: spec.replicas,
      }),
      clusters: clusters.length > 0 ? clusters : undefined,
    });
  } else {
    nextSpec = defined({
      resource: ref,
      replicaRequirements: resource.resourcePerReplicas
        ? { resourceRequest: resource.resourcePerReplicas }
        : undefined,
      replicas: resource.replicas,
      clusters: clusters.length > 0 ? clusters : undefined,
    });
  }
  const out: StoredObject = { ...obj, apiVersion: to, spec: nextSpec };
  if (status) {
    const items = list(status.aggregatedStatus).map((a) =>
      defined({
        clusterName: a.clusterName,
        status: a.status,
        applied: a.applied,
        appliedMessage: a.appliedMessage,
      }),
    );
    out.status = defined({
      conditions: status.conditions,
      aggregatedStatus: items.length > 0 ? items : undefined,
    });
  }
  return out;
}
