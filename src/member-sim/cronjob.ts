/**
 * The CronJob controller (v2): at each scheduled time (by the injected clock) it creates a
 * Job `<name>-<minutes since epoch>` from the job template, annotated with
 * `batch.kubernetes.io/cronjob-scheduled-timestamp`; honours suspend,
 * startingDeadlineSeconds and concurrencyPolicy (Allow, Forbid, Replace); keeps
 * status.active, lastScheduleTime and lastSuccessfulTime; deletes finished Jobs beyond
 * successfulJobsHistoryLimit / failedJobsHistoryLimit. Missed times collapse into the most
 * recent one, as upstream does. The clock is read at least every `syncPeriodMs`, so a test
 * that moves an injected clock sees Jobs appear within that.
 */
import type { KubeObject, StoredObject } from "../api/meta.ts";
import { RESOURCES } from "../client/client.ts";
import { isConditionTrue } from "../machinery/conditions.ts";
import { parseCron } from "../machinery/cron.ts";
import { deepEqual } from "../machinery/equality.ts";
import { isAlreadyExists, isNotFound } from "../machinery/errors.ts";
import { cloneJson } from "../machinery/merge-patch.ts";
import type { Controller } from "../runtime/controller.ts";
import type { Sim } from "./context.ts";
import type { ObjectReference } from "./types.ts";
import { BY_CONTROLLER, controllerKey, controllerRef, timestamp } from "./workload.ts";

export const SCHEDULED_TIMESTAMP = "batch.kubernetes.io/cronjob-scheduled-timestamp";
const MAX_MISSED = 100;

interface CronJobSpec {
  schedule?: string;
  timeZone?: string;
  startingDeadlineSeconds?: number;
  concurrencyPolicy?: "Allow" | "Forbid" | "Replace";
  suspend?: boolean;
  jobTemplate?: { metadata?: StoredObject["metadata"]; spec?: Record<string, unknown> };
  successfulJobsHistoryLimit?: number;
  failedJobsHistoryLimit?: number;
}

interface CronJobStatus {
  active?: ObjectReference[];
  lastScheduleTime?: string;
  lastSuccessfulTime?: string;
}

function jobConditions(job: StoredObject) {
  return (
    (job.status ?? {}) as { conditions?: Array<{ type: string; status: "True" | "False" | "Unknown" }> }
  ).conditions;
}

function finishedAs(job: StoredObject): "Complete" | "Failed" | undefined {
  if (isConditionTrue(jobConditions(job), "Complete")) return "Complete";
  if (isConditionTrue(jobConditions(job), "Failed")) return "Failed";
  return undefined;
}

/**
 * The latest schedule time in (earliest, now], and the next one after now; `missed` counts
 * the times in between (only up to MAX_MISSED + 1).
 */
export function scheduleTimes(
  schedule: string,
  timeZone: string | undefined,
  earliest: number,
  now: number,
): { latest?: number; next?: number; missed: number } {
  const parsed = parseCron(schedule, timeZone);
  if (parsed.error !== undefined) throw new Error(parsed.error);
  const s = parsed.schedule;
  let latest: number | undefined;
  let missed = 0;
  let t = s.next(earliest);
  while (t !== undefined && t <= now) {
    latest = t;
    if (++missed > MAX_MISSED) {
      // Too many to walk one by one: jump near now and find the last one before it.
      let probe = s.next(now - 60_000 * 60 * 24 * 366);
      while (probe !== undefined && probe <= now) {
        latest = probe;
        probe = s.next(probe);
      }
      return {
        ...(latest !== undefined ? { latest } : {}),
        ...(probe !== undefined ? { next: probe } : {}),
        missed,
      };
    }
    t = s.next(t);
  }
  return { ...(latest !== undefined ? { latest } : {}), ...(t !== undefined ? { next: t } : {}), missed };
}

function jobRef(job: StoredObject): ObjectReference {
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    name: job.metadata.name,
    namespace: job.metadata.namespace!,
    uid: job.metadata.uid,
    resourceVersion: job.metadata.resourceVersion!,
  };
}

/** The latest completion among the CronJob's finished Jobs (and what status already says). */
function lastSuccess(jobs: readonly StoredObject[], known: string | undefined): string | undefined {
  let last = known;
  for (const job of jobs) {
    const done = ((job.status ?? {}) as { completionTime?: string }).completionTime;
    if (finishedAs(job) === "Complete" && done && (!last || done > last)) last = done;
  }
  return last;
}

/** The Job a CronJob creates for a scheduled time. */
export function jobForSchedule(cj: StoredObject, scheduled: number): KubeObject {
  const template = ((cj.spec ?? {}) as CronJobSpec).jobTemplate ?? {};
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: {
      name: `${cj.metadata.name}-${Math.floor(scheduled / 60_000)}`,
      namespace: cj.metadata.namespace!,
      ...(template.metadata?.labels ? { labels: { ...template.metadata.labels } } : {}),
      annotations: { ...template.metadata?.annotations, [SCHEDULED_TIMESTAMP]: timestamp(scheduled) },
      ownerReferences: [controllerRef(cj)],
    },
    spec: cloneJson(template.spec ?? {}),
  };
}

export function cronJobController(sim: Sim): Controller {
  const { cronjobs, jobs } = sim.informers;

  const deleteJob = async (job: StoredObject): Promise<void> => {
    try {
      await sim.client.delete(RESOURCES.jobs, job.metadata.namespace, job.metadata.name, {
        propagationPolicy: "Background",
        preconditions: { uid: job.metadata.uid },
      });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  };

  /** Deletes the oldest finished Jobs beyond the history limits. */
  const cleanupHistory = async (spec: CronJobSpec, owned: readonly StoredObject[]): Promise<void> => {
    const byAge = (a: StoredObject, b: StoredObject) =>
      (a.metadata.creationTimestamp ?? "") < (b.metadata.creationTimestamp ?? "") ? -1 : 1;
    for (const [kind, limit] of [
      ["Complete", spec.successfulJobsHistoryLimit ?? 3],
      ["Failed", spec.failedJobsHistoryLimit ?? 1],
    ] as const) {
      const finished = owned.filter((j) => finishedAs(j) === kind).sort(byAge);
      for (const job of finished.slice(0, Math.max(0, finished.length - limit))) await deleteJob(job);
    }
  };

  /** Creates the Job of the latest missed schedule time, if any and allowed. */
  const fire = async (
    cj: StoredObject,
    running: readonly StoredObject[],
  ): Promise<{ created?: StoredObject; scheduled?: number; replaced: boolean; requeueMs: number }> => {
    const spec = (cj.spec ?? {}) as CronJobSpec;
    const now = sim.now();
    const lastSchedule = ((cj.status ?? {}) as CronJobStatus).lastScheduleTime;
    let earliest = Date.parse(lastSchedule ?? cj.metadata.creationTimestamp ?? "") || now;
    if (spec.startingDeadlineSeconds !== undefined)
      earliest = Math.max(earliest, now - spec.startingDeadlineSeconds * 1000);
    let times: ReturnType<typeof scheduleTimes>;
    try {
      times = scheduleTimes(spec.schedule ?? "", spec.timeZone, earliest, now);
    } catch (err) {
      sim.events.event(
        cj,
        "Warning",
        "UnparseableSchedule",
        `unparseable schedule: ${(err as Error).message}`,
      );
      return { replaced: false, requeueMs: sim.timing.syncPeriodMs };
    }
    if (times.missed > MAX_MISSED) {
      sim.events.event(
        cj,
        "Warning",
        "TooManyMissedTimes",
        `too many missed start times: ${times.missed}. Set or decrease .spec.startingDeadlineSeconds or check clock skew`,
      );
    }
    const requeueMs =
      times.next !== undefined
        ? Math.max(1, Math.min(times.next - now, sim.timing.syncPeriodMs))
        : sim.timing.syncPeriodMs;
    const policy = spec.concurrencyPolicy ?? "Allow";
    if (times.latest === undefined || (policy === "Forbid" && running.length > 0))
      return { replaced: false, requeueMs };
    if (policy === "Replace") for (const job of running) await deleteJob(job);
    const body = jobForSchedule(cj, times.latest);
    try {
      const created = await sim.client.create(RESOURCES.jobs, body);
      await sim.caughtUp(jobs, created);
      sim.events.event(cj, "Normal", "SuccessfulCreate", `Created job ${created.metadata.name}`);
      return { created, scheduled: times.latest, replaced: policy === "Replace", requeueMs };
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      return { scheduled: times.latest, replaced: policy === "Replace", requeueMs };
    }
  };

  return {
    name: "cronjob",
    for: cronjobs,
    watches: [{ informer: jobs, map: (job) => controllerKey(job, "CronJob") }],
    async reconcile(_ctx, key) {
      const cj = cronjobs.getByKey(key);
      if (!cj || cj.metadata.deletionTimestamp) return undefined;
      const spec = (cj.spec ?? {}) as CronJobSpec;
      const old = (cj.status ?? {}) as CronJobStatus;
      const owned = jobs.byIndex(BY_CONTROLLER, cj.metadata.uid).filter((j) => !j.metadata.deletionTimestamp);
      const running = owned.filter((j) => finishedAs(j) === undefined);
      await cleanupHistory(spec, owned);
      let active = running.map(jobRef);
      let lastSchedule = old.lastScheduleTime;
      let requeueMs = sim.timing.syncPeriodMs;
      if (!spec.suspend && spec.schedule) {
        const fired = await fire(cj, running);
        requeueMs = fired.requeueMs;
        if (fired.replaced) active = [];
        if (fired.created) active.push(jobRef(fired.created));
        if (fired.scheduled !== undefined) lastSchedule = timestamp(fired.scheduled);
      }
      const lastSuccessful = lastSuccess(owned, old.lastSuccessfulTime);
      const status: CronJobStatus = {
        ...(active.length > 0 ? { active } : {}),
        ...(lastSchedule ? { lastScheduleTime: lastSchedule } : {}),
        ...(lastSuccessful ? { lastSuccessfulTime: lastSuccessful } : {}),
      };
      const latest = cronjobs.getByKey(key) ?? cj;
      // Active references are compared by uid: their resourceVersions move with every Job write.
      const comparable = (st: CronJobStatus) => ({ ...st, active: st.active?.map((a) => a.uid) });
      if (!deepEqual(comparable((latest.status ?? {}) as CronJobStatus), comparable(status))) {
        await sim.caughtUp(
          cronjobs,
          await sim.client.updateStatus(RESOURCES.cronjobs, { ...latest, status }),
        );
      }
      return { requeueAfterMs: requeueMs };
    },
  };
}
