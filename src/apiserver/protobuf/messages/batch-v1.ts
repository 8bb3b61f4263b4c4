import type { PackageTable } from "../schema.ts";

/** batch/v1 messages. Field numbers are wire facts from Kubernetes' generated.proto (release-1.36). */
export const batchV1: PackageTable = {
  package: "batch.v1",
  apiVersion: "batch/v1",
  kinds: ["Job", "CronJob"],
  messages: `
CronJob
  metadata 1 meta.v1.ObjectMeta
  spec 2 CronJobSpec
  status 3 CronJobStatus
CronJobSpec
  schedule 1 string
  timeZone 8 *string
  startingDeadlineSeconds 2 *int64
  concurrencyPolicy 3 string omitempty
  suspend 4 *bool
  jobTemplate 5 JobTemplateSpec
  successfulJobsHistoryLimit 6 *int32
  failedJobsHistoryLimit 7 *int32
CronJobStatus
  active 1 []core.v1.ObjectReference
  lastScheduleTime 4 *time
  lastSuccessfulTime 5 *time
Job
  metadata 1 meta.v1.ObjectMeta
  spec 2 JobSpec
  status 3 JobStatus
JobCondition
  type 1 string
  status 2 string
  lastProbeTime 3 time
  lastTransitionTime 4 time
  reason 5 string omitempty
  message 6 string omitempty
JobSpec
  parallelism 1 *int32
  completions 2 *int32
  activeDeadlineSeconds 3 *int64
  podFailurePolicy 11 *PodFailurePolicy
  successPolicy 16 *SuccessPolicy
  backoffLimit 7 *int32
  backoffLimitPerIndex 12 *int32
  maxFailedIndexes 13 *int32
  selector 4 *meta.v1.LabelSelector
  manualSelector 5 *bool
  template 6 core.v1.PodTemplateSpec
  ttlSecondsAfterFinished 8 *int32
  completionMode 9 *string
  suspend 10 *bool
  podReplacementPolicy 14 *string
  managedBy 15 *string
JobStatus
  conditions 1 []JobCondition
  startTime 2 *time
  completionTime 3 *time
  active 4 int32 omitempty
  succeeded 5 int32 omitempty
  failed 6 int32 omitempty
  terminating 11 *int32
  completedIndexes 7 string omitempty
  failedIndexes 10 *string
  uncountedTerminatedPods 8 *UncountedTerminatedPods
  ready 9 *int32
JobTemplateSpec
  metadata 1 meta.v1.ObjectMeta
  spec 2 JobSpec
PodFailurePolicy
  rules 1 []PodFailurePolicyRule
PodFailurePolicyOnExitCodesRequirement
  containerName 1 *string
  operator 2 string
  values 3 []int32
PodFailurePolicyOnPodConditionsPattern
  type 1 string
  status 2 string
PodFailurePolicyRule
  action 1 string
  onExitCodes 2 *PodFailurePolicyOnExitCodesRequirement
  onPodConditions 3 []PodFailurePolicyOnPodConditionsPattern
SuccessPolicy
  rules 1 []SuccessPolicyRule
SuccessPolicyRule
  succeededIndexes 1 *string
  succeededCount 2 *int32
UncountedTerminatedPods
  succeeded 1 []string
  failed 2 []string
`,
};
