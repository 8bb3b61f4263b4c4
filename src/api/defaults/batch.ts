/**
 * Defaults of `batch/v1` (kubernetes `pkg/apis/batch/v1/defaults.go`), and the selector the
 * job strategy generates at create time from the Job's uid.
 */

import { ensureObj, type Obj, obj, objs, setDefault, setDefaultString, str } from "../validation/json.ts";
import { defaultPodTemplate, defaultTemplateMetadata } from "./pod.ts";

export const LEGACY_CONTROLLER_UID_LABEL = "controller-uid";
export const CONTROLLER_UID_LABEL = "batch.kubernetes.io/controller-uid";
export const LEGACY_JOB_NAME_LABEL = "job-name";
export const JOB_NAME_LABEL = "batch.kubernetes.io/job-name";

const MAX_INT32 = 2147483647;

function defaultPodFailurePolicy(spec: Obj): void {
  for (const rule of objs(obj(spec.podFailurePolicy)?.rules)) {
    for (const pattern of objs(rule.onPodConditions)) setDefaultString(pattern, "status", "True");
  }
}

export function defaultJob(job: Obj): void {
  const spec = ensureObj(job, "spec");
  if (spec.completions == null && spec.parallelism == null) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  setDefault(spec, "parallelism", 1);
  setDefault(spec, "backoffLimit", spec.backoffLimitPerIndex == null ? 6 : MAX_INT32);
  const templateLabels = obj(obj(obj(spec.template)?.metadata)?.labels);
  if (templateLabels && Object.keys(obj(obj(job.metadata)?.labels) ?? {}).length === 0) {
    ensureObj(job, "metadata").labels = { ...templateLabels };
  }
  setDefault(spec, "completionMode", "NonIndexed");
  setDefault(spec, "suspend", false);
  defaultPodFailurePolicy(spec);
  setDefault(spec, "podReplacementPolicy", spec.podFailurePolicy == null ? "TerminatingOrFailed" : "Failed");
  setDefault(spec, "manualSelector", false);
  defaultPodTemplate(spec.template);
}

export function defaultCronJob(cj: Obj): void {
  const spec = ensureObj(cj, "spec");
  setDefaultString(spec, "concurrencyPolicy", "Allow");
  setDefault(spec, "suspend", false);
  setDefault(spec, "successfulJobsHistoryLimit", 3);
  setDefault(spec, "failedJobsHistoryLimit", 1);
  const jobTemplate = obj(spec.jobTemplate);
  if (jobTemplate) defaultTemplateMetadata(jobTemplate);
  const jobSpec = obj(jobTemplate?.spec);
  if (jobSpec) {
    defaultPodFailurePolicy(jobSpec);
    defaultPodTemplate(jobSpec.template);
  }
}

/**
 * The job strategy's create step: unless `manualSelector` is true, label the pod template
 * with the Job's uid and name and select on the uid. Needs `metadata.uid` and `metadata.name`.
 */
export function prepareJobForCreate(job: Obj): void {
  const spec = ensureObj(job, "spec");
  if (spec.manualSelector === true) return;
  const meta = ensureObj(job, "metadata");
  const uid = str(meta.uid) ?? "";
  const name = str(meta.name) ?? "";
  const template = ensureObj(spec, "template");
  const labels = ensureObj(ensureObj(template, "metadata"), "labels");
  // Conflicting user labels are kept; validation then rejects them.
  for (const k of [LEGACY_JOB_NAME_LABEL, JOB_NAME_LABEL]) if (!(k in labels)) labels[k] = name;
  for (const k of [LEGACY_CONTROLLER_UID_LABEL, CONTROLLER_UID_LABEL]) if (!(k in labels)) labels[k] = uid;
  const selector = ensureObj(spec, "selector");
  const matchLabels = ensureObj(selector, "matchLabels");
  if (!(CONTROLLER_UID_LABEL in matchLabels)) matchLabels[CONTROLLER_UID_LABEL] = uid;
  // The stored Job is defaulted again when read back, which copies the new template labels.
  if (Object.keys(obj(meta.labels) ?? {}).length === 0) meta.labels = { ...labels };
}
