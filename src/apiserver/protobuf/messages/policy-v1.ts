import type { PackageTable } from "../schema.ts";

/** policy/v1 messages. Field numbers are wire facts from Kubernetes' generated.proto (release-1.36). */
export const policyV1: PackageTable = {
  package: "policy.v1",
  apiVersion: "policy/v1",
  kinds: ["PodDisruptionBudget", "Eviction"],
  messages: `
Eviction
  metadata 1 meta.v1.ObjectMeta
  deleteOptions 2 *meta.v1.DeleteOptions
PodDisruptionBudget
  metadata 1 meta.v1.ObjectMeta
  spec 2 PodDisruptionBudgetSpec
  status 3 PodDisruptionBudgetStatus
PodDisruptionBudgetSpec
  minAvailable 1 *intstr
  selector 2 *meta.v1.LabelSelector
  maxUnavailable 3 *intstr
  unhealthyPodEvictionPolicy 4 *string
PodDisruptionBudgetStatus
  observedGeneration 1 int64 omitempty
  disruptedPods 2 map[string]time
  disruptionsAllowed 3 int32
  currentHealthy 4 int32
  desiredHealthy 5 int32
  expectedPods 6 int32
  conditions 7 []meta.v1.Condition
`,
};
