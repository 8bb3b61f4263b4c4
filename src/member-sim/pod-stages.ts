/**
 * The simulated kubelet (plus the pod parts of the node lifecycle controller and pod GC) as
 * stages over pods, first match wins:
 *
 *   pod-delete        terminating pod on a node → removed (grace 0) after min(grace, podDeleteMs)
 *   pod-orphaned      pod bound to a node that does not exist → removed
 *   pod-node-lost     node not Ready → the pod's Ready condition turns False
 *   pod-evict         NoExecute taint not tolerated → evicted at once; tolerated for
 *                     tolerationSeconds → evicted then (capped by timing.evictionMs)
 *   pod-crash-loop    its workload has the unhealthy-workload fault → CrashLoopBackOff, not Ready
 *   pod-crash-restart still crash-looping → restartCount+1 every crashLoopMs
 *   pod-finish        Job pods (or pods annotated with a run time) → Succeeded after jobPodRunMs
 *                     (Failed when annotated with a non-zero exit code)
 *   pod-recover       running but not Ready while node and workload are fine → Ready again
 *   pod-start         bound Pending pod on a Ready node → Running and Ready after podStartMs
 *
 * Pod annotations the simulator reads (set them on a workload's pod template):
 *   member-sim.karmada-ts.io/run-ms      the pod's containers exit after this many ms
 *   member-sim.karmada-ts.io/exit-code   ... with this exit code (default 0)
 *
 * Simplified: readiness probes pass at once, images are always present, init containers
 * complete instantly, restartPolicy OnFailure pods fail like Never pods.
 */
import { createHash } from "node:crypto";
import type { StoredObject } from "../api/meta.ts";
import { tolerates } from "../machinery/tolerations.ts";
import type { Timing } from "./context.ts";
import type { Stage, StageAction } from "./stages.ts";
import type {
  BuiltinCondition,
  ConditionStatus,
  Container,
  ContainerStatus,
  NodeSpec,
  NodeStatus,
  PodStatus,
  Taint,
} from "./types.ts";
import { controllerOf, isTerminal, podSpec, podStatus, timestamp } from "./workload.ts";

export const RUN_MS_ANNOTATION = "member-sim.karmada-ts.io/run-ms";
export const EXIT_CODE_ANNOTATION = "member-sim.karmada-ts.io/exit-code";

export interface PodStageEnv {
  /** The clock (timestamps). */
  now: number;
  timing: Timing;
  node(name: string): StoredObject | undefined;
  /** False until the node informer has listed (no pod counts as orphaned before). */
  nodesKnown: boolean;
  workloadUnhealthy(pod: StoredObject): boolean;
  allocateIp(pod: StoredObject, node: StoredObject): string | undefined;
  /** A new 64-hex-digit container id. */
  newContainerId(): string;
}

export function isNodeReady(node: StoredObject | undefined): boolean {
  const conditions = ((node?.status ?? {}) as NodeStatus).conditions ?? [];
  return conditions.find((c) => c.type === "Ready")?.status === "True";
}

function nodeInternalIp(node: StoredObject): string | undefined {
  return ((node.status ?? {}) as NodeStatus).addresses?.find((a) => a.type === "InternalIP")?.address;
}

/** `nginx:1.25` → `docker.io/library/nginx:1.25`, as container runtimes report images. */
export function fullImageName(image: string): string {
  let name = image;
  const first = name.split("/")[0] ?? "";
  if (!name.includes("/")) name = `docker.io/library/${name}`;
  else if (!first.includes(".") && !first.includes(":") && first !== "localhost") name = `docker.io/${name}`;
  const last = name.slice(name.lastIndexOf("/") + 1);
  if (!last.includes(":") && !name.includes("@")) name += ":latest";
  return name;
}

export function imageId(image: string): string {
  const full = fullImageName(image);
  const repo = full.includes("@") ? full.slice(0, full.indexOf("@")) : full.replace(/:[^:/]+$/, "");
  return `${repo}@sha256:${createHash("sha256").update(full).digest("hex")}`;
}

function condition(
  pod: StoredObject,
  type: string,
  status: ConditionStatus,
  now: string,
  reason?: string,
  message?: string,
): BuiltinCondition {
  const prev = podStatus(pod).conditions?.find((c) => c.type === type);
  const c: BuiltinCondition = {
    type,
    status,
    lastProbeTime: null,
    lastTransitionTime: prev?.status === status && prev.lastTransitionTime ? prev.lastTransitionTime : now,
  };
  if (reason) c.reason = reason;
  if (message) c.message = message;
  return c;
}

function containers(pod: StoredObject): Container[] {
  return podSpec(pod).containers ?? [];
}

function previous(pod: StoredObject, name: string): ContainerStatus | undefined {
  return podStatus(pod).containerStatuses?.find((s) => s.name === name);
}

function isCrashLooping(pod: StoredObject): boolean {
  return (podStatus(pod).containerStatuses ?? []).some((s) => s.state.waiting?.reason === "CrashLoopBackOff");
}

function allRunning(pod: StoredObject): boolean {
  const statuses = podStatus(pod).containerStatuses ?? [];
  return statuses.length > 0 && statuses.every((s) => s.state.running !== undefined);
}

function isBound(pod: StoredObject): boolean {
  return !!podSpec(pod).nodeName;
}

function boundNode(pod: StoredObject, env: PodStageEnv): StoredObject | undefined {
  const name = podSpec(pod).nodeName;
  return name ? env.node(name) : undefined;
}

/** What every running pod's status carries: addresses, start time, init containers. */
function baseStatus(pod: StoredObject, env: PodStageEnv, now: string): PodStatus {
  const node = boundNode(pod, env);
  const hostIP = node ? nodeInternalIp(node) : undefined;
  const prev = podStatus(pod);
  const podIP = podSpec(pod).hostNetwork ? hostIP : node ? env.allocateIp(pod, node) : undefined;
  const status: PodStatus = { phase: "Running", startTime: prev.startTime ?? now };
  if (hostIP) {
    status.hostIP = hostIP;
    status.hostIPs = [{ ip: hostIP }];
  }
  if (podIP) {
    status.podIP = podIP;
    status.podIPs = [{ ip: podIP }];
  }
  const inits = podSpec(pod).initContainers ?? [];
  if (inits.length > 0) {
    status.initContainerStatuses = inits.map((c) => {
      const id = `containerd://${env.newContainerId()}`;
      return {
        name: c.name,
        image: fullImageName(c.image ?? ""),
        imageID: imageId(c.image ?? ""),
        containerID: id,
        ready: true,
        started: false,
        restartCount: 0,
        state: {
          terminated: { exitCode: 0, reason: "Completed", startedAt: now, finishedAt: now, containerID: id },
        },
        lastState: {},
      };
    });
  }
  return status;
}

/** Running containers, Ready (or, crash-looping, waiting in CrashLoopBackOff). */
function runningStatus(pod: StoredObject, env: PodStageEnv, crashLoop: boolean): PodStatus {
  const now = timestamp(env.now);
  const status = baseStatus(pod, env, now);
  const ns = pod.metadata.namespace;
  status.containerStatuses = containers(pod).map((c) => {
    const prev = previous(pod, c.name);
    const image = c.image ?? "";
    const base = { name: c.name, image: fullImageName(image), imageID: imageId(image) };
    if (crashLoop) {
      const containerID = prev?.containerID ?? `containerd://${env.newContainerId()}`;
      return {
        ...base,
        containerID,
        ready: false,
        started: false,
        restartCount: (prev?.restartCount ?? 0) + 1,
        state: {
          waiting: {
            reason: "CrashLoopBackOff",
            message: `back-off 10s restarting failed container=${c.name} pod=${pod.metadata.name}_${ns}(${pod.metadata.uid})`,
          },
        },
        lastState: {
          terminated: {
            exitCode: 1,
            reason: "Error",
            startedAt: prev?.state.running?.startedAt ?? now,
            finishedAt: now,
            containerID,
          },
        },
      };
    }
    const keep = prev?.state.running !== undefined;
    return {
      ...base,
      containerID: keep && prev?.containerID ? prev.containerID : `containerd://${env.newContainerId()}`,
      ready: true,
      started: true,
      restartCount: prev?.restartCount ?? 0,
      state: { running: { startedAt: keep ? (prev?.state.running?.startedAt ?? now) : now } },
      lastState: prev?.lastState ?? {},
    };
  });
  const notReady = crashLoop
    ? `containers with unready status: [${containers(pod)
        .map((c) => c.name)
        .join(" ")}]`
    : undefined;
  status.conditions = [
    condition(pod, "PodReadyToStartContainers", "True", now),
    condition(pod, "Initialized", "True", now),
    crashLoop
      ? condition(pod, "Ready", "False", now, "ContainersNotReady", notReady)
      : condition(pod, "Ready", "True", now),
    crashLoop
      ? condition(pod, "ContainersReady", "False", now, "ContainersNotReady", notReady)
      : condition(pod, "ContainersReady", "True", now),
    condition(pod, "PodScheduled", "True", now),
  ];
  return status;
}

function exitCodeOf(pod: StoredObject): number {
  const v = Number(pod.metadata.annotations?.[EXIT_CODE_ANNOTATION] ?? 0);
  return Number.isInteger(v) ? v : 1;
}

/** Every container exited; Succeeded when the exit code is 0. */
function finishedStatus(pod: StoredObject, env: PodStageEnv): PodStatus {
  const now = timestamp(env.now);
  const code = exitCodeOf(pod);
  const ok = code === 0;
  const reason = ok ? "PodCompleted" : "PodFailed";
  return {
    phase: ok ? "Succeeded" : "Failed",
    containerStatuses: containers(pod).map((c) => {
      const prev = previous(pod, c.name);
      const containerID = prev?.containerID ?? `containerd://${env.newContainerId()}`;
      return {
        name: c.name,
        image: fullImageName(c.image ?? ""),
        imageID: imageId(c.image ?? ""),
        containerID,
        ready: false,
        started: false,
        restartCount: prev?.restartCount ?? 0,
        state: {
          terminated: {
            exitCode: code,
            reason: ok ? "Completed" : "Error",
            startedAt: prev?.state.running?.startedAt ?? now,
            finishedAt: now,
            containerID,
          },
        },
        lastState: prev?.lastState ?? {},
      };
    }),
    conditions: [
      condition(pod, "PodReadyToStartContainers", "False", now),
      condition(pod, "Initialized", "True", now),
      condition(pod, "Ready", "False", now, reason),
      condition(pod, "ContainersReady", "False", now, reason),
      condition(pod, "PodScheduled", "True", now),
    ],
  };
}

/** A NoExecute taint the pod tolerates forever → undefined; for a while → the seconds; not → 0. */
export function evictionDelaySeconds(pod: StoredObject, node: StoredObject | undefined): number | undefined {
  const taints = (((node?.spec ?? {}) as NodeSpec).taints ?? []).filter(
    (t: Taint) => t.effect === "NoExecute",
  );
  let shortest: number | undefined;
  for (const taint of taints) {
    const matching = (podSpec(pod).tolerations ?? []).filter((t) => tolerates(t, taint));
    if (matching.length === 0) return 0;
    if (matching.some((t) => t.tolerationSeconds === undefined)) continue;
    const seconds = Math.max(0, Math.min(...matching.map((t) => t.tolerationSeconds ?? 0)));
    shortest = shortest === undefined ? seconds : Math.min(shortest, seconds);
  }
  return shortest;
}

/** Pods that run to completion in the simulation: Job pods and pods with a run-time annotation. */
function runsToCompletion(pod: StoredObject): boolean {
  return controllerOf(pod)?.kind === "Job" || pod.metadata.annotations?.[RUN_MS_ANNOTATION] !== undefined;
}

function live(pod: StoredObject): boolean {
  return isBound(pod) && !pod.metadata.deletionTimestamp && !isTerminal(pod);
}

function onReadyNode(pod: StoredObject, env: PodStageEnv): boolean {
  return isNodeReady(boundNode(pod, env));
}

function isReadyNow(pod: StoredObject): boolean {
  return podStatus(pod).conditions?.find((c) => c.type === "Ready")?.status === "True";
}

function status(s: PodStatus): StageAction {
  return { status: s as Record<string, unknown> };
}

export const POD_STAGES: ReadonlyArray<Stage<PodStageEnv>> = [
  {
    name: "pod-delete",
    when: (pod) => isBound(pod) && !!pod.metadata.deletionTimestamp,
    delayMs: (pod, env) =>
      Math.min((pod.metadata.deletionGracePeriodSeconds ?? 0) * 1000, env.timing.podDeleteMs),
    next: () => ({ delete: true, gracePeriodSeconds: 0 }),
  },
  {
    name: "pod-orphaned",
    when: (pod, env) => isBound(pod) && env.nodesKnown && boundNode(pod, env) === undefined,
    delayMs: (_pod, env) => env.timing.podDeleteMs,
    next: () => ({ delete: true, gracePeriodSeconds: 0 }),
  },
  {
    name: "pod-node-lost",
    when: (pod, env) =>
      live(pod) && boundNode(pod, env) !== undefined && !onReadyNode(pod, env) && isReadyNow(pod),
    next: (pod, env) =>
      status({
        conditions: (podStatus(pod).conditions ?? []).map((c) =>
          c.type === "Ready" ? { ...c, status: "False", lastTransitionTime: timestamp(env.now) } : c,
        ),
      }),
  },
  {
    name: "pod-evict",
    when: (pod, env) => live(pod) && evictionDelaySeconds(pod, boundNode(pod, env)) !== undefined,
    delayMs: (pod, env) =>
      Math.min(
        (evictionDelaySeconds(pod, boundNode(pod, env)) ?? 0) * 1000,
        env.timing.evictionMs ?? Infinity,
      ),
    next: () => ({ delete: true }),
  },
  {
    name: "pod-crash-loop",
    when: (pod, env) =>
      live(pod) && onReadyNode(pod, env) && env.workloadUnhealthy(pod) && !isCrashLooping(pod),
    next: (pod, env) => status(runningStatus(pod, env, true)),
  },
  {
    name: "pod-crash-restart",
    when: (pod, env) =>
      live(pod) && onReadyNode(pod, env) && env.workloadUnhealthy(pod) && isCrashLooping(pod),
    delayMs: (_pod, env) => env.timing.crashLoopMs,
    next: (pod, env) => status(runningStatus(pod, env, true)),
  },
  {
    name: "pod-finish",
    when: (pod, env) => live(pod) && onReadyNode(pod, env) && allRunning(pod) && runsToCompletion(pod),
    delayMs: (pod, env) => {
      const ms = Number(pod.metadata.annotations?.[RUN_MS_ANNOTATION]);
      return Number.isFinite(ms) && ms >= 0 ? ms : env.timing.jobPodRunMs;
    },
    next: (pod, env) => status(finishedStatus(pod, env)),
  },
  {
    name: "pod-recover",
    when: (pod, env) =>
      live(pod) &&
      onReadyNode(pod, env) &&
      podStatus(pod).phase === "Running" &&
      (isCrashLooping(pod) || !isReadyNow(pod)),
    delayMs: (_pod, env) => env.timing.podStartMs,
    next: (pod, env) => status(runningStatus(pod, env, false)),
  },
  {
    name: "pod-start",
    when: (pod, env) =>
      live(pod) && onReadyNode(pod, env) && (podStatus(pod).phase ?? "Pending") === "Pending",
    delayMs: (_pod, env) => env.timing.podStartMs,
    next: (pod, env) => status(runningStatus(pod, env, false)),
  },
];
