import type { PackageTable } from "../schema.ts";

/** apps/v1 messages. Field numbers are wire facts from Kubernetes' generated.proto (release-1.36). */
export const appsV1: PackageTable = {
  package: "apps.v1",
  apiVersion: "apps/v1",
  kinds: ["Deployment", "StatefulSet", "ReplicaSet", "DaemonSet"],
  messages: `
DaemonSet
  metadata 1 meta.v1.ObjectMeta
  spec 2 DaemonSetSpec
  status 3 DaemonSetStatus
DaemonSetCondition
  type 1 string
  status 2 string
  lastTransitionTime 3 time
  reason 4 string omitempty
  message 5 string omitempty
DaemonSetSpec
  selector 1 *meta.v1.LabelSelector
  template 2 core.v1.PodTemplateSpec
  updateStrategy 3 DaemonSetUpdateStrategy
  minReadySeconds 4 int32 omitempty
  revisionHistoryLimit 6 *int32
DaemonSetStatus
  currentNumberScheduled 1 int32
  numberMisscheduled 2 int32
  desiredNumberScheduled 3 int32
  numberReady 4 int32
  observedGeneration 5 int64 omitempty
  updatedNumberScheduled 6 int32 omitempty
  numberAvailable 7 int32 omitempty
  numberUnavailable 8 int32 omitempty
  collisionCount 9 *int32
  conditions 10 []DaemonSetCondition
DaemonSetUpdateStrategy
  type 1 string omitempty
  rollingUpdate 2 *RollingUpdateDaemonSet
Deployment
  metadata 1 meta.v1.ObjectMeta
  spec 2 DeploymentSpec
  status 3 DeploymentStatus
DeploymentCondition
  type 1 string
  status 2 string
  lastUpdateTime 6 time
  lastTransitionTime 7 time
  reason 4 string omitempty
  message 5 string omitempty
DeploymentSpec
  replicas 1 *int32
  selector 2 *meta.v1.LabelSelector
  template 3 core.v1.PodTemplateSpec
  strategy 4 DeploymentStrategy
  minReadySeconds 5 int32 omitempty
  revisionHistoryLimit 6 *int32
  paused 7 bool omitempty
  progressDeadlineSeconds 9 *int32
DeploymentStatus
  observedGeneration 1 int64 omitempty
  replicas 2 int32 omitempty
  updatedReplicas 3 int32 omitempty
  readyReplicas 7 int32 omitempty
  availableReplicas 4 int32 omitempty
  unavailableReplicas 5 int32 omitempty
  terminatingReplicas 9 *int32
  conditions 6 []DeploymentCondition
  collisionCount 8 *int32
DeploymentStrategy
  type 1 string omitempty
  rollingUpdate 2 *RollingUpdateDeployment
ReplicaSet
  metadata 1 meta.v1.ObjectMeta
  spec 2 ReplicaSetSpec
  status 3 ReplicaSetStatus
ReplicaSetCondition
  type 1 string
  status 2 string
  lastTransitionTime 3 time
  reason 4 string omitempty
  message 5 string omitempty
ReplicaSetSpec
  replicas 1 *int32
  minReadySeconds 4 int32 omitempty
  selector 2 *meta.v1.LabelSelector
  template 3 core.v1.PodTemplateSpec
ReplicaSetStatus
  replicas 1 int32
  fullyLabeledReplicas 2 int32 omitempty
  readyReplicas 4 int32 omitempty
  availableReplicas 5 int32 omitempty
  terminatingReplicas 7 *int32
  observedGeneration 3 int64 omitempty
  conditions 6 []ReplicaSetCondition
RollingUpdateDaemonSet
  maxUnavailable 1 *intstr
  maxSurge 2 *intstr
RollingUpdateDeployment
  maxUnavailable 1 *intstr
  maxSurge 2 *intstr
RollingUpdateStatefulSetStrategy
  partition 1 *int32
  maxUnavailable 2 *intstr
StatefulSet
  metadata 1 meta.v1.ObjectMeta
  spec 2 StatefulSetSpec
  status 3 StatefulSetStatus
StatefulSetCondition
  type 1 string
  status 2 string
  lastTransitionTime 3 time
  reason 4 string omitempty
  message 5 string omitempty
StatefulSetOrdinals
  start 1 int32
StatefulSetPersistentVolumeClaimRetentionPolicy
  whenDeleted 1 string omitempty
  whenScaled 2 string omitempty
StatefulSetSpec
  replicas 1 *int32
  selector 2 *meta.v1.LabelSelector
  template 3 core.v1.PodTemplateSpec
  volumeClaimTemplates 4 []core.v1.PersistentVolumeClaim
  serviceName 5 string
  podManagementPolicy 6 string omitempty
  updateStrategy 7 StatefulSetUpdateStrategy
  revisionHistoryLimit 8 *int32
  minReadySeconds 9 int32 omitempty
  persistentVolumeClaimRetentionPolicy 10 *StatefulSetPersistentVolumeClaimRetentionPolicy
  ordinals 11 *StatefulSetOrdinals
StatefulSetStatus
  observedGeneration 1 int64 omitempty
  replicas 2 int32
  readyReplicas 3 int32 omitempty
  currentReplicas 4 int32 omitempty
  updatedReplicas 5 int32 omitempty
  currentRevision 6 string omitempty
  updateRevision 7 string omitempty
  collisionCount 9 *int32
  conditions 10 []StatefulSetCondition
  availableReplicas 11 int32
StatefulSetUpdateStrategy
  type 1 string omitempty
  rollingUpdate 2 *RollingUpdateStatefulSetStrategy
`,
};
