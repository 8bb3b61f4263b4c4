/**
 * The oracle of the flapping, slow-member and partition trials, as pure functions over what
 * the trial recorded: when the member was down (the faults it set), the evictions it saw in
 * the bindings, the member objects' uids before and after, the eviction tasks' ages.
 *
 * What an eviction needs, as the control plane is built (ADR 0008): the member fails for the
 * failure threshold before Ready turns False; Ready stays not-True for
 * `--failover-eviction-timeout` before the NoExecute taint; the binding's toleration of that
 * taint runs out `tolerationSeconds` after the taint's `timeAdded`. A return shorter than the
 * success threshold does not make the member Ready again, so downs separated by such returns
 * count as one trouble. The windows below are computed from the fault timeline with slack
 * that only ever allows more (timestamps in whole seconds, probe periods, informer lag), so a
 * violation is a real one.
 */

export interface Interval {
  /** ms since the trial began. */
  from: number;
  to: number;
}

/** The control plane's settings the oracle reasons with. */
export interface HealthTimings {
  failureThresholdMs: number;
  successThresholdMs: number;
  /** `--cluster-status-update-frequency`. */
  statusPeriodMs: number;
  /** `--failover-eviction-timeout`. */
  evictionTimeoutMs: number;
}

/**
 * Slack for the earliest eviction: `timeAdded` of a taint is written in whole seconds, so a
 * toleration may seem to run out up to a second early; plus a little for clock reads.
 */
export const EARLY_SLACK_MS = 1_250;
/** Slack after a trouble ends: the probe that sees the member back, informer lag, pacing. */
export const LATE_SLACK_MS = 5_000;

/** What may be evicted from a cluster: a workload with its toleration, or nothing. */
export type Allowance =
  /** A workload; `tolerationSeconds` undefined: its tolerations carry no seconds (tolerated for good). */
  | { kind: "workload"; tolerationSeconds: number | undefined }
  /** ConfigMaps, Secrets and other non-workloads are never evicted (ADR 0008, decision 1). */
  | { kind: "configuration" };

/**
 * The member's troubles: its down intervals (sorted), those separated by a return too short
 * to make it Ready again merged into one.
 */
export function troubledSpans(down: readonly Interval[], t: HealthTimings): Interval[] {
  const sorted = [...down].sort((a, b) => a.from - b.from);
  // A return must last the success threshold as the probes see it: up to two periods more.
  const healing = t.successThresholdMs + 2 * t.statusPeriodMs + 1_000;
  const spans: Interval[] = [];
  for (const d of sorted) {
    const last = spans[spans.length - 1];
    if (last && d.from - last.to < healing) last.to = Math.max(last.to, d.to);
    else spans.push({ ...d });
  }
  return spans;
}

/** When, within a trouble, a workload with this toleration may be evicted (undefined: never). */
export function evictionWindow(
  span: Interval,
  tolerationSeconds: number | undefined,
  t: HealthTimings,
): Interval | undefined {
  if (tolerationSeconds === undefined) return undefined;
  const from =
    span.from + t.failureThresholdMs + t.evictionTimeoutMs + tolerationSeconds * 1000 - EARLY_SLACK_MS;
  const to = span.to + t.successThresholdMs + 2 * t.statusPeriodMs + LATE_SLACK_MS;
  return from <= to ? { from, to } : undefined;
}

export interface ObservedEviction {
  /** `namespace/name` of the binding. */
  binding: string;
  cluster: string;
  /** ms since the trial began, as the trial saw the binding change. */
  at: number;
  /** The eviction task came with it (the taint manager's way); otherwise the cluster just left. */
  withTask: boolean;
}

/** Each eviction the fault timeline and the binding's allowance cannot explain, in words. */
export function unexplainedEvictions(
  evictions: readonly ObservedEviction[],
  downByCluster: Readonly<Record<string, readonly Interval[]>>,
  allowance: (binding: string) => Allowance | undefined,
  t: HealthTimings,
): string[] {
  const out: string[] = [];
  for (const e of evictions) {
    const what = `${e.binding} left ${e.cluster} at ${secs(e.at)}`;
    const allowed = allowance(e.binding);
    if (!allowed) {
      out.push(`${what}: a binding the trial did not make`);
      continue;
    }
    if (allowed.kind === "configuration") {
      out.push(`${what}: configuration is never evicted`);
      continue;
    }
    if (!e.withTask) {
      out.push(`${what} without an eviction task: nothing but an eviction may take a cluster away`);
      continue;
    }
    if (allowed.tolerationSeconds === undefined) {
      out.push(`${what}: its tolerations have no seconds, it is tolerated for good`);
      continue;
    }
    const spans = troubledSpans(downByCluster[e.cluster] ?? [], t);
    const windows = spans.flatMap((s) => evictionWindow(s, allowed.tolerationSeconds, t) ?? []);
    if (!windows.some((w) => e.at >= w.from && e.at <= w.to)) {
      const longest = spans.reduce((m, s) => Math.max(m, s.to - s.from), 0);
      out.push(
        `${what} (toleration ${allowed.tolerationSeconds}s): no trouble long enough before it ` +
          `(needs ${secs(t.failureThresholdMs + t.evictionTimeoutMs + allowed.tolerationSeconds * 1000)}` +
          ` down; longest trouble ${secs(longest)})`,
      );
    }
  }
  return out;
}

/**
 * The eviction rate limit (`--resource-eviction-rate`, burst 1): any k+1 evictions span at
 * least k intervals, less the slack of observing them. Returns the violations and the busiest
 * second seen.
 */
export function evictionPace(
  times: readonly number[],
  ratePerSecond: number,
  slackMs: number,
): { violations: string[]; maxInOneSecond: number; closestMs: number | undefined } {
  const sorted = [...times].sort((a, b) => a - b);
  const interval = 1000 / ratePerSecond;
  const violations: string[] = [];
  let maxInOneSecond = 0;
  let closestMs: number | undefined;
  for (let i = 0; i < sorted.length; i++) {
    if (i > 0) closestMs = Math.min(closestMs ?? Number.POSITIVE_INFINITY, sorted[i]! - sorted[i - 1]!);
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1]! - sorted[i]! < 1000) j++;
    maxInOneSecond = Math.max(maxInOneSecond, j - i + 1);
    for (let k = i + 1; k < sorted.length; k++) {
      const needed = (k - i) * interval - slackMs;
      if (sorted[k]! - sorted[i]! < needed) {
        violations.push(
          `${k - i + 1} evictions within ${secs(sorted[k]! - sorted[i]!)} from ${secs(sorted[i]!)}: ` +
            `the rate ${ratePerSecond}/s allows them no closer than ${secs(needed + slackMs)}`,
        );
        break;
      }
    }
  }
  return { violations: dedupe(violations), maxInOneSecond, closestMs };
}

/** A member object's identity: `kind namespace/name` → uid. */
export type Uids = ReadonlyMap<string, string>;

/** Objects gone or re-created on a member between two looks, and those that should not have been. */
export function memberObjectChanges(
  before: Uids,
  after: Uids,
  mayChange: (key: string) => boolean,
): { deleted: string[]; recreated: string[]; violations: string[] } {
  const deleted: string[] = [];
  const recreated: string[] = [];
  const violations: string[] = [];
  for (const [key, uid] of before) {
    const now = after.get(key);
    if (now === uid) continue;
    (now === undefined ? deleted : recreated).push(key);
    if (!mayChange(key)) {
      violations.push(
        now === undefined
          ? `${key} was deleted on the member, and nothing allowed it`
          : `${key} was re-created on the member (uid ${uid} → ${now}), and nothing allowed it`,
      );
    }
  }
  return { deleted, recreated, violations };
}

export interface EvictionTaskSeen {
  binding: string;
  cluster: string;
  /** ms since the trial began: when the trial first saw the task. */
  firstSeen: number;
}

/** Tasks still in a binding past their bound (the graceful eviction timeout, plus slack). */
export function overdueTasks(
  tasks: readonly EvictionTaskSeen[],
  now: number,
  timeoutMs: number,
  slackMs: number,
): string[] {
  return tasks
    .filter((task) => now - task.firstSeen > timeoutMs + slackMs)
    .map(
      (task) =>
        `${task.binding}: the eviction task of ${task.cluster} seen at ${secs(task.firstSeen)} is still there at ${secs(now)} (bound ${secs(timeoutMs + slackMs)})`,
    );
}

/**
 * A flapping schedule: down and up in turns for `durationMs` (each length from `nextDown` and
 * `nextUp`, seeded by the caller), starting with a down; the last down ends by `durationMs`.
 */
export function flapSchedule(durationMs: number, nextDown: () => number, nextUp: () => number): Interval[] {
  const out: Interval[] = [];
  let at = 0;
  while (at < durationMs) {
    const to = Math.min(durationMs, at + nextDown());
    out.push({ from: at, to });
    at = to + nextUp();
  }
  return out;
}

function secs(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

function dedupe(lines: string[]): string[] {
  return [...new Set(lines)];
}
