/**
 * The simulated kubelet's container logs, what `kubectl logs` reads from a member. No
 * container runs, so each container instance "wrote" a few startup lines naming the pod,
 * namespace, container and image, timed from the instance's start in the pod's status, plus
 * an exit line once it terminated. Derived from the pod alone, they read the same on every
 * call (tests assert them) and differ per instance (restartCount), so `--previous` shows the
 * instance before the last restart. A followed running container writes one heartbeat line
 * every `followIntervalMs`; those exist only for the follower (no file grows), which keeps
 * the plain log stable.
 *
 * Which instance is read, and the refusals, are the kubelet's (validateContainerLogStatus):
 * `previous` needs a terminated previous instance; a running container is read; a terminated
 * one is read; a container waiting after an exit (CrashLoopBackOff) shows its last run; one
 * waiting to start answers 400 with the reason. Simplified: a container without a status yet
 * counts as waiting in ContainerCreating (a real kubelet reports that while it creates it).
 */
import type { StoredObject } from "../api/meta.ts";
import type { ContainerLog, LogLine, PodLogSource } from "../apiserver/context.ts";
import { type ApiError, badRequest } from "../machinery/errors.ts";
import type { Container, ContainerState, ContainerStatus } from "./types.ts";
import { podSpec, podStatus } from "./workload.ts";

export interface SimulatedLogOptions {
  /** How often a followed running container writes a line (default 1000 ms). */
  followIntervalMs?: number;
}

/** When each startup line is written, in ms after the instance started. */
const STARTUP_OFFSETS_MS = [0, 4, 17, 21] as const;

/** One container instance as the status describes it. */
interface Instance {
  /** 0 for the first run, restartCount for the current one. */
  number: number;
  id: string;
  startedAt: number;
  /** For a terminated instance. */
  exit?: { code: number; reason: string; finishedAt: number };
}

/** Ephemeral containers are not in the simulator's PodSpec type; read them as containers too. */
function specContainers(pod: StoredObject): Container[] {
  const spec = podSpec(pod);
  const ephemeral = Array.isArray(spec.ephemeralContainers) ? (spec.ephemeralContainers as Container[]) : [];
  return [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...ephemeral];
}

/** The kubelet looks in containerStatuses, then initContainerStatuses, then the ephemeral ones. */
function statusOf(pod: StoredObject, container: string): ContainerStatus | undefined {
  const status = podStatus(pod);
  const ephemeral = Array.isArray(status.ephemeralContainerStatuses)
    ? (status.ephemeralContainerStatuses as ContainerStatus[])
    : [];
  for (const list of [status.containerStatuses ?? [], status.initContainerStatuses ?? [], ephemeral]) {
    const found = list.find((s) => s.name === container);
    if (found) return found;
  }
  return undefined;
}

function timeOf(value: string | undefined, fallback: number): number {
  const ms = value ? Date.parse(value) : Number.NaN;
  return Number.isNaN(ms) ? fallback : ms;
}

/** When the pod started (its status, else its creation): the fallback for instance times. */
function podStartOf(pod: StoredObject): number {
  return timeOf(podStatus(pod).startTime, timeOf(pod.metadata.creationTimestamp ?? undefined, 0));
}

function terminatedInstance(
  pod: StoredObject,
  state: NonNullable<ContainerState["terminated"]>,
  number: number,
): Instance {
  const startedAt = timeOf(state.startedAt, podStartOf(pod));
  return {
    number,
    id: state.containerID ?? "",
    startedAt,
    exit: {
      code: state.exitCode,
      reason: state.reason ?? (state.exitCode === 0 ? "Completed" : "Error"),
      finishedAt: timeOf(state.finishedAt, startedAt),
    },
  };
}

function refused(container: string, pod: string, why: string): ApiError {
  return badRequest(`container "${container}" in pod "${pod}" ${why}`);
}

/** The kubelet's message for a container that is waiting to start. */
function waitingMessage(reason: string | undefined): string {
  switch (reason) {
    case "ErrImagePull":
      return "is waiting to start: image can't be pulled";
    case "ImagePullBackOff":
      return "is waiting to start: trying and failing to pull image";
    default:
      return `is waiting to start: ${reason ?? ""}`;
  }
}

/** Which instance the request reads (validateContainerLogStatus); throws the kubelet's 400. */
export function instanceToRead(pod: StoredObject, container: string, previous: boolean): Instance {
  const podName = pod.metadata.name;
  const s = statusOf(pod, container);
  if (!s) throw refused(container, podName, waitingMessage("ContainerCreating"));
  const last = s.lastState?.terminated;
  const lastNumber = Math.max(0, s.restartCount - 1);
  if (previous) {
    if (!last?.containerID) {
      throw badRequest(`previous terminated container "${container}" in pod "${podName}" not found`);
    }
    return terminatedInstance(pod, last, lastNumber);
  }
  const { running, terminated, waiting } = s.state ?? {};
  if (running) {
    return {
      number: s.restartCount,
      id: s.containerID ?? "",
      startedAt: timeOf(running.startedAt, podStartOf(pod)),
    };
  }
  if (terminated) {
    if (terminated.containerID) return terminatedInstance(pod, terminated, s.restartCount);
    if (last?.containerID) return terminatedInstance(pod, last, lastNumber);
    throw refused(container, podName, "is terminated");
  }
  if (last) {
    if (!last.containerID) throw refused(container, podName, "is terminated");
    return terminatedInstance(pod, last, lastNumber);
  }
  if (waiting) throw refused(container, podName, waitingMessage(waiting.reason));
  throw refused(container, podName, "is waiting to start - no logs yet");
}

/** The port the app says it listens on: the container's first port, else 8080. */
function portOf(spec: Container | undefined): number {
  return spec?.ports?.[0]?.containerPort ?? 8080;
}

/** What an instance wrote: startup lines, and an exit line once it terminated. */
export function instanceLines(pod: StoredObject, container: string, instance: Instance): LogLine[] {
  const spec = specContainers(pod).find((c) => c.name === container);
  const image = spec?.image ?? statusOf(pod, container)?.image ?? "";
  const ref = `${pod.metadata.namespace}/${pod.metadata.name}`;
  const texts = [
    `level=info msg="starting" pod=${ref} container=${container} image=${image} restartCount=${instance.number}`,
    `level=info msg="configuration loaded" container=${container}`,
    `level=info msg="listening" container=${container} port=${portOf(spec)}`,
    `level=info msg="ready" pod=${ref} container=${container}`,
  ];
  const lines = texts.map((text, i) => ({ time: instance.startedAt + STARTUP_OFFSETS_MS[i]!, text }));
  const exit = instance.exit;
  if (exit) {
    const level = exit.code === 0 ? "info" : "error";
    lines.push({
      // Never before the startup lines, even when the status says it finished within the second.
      time: Math.max(exit.finishedAt, lines[lines.length - 1]!.time + 1),
      text: `level=${level} msg="exiting" container=${container} exitCode=${exit.code} reason=${exit.reason}`,
    });
  }
  return lines;
}

/** The simulated kubelets' logs, for the member's API server (ServerContext.podLogs). */
export function simulatedPodLogs(opts: SimulatedLogOptions = {}): PodLogSource {
  return {
    followIntervalMs: opts.followIntervalMs ?? 1000,
    read(pod, container, previous): ContainerLog {
      const instance = instanceToRead(pod, container, previous);
      return {
        instance: instance.id,
        lines: instanceLines(pod, container, instance),
        running: instance.exit === undefined,
      };
    },
    next(pod, container, n, time): LogLine {
      const ref = `${pod.metadata.namespace}/${pod.metadata.name}`;
      return { time, text: `level=info msg="heartbeat" pod=${ref} container=${container} seq=${n}` };
    },
  };
}
