/**
 * The slices of Kubernetes API types the simulated controllers read and write, with upstream
 * JSON names. Objects stay plain JSON (`StoredObject`); these types are casts over their
 * `spec`/`status`, not a decoding step.
 */
import type { ObjectMeta } from "../api/meta.ts";
import type { Condition, ConditionStatus } from "../machinery/conditions.ts";
import type { LabelSelector } from "../machinery/labels.ts";
import type { Taint, Toleration } from "../machinery/tolerations.ts";

export type { ConditionStatus, Taint, Toleration };

/**
 * The conditions of the built-in kinds the simulator runs (PodCondition, NodeCondition,
 * DeploymentCondition, ReplicaSetCondition, JobCondition): the one `Condition`, with reason,
 * message and lastTransitionTime optional (`omitempty` upstream) and no observedGeneration,
 * plus timestamps of their own.
 */
export interface BuiltinCondition
  extends Pick<Condition, "type" | "status">,
    Partial<Pick<Condition, "reason" | "message" | "lastTransitionTime">> {
  /** Deployments. */
  lastUpdateTime?: string;
  /** Pods and Jobs write it, mostly as null. */
  lastProbeTime?: string | null;
  /** Nodes. */
  lastHeartbeatTime?: string;
}

export type ResourceList = Record<string, string | number>;

export interface ContainerPort {
  name?: string;
  containerPort: number;
  protocol?: string;
}

export interface Container {
  name: string;
  image?: string;
  ports?: ContainerPort[];
  resources?: { requests?: ResourceList; limits?: ResourceList };
}

export interface NodeSelectorRequirement {
  key: string;
  operator: "In" | "NotIn" | "Exists" | "DoesNotExist" | "Gt" | "Lt";
  values?: string[];
}

export interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[];
  matchFields?: NodeSelectorRequirement[];
}

export interface Affinity {
  nodeAffinity?: {
    requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: NodeSelectorTerm[] };
    preferredDuringSchedulingIgnoredDuringExecution?: unknown[];
  };
  [other: string]: unknown;
}

export interface PodSpec {
  nodeName?: string;
  nodeSelector?: Record<string, string>;
  affinity?: Affinity;
  tolerations?: Toleration[];
  containers?: Container[];
  initContainers?: Container[];
  overhead?: ResourceList;
  restartPolicy?: "Always" | "OnFailure" | "Never";
  schedulerName?: string;
  schedulingGates?: Array<{ name: string }>;
  hostNetwork?: boolean;
  hostname?: string;
  subdomain?: string;
  priority?: number;
  preemptionPolicy?: string;
  terminationGracePeriodSeconds?: number;
  [other: string]: unknown;
}

export interface ContainerState {
  waiting?: { reason?: string; message?: string };
  running?: { startedAt?: string };
  terminated?: {
    exitCode: number;
    reason?: string;
    startedAt?: string;
    finishedAt?: string;
    containerID?: string;
  };
}

export interface ContainerStatus {
  name: string;
  image: string;
  imageID: string;
  containerID?: string;
  ready: boolean;
  started?: boolean;
  restartCount: number;
  state: ContainerState;
  lastState: ContainerState;
}

export interface PodStatus {
  phase?: "Pending" | "Running" | "Succeeded" | "Failed" | "Unknown";
  conditions?: BuiltinCondition[];
  hostIP?: string;
  hostIPs?: Array<{ ip: string }>;
  podIP?: string;
  podIPs?: Array<{ ip: string }>;
  startTime?: string;
  containerStatuses?: ContainerStatus[];
  initContainerStatuses?: ContainerStatus[];
  qosClass?: string;
  reason?: string;
  message?: string;
  [other: string]: unknown;
}

export interface PodTemplateSpec {
  metadata?: ObjectMeta;
  spec?: PodSpec;
}

export interface NodeStatus {
  capacity?: ResourceList;
  allocatable?: ResourceList;
  conditions?: BuiltinCondition[];
  addresses?: Array<{ type: string; address: string }>;
  [other: string]: unknown;
}

export interface NodeSpec {
  podCIDR?: string;
  podCIDRs?: string[];
  unschedulable?: boolean;
  taints?: Taint[];
  providerID?: string;
}

export type IntOrString = number | string;

export interface DeploymentSpec {
  replicas?: number;
  selector?: LabelSelector;
  template?: PodTemplateSpec;
  strategy?: {
    type?: "RollingUpdate" | "Recreate";
    rollingUpdate?: { maxSurge?: IntOrString; maxUnavailable?: IntOrString };
  };
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
  paused?: boolean;
  progressDeadlineSeconds?: number;
}

export interface DeploymentStatus {
  observedGeneration?: number;
  replicas?: number;
  updatedReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  unavailableReplicas?: number;
  conditions?: BuiltinCondition[];
  collisionCount?: number;
}

export interface ReplicaSetSpec {
  replicas?: number;
  selector?: LabelSelector;
  template?: PodTemplateSpec;
  minReadySeconds?: number;
}

export interface ReplicaSetStatus {
  replicas: number;
  fullyLabeledReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  observedGeneration?: number;
  conditions?: BuiltinCondition[];
}

export interface ObjectReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
}
