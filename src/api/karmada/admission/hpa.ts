/**
 * FederatedHPA (defaults and checks of Karmada's copy of the Kubernetes 1.27 HPA rules:
 * scale-to-zero and External metrics are not supported) and CronFederatedHPA (schedules,
 * time zones, and the replica fields each kind of target needs).
 */

import type { FieldError } from "../../../machinery/errors.ts";
import { formatQuantity, parseQuantity, quantitySign } from "../../../machinery/quantity.ts";
import type { StoredObject } from "../../meta.ts";
import {
  child,
  duplicate,
  forbidden,
  index,
  invalid,
  notSupported,
  required,
} from "../../validation/field.ts";
import { type Obj, obj, objs, str } from "../../validation/json.ts";
import { isValidPathSegmentName } from "../../validation/names.ts";
import type { MutationContext } from "./context.ts";
import { isValidCronExpression } from "./cron-expression.ts";
import { isDNS1123Label } from "./formats.ts";
import { validateContainerResourceName } from "./resource-names.ts";

const DEFAULT_CPU_UTILIZATION = 80;
const MAX_PERIOD_SECONDS = 1800;
const MAX_STABILIZATION_WINDOW_SECONDS = 3600;

function defaultScaleUp(): Obj {
  return {
    stabilizationWindowSeconds: 0,
    selectPolicy: "Max",
    policies: [
      { type: "Pods", value: 4, periodSeconds: 15 },
      { type: "Percent", value: 100, periodSeconds: 15 },
    ],
  };
}

/** No stabilization window: the controller's --horizontal-pod-autoscaler-downscale-stabilization applies. */
function defaultScaleDown(): Obj {
  return { selectPolicy: "Max", policies: [{ type: "Percent", value: 100, periodSeconds: 15 }] };
}

function withDefaults(given: Obj | undefined, defaults: Obj): Obj {
  if (!given) return defaults;
  for (const f of ["selectPolicy", "stabilizationWindowSeconds", "policies"]) {
    if (given[f] != null) defaults[f] = given[f];
  }
  return defaults;
}

export function mutateFederatedHPA(
  fhpa: StoredObject,
  _old: StoredObject | undefined,
  _ctx: MutationContext,
): void {
  const spec = obj(fhpa.spec);
  if (!spec) return;
  if (spec.minReplicas == null) spec.minReplicas = 1;
  if (objs(spec.metrics).length === 0) {
    spec.metrics = [
      {
        type: "Resource",
        resource: {
          name: "cpu",
          target: { type: "Utilization", averageUtilization: DEFAULT_CPU_UTILIZATION },
        },
      },
    ];
  }
  const behavior = obj(spec.behavior);
  if (behavior) {
    behavior.scaleUp = withDefaults(obj(behavior.scaleUp), defaultScaleUp());
    behavior.scaleDown = withDefaults(obj(behavior.scaleDown), defaultScaleDown());
  }
}

/** autoscaling/v2 CrossVersionObjectReference: kind and name set, and usable as URL path segments. */
export function validateCrossVersionObjectReference(ref: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of ["kind", "name"]) {
    const v = str(ref[f]) ?? "";
    if (!v) errs.push(required(child(path, f)));
    else for (const m of isValidPathSegmentName(v)) errs.push(invalid(child(path, f), v, m));
  }
  return errs;
}

function validateMetricIdentifier(id: Obj, path: string): FieldError[] {
  const name = str(id.name) ?? "";
  if (!name) return [required(child(path, "name"), "must specify a metric name")];
  return isValidPathSegmentName(name).map((m) => invalid(child(path, "name"), name, m));
}

function validateMetricTarget(target: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const type = str(target.type) ?? "";
  if (!type) errs.push(required(child(path, "type"), "must specify a metric target type"));
  if (type !== "Utilization" && type !== "Value" && type !== "AverageValue") {
    errs.push(invalid(child(path, "type"), type, "must be either Utilization, Value, or AverageValue"));
  }
  for (const f of ["value", "averageValue"]) {
    if (target[f] == null) continue;
    const q = parseQuantity(target[f]);
    if (!q || quantitySign(q) !== 1)
      errs.push(invalid(child(path, f), q ? formatQuantity(q) : target[f], "must be positive"));
  }
  const utilization = target.averageUtilization;
  if (typeof utilization === "number" && utilization < 1) {
    errs.push(invalid(child(path, "averageUtilization"), utilization, "must be greater than 0"));
  }
  return errs;
}

function validateResourceTargets(target: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (target.averageUtilization == null && target.averageValue == null) {
    errs.push(
      required(
        child(path, "averageUtilization"),
        "must set either a target raw value or a target utilization",
      ),
    );
  }
  if (target.averageUtilization != null && target.averageValue != null) {
    errs.push(
      forbidden(child(path, "averageValue"), "may not set both a target raw value and a target utilization"),
    );
  }
  return errs;
}

const SOURCE_VALIDATORS: Record<string, (src: Obj, path: string) => FieldError[]> = {
  object: (src, path) => {
    const target = obj(src.target) ?? {};
    const errs = [
      ...validateCrossVersionObjectReference(obj(src.describedObject) ?? {}, child(path, "describedObject")),
      ...validateMetricIdentifier(obj(src.metric) ?? {}, child(path, "metric")),
      ...validateMetricTarget(target, child(path, "target")),
    ];
    if (target.value == null && target.averageValue == null) {
      errs.push(
        required(child(path, "target", "averageValue"), "must set either a target value or averageValue"),
      );
    }
    return errs;
  },
  pods: (src, path) => {
    const target = obj(src.target) ?? {};
    const errs = [
      ...validateMetricIdentifier(obj(src.metric) ?? {}, child(path, "metric")),
      ...validateMetricTarget(target, child(path, "target")),
    ];
    if (target.averageValue == null) {
      errs.push(
        required(child(path, "target", "averageValue"), "must specify a positive target averageValue"),
      );
    }
    return errs;
  },
  resource: (src, path) => {
    const target = obj(src.target) ?? {};
    const errs: FieldError[] = [];
    if (!str(src.name)) errs.push(required(child(path, "name"), "must specify a resource name"));
    errs.push(...validateMetricTarget(target, child(path, "target")));
    errs.push(...validateResourceTargets(target, child(path, "target")));
    return errs;
  },
  containerResource: (src, path) => {
    const target = obj(src.target) ?? {};
    const errs: FieldError[] = [];
    const name = str(src.name) ?? "";
    if (!name) errs.push(required(child(path, "name"), "must specify a resource name"));
    else errs.push(...validateContainerResourceName(name, child(path, "name")));
    const container = str(src.container) ?? "";
    if (!container) errs.push(required(child(path, "container"), "must specify a container"));
    else
      for (const m of isDNS1123Label(container)) errs.push(invalid(child(path, "container"), container, m));
    errs.push(...validateMetricTarget(target, child(path, "target")));
    errs.push(...validateResourceTargets(target, child(path, "target")));
    return errs;
  },
};

// Karmada does not serve External metrics, so the type is refused.
const METRIC_SOURCE_FIELD: Record<string, string> = {
  Object: "object",
  Pods: "pods",
  Resource: "resource",
  ContainerResource: "containerResource",
};
const METRIC_SOURCE_TYPES = Object.keys(METRIC_SOURCE_FIELD).sort();

function validateMetricSpec(metric: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const type = str(metric.type) ?? "";
  if (!type) errs.push(required(child(path, "type"), "must specify a metric source type"));
  const expected = METRIC_SOURCE_FIELD[type];
  if (!expected) errs.push(notSupported(child(path, "type"), type, METRIC_SOURCE_TYPES));
  const present = ["object", "pods", "resource", "containerResource"].filter((f) => metric[f] != null);
  const first = present[0];
  if (first) errs.push(...SOURCE_VALIDATORS[first]!(obj(metric[first]) ?? {}, child(path, first)));
  if (expected) {
    if (metric[expected] == null) {
      errs.push(required(child(path, expected), "must populate information for the given metric source"));
    }
  } else {
    // Upstream's switch reports an unknown type a second time.
    errs.push(notSupported(child(path, "type"), type, METRIC_SOURCE_TYPES));
  }
  if (present.length > 1) {
    for (const f of present)
      if (f !== expected) errs.push(forbidden(child(path, f), "must populate the given metric source only"));
  }
  return errs;
}

function validateScalingRules(rules: Obj | undefined, path: string): FieldError[] {
  if (!rules) return [];
  const errs: FieldError[] = [];
  const window = rules.stabilizationWindowSeconds;
  if (typeof window === "number" && window < 0) {
    errs.push(
      invalid(child(path, "stabilizationWindowSeconds"), window, "must be greater than or equal to zero"),
    );
  }
  if (typeof window === "number" && window > MAX_STABILIZATION_WINDOW_SECONDS) {
    errs.push(
      invalid(
        child(path, "stabilizationWindowSeconds"),
        window,
        `must be less than or equal to ${MAX_STABILIZATION_WINDOW_SECONDS}`,
      ),
    );
  }
  const select = rules.selectPolicy;
  if (select != null && select !== "Max" && select !== "Min" && select !== "Disabled") {
    errs.push(notSupported(child(path, "selectPolicy"), select, ["Disabled", "Max", "Min"]));
  }
  const policies = objs(rules.policies);
  if (policies.length === 0) errs.push(required(child(path, "policies"), "must specify at least one Policy"));
  policies.forEach((p, i) => {
    const pp = index(child(path, "policies"), i);
    const type = str(p.type) ?? "";
    if (type !== "Pods" && type !== "Percent")
      errs.push(notSupported(child(pp, "type"), type, ["Percent", "Pods"]));
    const value = typeof p.value === "number" ? p.value : 0;
    if (value <= 0) errs.push(invalid(child(pp, "value"), value, "must be greater than zero"));
    const period = typeof p.periodSeconds === "number" ? p.periodSeconds : 0;
    if (period <= 0) errs.push(invalid(child(pp, "periodSeconds"), period, "must be greater than zero"));
    if (period > MAX_PERIOD_SECONDS) {
      errs.push(
        invalid(child(pp, "periodSeconds"), period, `must be less than or equal to ${MAX_PERIOD_SECONDS}`),
      );
    }
  });
  return errs;
}

export function validateFederatedHPA(fhpa: StoredObject, _old?: StoredObject): FieldError[] {
  const spec = obj(fhpa.spec) ?? {};
  const errs: FieldError[] = [];
  const min = typeof spec.minReplicas === "number" ? spec.minReplicas : undefined;
  const max = typeof spec.maxReplicas === "number" ? spec.maxReplicas : 0;
  // Karmada does not scale to zero, so the floor is 1.
  if (min !== undefined && min < 1)
    errs.push(invalid("spec.minReplicas", min, "must be greater than or equal to 1"));
  if (max < 1) errs.push(invalid("spec.maxReplicas", max, "must be greater than 0"));
  if (min !== undefined && max < min)
    errs.push(invalid("spec.maxReplicas", max, "must be greater than or equal to `minReplicas`"));
  errs.push(...validateCrossVersionObjectReference(obj(spec.scaleTargetRef) ?? {}, "spec.scaleTargetRef"));
  objs(spec.metrics).forEach((m, i) => {
    errs.push(...validateMetricSpec(m, index("spec.metrics", i)));
  });
  const behavior = obj(spec.behavior);
  if (behavior) {
    errs.push(...validateScalingRules(obj(behavior.scaleUp), "spec.behavior.scaleUp"));
    errs.push(...validateScalingRules(obj(behavior.scaleDown), "spec.behavior.scaleDown"));
  }
  const status = obj(fhpa.status) ?? {};
  for (const f of ["currentReplicas", "desiredReplicas"]) {
    const v = status[f];
    if (typeof v === "number" && v < 0)
      errs.push(invalid(child("status", f), v, "must be greater than or equal to 0"));
  }
  return errs;
}

// ---- CronFederatedHPA ----------------------------------------------------------------------

/** `time.LoadLocation`'s error for a zone name, checked against the runtime's IANA database. */
export function timeZoneLoadError(tz: string): string | undefined {
  if (tz === "" || tz === "UTC" || tz === "Local") return undefined;
  if (tz.includes("..") || tz.startsWith("/") || tz.startsWith("\\")) return "time: invalid location name";
  try {
    const resolved = new Intl.DateTimeFormat("en-US", { timeZone: tz }).resolvedOptions().timeZone;
    // Intl ignores case; the zoneinfo files Go reads do not.
    if (resolved.toLowerCase() === tz.toLowerCase() && resolved !== tz) return `unknown time zone ${tz}`;
    return undefined;
  } catch {
    return `unknown time zone ${tz}`;
  }
}

function validateScalingReplicas(
  rule: Obj,
  scaleFHPA: boolean,
  targetKind: string,
  path: string,
): FieldError[] {
  const errs: FieldError[] = [];
  const num = (v: unknown) => (typeof v === "number" ? v : undefined);
  if (scaleFHPA) {
    const min = num(rule.targetMinReplicas);
    const max = num(rule.targetMaxReplicas);
    if (min === undefined && max === undefined) {
      errs.push(
        invalid(
          child(path, "targetMaxReplicas"),
          "",
          "targetMinReplicas and targetMaxReplicas cannot be nil at the same time if you want to scale FederatedHPA",
        ),
      );
    }
    const effectiveMin = min ?? 1;
    const effectiveMax = max ?? 2147483647;
    if (effectiveMin <= 0)
      errs.push(invalid(child(path, "targetMinReplicas"), "", "targetMinReplicas should be larger than 0"));
    if (effectiveMax <= 0)
      errs.push(invalid(child(path, "targetMaxReplicas"), "", "targetMaxReplicas should be larger than 0"));
    if (effectiveMin > effectiveMax) {
      errs.push(
        invalid(
          child(path, "targetMinReplicas"),
          "",
          "targetMaxReplicas should be larger than or equal to targetMinReplicas",
        ),
      );
    }
    return errs;
  }
  const target = num(rule.targetReplicas);
  if (target === undefined) {
    errs.push(
      invalid(
        child(path, "targetReplicas"),
        "",
        `targetReplicas cannot be nil if you want to scale ${targetKind}`,
      ),
    );
  }
  // Zero is allowed: scaling a workload away, say for the weekend.
  if ((target ?? 0) < 0) {
    errs.push(
      invalid(child(path, "targetReplicas"), "", "targetReplicas should be larger than or equal to 0"),
    );
  }
  return errs;
}

export function validateCronFederatedHPA(cron: StoredObject, _old?: StoredObject): FieldError[] {
  const spec = obj(cron.spec) ?? {};
  const ref = obj(spec.scaleTargetRef) ?? {};
  const kind = str(ref.kind) ?? "";
  let scaleFHPA = false;
  if (ref.apiVersion === "autoscaling.karmada.io/v1alpha1") {
    if (kind !== "FederatedHPA") {
      return [
        invalid(
          "spec.scaleTargetRef.kind",
          kind,
          `invalid scaleTargetRef kind: ${kind}, only support FederatedHPA`,
        ),
      ];
    }
    scaleFHPA = true;
  }
  const errs = validateCrossVersionObjectReference(ref, "spec.scaleTargetRef");
  const names = new Set<string>();
  objs(spec.rules).forEach((rule, i) => {
    const p = index("spec.rules", i);
    const name = str(rule.name) ?? "";
    if (names.has(name)) errs.push(duplicate(child(p, "name"), name));
    names.add(name);
    const schedule = str(rule.schedule) ?? "";
    if (!isValidCronExpression(schedule))
      errs.push(invalid(child(p, "schedule"), schedule, "invalid cron format"));
    const tz = str(rule.timeZone);
    if (tz !== undefined) {
      const why = timeZoneLoadError(tz);
      if (why) errs.push(invalid(child(p, "timeZone"), tz, why));
    }
    errs.push(...validateScalingReplicas(rule, scaleFHPA, kind, p));
  });
  return errs;
}
