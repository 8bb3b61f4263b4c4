/**
 * The Job controller: runs pods up to `parallelism` until `completions` succeeded (NonIndexed
 * or Indexed, with `batch.kubernetes.io/job-completion-index`), counts failures against
 * `backoffLimit`, honours `activeDeadlineSeconds` and `suspend`, and writes status as 1.32
 * does: startTime, active, ready, terminating, succeeded, failed, completedIndexes,
 * uncountedTerminatedPods, completionTime, and the conditions SuccessCriteriaMet + Complete
 * (reason CompletionsReached) or FailureTarget + Failed (BackoffLimitExceeded /
 * DeadlineExceeded), Suspended.
 *
 * Simplified: no pod tracking finalizers, no pod failure policy or success policy, no
 * backoff delay between retries, no backoffLimitPerIndex.
 */
import type { KubeObject, StoredObject } from "../api/meta.ts";
import { RESOURCES } from "../client/client.ts";
import { findCondition, isConditionTrue } from "../machinery/conditions.ts";
import type { Controller } from "../runtime/controller.ts";
import { commitStatus, createPods, deletePods } from "./commit.ts";
import { setWorkloadCondition } from "./conditions.ts";
import type { Sim } from "./context.ts";
import type { BuiltinCondition, PodTemplateSpec } from "./types.ts";
import {
  BY_CONTROLLER,
  controllerKey,
  isReady,
  isTerminal,
  podFromTemplate,
  podStatus,
  timestamp,
} from "./workload.ts";

export const COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index";

interface JobSpec {
  parallelism?: number;
  completions?: number | null;
  backoffLimit?: number;
  activeDeadlineSeconds?: number;
  completionMode?: "NonIndexed" | "Indexed";
  suspend?: boolean;
  template?: PodTemplateSpec;
}

interface JobStatus {
  conditions?: BuiltinCondition[];
  startTime?: string;
  completionTime?: string;
  [field: string]: unknown;
}

export function isJobFinished(job: StoredObject): boolean {
  const conditions = ((job.status ?? {}) as JobStatus).conditions;
  return isConditionTrue(conditions, "Complete") || isConditionTrue(conditions, "Failed");
}

function jobCondition(
  type: string,
  status: "True" | "False",
  reason: string,
  message: string,
  now: string,
): BuiltinCondition {
  return { type, status, reason, message, lastProbeTime: now, lastTransitionTime: now };
}

function indexOf(pod: StoredObject): number | undefined {
  const v = pod.metadata.annotations?.[COMPLETION_INDEX];
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined;
}

/** `1,3-5,7` from sorted indexes. */
export function formatIndexes(indexes: number[]): string {
  const sorted = [...new Set(indexes)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(",");
}

/** The Job's pods, counted. */
interface PodCounts {
  all: StoredObject[];
  active: StoredObject[];
  succeeded: StoredObject[];
  failed: number;
  /** Succeeded completions: distinct indexes for Indexed Jobs. */
  completions: number;
}

function countPods(all: StoredObject[], indexed: boolean): PodCounts {
  const active = all.filter((p) => !isTerminal(p) && !p.metadata.deletionTimestamp);
  const succeeded = all.filter((p) => podStatus(p).phase === "Succeeded");
  return {
    all,
    active,
    succeeded,
    failed: all.filter((p) => podStatus(p).phase === "Failed").length,
    completions: indexed
      ? new Set(succeeded.map(indexOf).filter((i) => i !== undefined)).size
      : succeeded.length,
  };
}

/** Why the Job fails now, if it does: too many failures, or past its active deadline. */
export function jobFailure(
  spec: JobSpec,
  counts: PodCounts,
  elapsedMs: number,
): { reason: string; message: string } | undefined {
  if (counts.failed > (spec.backoffLimit ?? 6)) {
    return { reason: "BackoffLimitExceeded", message: "Job has reached the specified backoff limit" };
  }
  const deadline = spec.activeDeadlineSeconds;
  if (deadline !== undefined && elapsedMs >= deadline * 1000) {
    return { reason: "DeadlineExceeded", message: "Job was active longer than specified deadline" };
  }
  return undefined;
}

/** How many pods should run now. */
export function wantedActive(spec: JobSpec, counts: PodCounts): number {
  const parallelism = spec.parallelism ?? 1;
  const completions = spec.completions ?? null;
  return completions === null
    ? parallelism
    : Math.max(0, Math.min(parallelism, completions - counts.completions));
}

function isComplete(spec: JobSpec, counts: PodCounts): boolean {
  const completions = spec.completions ?? null;
  return completions !== null
    ? counts.completions >= completions
    : counts.completions > 0 && counts.active.length === 0;
}

/** New pods (for Indexed Jobs, the lowest free indexes). */
function newPods(job: StoredObject, counts: PodCounts, n: number): KubeObject[] {
  const spec = (job.spec ?? {}) as JobSpec;
  const taken = new Set([...counts.active, ...counts.succeeded].map(indexOf));
  const out: KubeObject[] = [];
  let next = 0;
  for (let i = 0; i < n; i++) {
    if (spec.completionMode !== "Indexed") {
      out.push(podFromTemplate(spec.template, job));
      continue;
    }
    while (taken.has(next)) next++;
    taken.add(next);
    const index = String(next);
    out.push(
      podFromTemplate(spec.template, job, {
        generateName: `${job.metadata.name}-${index}-`,
        labels: { [COMPLETION_INDEX]: index },
        annotations: { [COMPLETION_INDEX]: index },
      }),
    );
  }
  return out;
}

export function jobStatus(
  job: StoredObject,
  counts: PodCounts,
  fields: {
    conditions: BuiltinCondition[];
    startTime: string | undefined;
    completionTime: string | undefined;
  },
): Record<string, unknown> {
  const indexed = ((job.spec ?? {}) as JobSpec).completionMode === "Indexed";
  const indexes = counts.succeeded.map(indexOf).filter((i): i is number => i !== undefined);
  return {
    ...(fields.conditions.length > 0 ? { conditions: fields.conditions } : {}),
    ...(fields.startTime ? { startTime: fields.startTime } : {}),
    ...(fields.completionTime ? { completionTime: fields.completionTime } : {}),
    ...(counts.active.length > 0 ? { active: counts.active.length } : {}),
    ...(counts.succeeded.length > 0 ? { succeeded: counts.succeeded.length } : {}),
    ...(counts.failed > 0 ? { failed: counts.failed } : {}),
    ...(indexed && indexes.length > 0 ? { completedIndexes: formatIndexes(indexes) } : {}),
    terminating: counts.all.filter((p) => p.metadata.deletionTimestamp && !isTerminal(p)).length,
    ready: counts.active.filter(isReady).length,
    uncountedTerminatedPods: {},
  };
}

export function jobController(sim: Sim): Controller {
  const { jobs, pods } = sim.informers;
  const owned = (job: StoredObject): PodCounts =>
    countPods(
      pods.byIndex(BY_CONTROLLER, job.metadata.uid),
      ((job.spec ?? {}) as JobSpec).completionMode === "Indexed",
    );

  /** One step of a running (not finished, not suspended) Job; returns its new conditions. */
  const run = async (
    job: StoredObject,
    conditions: BuiltinCondition[],
    startTime: string,
  ): Promise<{ conditions: BuiltinCondition[]; done?: string; requeue?: number }> => {
    const spec = (job.spec ?? {}) as JobSpec;
    const nowMs = sim.now();
    const now = timestamp(nowMs);
    const counts = owned(job);
    const elapsed = nowMs - Date.parse(startTime);
    const failure = jobFailure(spec, counts, elapsed);
    if (failure) {
      await deletePods(sim, counts.active);
      sim.events.event(job, "Warning", failure.reason, failure.message);
      return {
        conditions: setWorkloadCondition(
          setWorkloadCondition(
            conditions,
            jobCondition("FailureTarget", "True", failure.reason, failure.message, now),
          ),
          jobCondition("Failed", "True", failure.reason, failure.message, now),
        ),
      };
    }
    if (isComplete(spec, counts)) {
      const msg = "Reached expected number of succeeded pods";
      await deletePods(sim, counts.active);
      sim.events.event(job, "Normal", "Completed", "Job completed");
      return {
        conditions: setWorkloadCondition(
          setWorkloadCondition(
            conditions,
            jobCondition("SuccessCriteriaMet", "True", "CompletionsReached", msg, now),
          ),
          jobCondition("Complete", "True", "CompletionsReached", msg, now),
        ),
        done: now,
      };
    }
    const want = wantedActive(spec, counts);
    if (counts.active.length < want) {
      await createPods(sim, job, newPods(job, counts, want - counts.active.length), (p) => [
        "SuccessfulCreate",
        `Created pod: ${p.metadata.name}`,
      ]);
    } else if (counts.active.length > want) {
      await deletePods(sim, counts.active.slice(want));
    }
    const deadline = spec.activeDeadlineSeconds;
    return deadline === undefined
      ? { conditions }
      : { conditions, requeue: Math.max(1, Math.min(deadline * 1000 - elapsed, sim.timing.syncPeriodMs)) };
  };

  return {
    name: "job",
    for: jobs,
    watches: [{ informer: pods, map: (pod) => controllerKey(pod, "Job") }],
    async reconcile(_ctx, key) {
      const job = jobs.getByKey(key);
      if (!job || job.metadata.deletionTimestamp) return undefined;
      const spec = (job.spec ?? {}) as JobSpec;
      const old = (job.status ?? {}) as JobStatus;
      const now = timestamp(sim.now());
      let conditions = old.conditions ?? [];
      let startTime = old.startTime;
      let completionTime = old.completionTime;
      let requeue: number | undefined;
      if (!isJobFinished(job) && spec.suspend) {
        await deletePods(sim, owned(job).active);
        conditions = setWorkloadCondition(
          conditions,
          jobCondition("Suspended", "True", "JobSuspended", "Job suspended", now),
        );
        startTime = undefined;
      } else if (!isJobFinished(job)) {
        if (findCondition(conditions, "Suspended")?.status === "True") {
          conditions = setWorkloadCondition(
            conditions,
            jobCondition("Suspended", "False", "JobResumed", "Job resumed", now),
          );
        }
        startTime ??= now;
        const step = await run(job, conditions, startTime);
        conditions = step.conditions;
        completionTime = step.done ?? completionTime;
        requeue = step.requeue;
      }
      const latest = jobs.getByKey(key) ?? job;
      await commitStatus(
        sim,
        RESOURCES.jobs,
        jobs,
        latest,
        jobStatus(latest, owned(job), { conditions, startTime, completionTime }),
      );
      return requeue !== undefined ? { requeueAfterMs: requeue } : undefined;
    },
  };
}
