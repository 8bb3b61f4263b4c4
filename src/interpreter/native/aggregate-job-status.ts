/**
 * AggregateStatus for Jobs: the template Job finishes when every member's Job has completed, or
 * fails as soon as one member's Job failed; once finished its status is frozen.
 */
import type { KubeObject } from "../../api/meta.ts";
import type { AggregatedStatusItem } from "../../karmada/types.ts";
import { cloneJson } from "../../machinery/merge-patch.ts";
import { arrayAt, type JsonObject, numberAt, objectAt, putCount, stringAt, valueAt } from "./fields.ts";

type FinishedType = "Complete" | "Failed";

function conditionTrue(status: unknown, type: string): boolean {
  return arrayAt(status, "conditions").some(
    (c) => stringAt(c, "type") === type && stringAt(c, "status") === "True",
  );
}

/** The first Complete or Failed condition that is True. */
function finishedType(status: unknown): FinishedType | undefined {
  for (const c of arrayAt(status, "conditions")) {
    const type = stringAt(c, "type");
    if ((type === "Complete" || type === "Failed") && stringAt(c, "status") === "True") return type;
  }
  return undefined;
}

function timeAt(status: unknown, field: string): string | undefined {
  const v = valueAt(status, field);
  return typeof v === "string" && v !== "" ? v : undefined;
}

function before(a: string, b: string): boolean {
  return Date.parse(a) < Date.parse(b);
}

/** `metav1.Time` as it serializes: UTC, whole seconds. */
export function formatTime(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

function jobCondition(type: string, reason: string, message: string, now: string): JsonObject {
  return { type, status: "True", lastProbeTime: now, lastTransitionTime: now, reason, message };
}

/** What the members' Job statuses add up to. */
interface MemberTally {
  active: number;
  succeeded: number;
  failed: number;
  failedClusters: string[];
  completed: number;
  successCriteriaMet: number;
  started: number;
  earliestStart?: string;
  finished: number;
  latestCompletion?: string;
}

function tallyMembers(items: readonly AggregatedStatusItem[]): MemberTally {
  const tally: MemberTally = {
    active: 0,
    succeeded: 0,
    failed: 0,
    failedClusters: [],
    completed: 0,
    successCriteriaMet: 0,
    started: 0,
    finished: 0,
  };
  for (const item of items) {
    const status = item.status;
    if (!status) continue;
    tally.active += numberAt(status, "active");
    tally.succeeded += numberAt(status, "succeeded");
    tally.failed += numberAt(status, "failed");
    const finished = finishedType(status);
    if (finished === "Complete") tally.completed++;
    else if (finished === "Failed") tally.failedClusters.push(item.clusterName);
    if (conditionTrue(status, "SuccessCriteriaMet")) tally.successCriteriaMet++;
    const start = timeAt(status, "startTime");
    if (start !== undefined) {
      tally.started++;
      if (tally.earliestStart === undefined || before(start, tally.earliestStart))
        tally.earliestStart = start;
    }
    const completion = timeAt(status, "completionTime");
    if (completion !== undefined) {
      tally.finished++;
      if (tally.latestCompletion === undefined || before(tally.latestCompletion, completion)) {
        tally.latestCompletion = completion;
      }
    }
  }
  return tally;
}

/**
 * Failed as soon as one member failed; Complete (and SuccessCriteriaMet) once all have. Items
 * without a status count against "all": a Job some member has not reported on is not complete.
 */
function finishConditions(tally: MemberTally, memberCount: number, now: string): JsonObject[] {
  const conditions: JsonObject[] = [];
  if (tally.failedClusters.length > 0) {
    const message = `Job executed failed in member clusters ${tally.failedClusters.join(",")}`;
    conditions.push(jobCondition("Failed", "JobFailed", message, now));
  }
  if (tally.completed > 0 && tally.completed === memberCount) {
    conditions.push(jobCondition("Complete", "Completed", "Job completed", now));
    if (tally.successCriteriaMet === memberCount) {
      const message = "All member clusters have met success criteria";
      conditions.push(jobCondition("SuccessCriteriaMet", "CompletionsReached", message, now));
    }
  }
  return conditions;
}

export function aggregateJobStatus(
  template: KubeObject,
  items: readonly AggregatedStatusItem[],
  now: () => Date,
): KubeObject {
  const previous = objectAt(template, "status") ?? {};
  if (finishedType(previous)) return cloneJson(template);

  const tally = tallyMembers(items);
  const status: JsonObject = {};
  const conditions = finishConditions(tally, items.length, formatTime(now()));
  if (conditions.length > 0) status.conditions = conditions;
  // The start time is set once, when every member has started.
  const startTime =
    timeAt(previous, "startTime") ??
    (tally.started > 0 && tally.started === items.length ? tally.earliestStart : undefined);
  if (startTime !== undefined) status.startTime = startTime;
  if (tally.latestCompletion !== undefined && tally.finished === items.length) {
    status.completionTime = tally.latestCompletion;
  }
  putCount(status, "active", tally.active);
  putCount(status, "succeeded", tally.succeeded);
  putCount(status, "failed", tally.failed);
  return { ...structuredClone(template), status };
}
