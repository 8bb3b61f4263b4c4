/** Defaults of `autoscaling/v2` and `/v1` HorizontalPodAutoscaler (kubernetes `pkg/apis/autoscaling/*`). */

import { ensureObj, type Obj, obj, objs, setDefault } from "../validation/json.ts";
import { defaultQuantityField } from "./pod.ts";

function scaleUpDefaults(): Obj {
  return {
    stabilizationWindowSeconds: 0,
    selectPolicy: "Max",
    policies: [
      { type: "Pods", value: 4, periodSeconds: 15 },
      { type: "Percent", value: 100, periodSeconds: 15 },
    ],
  };
}

function scaleDownDefaults(): Obj {
  // No stabilization window: the controller's --horizontal-pod-autoscaler-downscale-stabilization applies.
  return { selectPolicy: "Max", policies: [{ type: "Percent", value: 100, periodSeconds: 15 }] };
}

/** Fields the user set win over the defaults, field by field. */
function mergeRules(user: unknown, defaults: Obj): Obj {
  const u = obj(user);
  if (!u) return defaults;
  for (const f of ["selectPolicy", "stabilizationWindowSeconds", "policies"]) {
    if (u[f] !== undefined && u[f] !== null) defaults[f] = u[f];
  }
  for (const [k, v] of Object.entries(u)) if (!(k in defaults)) defaults[k] = v;
  return defaults;
}

function defaultMetricTargets(metrics: unknown): void {
  for (const m of objs(metrics)) {
    for (const source of ["resource", "containerResource", "pods", "object", "external"]) {
      const target = obj(obj(m[source])?.target);
      if (!target) continue;
      defaultQuantityField(target, "value");
      defaultQuantityField(target, "averageValue");
    }
  }
}

export function defaultHorizontalPodAutoscalerV2(hpa: Obj): void {
  const spec = ensureObj(hpa, "spec");
  setDefault(spec, "minReplicas", 1);
  if (!Array.isArray(spec.metrics) || spec.metrics.length === 0) {
    spec.metrics = [
      {
        type: "Resource",
        resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } },
      },
    ];
  }
  const behavior = obj(spec.behavior);
  if (behavior) {
    behavior.scaleUp = mergeRules(behavior.scaleUp, scaleUpDefaults());
    behavior.scaleDown = mergeRules(behavior.scaleDown, scaleDownDefaults());
  }
  defaultMetricTargets(spec.metrics);
}

export function defaultHorizontalPodAutoscalerV1(hpa: Obj): void {
  setDefault(ensureObj(hpa, "spec"), "minReplicas", 1);
}
