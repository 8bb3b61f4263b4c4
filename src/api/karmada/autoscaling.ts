/** autoscaling.karmada.io/v1alpha1: FederatedHPA and CronFederatedHPA. */

import { type CustomResourceDefinition, crd, described, type Schema, s, topLevel } from "../schema.ts";
import {
  crossVersionObjectReference,
  horizontalPodAutoscalerBehavior,
  horizontalPodAutoscalerStatus,
  metricSpec,
} from "./kubernetes.ts";

export const AUTOSCALING_GROUP = "autoscaling.karmada.io";

// ---- FederatedHPA --------------------------------------------------------------------------

/** FederatedHPASpec */
export function federatedHPASpec(): Schema {
  return s.object(
    {
      scaleTargetRef: described(crossVersionObjectReference(), "The workload to scale."),
      minReplicas: s.int32({ description: "Lower bound of replicas across all clusters." }),
      maxReplicas: s.int32({ description: "Upper bound of replicas across all clusters." }),
      metrics: s.array(metricSpec(), { description: "The metrics that drive the replica count." }),
      behavior: described(horizontalPodAutoscalerBehavior(), "How fast to scale up and down."),
    },
    { required: ["maxReplicas", "scaleTargetRef"] },
  );
}

export const federatedHPACrd: CustomResourceDefinition = crd({
  group: AUTOSCALING_GROUP,
  names: {
    kind: "FederatedHPA",
    listKind: "FederatedHPAList",
    plural: "federatedhpas",
    singular: "federatedhpa",
    shortNames: ["fhpa"],
    categories: ["karmada-io"],
  },
  scope: "Namespaced",
  versions: [
    {
      name: "v1alpha1",
      served: true,
      storage: true,
      schema: {
        openAPIV3Schema: topLevel(
          {
            spec: described(federatedHPASpec(), "The target, its bounds and the metrics to follow."),
            status: described(horizontalPodAutoscalerStatus(), "The observed metrics and replica counts."),
          },
          { description: "Scales a workload on metrics gathered from all its clusters.", required: ["spec"] },
        ),
      },
      subresources: { status: {} },
      additionalPrinterColumns: [
        { name: "REFERENCE-KIND", type: "string", jsonPath: ".spec.scaleTargetRef.kind" },
        { name: "REFERENCE-NAME", type: "string", jsonPath: ".spec.scaleTargetRef.name" },
        { name: "MINPODS", type: "integer", jsonPath: ".spec.minReplicas" },
        { name: "MAXPODS", type: "integer", jsonPath: ".spec.maxReplicas" },
        { name: "REPLICAS", type: "integer", jsonPath: ".status.currentReplicas" },
        { name: "AGE", type: "date", jsonPath: ".metadata.creationTimestamp" },
      ],
    },
  ],
});

// ---- CronFederatedHPA ----------------------------------------------------------------------

/** CronFederatedHPARule */
export function cronFederatedHPARule(): Schema {
  return s.object(
    {
      name: s.string({ minLength: 1, maxLength: 32, description: "Name of the rule, unique in the object." }),
      schedule: s.string({ description: "When to scale, in cron syntax." }),
      targetReplicas: s.int32({ description: "Replica count to set on the workload." }),
      targetMinReplicas: s.int32({ description: "minReplicas to set on the FederatedHPA." }),
      targetMaxReplicas: s.int32({ description: "maxReplicas to set on the FederatedHPA." }),
      suspend: s.boolean({ default: false, description: "Skip this rule while true." }),
      timeZone: s.string({ description: "Time zone of the schedule." }),
      successfulHistoryLimit: s.int32({ default: 3, minimum: 1, maximum: 32 }),
      failedHistoryLimit: s.int32({ default: 3, minimum: 0, maximum: 32 }),
    },
    { required: ["name", "schedule"] },
  );
}

/** CronFederatedHPASpec */
export function cronFederatedHPASpec(): Schema {
  return s.object(
    {
      scaleTargetRef: described(
        crossVersionObjectReference(),
        "The workload or FederatedHPA the rules act on.",
      ),
      rules: s.array(cronFederatedHPARule(), { description: "Scheduled scaling actions." }),
    },
    { required: ["rules", "scaleTargetRef"] },
  );
}

/** SuccessfulExecution */
export function successfulExecution(): Schema {
  return s.object(
    {
      scheduleTime: s.time(),
      executionTime: s.time(),
      appliedReplicas: s.int32(),
      appliedMaxReplicas: s.int32(),
      appliedMinReplicas: s.int32(),
    },
    { required: ["executionTime", "scheduleTime"] },
  );
}

/** FailedExecution */
export function failedExecution(): Schema {
  return s.object(
    { scheduleTime: s.time(), executionTime: s.time(), message: s.string() },
    { required: ["executionTime", "message", "scheduleTime"] },
  );
}

/** ExecutionHistory */
export function executionHistory(): Schema {
  return s.object(
    {
      ruleName: s.string(),
      nextExecutionTime: s.time(),
      successfulExecutions: s.array(successfulExecution()),
      failedExecutions: s.array(failedExecution()),
    },
    { required: ["ruleName"] },
  );
}

/** CronFederatedHPAStatus */
export function cronFederatedHPAStatus(): Schema {
  return s.object({
    executionHistories: s.array(executionHistory(), { description: "Recent runs of each rule." }),
  });
}

export const cronFederatedHPACrd: CustomResourceDefinition = crd({
  group: AUTOSCALING_GROUP,
  names: {
    kind: "CronFederatedHPA",
    listKind: "CronFederatedHPAList",
    plural: "cronfederatedhpas",
    singular: "cronfederatedhpa",
    shortNames: ["cronfhpa"],
    categories: ["karmada-io"],
  },
  scope: "Namespaced",
  versions: [
    {
      name: "v1alpha1",
      served: true,
      storage: true,
      schema: {
        openAPIV3Schema: topLevel(
          {
            spec: described(cronFederatedHPASpec(), "The target and its scaling schedule."),
            status: described(cronFederatedHPAStatus(), "What each rule did recently."),
          },
          { description: "Scales a workload or a FederatedHPA on a schedule.", required: ["spec"] },
        ),
      },
      subresources: { status: {} },
      additionalPrinterColumns: [
        { name: "REFERENCE-KIND", type: "string", jsonPath: ".spec.scaleTargetRef.kind" },
        { name: "REFERENCE-NAME", type: "string", jsonPath: ".spec.scaleTargetRef.name" },
        { name: "AGE", type: "date", jsonPath: ".metadata.creationTimestamp" },
      ],
    },
  ],
});
