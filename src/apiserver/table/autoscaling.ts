/** The HorizontalPodAutoscaler table; TARGETS reads like `cpu: 45%/80%, memory: 100Mi/200Mi`. */

import { AGE_COLUMN, ageOf, fieldColumn, NAME_COLUMN, nameOf } from "./cells.ts";
import type { JsonObject } from "./read.ts";
import { at, has, int, isObject, list, quantity, str } from "./read.ts";
import type { KindPrinter, KubeObject } from "./types.ts";

const SHOWN = 2;

/** What the apiserver fills in when a v2 HPA names no metric: 80% average CPU utilization. */
function cpuUtilization(
  target: unknown,
  current: unknown,
): { spec: JsonObject; status: JsonObject | undefined } {
  return {
    spec: {
      type: "Resource",
      resource: { name: "cpu", target: { type: "Utilization", averageUtilization: target } },
    },
    status:
      current === undefined || current === null
        ? undefined
        : { type: "Resource", resource: { name: "cpu", current: { averageUtilization: current } } },
  };
}

/** Metric specs and statuses in the v2 shape, also for an `autoscaling/v1` object. */
function metricsOf(hpa: KubeObject): { specs: unknown[]; statuses: unknown[] } {
  const v1 =
    str(hpa, "apiVersion") === "autoscaling/v1" || has(hpa, "spec", "targetCPUUtilizationPercentage");
  if (v1) {
    const cpu = cpuUtilization(
      at(hpa, "spec", "targetCPUUtilizationPercentage") ?? 80,
      at(hpa, "status", "currentCPUUtilizationPercentage"),
    );
    return { specs: [cpu.spec], statuses: cpu.status === undefined ? [] : [cpu.status] };
  }
  const specs = list(hpa, "spec", "metrics");
  return {
    specs: specs.length > 0 ? specs : [cpuUtilization(80, undefined).spec],
    statuses: list(hpa, "status", "currentMetrics"),
  };
}

/** A `*resource.Quantity` as Go prints it: `<nil>` when unset. */
function q(value: unknown): string {
  return value === undefined || value === null ? "<nil>" : quantity(value);
}

/** `current/target`, with ` (avg)` for average values of Object and External metrics. */
function valueTarget(source: unknown, status: unknown, withAvg: boolean): string {
  if (has(source, "target", "averageValue")) {
    const current = has(status, "current", "averageValue")
      ? q(at(status, "current", "averageValue"))
      : "<unknown>";
    const text = `${current}/${q(at(source, "target", "averageValue"))}`;
    return withAvg ? `${text} (avg)` : text;
  }
  const current = isObject(status) ? q(at(status, "current", "value")) : "<unknown>";
  return `${current}/${q(at(source, "target", "value"))}`;
}

/** `name: current/target` for Resource and ContainerResource metrics, as a value or a utilization. */
function resourceTarget(source: unknown, status: unknown): string {
  const name = str(source, "name");
  if (has(source, "target", "averageValue")) {
    const current = isObject(status) ? q(at(status, "current", "averageValue")) : "<unknown>";
    return `${name}: ${current}/${q(at(source, "target", "averageValue"))}`;
  }
  const currentUtilization = at(status, "current", "averageUtilization");
  const current = typeof currentUtilization === "number" ? `${Math.trunc(currentUtilization)}%` : "<unknown>";
  const targetUtilization = at(source, "target", "averageUtilization");
  const target = typeof targetUtilization === "number" ? `${Math.trunc(targetUtilization)}%` : "<auto>";
  return `${name}: ${current}/${target}`;
}

function formatMetric(spec: unknown, status: unknown): string {
  const type = str(spec, "type");
  const field = (name: string) => (isObject(status) && isObject(status[name]) ? status[name] : undefined);
  switch (type) {
    case "External":
      return valueTarget(at(spec, "external"), field("external"), true);
    case "Object":
      return valueTarget(at(spec, "object"), field("object"), true);
    case "Pods": {
      const current = isObject(field("pods")) ? q(at(field("pods"), "current", "averageValue")) : "<unknown>";
      return `${current}/${q(at(spec, "pods", "target", "averageValue"))}`;
    }
    case "Resource":
      return resourceTarget(at(spec, "resource"), field("resource"));
    case "ContainerResource":
      return resourceTarget(at(spec, "containerResource"), field("containerResource"));
    default:
      return "<unknown type>";
  }
}

/** The first two metrics as `current/target`, then `+ N more...`. Statuses pair with specs by position. */
export function formatHpaMetrics(specs: unknown[], statuses: unknown[]): string {
  if (specs.length === 0) return "<none>";
  const shown = specs.slice(0, SHOWN).map((spec, i) => formatMetric(spec, statuses[i]));
  const text = shown.join(", ");
  return specs.length > SHOWN ? `${text} + ${specs.length - SHOWN} more...` : text;
}

export const horizontalPodAutoscalerPrinter: KindPrinter = {
  columns: [
    NAME_COLUMN,
    fieldColumn("Reference", "string", "HorizontalPodAutoscalerSpec.scaleTargetRef"),
    fieldColumn("Targets", "string", "HorizontalPodAutoscalerSpec.metrics"),
    fieldColumn("MinPods", "string", "HorizontalPodAutoscalerSpec.minReplicas"),
    fieldColumn("MaxPods", "string", "HorizontalPodAutoscalerSpec.maxReplicas"),
    fieldColumn("Replicas", "string", "HorizontalPodAutoscalerStatus.currentReplicas"),
    AGE_COLUMN,
  ],
  row(hpa, now) {
    const { specs, statuses } = metricsOf(hpa);
    // The apiserver defaults an unset minReplicas to 1.
    const minPods = has(hpa, "spec", "minReplicas") ? String(int(hpa, "spec", "minReplicas")) : "1";
    return [
      nameOf(hpa),
      `${str(hpa, "spec", "scaleTargetRef", "kind")}/${str(hpa, "spec", "scaleTargetRef", "name")}`,
      formatHpaMetrics(specs, statuses),
      minPods,
      int(hpa, "spec", "maxReplicas"),
      int(hpa, "status", "currentReplicas"),
      ageOf(hpa, now),
    ];
  },
};
