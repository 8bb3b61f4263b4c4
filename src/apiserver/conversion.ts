/**
 * Conversion between served versions of one stored resource. CRDs use strategy None (only
 * `apiVersion` changes); built-ins that share storage across groups convert field by field:
 * core/v1 Event ↔ events.k8s.io/v1 Event, autoscaling/v2 ↔ autoscaling/v1 HPA.
 */
import { isObject, type StoredObject } from "../api/meta.ts";
import type { ResourceType } from "./resource-type.ts";

type Converter = (obj: StoredObject, to: string) => StoredObject;

const converters: Record<string, Converter> = {
  "core/events": convertEvent,
  "autoscaling/horizontalpodautoscalers": convertHpa,
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
  const out: StoredObject = structuredClone({ ...obj, apiVersion: to });
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
