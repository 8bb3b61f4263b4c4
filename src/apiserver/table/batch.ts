/** Printers of the `batch` kinds. */

import { humanDuration, timestampOf, translateTimestampSince } from "./age.ts";
import {
  AGE_COLUMN,
  ageOf,
  CONTAINERS_COLUMN,
  column,
  containerCells,
  fieldColumn,
  formatLabelSelector,
  IMAGES_COLUMN,
  NAME_COLUMN,
  nameOf,
} from "./cells.ts";
import { at, has, int, list, str } from "./read.ts";
import type { KindPrinter, KubeObject } from "./types.ts";

/** Whether the first condition of the type is True. */
function hasCondition(job: KubeObject, type: string): boolean {
  const found = list(job, "status", "conditions").find((c) => str(c, "type") === type);
  return found !== undefined && str(found, "status") === "True";
}

function jobStatus(job: KubeObject): string {
  if (hasCondition(job, "Complete")) return "Complete";
  if (hasCondition(job, "Failed")) return "Failed";
  if (has(job, "metadata", "deletionTimestamp")) return "Terminating";
  if (hasCondition(job, "Suspended")) return "Suspended";
  if (hasCondition(job, "FailureTarget")) return "FailureTarget";
  return "Running";
}

/** `succeeded/completions`; without completions, `succeeded/1`, or `succeeded/1 of parallelism` when parallel. */
function jobCompletions(job: KubeObject): string {
  const succeeded = int(job, "status", "succeeded");
  if (has(job, "spec", "completions")) return `${succeeded}/${int(job, "spec", "completions")}`;
  // The apiserver defaults an unset parallelism to 1.
  const parallelism = has(job, "spec", "parallelism") ? int(job, "spec", "parallelism") : 1;
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

/** From start to completion, or to now while running; empty before the job starts. */
function jobDuration(job: KubeObject, now: number): string {
  const start = timestampOf(at(job, "status", "startTime"));
  if (start === null || start === undefined) return "";
  const completion = timestampOf(at(job, "status", "completionTime"));
  return humanDuration((completion ?? now) - start);
}

export const jobPrinter: KindPrinter = {
  columns: [
    NAME_COLUMN,
    column("Status", "string", "Status of the job."),
    fieldColumn("Completions", "string", "JobStatus.succeeded"),
    column("Duration", "string", "Time required to complete the job."),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    fieldColumn("Selector", "string", "JobSpec.selector", { priority: 1 }),
  ],
  row(job, now) {
    const [names, images] = containerCells(list(job, "spec", "template", "spec", "containers"));
    return [
      nameOf(job),
      jobStatus(job),
      jobCompletions(job),
      jobDuration(job, now),
      ageOf(job, now),
      names,
      images,
      formatLabelSelector(at(job, "spec", "selector")),
    ];
  },
};

export const cronJobPrinter: KindPrinter = {
  columns: [
    NAME_COLUMN,
    fieldColumn("Schedule", "string", "CronJobSpec.schedule"),
    fieldColumn("Timezone", "string", "CronJobSpec.timeZone"),
    fieldColumn("Suspend", "boolean", "CronJobSpec.suspend"),
    fieldColumn("Active", "integer", "CronJobStatus.active"),
    fieldColumn("Last Schedule", "string", "CronJobStatus.lastScheduleTime"),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    fieldColumn("Selector", "string", "JobSpec.selector", { priority: 1 }),
  ],
  row(cronJob, now) {
    const jobSpec = at(cronJob, "spec", "jobTemplate", "spec");
    const [names, images] = containerCells(list(jobSpec, "template", "spec", "containers"));
    const lastSchedule = at(cronJob, "status", "lastScheduleTime");
    // The apiserver defaults an unset suspend to false.
    const suspend = at(cronJob, "spec", "suspend");
    return [
      nameOf(cronJob),
      str(cronJob, "spec", "schedule"),
      has(cronJob, "spec", "timeZone") ? str(cronJob, "spec", "timeZone") : "<none>",
      suspend === true ? "True" : "False",
      list(cronJob, "status", "active").length,
      has(cronJob, "status", "lastScheduleTime") ? translateTimestampSince(lastSchedule, now) : "<none>",
      ageOf(cronJob, now),
      names,
      images,
      formatLabelSelector(at(jobSpec, "selector")),
    ];
  },
};
