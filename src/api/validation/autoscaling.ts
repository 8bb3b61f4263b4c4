/** Spec validation of `autoscaling/v2` (and v1) HorizontalPodAutoscaler. */

import type { FieldError } from "../../machinery/errors.ts";
import { parseQuantity, quantitySign } from "../../machinery/quantity.ts";
import { child, forbidden, index, invalid, notSupported, required } from "./field.ts";
import { num, type Obj, obj, objs, str } from "./json.ts";
import { isValidPathSegmentName } from "./names.ts";

const METRIC_TYPES = ["ContainerResource", "External", "Object", "Pods", "Resource"];
const SOURCE_FIELD: Record<string, string> = {
  Object: "object",
  Pods: "pods",
  Resource: "resource",
  External: "external",
  ContainerResource: "containerResource",
};
const MAX_PERIOD_SECONDS = 1800;
const MAX_STABILIZATION_WINDOW_SECONDS = 3600;

export function validateHorizontalPodAutoscaler(hpa: Obj, version: string): FieldError[] {
  const s = obj(hpa.spec) ?? {};
  const errs: FieldError[] = [];
  const min = num(s.minReplicas);
  const max = num(s.maxReplicas) ?? 0;
  if (min !== undefined && min < 1)
    errs.push(invalid("spec.minReplicas", min, "must be greater than or equal to 1"));
  if (max < 1) errs.push(invalid("spec.maxReplicas", max, "must be greater than 0"));
  if (min !== undefined && max < min)
    errs.push(invalid("spec.maxReplicas", max, "must be greater than or equal to `minReplicas`"));
  errs.push(...validateObjectReference(obj(s.scaleTargetRef) ?? {}, "spec.scaleTargetRef"));
  if (version === "v1") {
    const target = num(s.targetCPUUtilizationPercentage);
    if (target !== undefined && target < 1) {
      errs.push(invalid("spec.targetCPUUtilizationPercentage", target, "must be greater than 0"));
    }
    return errs;
  }
  objs(s.metrics).forEach((m, i) => {
    errs.push(...validateMetric(m, index("spec.metrics", i)));
  });
  const behavior = obj(s.behavior);
  if (behavior) {
    for (const dir of ["scaleUp", "scaleDown"]) {
      const rules = obj(behavior[dir]);
      if (rules) errs.push(...validateScalingRules(rules, child("spec.behavior", dir)));
    }
  }
  return errs;
}

function validateObjectReference(ref: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of ["kind", "name"]) {
    const v = str(ref[f]) ?? "";
    if (!v) errs.push(required(child(path, f)));
    else for (const m of isValidPathSegmentName(v)) errs.push(invalid(child(path, f), v, m));
  }
  return errs;
}

function validateMetric(m: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const type = str(m.type) ?? "";
  if (!type) errs.push(required(child(path, "type"), "must specify a metric source type"));
  if (!METRIC_TYPES.includes(type)) errs.push(notSupported(child(path, "type"), type, METRIC_TYPES));
  const present = Object.values(SOURCE_FIELD).filter((f) => obj(m[f]));
  const expected = SOURCE_FIELD[type];
  if (expected && !obj(m[expected])) {
    errs.push(required(child(path, expected), "must populate information for the given metric source"));
  }
  if (present.length === 1) {
    const f = present[0]!;
    errs.push(...validateMetricSource(f, obj(m[f]) ?? {}, child(path, f)));
  } else if (present.length > 1) {
    for (const f of present)
      if (f !== expected) errs.push(forbidden(child(path, f), "must populate the given metric source only"));
  }
  return errs;
}

function validateMetricSource(kind: string, src: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (kind === "resource" || kind === "containerResource") {
    if (!str(src.name)) errs.push(required(child(path, "name"), "must specify a resource name"));
    if (kind === "containerResource" && !str(src.container)) {
      errs.push(required(child(path, "container"), "must specify a container"));
    }
  } else {
    const metric = obj(src.metric) ?? {};
    if (!str(metric.name)) errs.push(required(child(path, "metric", "name"), "must specify a metric name"));
  }
  const target = obj(src.target) ?? {};
  errs.push(...validateMetricTarget(target, child(path, "target")));
  if (kind === "resource" || kind === "containerResource") {
    if (target.averageUtilization == null && target.averageValue == null) {
      errs.push(
        required(
          child(path, "target", "averageUtilization"),
          "must set either a target raw value or a target utilization",
        ),
      );
    }
    if (target.averageUtilization != null && target.averageValue != null) {
      errs.push(
        forbidden(
          child(path, "target", "averageValue"),
          "may not set both a target raw value and a target utilization",
        ),
      );
    }
  }
  return errs;
}

function validateMetricTarget(t: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const type = str(t.type) ?? "";
  if (!type) errs.push(required(child(path, "type"), "must specify a metric target type"));
  if (!["Utilization", "Value", "AverageValue"].includes(type)) {
    errs.push(invalid(child(path, "type"), type, "must be either Utilization, Value, or AverageValue"));
  }
  for (const f of ["value", "averageValue"]) {
    if (t[f] == null) continue;
    const q = parseQuantity(t[f]);
    if (!q || quantitySign(q) !== 1) errs.push(invalid(child(path, f), t[f], "must be positive"));
  }
  const util = num(t.averageUtilization);
  if (util !== undefined && util < 1)
    errs.push(invalid(child(path, "averageUtilization"), util, "must be greater than 0"));
  return errs;
}

function validateScalingRules(rules: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const window = num(rules.stabilizationWindowSeconds);
  if (window !== undefined && window < 0) {
    errs.push(
      invalid(child(path, "stabilizationWindowSeconds"), window, "must be greater than or equal to zero"),
    );
  }
  if (window !== undefined && window > MAX_STABILIZATION_WINDOW_SECONDS) {
    errs.push(
      invalid(
        child(path, "stabilizationWindowSeconds"),
        window,
        `must be less than or equal to ${MAX_STABILIZATION_WINDOW_SECONDS}`,
      ),
    );
  }
  const selectPolicy = rules.selectPolicy;
  if (selectPolicy != null && !["Disabled", "Max", "Min"].includes(String(selectPolicy))) {
    errs.push(notSupported(child(path, "selectPolicy"), selectPolicy, ["Disabled", "Max", "Min"]));
  }
  const policies = objs(rules.policies);
  if (policies.length === 0) errs.push(required(child(path, "policies"), "must specify at least one Policy"));
  policies.forEach((p, i) => {
    const pp = index(child(path, "policies"), i);
    const type = str(p.type) ?? "";
    if (type !== "Pods" && type !== "Percent")
      errs.push(notSupported(child(pp, "type"), type, ["Percent", "Pods"]));
    const value = num(p.value) ?? 0;
    if (value <= 0) errs.push(invalid(child(pp, "value"), value, "must be greater than zero"));
    const period = num(p.periodSeconds) ?? 0;
    if (period <= 0) errs.push(invalid(child(pp, "periodSeconds"), period, "must be greater than zero"));
    if (period > MAX_PERIOD_SECONDS) {
      errs.push(
        invalid(child(pp, "periodSeconds"), period, `must be less than or equal to ${MAX_PERIOD_SECONDS}`),
      );
    }
  });
  return errs;
}
