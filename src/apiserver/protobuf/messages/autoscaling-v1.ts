import type { PackageTable } from "../schema.ts";

/** autoscaling/v1 messages. Field numbers are wire facts from Kubernetes' generated.proto (release-1.36). */
export const autoscalingV1: PackageTable = {
  package: "autoscaling.v1",
  apiVersion: "autoscaling/v1",
  kinds: ["Scale", "HorizontalPodAutoscaler"],
  messages: `
CrossVersionObjectReference
  kind 1 string
  name 2 string
  apiVersion 3 string omitempty
HorizontalPodAutoscaler
  metadata 1 meta.v1.ObjectMeta
  spec 2 HorizontalPodAutoscalerSpec
  status 3 HorizontalPodAutoscalerStatus
HorizontalPodAutoscalerSpec
  scaleTargetRef 1 CrossVersionObjectReference
  minReplicas 2 *int32
  maxReplicas 3 int32
  targetCPUUtilizationPercentage 4 *int32
HorizontalPodAutoscalerStatus
  observedGeneration 1 *int64
  lastScaleTime 2 *time
  currentReplicas 3 int32
  desiredReplicas 4 int32
  currentCPUUtilizationPercentage 5 *int32
Scale
  metadata 1 meta.v1.ObjectMeta
  spec 2 ScaleSpec
  status 3 ScaleStatus
ScaleSpec
  replicas 1 int32 omitempty
ScaleStatus
  replicas 1 int32
  selector 2 string omitempty
`,
};
