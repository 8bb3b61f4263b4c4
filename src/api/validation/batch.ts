import { GoStringMap } from "../../machinery/errors.ts";

/** Spec validation of `batch/v1` Job and CronJob (kubernetes `pkg/apis/batch/validation`). */

import { cronScheduleError, timeZoneError } from "../../machinery/cron.ts";
import type { FieldError } from "../../machinery/errors.ts";
import { cloneJson } from "../../machinery/merge-patch.ts";
import {
  CONTROLLER_UID_LABEL,
  JOB_NAME_LABEL,
  LEGACY_CONTROLLER_UID_LABEL,
  LEGACY_JOB_NAME_LABEL,
} from "../defaults/batch.ts";
import { child, invalid, key, notSupported, required, sortedMap, tooLong } from "./field.ts";
import { num, type Obj, obj, str, strMap } from "./json.ts";
import { validateImmutable, validateNonnegative } from "./metadata.ts";
import { isDNS1123Label, isDomainPrefixedPath } from "./names.ts";
import { validatePodTemplateSpec } from "./pod.ts";
import { compileSelector, selectorMatches, validateLabelSelector } from "./selectors.ts";

const MAX_PARALLELISM_INDEXED = 100000;
const MAX_FAILED_INDEXES = 100000;

function spec(o: Obj): Obj {
  return obj(o.spec) ?? {};
}

function hasLabel(labels: Record<string, string>, k: string, expected: string): FieldError[] {
  const path = key("spec.template.metadata.labels", k);
  if (!(k in labels)) return [required(path, `must be '${expected}'`)];
  return labels[k] === expected ? [] : [invalid(path, new GoStringMap(labels), `must be '${expected}'`)];
}

/** With a generated selector, the template must carry the uid and name labels the selector picks. */
function validateGeneratedSelector(job: Obj): FieldError[] {
  const s = spec(job);
  if (s.manualSelector === true || s.selector == null) return [];
  const meta = obj(job.metadata) ?? {};
  const uid = str(meta.uid) ?? "";
  const name = str(meta.name) ?? "";
  const errs: FieldError[] = [];
  if (!uid) errs.push(required("metadata.uid"));
  const labels = strMap(obj(obj(s.template)?.metadata)?.labels) ?? {};
  errs.push(...hasLabel(labels, LEGACY_CONTROLLER_UID_LABEL, uid));
  errs.push(...hasLabel(labels, LEGACY_JOB_NAME_LABEL, name));
  errs.push(...hasLabel(labels, CONTROLLER_UID_LABEL, uid));
  errs.push(...hasLabel(labels, JOB_NAME_LABEL, name));
  const expected = {
    [CONTROLLER_UID_LABEL]: uid,
    [JOB_NAME_LABEL]: name,
    [LEGACY_CONTROLLER_UID_LABEL]: uid,
    [LEGACY_JOB_NAME_LABEL]: name,
  };
  const sel = compileSelector(s.selector);
  if (sel.kind !== "invalid" && !selectorMatches(sel, expected)) {
    errs.push(invalid("spec.selector", s.selector, "`selector` not auto-generated"));
  }
  return errs;
}

export function validateJob(job: Obj, old?: Obj): FieldError[] {
  const s = spec(job);
  const errs = validateGeneratedSelector(job);
  errs.push(...validateJobSpecWithSelector(s));
  const completions = num(s.completions);
  if (s.completionMode === "Indexed" && completions !== undefined && completions > 0) {
    const name = str(obj(job.metadata)?.name) ?? "";
    const hostname = `${name}-${completions - 1}`;
    if (isDNS1123Label(hostname).length > 0) {
      errs.push(
        invalid("metadata.name", name, `will not able to create pod with invalid DNS label: ${hostname}`),
      );
    }
  }
  if (old) errs.push(...validateJobSpecUpdate(job, old));
  return errs;
}

function validateJobSpecWithSelector(s: Obj): FieldError[] {
  const errs = validateJobSpec(s, "spec");
  if (s.selector == null) errs.push(required("spec.selector"));
  else errs.push(...validateLabelSelector(s.selector, "spec.selector"));
  const sel = compileSelector(s.selector);
  const labels = strMap(obj(obj(s.template)?.metadata)?.labels) ?? {};
  if (sel.kind !== "invalid" && !selectorMatches(sel, labels)) {
    errs.push(
      invalid(
        "spec.template.metadata.labels",
        new GoStringMap(labels),
        "`selector` does not match template `labels`",
      ),
    );
  }
  return errs;
}

function validateJobSpec(s: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of [
    "parallelism",
    "completions",
    "activeDeadlineSeconds",
    "backoffLimit",
    "ttlSecondsAfterFinished",
  ]) {
    errs.push(...validateNonnegative(num(s[f]), child(path, f)));
  }
  errs.push(...validateNonnegative(num(s.backoffLimitPerIndex), child(path, "backoffLimitPerIndex")));
  if (s.maxFailedIndexes != null) {
    errs.push(...validateNonnegative(num(s.maxFailedIndexes), child(path, "maxFailedIndexes")));
    if (s.backoffLimitPerIndex == null)
      errs.push(required(child(path, "backoffLimitPerIndex"), "when maxFailedIndexes is specified"));
  }
  const managedBy = str(s.managedBy);
  if (managedBy !== undefined) {
    errs.push(...isDomainPrefixedPath(child(path, "managedBy"), managedBy));
    if (managedBy.length > 63) errs.push(tooLong(child(path, "managedBy"), 63));
  }
  errs.push(...validateCompletionMode(s, path));
  errs.push(...validatePodReplacementPolicy(s, path));
  errs.push(...validatePodTemplateSpec(s.template, child(path, "template")));
  const rp = str(obj(obj(s.template)?.spec)?.restartPolicy) ?? "";
  const rpPath = child(path, "template", "spec", "restartPolicy");
  if (rp === "Always" || rp === "") {
    errs.push(required(rpPath, 'valid values: "OnFailure", "Never"'));
  } else if (rp !== "OnFailure" && rp !== "Never") {
    errs.push(notSupported(rpPath, rp, ["OnFailure", "Never"]));
  } else if (s.podFailurePolicy != null && rp !== "Never") {
    errs.push(invalid(rpPath, rp, 'only "Never" is supported when podFailurePolicy is specified'));
  }
  return errs;
}

function validateCompletionMode(s: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const mode = s.completionMode;
  if (mode != null) {
    if (mode !== "NonIndexed" && mode !== "Indexed") {
      errs.push(notSupported(child(path, "completionMode"), mode, ["NonIndexed", "Indexed"]));
    }
    if (mode === "Indexed") {
      if (s.completions == null)
        errs.push(required(child(path, "completions"), "when completion mode is Indexed"));
      const parallelism = num(s.parallelism);
      if (parallelism !== undefined && parallelism > MAX_PARALLELISM_INDEXED) {
        errs.push(
          invalid(
            child(path, "parallelism"),
            parallelism,
            `must be less than or equal to ${MAX_PARALLELISM_INDEXED} when completion mode is Indexed`,
          ),
        );
      }
      const maxFailed = num(s.maxFailedIndexes);
      const completions = num(s.completions);
      if (maxFailed !== undefined && completions !== undefined && maxFailed > completions) {
        errs.push(
          invalid(child(path, "maxFailedIndexes"), maxFailed, "must be less than or equal to completions"),
        );
      }
      if (maxFailed !== undefined && maxFailed > MAX_FAILED_INDEXES) {
        errs.push(
          invalid(
            child(path, "maxFailedIndexes"),
            maxFailed,
            `must be less than or equal to ${MAX_FAILED_INDEXES}`,
          ),
        );
      }
    }
  }
  if (mode == null || mode === "NonIndexed") {
    if (s.backoffLimitPerIndex != null)
      errs.push(
        invalid(
          child(path, "backoffLimitPerIndex"),
          s.backoffLimitPerIndex,
          "requires indexed completion mode",
        ),
      );
    if (s.maxFailedIndexes != null)
      errs.push(
        invalid(child(path, "maxFailedIndexes"), s.maxFailedIndexes, "requires indexed completion mode"),
      );
    if (s.successPolicy != null)
      errs.push(invalid(child(path, "successPolicy"), s.successPolicy, "requires indexed completion mode"));
  }
  return errs;
}

function validatePodReplacementPolicy(s: Obj, path: string): FieldError[] {
  const policy = s.podReplacementPolicy;
  if (policy == null) return [];
  const p = child(path, "podReplacementPolicy");
  if (s.podFailurePolicy != null) {
    return policy === "Failed" ? [] : [notSupported(p, policy, ["Failed"])];
  }
  return policy === "Failed" || policy === "TerminatingOrFailed"
    ? []
    : [notSupported(p, policy, ["Failed", "TerminatingOrFailed"])];
}

/** A suspended Job that never started may change its template's scheduling directives. */
function mutableSchedulingDirectives(old: Obj): boolean {
  return spec(old).suspend === true && obj(old.status)?.startTime == null;
}

function validateJobSpecUpdate(job: Obj, old: Obj): FieldError[] {
  const now = spec(job);
  const before = spec(old);
  const errs = [
    ...validateImmutable(now.completions, before.completions, "spec.completions"),
    ...validateImmutable(now.selector, before.selector, "spec.selector"),
  ];
  let oldTemplate = obj(before.template) ?? {};
  const newTemplate = obj(now.template) ?? {};
  if (mutableSchedulingDirectives(old)) {
    oldTemplate = cloneJson(oldTemplate);
    const os = obj(oldTemplate.spec) ?? {};
    const ns = obj(newTemplate.spec) ?? {};
    for (const f of ["nodeSelector", "tolerations", "schedulingGates", "affinity"]) {
      if (ns[f] === undefined) delete os[f];
      else os[f] = ns[f];
    }
    const om = obj(oldTemplate.metadata) ?? {};
    const nm = obj(newTemplate.metadata) ?? {};
    for (const f of ["labels", "annotations"]) {
      if (nm[f] === undefined) delete om[f];
      else om[f] = nm[f];
    }
  }
  errs.push(...validateImmutable(newTemplate, oldTemplate, "spec.template"));
  for (const f of [
    "completionMode",
    "podFailurePolicy",
    "backoffLimitPerIndex",
    "managedBy",
    "successPolicy",
  ]) {
    errs.push(...validateImmutable(now[f], before[f], `spec.${f}`));
  }
  return errs;
}

export function validateCronJob(cj: Obj, old?: Obj): FieldError[] {
  const s = spec(cj);
  const errs: FieldError[] = [];
  const schedule = str(s.schedule) ?? "";
  if (!schedule) {
    errs.push(required("spec.schedule"));
  } else {
    const parseErr = cronScheduleError(schedule);
    if (parseErr) errs.push(invalid("spec.schedule", schedule, parseErr));
    const allowTZ = old !== undefined && (str(spec(old).schedule) ?? "").includes("TZ");
    if (allowTZ && schedule.includes("TZ") && s.timeZone != null) {
      errs.push(
        invalid("spec.schedule", schedule, "cannot use both timeZone field and TZ or CRON_TZ in schedule"),
      );
    } else if (!allowTZ && schedule.includes("TZ")) {
      errs.push(
        invalid(
          "spec.schedule",
          schedule,
          "cannot use TZ or CRON_TZ in schedule, use timeZone field instead",
        ),
      );
    }
  }
  errs.push(...validateNonnegative(num(s.startingDeadlineSeconds), "spec.startingDeadlineSeconds"));
  if (!old || s.timeZone !== spec(old).timeZone) errs.push(...validateTimeZone(s.timeZone));
  const policy = str(s.concurrencyPolicy) ?? "";
  if (!policy) errs.push(required("spec.concurrencyPolicy"));
  else if (!["Allow", "Forbid", "Replace"].includes(policy)) {
    errs.push(notSupported("spec.concurrencyPolicy", policy, ["Allow", "Forbid", "Replace"]));
  }
  const jobSpec = obj(obj(s.jobTemplate)?.spec) ?? {};
  errs.push(...validateJobSpec(jobSpec, "spec.jobTemplate.spec"));
  if (jobSpec.selector != null) {
    errs.push(
      invalid("spec.jobTemplate.spec.selector", jobSpec.selector, "`selector` will be auto-generated"),
    );
  }
  if (jobSpec.manualSelector === true) {
    errs.push(notSupported("spec.jobTemplate.spec.manualSelector", true, ["nil", "false"]));
  }
  errs.push(...validateNonnegative(num(s.successfulJobsHistoryLimit), "spec.successfulJobsHistoryLimit"));
  errs.push(...validateNonnegative(num(s.failedJobsHistoryLimit), "spec.failedJobsHistoryLimit"));
  const name = str(obj(cj.metadata)?.name) ?? "";
  if (!old && name.length > 52)
    errs.push(invalid("metadata.name", name, "must be no more than 52 characters"));
  return errs;
}

function validateTimeZone(timeZone: unknown): FieldError[] {
  if (timeZone == null) return [];
  const tz = str(timeZone) ?? "";
  const p = "spec.timeZone";
  if (!tz) return [invalid(p, tz, "timeZone must be nil or non-empty string")];
  for (const part of tz.split("/")) {
    if (part === "." || part === ".." || part.startsWith("-") || !/^[A-Za-z.\-_0-9+]{1,14}$/.test(part)) {
      return [invalid(p, tz, `unknown time zone ${tz}`)];
    }
  }
  if (tz.toLowerCase() === "local") {
    return [
      invalid(p, tz, "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"),
    ];
  }
  const err = timeZoneError(tz);
  return err ? [invalid(p, tz, err)] : [];
}
