/**
 * The Pod table: READY, STATUS and RESTARTS summarise container statuses the way kubectl users know
 * (`Init:0/2`, `CrashLoopBackOff`, `Completed`, `Terminating`, `3 (5m ago)`).
 */

import { humanDuration, timestampOf } from "./age.ts";
import { AGE_COLUMN, ageOf, column, fieldColumn, NAME_COLUMN, nameOf } from "./cells.ts";
import { at, bool, has, int, isObject, list, str } from "./read.ts";
import type { Cell, KindPrinter, KubeObject, TableRowCondition } from "./types.ts";

const SUCCEEDED: TableRowCondition[] = [
  { type: "Completed", status: "True", reason: "Succeeded", message: "The pod has completed successfully." },
];
const FAILED: TableRowCondition[] = [
  { type: "Completed", status: "True", reason: "Failed", message: "The pod failed." },
];

/** A sidecar: an init container that keeps running (`restartPolicy: Always`). */
function isRestartable(container: unknown): boolean {
  return str(container, "restartPolicy") === "Always";
}

/** When a container last terminated, or null. */
function lastTerminated(status: unknown): number | null {
  return timestampOf(at(status, "lastState", "terminated", "finishedAt")) ?? null;
}

function later(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.max(a, b);
}

function conditionStatus(pod: KubeObject, type: string): string | undefined {
  const found = list(pod, "status", "conditions").find((c) => str(c, "type") === type);
  return found === undefined ? undefined : str(found, "status");
}

function terminatedReason(terminated: unknown, prefix: string): string {
  const reason = str(terminated, "reason");
  if (reason !== "") return prefix + reason;
  const signal = int(terminated, "signal");
  return signal !== 0 ? `${prefix}Signal:${signal}` : `${prefix}ExitCode:${int(terminated, "exitCode")}`;
}

interface PodSummary {
  ready: number;
  total: number;
  reason: string;
  restarts: number;
  lastRestart: number | null;
}

/** Running totals while walking container statuses; sidecar restarts also count once init is over. */
interface Counts {
  ready: number;
  restarts: number;
  lastRestart: number | null;
  sidecarRestarts: number;
  lastSidecarRestart: number | null;
}

/** The status text of the first init container still initializing (`Init:1/2`, `Init:Error`), if any. */
function initializingReason(pod: KubeObject, counts: Counts): string | undefined {
  const initContainers = new Map(list(pod, "spec", "initContainers").map((c) => [str(c, "name"), c]));
  for (const [i, status] of list(pod, "status", "initContainerStatuses").entries()) {
    counts.restarts += int(status, "restartCount");
    counts.lastRestart = later(counts.lastRestart, lastTerminated(status));
    const sidecar = isRestartable(initContainers.get(str(status, "name")));
    if (sidecar) {
      counts.sidecarRestarts += int(status, "restartCount");
      counts.lastSidecarRestart = later(counts.lastSidecarRestart, lastTerminated(status));
    }
    const terminated = at(status, "state", "terminated");
    if (isObject(terminated) && int(terminated, "exitCode") === 0) continue;
    if (sidecar && bool(status, "started")) {
      if (bool(status, "ready")) counts.ready++;
      continue;
    }
    if (isObject(terminated)) return terminatedReason(terminated, "Init:");
    const waitingReason = str(status, "state", "waiting", "reason");
    if (waitingReason !== "" && waitingReason !== "PodInitializing") return `Init:${waitingReason}`;
    return `Init:${i}/${initContainers.size}`;
  }
  return undefined;
}

/** The status text from the app containers, the last one with something to say winning. */
function containersReason(pod: KubeObject, counts: Counts, reason: string): string {
  counts.restarts = counts.sidecarRestarts;
  counts.lastRestart = counts.lastSidecarRestart;
  let hasRunning = false;
  const statuses = list(pod, "status", "containerStatuses");
  for (let i = statuses.length - 1; i >= 0; i--) {
    const status = statuses[i];
    counts.restarts += int(status, "restartCount");
    counts.lastRestart = later(counts.lastRestart, lastTerminated(status));
    const waitingReason = str(status, "state", "waiting", "reason");
    const terminated = at(status, "state", "terminated");
    if (waitingReason !== "") {
      reason = waitingReason;
    } else if (isObject(terminated)) {
      reason = terminatedReason(terminated, "");
    } else if (bool(status, "ready") && has(status, "state", "running")) {
      hasRunning = true;
      counts.ready++;
    }
  }
  // A pod whose last container completed while another still runs is not "Completed".
  if (reason === "Completed" && hasRunning) {
    return conditionStatus(pod, "Ready") === "True" ? "Running" : "NotReady";
  }
  return reason;
}

function summarize(pod: KubeObject): PodSummary {
  const phase = str(pod, "status", "phase");
  let reason = str(pod, "status", "reason") || phase;
  const gated = list(pod, "status", "conditions").some(
    (c) => str(c, "type") === "PodScheduled" && str(c, "reason") === "SchedulingGated",
  );
  if (gated) reason = "SchedulingGated";

  const sidecars = list(pod, "spec", "initContainers").filter(isRestartable).length;
  const total = list(pod, "spec", "containers").length + sidecars;
  const counts: Counts = {
    ready: 0,
    restarts: 0,
    lastRestart: null,
    sidecarRestarts: 0,
    lastSidecarRestart: null,
  };
  const initializing = initializingReason(pod, counts);
  if (initializing !== undefined) reason = initializing;
  if (initializing === undefined || conditionStatus(pod, "Initialized") === "True") {
    reason = containersReason(pod, counts, reason);
  }

  if (has(pod, "metadata", "deletionTimestamp")) {
    if (str(pod, "status", "reason") === "NodeLost") reason = "Unknown";
    else if (phase !== "Succeeded" && phase !== "Failed") reason = "Terminating";
  }
  return { ready: counts.ready, total, reason, restarts: counts.restarts, lastRestart: counts.lastRestart };
}

function readinessGates(pod: KubeObject): string {
  const gates = list(pod, "spec", "readinessGates");
  if (gates.length === 0) return "<none>";
  const conditions = list(pod, "status", "conditions");
  let passing = 0;
  for (const gate of gates) {
    const found = conditions.find((c) => str(c, "type") === str(gate, "conditionType"));
    if (found !== undefined && str(found, "status") === "True") passing++;
  }
  return `${passing}/${gates.length}`;
}

export const podPrinter: KindPrinter = {
  columns: [
    NAME_COLUMN,
    column("Ready", "string", "The aggregate readiness state of this pod for accepting traffic."),
    column("Status", "string", "The aggregate status of the containers in this pod."),
    column(
      "Restarts",
      "string",
      "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.",
    ),
    AGE_COLUMN,
    fieldColumn("IP", "string", "PodStatus.podIP", { priority: 1 }),
    fieldColumn("Node", "string", "PodSpec.nodeName", { priority: 1 }),
    fieldColumn("Nominated Node", "string", "PodStatus.nominatedNodeName", { priority: 1 }),
    fieldColumn("Readiness Gates", "string", "PodSpec.readinessGates", { priority: 1 }),
  ],
  row(pod, now): Cell[] {
    const s = summarize(pod);
    const restarts =
      s.restarts !== 0 && s.lastRestart !== null
        ? `${s.restarts} (${humanDuration(now - s.lastRestart)} ago)`
        : String(s.restarts);
    // podIPs mirrors podIP; older writers may set only the latter.
    const ip = str(list(pod, "status", "podIPs")[0], "ip") || str(pod, "status", "podIP");
    return [
      nameOf(pod),
      `${s.ready}/${s.total}`,
      s.reason,
      restarts,
      ageOf(pod, now),
      ip || "<none>",
      str(pod, "spec", "nodeName") || "<none>",
      str(pod, "status", "nominatedNodeName") || "<none>",
      readinessGates(pod),
    ];
  },
  conditions(pod) {
    const phase = str(pod, "status", "phase");
    if (phase === "Succeeded") return SUCCEEDED;
    if (phase === "Failed") return FAILED;
    return undefined;
  },
};
