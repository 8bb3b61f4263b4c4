import { GoStringMap } from "../../machinery/errors.ts";

/** Spec validation of `apps/v1` (kubernetes `pkg/apis/apps/validation`). */

import { deepEqual } from "../../machinery/equality.ts";
import type { FieldError } from "../../machinery/errors.ts";
import { requireRestartAlways } from "./core.ts";
import { child, forbidden, invalid, notSupported, required, sortedMap } from "./field.ts";
import { num, type Obj, obj, str, strMap } from "./json.ts";
import { validateAnnotations, validateImmutable, validateNonnegative } from "./metadata.ts";
import { isValidPercent } from "./names.ts";
import { validatePodTemplateSpec } from "./pod.ts";
import {
  type CompiledSelector,
  compileSelector,
  selectorHasNoRequirements,
  selectorMatches,
  validateLabelSelector,
  validateLabels,
} from "./selectors.ts";

const SELECTOR_MISMATCH = "`selector` does not match template `labels`";

function spec(o: Obj): Obj {
  return obj(o.spec) ?? {};
}

function templateLabels(template: Obj | undefined): Record<string, string> {
  return sortedMap(strMap(obj(template?.metadata)?.labels) ?? {});
}

/** Required, strictly valid, and not `{}`: the selector rules shared by the workload kinds. */
function validateWorkloadSelector(s: Obj, kindName: string): FieldError[] {
  if (s.selector == null) return [required("spec.selector")];
  const errs = validateLabelSelector(s.selector, "spec.selector");
  if (selectorHasNoRequirements(s.selector)) {
    errs.push(invalid("spec.selector", s.selector, `empty selector is invalid for ${kindName}`));
  }
  return errs;
}

function checkSelectorMatchesTemplate(
  sel: CompiledSelector,
  template: Obj | undefined,
  path: string,
): FieldError[] {
  if (sel.kind === "everything" || sel.kind === "invalid") return [];
  const labels = templateLabels(template);
  return selectorMatches(sel, labels)
    ? []
    : [invalid(child(path, "metadata", "labels"), new GoStringMap(labels), SELECTOR_MISMATCH)];
}

/** `ValidatePositiveIntOrPercent`: a non-negative int or a `N%` string. */
export function validateIntOrPercent(value: unknown, field: string): FieldError[] {
  if (typeof value === "string") return isValidPercent(value).map((m) => invalid(field, value, m));
  if (typeof value === "number") return validateNonnegative(value, field);
  return [invalid(field, value, "must be an integer or percentage (e.g '5%')")];
}

export function intOrPercentValue(value: unknown): number {
  if (typeof value === "number") return value;
  if (typeof value === "string" && /^[0-9]+%$/.test(value)) return Number(value.slice(0, -1));
  return 0;
}

export function isNotMoreThan100Percent(value: unknown, field: string): FieldError[] {
  if (typeof value !== "string" || !/^[0-9]+%$/.test(value)) return [];
  return intOrPercentValue(value) > 100 ? [invalid(field, value, "must not be greater than 100%")] : [];
}

function validateReplicaSetLikeTemplate(s: Obj, kind: string): FieldError[] {
  // The template is a struct in Go: a missing one validates as empty.
  const template = obj(s.template) ?? {};
  const sel = compileSelector(s.selector);
  if (sel.kind === "invalid") return [invalid("spec.selector", s.selector, "invalid label selector")];
  return [
    ...checkSelectorMatchesTemplate(sel, template, "spec.template"),
    ...validatePodTemplateSpec(template, "spec.template"),
    ...requireRestartAlways(template, "spec.template", kind),
  ];
}

export function validateDeployment(d: Obj, old?: Obj): FieldError[] {
  const s = spec(d);
  const errs = validateNonnegative(num(s.replicas), "spec.replicas");
  errs.push(...validateWorkloadSelector(s, "deployment"));
  errs.push(...validateReplicaSetLikeTemplate(s, "ReplicaSet"));
  errs.push(...validateDeploymentStrategy(obj(s.strategy) ?? {}));
  errs.push(...validateNonnegative(num(s.minReadySeconds), "spec.minReadySeconds"));
  errs.push(...validateNonnegative(num(s.revisionHistoryLimit), "spec.revisionHistoryLimit"));
  const pds = num(s.progressDeadlineSeconds);
  if (pds !== undefined) {
    errs.push(...validateNonnegative(pds, "spec.progressDeadlineSeconds"));
    if (pds <= (num(s.minReadySeconds) ?? 0)) {
      errs.push(invalid("spec.progressDeadlineSeconds", pds, "must be greater than minReadySeconds"));
    }
  }
  if (old) errs.push(...validateSelectorUnchanged(d, old));
  return errs;
}

function validateDeploymentStrategy(strategy: Obj): FieldError[] {
  const path = "spec.strategy";
  const type = str(strategy.type) ?? "";
  if (type === "Recreate") {
    return strategy.rollingUpdate != null
      ? [forbidden(child(path, "rollingUpdate"), "may not be specified when strategy `type` is 'Recreate'")]
      : [];
  }
  if (type !== "RollingUpdate") return [notSupported(path, strategy, ["Recreate", "RollingUpdate"])];
  const ru = obj(strategy.rollingUpdate);
  if (!ru) return [required(child(path, "rollingUpdate"), "this should be defaulted and never be nil")];
  const p = child(path, "rollingUpdate");
  const errs = [
    ...validateIntOrPercent(ru.maxUnavailable, child(p, "maxUnavailable")),
    ...validateIntOrPercent(ru.maxSurge, child(p, "maxSurge")),
  ];
  if (intOrPercentValue(ru.maxUnavailable) === 0 && intOrPercentValue(ru.maxSurge) === 0) {
    errs.push(invalid(child(p, "maxUnavailable"), ru.maxUnavailable, "may not be 0 when `maxSurge` is 0"));
  }
  errs.push(...isNotMoreThan100Percent(ru.maxUnavailable, child(p, "maxUnavailable")));
  return errs;
}

export function validateReplicaSet(rs: Obj, old?: Obj): FieldError[] {
  const s = spec(rs);
  const errs = [
    ...validateNonnegative(num(s.replicas), "spec.replicas"),
    ...validateNonnegative(num(s.minReadySeconds), "spec.minReadySeconds"),
    // Upstream reuses the Deployment wording for ReplicaSets.
    ...validateWorkloadSelector(s, "deployment"),
    ...validateReplicaSetLikeTemplate(s, "ReplicaSet"),
  ];
  if (old) errs.push(...validateSelectorUnchanged(rs, old));
  return errs;
}

/** Deployments, ReplicaSets and DaemonSets may not change their selector after creation. */
export function validateSelectorUnchanged(now: Obj, before: Obj): FieldError[] {
  return validateImmutable(spec(now).selector, spec(before).selector, "spec.selector");
}

export function validateDaemonSet(ds: Obj, old?: Obj): FieldError[] {
  const s = spec(ds);
  const errs = validateLabelSelector(s.selector, "spec.selector");
  const sel = compileSelector(s.selector);
  const template = obj(s.template) ?? {};
  if (sel.kind !== "invalid" && !selectorMatches(sel, templateLabels(template))) {
    errs.push(
      invalid("spec.template.metadata.labels", new GoStringMap(templateLabels(template)), SELECTOR_MISMATCH),
    );
  }
  if (selectorHasNoRequirements(s.selector)) {
    errs.push(invalid("spec.selector", s.selector, "empty selector is invalid for daemonset"));
  }
  errs.push(...validatePodTemplateSpec(template, "spec.template"));
  errs.push(...requireRestartAlways(template, "spec.template", "DaemonSet"));
  errs.push(...validateNonnegative(num(s.minReadySeconds), "spec.minReadySeconds"));
  errs.push(...validateNonnegative(num(s.templateGeneration), "spec.templateGeneration"));
  errs.push(...validateDaemonSetStrategy(obj(s.updateStrategy) ?? {}));
  errs.push(...validateNonnegative(num(s.revisionHistoryLimit), "spec.revisionHistoryLimit"));
  if (old) errs.push(...validateSelectorUnchanged(ds, old));
  return errs;
}

function validateDaemonSetStrategy(strategy: Obj): FieldError[] {
  const path = "spec.updateStrategy";
  const type = str(strategy.type) ?? "";
  if (type === "OnDelete") return [];
  if (type !== "RollingUpdate") return [notSupported(path, strategy, ["RollingUpdate", "OnDelete"])];
  const ru = obj(strategy.rollingUpdate);
  if (!ru) return [required(child(path, "rollingUpdate"))];
  const p = child(path, "rollingUpdate");
  const errs = [
    ...validateIntOrPercent(ru.maxUnavailable, child(p, "maxUnavailable")),
    ...validateIntOrPercent(ru.maxSurge, child(p, "maxSurge")),
    ...isNotMoreThan100Percent(ru.maxUnavailable, child(p, "maxUnavailable")),
    ...isNotMoreThan100Percent(ru.maxSurge, child(p, "maxSurge")),
  ];
  const hasUnavailable = intOrPercentValue(ru.maxUnavailable) !== 0;
  const hasSurge = intOrPercentValue(ru.maxSurge) !== 0;
  if (hasUnavailable && hasSurge) {
    errs.push(invalid(child(p, "maxSurge"), ru.maxSurge, "may not be set when maxUnavailable is non-zero"));
  } else if (!hasUnavailable && !hasSurge) {
    errs.push(required(child(p, "maxUnavailable"), "cannot be 0 when maxSurge is 0"));
  }
  return errs;
}

export function validateStatefulSet(sts: Obj, old?: Obj): FieldError[] {
  const s = spec(sts);
  const errs: FieldError[] = [];
  const policy = str(s.podManagementPolicy) ?? "";
  if (!policy) errs.push(required("spec.podManagementPolicy"));
  else if (policy !== "OrderedReady" && policy !== "Parallel") {
    errs.push(invalid("spec.podManagementPolicy", policy, "must be 'OrderedReady' or 'Parallel'"));
  }
  errs.push(...validateStatefulSetStrategy(obj(s.updateStrategy) ?? {}));
  const retention = obj(s.persistentVolumeClaimRetentionPolicy);
  if (retention) {
    for (const f of ["whenDeleted", "whenScaled"]) {
      const v = str(retention[f]) ?? "";
      if (v !== "Retain" && v !== "Delete") {
        errs.push(notSupported(`spec.persistentVolumeClaimRetentionPolicy.${f}`, v, ["Retain", "Delete"]));
      }
    }
  }
  errs.push(...validateNonnegative(num(s.replicas), "spec.replicas"));
  errs.push(...validateNonnegative(num(s.minReadySeconds), "spec.minReadySeconds"));
  const ordinals = obj(s.ordinals);
  if (ordinals) errs.push(...validateNonnegative(num(ordinals.start), "spec.ordinals.start"));
  errs.push(...validateWorkloadSelector(s, "statefulset"));
  errs.push(...validateStatefulSetTemplate(s));
  if (old) errs.push(...validateStatefulSetUpdate(s, spec(old)));
  return errs;
}

function validateStatefulSetStrategy(strategy: Obj): FieldError[] {
  const path = "spec.updateStrategy";
  const type = str(strategy.type) ?? "";
  if (!type) return [required(path)];
  if (type === "OnDelete") {
    return strategy.rollingUpdate != null
      ? [
          invalid(
            child(path, "rollingUpdate"),
            strategy.rollingUpdate,
            "only allowed for updateStrategy 'RollingUpdate'",
          ),
        ]
      : [];
  }
  if (type !== "RollingUpdate") return [invalid(path, strategy, "must be 'RollingUpdate' or 'OnDelete'")];
  const ru = obj(strategy.rollingUpdate);
  if (!ru) return [];
  const p = child(path, "rollingUpdate");
  const errs = validateNonnegative(num(ru.partition), child(p, "partition"));
  if (ru.maxUnavailable != null) {
    errs.push(...validateIntOrPercent(ru.maxUnavailable, child(p, "maxUnavailable")));
    if (intOrPercentValue(ru.maxUnavailable) === 0)
      errs.push(invalid(child(p, "maxUnavailable"), ru.maxUnavailable, "cannot be 0"));
    errs.push(...isNotMoreThan100Percent(ru.maxUnavailable, child(p, "maxUnavailable")));
  }
  return errs;
}

/** StatefulSet templates get label and annotation checks only; upstream skips the PodSpec. */
function validateStatefulSetTemplate(s: Obj): FieldError[] {
  const template = obj(s.template) ?? {};
  const errs: FieldError[] = [];
  const sel = compileSelector(s.selector);
  if (sel.kind === "invalid") errs.push(invalid("spec.selector", s.selector, ""));
  else errs.push(...checkSelectorMatchesTemplate(sel, template, "spec.template"));
  const meta = obj(template.metadata) ?? {};
  errs.push(...validateLabels(meta.labels, "spec.template.labels"));
  errs.push(...validateAnnotations(meta.annotations, "spec.template.annotations"));
  const podSpec = obj(template.spec) ?? {};
  const rp = str(podSpec.restartPolicy) ?? "";
  if (rp !== "Always") errs.push(notSupported("spec.template.spec.restartPolicy", rp, ["Always"]));
  if (podSpec.activeDeadlineSeconds != null) {
    errs.push(
      forbidden(
        "spec.template.spec.activeDeadlineSeconds",
        "activeDeadlineSeconds in StatefulSet is not Supported",
      ),
    );
  }
  return errs;
}

const STS_MUTABLE = [
  "replicas",
  "template",
  "updateStrategy",
  "minReadySeconds",
  "ordinals",
  "persistentVolumeClaimRetentionPolicy",
];

function validateStatefulSetUpdate(now: Obj, before: Obj): FieldError[] {
  const a = { ...now };
  const b = { ...before };
  for (const f of STS_MUTABLE) {
    delete a[f];
    delete b[f];
  }
  if (deepEqual(a, b)) return [];
  return [
    forbidden(
      "spec",
      "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    ),
  ];
}
