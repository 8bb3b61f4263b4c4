/**
 * Flapping members and partitions (issue K, item 2): three trials on a fresh `karmada up`
 * fleet each (control plane on SQLite, members as `karmada member-sim` processes, real TLS):
 *
 * - flapping member: member1 (Push) drops (fault unreachable) and returns at seeded intervals
 *   for two minutes, with workloads under policies with short, default (300 s), and
 *   secondless tolerations, with and without `failover.cluster`, and ConfigMaps;
 * - slow member: every request to member1 waits seconds (fault unreachable, mode slow) while
 *   new templates go to member2 and existing ones change;
 * - partition: member3 (Pull) is unreachable for everyone but its own administrator, whose
 *   credentials its agent runs with (fault unreachable, exceptUsers): the control plane cannot
 *   reach it, the agent can, and keeps renewing its Lease and applying Works.
 *
 * The oracle (flapping-oracle.ts) checks that no eviction happens beyond what the fault
 * timeline, the policies and their tolerations allow; that no member object is deleted or
 * re-created unless its workload was evicted from that member; that eviction tasks end within
 * the graceful eviction timeout; that evictions keep to `--resource-eviction-rate`; that
 * propagation to a healthy member does not stall behind a slow one; and that a partitioned Pull
 * member keeps its workloads and keeps receiving their updates.
 *
 * Direct entry: `npx tsx trials/flapping.ts [--seed N] [--only flapping|slow|partition]
 * [--flap-seconds S]`.
 */
import { pathToFileURL } from "node:url";
import { isObject, type StoredObject } from "../src/api/meta.ts";
import { type Client, RESOURCES, type ResourceRef } from "../src/client/client.ts";
import type { ControllerOptions } from "../src/controllers/context.ts";
import { isNotFound } from "../src/machinery/errors.ts";
import {
  type FlappingFleet,
  MEMBER_ADMIN_USER,
  type MemberName,
  startFlappingFleet,
} from "./flapping-fleet.ts";
import {
  BindingObserver,
  ClusterObserver,
  memberUids,
  sleep,
  templateOf,
  within,
} from "./flapping-observer.ts";
import {
  evictionPace,
  flapSchedule,
  type HealthTimings,
  type Interval,
  memberObjectChanges,
  overdueTasks,
  troubledSpans,
  unexplainedEvictions,
} from "./flapping-oracle.ts";
import {
  allowanceOf,
  configMapOf,
  createGroups,
  deploymentOf,
  expectedPlacement,
  type Group,
  groupOfTemplate,
  templatesOf,
} from "./flapping-workloads.ts";
import { mulberry32, type Random } from "./random.ts";
import type { TrialOptions, TrialRow } from "./types.ts";

export interface FlappingSettings {
  /** How long member1 flaps (default 120 s). */
  flapMs: number;
  /** How long member1 is slow (default 45 s), and how slow each request is (default 2 s). */
  slowMs: number;
  slowDelayMs: number;
  /** How long member3 is partitioned (default 45 s). */
  partitionMs: number;
  /** Which trials run: those whose row name contains this ("flapping member", "slow", "partition"; default all). */
  only?: string;
}

export const DEFAULT_FLAPPING_SETTINGS: FlappingSettings = {
  flapMs: 120_000,
  slowMs: 45_000,
  slowDelayMs: 2_000,
  partitionMs: 45_000,
};

/**
 * The control plane's settings in these trials: short thresholds so that two minutes hold
 * several would-be failovers (upstream's defaults are 30 s, 30 s, 5 m, 10 m), and a
 * one-per-second eviction rate (`--resource-eviction-rate`, default 0.5).
 */
const CONTROLLER_OPTIONS: Partial<ControllerOptions> = {
  clusterStatusUpdateFrequencyMs: 500,
  clusterFailureThresholdMs: 3_000,
  clusterSuccessThresholdMs: 3_000,
  failoverEvictionTimeoutMs: 4_000,
  resourceEvictionRate: 1,
  gracefulEvictionTimeoutMs: 20_000,
  clusterMonitorPeriodMs: 1_000,
  clusterMonitorGracePeriodMs: 10_000,
  clusterLeaseDurationMs: 10_000,
};
const TIMINGS: HealthTimings = {
  failureThresholdMs: CONTROLLER_OPTIONS.clusterFailureThresholdMs!,
  successThresholdMs: CONTROLLER_OPTIONS.clusterSuccessThresholdMs!,
  statusPeriodMs: CONTROLLER_OPTIONS.clusterStatusUpdateFrequencyMs!,
  evictionTimeoutMs: CONTROLLER_OPTIONS.failoverEvictionTimeoutMs!,
};
const EVICTION_RATE = CONTROLLER_OPTIONS.resourceEvictionRate!;
const TASK_BOUND_MS = CONTROLLER_OPTIONS.gracefulEvictionTimeoutMs!;
/** Observing an eviction (a watch event) may be late by this much; a task's end too. */
const OBSERVATION_SLACK_MS = 800;
const TASK_SLACK_MS = 5_000;
/** Propagation to a healthy member slower than this stalled. */
const STALL_BOUND_MS = 30_000;
const SETTLE_MS = 90_000;
const BASELINE_MS = 10_000;
const KINDS = [RESOURCES.deployments, RESOURCES.configmaps];

/** The rows' names (`only` picks the trials whose name contains it). */
export const FLAPPING_ROW = "flapping member (Push)";
export const SLOW_ROW = "slow member (Push)";
export const PARTITION_ROW = "partition (Pull, agent alive)";

interface Trial {
  trial: string;
  violations: string[];
  figures: Record<string, string | number>;
}

const ms = (n: number | undefined): string => (n === undefined ? "-" : `${(n / 1000).toFixed(1)}s`);

function percentile(values: readonly number[], p: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** The templates of the groups missing on a member their policy names: `Kind ns/name on member`. */
async function misplaced(
  fleet: FlappingFleet,
  namespace: string,
  groups: readonly Group[],
): Promise<string[]> {
  const uids: Partial<Record<string, Map<string, string>>> = {};
  const missing: string[] = [];
  for (const [key, clusters] of expectedPlacement(namespace, groups)) {
    for (const c of clusters) {
      uids[c] ??= await memberUids(fleet.members[c as MemberName], namespace, KINDS);
      if (!uids[c]!.has(key)) missing.push(`${key} on ${c}`);
    }
  }
  return missing;
}

async function placed(fleet: FlappingFleet, namespace: string, groups: readonly Group[]): Promise<boolean> {
  return (await misplaced(fleet, namespace, groups)).length === 0;
}

/** After the trouble: every copy back where its policy puts it, within the settle time. */
async function placedAgain(
  fleet: FlappingFleet,
  namespace: string,
  groups: readonly Group[],
): Promise<string[]> {
  if ((await within(() => placed(fleet, namespace, groups), SETTLE_MS, 1_000)) !== undefined) return [];
  const missing = await misplaced(fleet, namespace, groups);
  return missing.map((m) => `${m}: not back ${ms(SETTLE_MS)} after the member recovered`);
}

async function settlePlacement(
  fleet: FlappingFleet,
  namespace: string,
  groups: readonly Group[],
): Promise<void> {
  if ((await within(() => placed(fleet, namespace, groups), SETTLE_MS, 500)) === undefined) {
    throw new Error(`the ${namespace} templates did not reach their members within ${ms(SETTLE_MS)}`);
  }
}

/** Whether a member object (`Kind ns/name`) belongs to a binding that was evicted from `cluster`. */
function evictedFrom(observer: BindingObserver, cluster: string): (key: string) => boolean {
  const evicted = new Set(
    observer.evictions
      .filter((e) => e.cluster === cluster)
      .map((e) => {
        const b = observer.bindings.get(e.binding);
        return b
          ? `${templateOf(b).split(" ")[0]} ${b.metadata.namespace}/${templateOf(b).split(" ")[1]}`
          : "";
      }),
  );
  return (key) => evicted.has(key);
}

function allowanceFor(observer: BindingObserver, groups: readonly Group[]) {
  return (binding: string) => {
    const b = observer.bindings.get(binding);
    if (!b) return undefined;
    const [kind = "", name = ""] = templateOf(b).split(" ");
    const group = groupOfTemplate(groups, name);
    return group ? allowanceOf(group, kind) : undefined;
  };
}

/** Waits until no eviction task is left, or every remaining one is past its bound. */
async function settleTasks(observer: BindingObserver, t0: number): Promise<void> {
  await within(
    async () =>
      observer.tasks.size === 0 ||
      [...observer.tasks.values()].every(
        (t) => Date.now() - t0 - t.firstSeen > TASK_BOUND_MS + TASK_SLACK_MS,
      ),
    TASK_BOUND_MS + TASK_SLACK_MS + 10_000,
    500,
  );
}

async function clusterReady(admin: Client, name: string): Promise<boolean> {
  const c = await admin.get(RESOURCES.clusters, undefined, name);
  const conditions = isObject(c.status) && Array.isArray(c.status.conditions) ? c.status.conditions : [];
  return conditions.some((x) => isObject(x) && x.type === "Ready" && x.status === "True");
}

/** Common checks of every trial: evictions explained, tasks ended, the pace kept. */
function evictionChecks(
  observer: BindingObserver,
  groups: readonly Group[],
  down: Readonly<Record<string, Interval[]>>,
  now: number,
  overdueDuringRun: Set<string>,
): { violations: string[]; figures: Record<string, string | number> } {
  const unexplained = unexplainedEvictions(observer.evictions, down, allowanceFor(observer, groups), TIMINGS);
  const pace = evictionPace(
    observer.evictions.filter((e) => e.withTask).map((e) => e.at),
    EVICTION_RATE,
    OBSERVATION_SLACK_MS,
  );
  const overdue = [
    ...overdueDuringRun,
    ...overdueTasks([...observer.tasks.values()], now, TASK_BOUND_MS, TASK_SLACK_MS),
  ];
  return {
    violations: [...unexplained, ...pace.violations, ...new Set(overdue)],
    figures: {
      evictions: observer.evictions.length,
      "eviction tasks (seen/ended)": `${observer.tasksSeen}/${observer.tasksEnded}`,
      "evictions in busiest second": pace.maxInOneSecond,
      "closest evictions": ms(pace.closestMs),
    },
  };
}

interface Watchers {
  observer: BindingObserver;
  clusters: ClusterObserver;
  overdue: { overdue: Set<string>; stop(): void };
  /** Stops watching (again: no harm); the trial's finally calls it too. */
  stop(): Promise<void>;
}

function startWatchers(fleet: FlappingFleet, ns: string, t0: number): Watchers {
  const observer = new BindingObserver(fleet.admin, ns, t0);
  const clusters = new ClusterObserver(fleet.admin, t0);
  const overdue = watchOverdue(observer, t0);
  return {
    observer,
    clusters,
    overdue,
    async stop() {
      overdue.stop();
      await observer.stop();
      await clusters.stop();
    },
  };
}

/** Looks for eviction tasks past their bound every second while the trial runs. */
function watchOverdue(observer: BindingObserver, t0: number): { overdue: Set<string>; stop(): void } {
  const overdue = new Set<string>();
  const timer = setInterval(() => {
    for (const line of overdueTasks(
      [...observer.tasks.values()],
      Date.now() - t0,
      TASK_BOUND_MS,
      TASK_SLACK_MS,
    ))
      overdue.add(line);
  }, 1_000);
  return { overdue, stop: () => clearInterval(timer) };
}

/** The figures every trial reports about the member it troubles, in the table's order. */
function memberFigures(
  member: string,
  seen: {
    health: { notReady: number; tainted: number };
    checks: { figures: Record<string, string | number> };
    changes: { recreated: string[]; deleted: string[] };
    /** API calls the member served during the trial, over `spanMs`; `baseline`: calls/s before. */
    callsDuring: number;
    spanMs: number;
    baseline: number;
  },
): Record<string, string | number> {
  return {
    "NotReady / tainted": `${seen.health.notReady}/${seen.health.tainted}`,
    ...seen.checks.figures,
    [`re-created on ${member}`]: seen.changes.recreated.length,
    [`deleted on ${member}`]: seen.changes.deleted.length,
    [`${member} API calls`]: seen.callsDuring,
    [`${member} API calls/s (before)`]: `${(seen.callsDuring / (seen.spanMs / 1000)).toFixed(1)} (${seen.baseline.toFixed(1)})`,
  };
}

/** Requests a client sent between two counts, and how many of them got no answer: "sent (unanswered)". */
function clientCalls(
  before: { sent: number; unanswered: number },
  after: { sent: number; unanswered: number },
) {
  return `${after.sent - before.sent} (${after.unanswered - before.unanswered})`;
}

/**
 * What the Push trials do before their fault: the groups created and placed, the members'
 * objects and member1's call rate noted, the watchers started (from `t0`).
 */
async function prepareTrial(fleet: FlappingFleet, ns: string, groups: readonly Group[]) {
  await createGroups(fleet.admin, ns, groups);
  await settlePlacement(fleet, ns, groups);
  const before = {
    member1: await memberUids(fleet.members.member1, ns, KINDS),
    member2: await memberUids(fleet.members.member2, ns, KINDS),
  };
  const baseline = await callRate(fleet, "member1");
  const t0 = Date.now();
  return { before, baseline, t0, watchers: startWatchers(fleet, ns, t0) };
}

async function flappingTrial(
  random: Random,
  settings: FlappingSettings,
  log: TrialOptions["log"],
): Promise<Trial> {
  const ns = "flap";
  const groups: Group[] = [
    { name: "short", tolerations: 2, clusters: ["member1", "member2"], deployments: 6, configMaps: 2 },
    {
      name: "directly",
      tolerations: 2,
      purgeMode: "Directly",
      clusters: ["member1", "member2"],
      deployments: 2,
      configMaps: 1,
    },
    // Nowhere else to go: the eviction task keeps the only copy until its timeout.
    { name: "alone", tolerations: 2, clusters: ["member1"], deployments: 2, configMaps: 1 },
    { name: "dflt", tolerations: "default", clusters: ["member1", "member2"], deployments: 2, configMaps: 2 },
    {
      name: "forever",
      tolerations: "forever",
      clusters: ["member1", "member2"],
      deployments: 2,
      configMaps: 1,
    },
  ];
  const fleet = await startFlappingFleet("flapping", CONTROLLER_OPTIONS);
  let watchers: Watchers | undefined;
  try {
    const prepared = await prepareTrial(fleet, ns, groups);
    const { before, baseline, t0 } = prepared;
    watchers = prepared.watchers;
    const { observer, clusters, overdue } = watchers;
    const callsBefore = await fleet.apiCalls("member1");
    const clientBefore = await fleet.clientCalls("member1");
    // Downs of a few seconds, now and then a long one (beyond every threshold, toleration and
    // the graceful eviction timeout); returns of a few seconds, some too short to be Ready.
    const schedule = flapSchedule(
      settings.flapMs,
      () => (random.chance(0.12) ? random.int(30_000, 40_000) : random.int(2_000, 14_000)),
      () => random.int(1_000, 8_000),
    );
    log(`  flapping: member1 goes down ${schedule.length} times in ${ms(settings.flapMs)}`);
    const down: Interval[] = [];
    const flapping = async (): Promise<void> => {
      for (const d of schedule) {
        await sleep(Math.max(0, t0 + d.from - Date.now()));
        const from = Date.now() - t0;
        // Mostly refused connections; now and then a member that accepts and never answers.
        await fleet.setFault("member1", { type: "unreachable", mode: random.chance(0.3) ? "hang" : "reset" });
        await sleep(Math.max(0, t0 + d.to - Date.now()));
        await fleet.restore("member1");
        down.push({ from, to: Date.now() - t0 });
      }
    };
    // Meanwhile the templates change: what the member gets on each return must be an update.
    const changes = random.fork();
    const [flapped, changed] = await Promise.allSettled([
      flapping(),
      changeTemplates(fleet.admin, ns, groups, changes, t0 + settings.flapMs),
    ]);
    if (flapped.status === "rejected") throw flapped.reason;
    if (changed.status === "rejected") throw changed.reason;
    const expected = changed.value;
    const flapEnd = Date.now() - t0;
    const callsDuring = (await fleet.apiCalls("member1")) - callsBefore - 1;
    const clientAfter = await fleet.clientCalls("member1");
    // After the last return: Ready again, tasks ended, copies back in place and up to date.
    await within(() => clusterReady(fleet.admin, "member1"), SETTLE_MS, 500);
    await settleTasks(observer, t0);
    overdue.stop();
    const end = Date.now() - t0;
    const notBack = await placedAgain(fleet, ns, groups);
    const stale = await staleCopies(fleet, ns, groups, expected);
    await watchers.stop();
    const after = {
      member1: await memberUids(fleet.members.member1, ns, KINDS),
      member2: await memberUids(fleet.members.member2, ns, KINDS),
    };
    const checks = evictionChecks(observer, groups, { member1: down }, end, overdue.overdue);
    const m1 = memberObjectChanges(before.member1, after.member1, evictedFrom(observer, "member1"));
    const m2 = memberObjectChanges(before.member2, after.member2, () => false);
    const health = clusters.summary("member1");
    const longest = down.reduce((m, d) => Math.max(m, d.to - d.from), 0);
    const troubles = troubledSpans(down, TIMINGS);
    const longestTrouble = troubles.reduce((m, d) => Math.max(m, d.to - d.from), 0);
    return {
      trial: FLAPPING_ROW,
      violations: [
        ...checks.violations,
        ...m1.violations.map((v) => `member1: ${v}`),
        ...m2.violations.map((v) => `member2: ${v}`),
        ...notBack,
        ...stale,
      ],
      figures: {
        flaps: down.length,
        "template changes": expected.changes,
        "longest down (trouble)": `${ms(longest)} (${ms(longestTrouble)})`,
        ...memberFigures("member1", { health, checks, changes: m1, callsDuring, spanMs: flapEnd, baseline }),
        "control plane → member1 (unanswered)": clientCalls(clientBefore, clientAfter),
      },
    };
  } finally {
    await watchers?.stop();
    await fleet.stop();
  }
}

/** The member's API calls per second over a quiet window (its baseline). */
async function callRate(fleet: FlappingFleet, member: MemberName): Promise<number> {
  const before = await fleet.apiCalls(member);
  const started = Date.now();
  await sleep(BASELINE_MS);
  // The first scrape is counted once it has answered.
  return ((await fleet.apiCalls(member)) - before - 1) / ((Date.now() - started) / 1000);
}

/** What each changed template says now: ConfigMap `data.setting`, Deployment `spec.replicas`. */
type Expected = Map<string, { setting?: string; replicas?: number }> & { changes: number };

/** Changes templates of the groups at seeded moments until `until`; returns what they say last. */
async function changeTemplates(
  admin: Client,
  ns: string,
  groups: readonly Group[],
  random: Random,
  until: number,
): Promise<Expected> {
  const templates = groups.flatMap((g) => templatesOf(ns, g));
  const expected = Object.assign(new Map(), { changes: 0 }) as Expected;
  for (let i = 0; Date.now() < until - 3_000; i++) {
    await sleep(random.int(2_000, 6_000));
    const t = random.pick(templates);
    const name = t.metadata?.name ?? "";
    const key = `${t.kind} ${ns}/${name}`;
    if (t.kind === "ConfigMap") {
      const setting = `v${i}`;
      await admin.patch(RESOURCES.configmaps, ns, name, "merge", { data: { setting } });
      expected.set(key, { setting });
    } else {
      const replicas = random.int(1, 3);
      await admin.patch(RESOURCES.deployments, ns, name, "merge", { spec: { replicas } });
      expected.set(key, { replicas });
    }
    expected.changes++;
  }
  return expected;
}

/** Member copies that do not say what their template says last, within the settle time. */
async function staleCopies(
  fleet: FlappingFleet,
  ns: string,
  groups: readonly Group[],
  expected: Expected,
): Promise<string[]> {
  const placement = expectedPlacement(ns, groups);
  const check = async (): Promise<string[]> => {
    const out: string[] = [];
    for (const [key, want] of expected) {
      const [kind = "", path = ""] = key.split(" ");
      const name = path.split("/")[1] ?? "";
      for (const c of placement.get(key) ?? []) {
        const member = fleet.members[c as MemberName];
        const obj = await member
          .get(kind === "ConfigMap" ? RESOURCES.configmaps : RESOURCES.deployments, ns, name)
          .catch(() => undefined);
        const got =
          kind === "ConfigMap"
            ? (obj?.data as Record<string, string> | undefined)?.setting
            : (obj?.spec as { replicas?: number } | undefined)?.replicas;
        const wanted = kind === "ConfigMap" ? want.setting : want.replicas;
        if (got !== wanted) out.push(`${key} on ${c} says ${String(got)}, its template ${String(wanted)}`);
      }
    }
    return out;
  };
  let last: string[] = [];
  await within(
    async () => {
      last = await check();
      return last.length === 0;
    },
    SETTLE_MS,
    1_000,
  );
  return last.map((line) => `${line} (${ms(SETTLE_MS)} after the trouble)`);
}

/** Reads of a member the trial itself makes, so that they are not counted as the control plane's. */
class ReadCounter {
  count = 0;
  readonly member: Client;
  constructor(member: Client) {
    this.member = member;
  }
  async get(res: ResourceRef, ns: string, name: string): Promise<StoredObject | undefined> {
    this.count++;
    try {
      return await this.member.get(res, ns, name);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }
}

async function slowTrial(
  random: Random,
  settings: FlappingSettings,
  log: TrialOptions["log"],
): Promise<Trial> {
  const ns = "slow";
  const groups: Group[] = [
    { name: "short", tolerations: 2, clusters: ["member1", "member2"], deployments: 2, configMaps: 2 },
    { name: "dflt", tolerations: "default", clusters: ["member1", "member2"], deployments: 2, configMaps: 1 },
    // Policies for templates made while member1 is slow: to both members, to member2 only.
    { name: "both", tolerations: "default", clusters: ["member1", "member2"], deployments: 0, configMaps: 0 },
    { name: "healthy", tolerations: "default", clusters: ["member2"], deployments: 0, configMaps: 0 },
  ];
  const fleet = await startFlappingFleet("slow", CONTROLLER_OPTIONS);
  let watchers: Watchers | undefined;
  try {
    const prepared = await prepareTrial(fleet, ns, groups);
    const { before, baseline, t0 } = prepared;
    watchers = prepared.watchers;
    const { observer, clusters, overdue } = watchers;
    const m2 = new ReadCounter(fleet.members.member2);
    const callsBefore = await fleet.apiCalls("member1");
    await fleet.setFault("member1", { type: "unreachable", mode: "slow", delayMs: settings.slowDelayMs });
    log(`  slow: every request to member1 waits ${ms(settings.slowDelayMs)} for ${ms(settings.slowMs)}`);
    const latencies: number[] = [];
    const stalled: string[] = [];
    const pending: Array<Promise<void>> = [];
    const toBoth: string[] = [];
    let configValue = "1";
    for (let i = 0; Date.now() - t0 < settings.slowMs - 5_000; i++) {
      const change = i % 3;
      let check: () => Promise<boolean>;
      let what: string;
      if (change === 2) {
        configValue = String(i);
        const value = configValue;
        await fleet.admin.update(RESOURCES.configmaps, configMapOf(ns, "dflt-config-0", "dflt", value));
        what = `ConfigMap ${ns}/dflt-config-0 = ${value}`;
        check = async () => {
          const cm = await m2.get(RESOURCES.configmaps, ns, "dflt-config-0");
          return (cm?.data as Record<string, string> | undefined)?.setting === value;
        };
      } else {
        const tier = change === 0 ? "both" : "healthy";
        const name = `${tier}-deploy-${i}`;
        if (tier === "both") toBoth.push(name);
        await fleet.admin.create(RESOURCES.deployments, deploymentOf(ns, name, tier));
        what = `Deployment ${ns}/${name}`;
        check = async () => (await m2.get(RESOURCES.deployments, ns, name)) !== undefined;
      }
      pending.push(
        within(check, STALL_BOUND_MS).then((took) => {
          if (took === undefined) stalled.push(`${what} did not reach member2 within ${ms(STALL_BOUND_MS)}`);
          else latencies.push(took);
        }),
      );
      await sleep(random.int(2_000, 6_000));
    }
    await Promise.all(pending);
    await sleep(Math.max(0, t0 + settings.slowMs - Date.now()));
    await fleet.restore("member1");
    const slowEnd = Date.now() - t0;
    const callsDuring = (await fleet.apiCalls("member1")) - callsBefore - 1;
    // Once member1 answers promptly again, what was made meanwhile reaches it.
    const m1 = new ReadCounter(fleet.members.member1);
    const catchUp = await within(async () => {
      for (const name of toBoth) if (!(await m1.get(RESOURCES.deployments, ns, name))) return false;
      const cm = await m1.get(RESOURCES.configmaps, ns, "dflt-config-0");
      return (cm?.data as Record<string, string> | undefined)?.setting === configValue;
    }, SETTLE_MS);
    await settleTasks(observer, t0);
    overdue.stop();
    const end = Date.now() - t0;
    await watchers.stop();
    const after = {
      member1: await memberUids(fleet.members.member1, ns, KINDS),
      member2: await memberUids(fleet.members.member2, ns, KINDS),
    };
    // A slow member is not a failed one: nothing may leave it.
    const checks = evictionChecks(observer, groups, {}, end, overdue.overdue);
    const c1 = memberObjectChanges(before.member1, after.member1, () => false);
    const c2 = memberObjectChanges(before.member2, after.member2, () => false);
    const health = clusters.summary("member1");
    return {
      trial: SLOW_ROW,
      violations: [
        ...checks.violations,
        ...stalled,
        ...(catchUp === undefined
          ? [`what was made while member1 was slow did not reach it within ${ms(SETTLE_MS)} of its recovery`]
          : []),
        ...c1.violations.map((v) => `member1: ${v}`),
        ...c2.violations.map((v) => `member2: ${v}`),
      ],
      figures: {
        "delay per request": ms(settings.slowDelayMs),
        "changes to member2": `${latencies.length}/${latencies.length + stalled.length}`,
        "to member2 p50/max": `${ms(percentile(latencies, 50))}/${ms(percentile(latencies, 100))}`,
        "member1 caught up": ms(catchUp),
        ...memberFigures("member1", { health, checks, changes: c1, callsDuring, spanMs: slowEnd, baseline }),
      },
    };
  } finally {
    await watchers?.stop();
    await fleet.stop();
  }
}

/** Whether the control plane reaches member3 through its cluster proxy. */
async function proxyReaches(fleet: FlappingFleet): Promise<boolean> {
  try {
    const res = await fleet.admin.getRaw("/apis/cluster.karmada.io/v1alpha1/clusters/member3/proxy/version");
    return res.status === 200;
  } catch {
    return false;
  }
}

async function partitionTrial(
  random: Random,
  settings: FlappingSettings,
  log: TrialOptions["log"],
): Promise<Trial> {
  const ns = "part";
  const groups: Group[] = [
    { name: "short", tolerations: 2, clusters: ["member2", "member3"], deployments: 2, configMaps: 2 },
    { name: "only", tolerations: 2, clusters: ["member3"], deployments: 1, configMaps: 1 },
    { name: "fresh", tolerations: 2, clusters: ["member3"], deployments: 0, configMaps: 0 },
  ];
  const fleet = await startFlappingFleet("partition", CONTROLLER_OPTIONS);
  let watchers: Watchers | undefined;
  try {
    await createGroups(fleet.admin, ns, groups);
    await settlePlacement(fleet, ns, groups);
    const reachedBefore = await proxyReaches(fleet);
    const before = await memberUids(fleet.members.member3, ns, KINDS);
    const baseline = await callRate(fleet, "member3");
    const t0 = Date.now();
    watchers = startWatchers(fleet, ns, t0);
    const { observer, clusters, overdue } = watchers;
    const m3 = new ReadCounter(fleet.members.member3);
    const callsBefore = await fleet.apiCalls("member3");
    const clientBefore = await fleet.clientCalls("member3");
    // The agent reaches member3 as its administrator (`up` runs it so); nobody else does.
    await fleet.setFault("member3", { type: "unreachable", exceptUsers: [MEMBER_ADMIN_USER] });
    log(`  partition: member3 unreachable for all but ${MEMBER_ADMIN_USER} for ${ms(settings.partitionMs)}`);
    const reachedDuring = await proxyReaches(fleet);
    const latencies: number[] = [];
    const lost: string[] = [];
    const pending: Array<Promise<void>> = [];
    for (let i = 0; Date.now() - t0 < settings.partitionMs - 5_000; i++) {
      const change = i % 3;
      let check: () => Promise<boolean>;
      let what: string;
      if (change === 0) {
        const replicas = 1 + (i % 2 === 0 ? 1 : 0) + random.int(0, 1);
        await fleet.admin.patch(RESOURCES.deployments, ns, "short-deploy-0", "merge", { spec: { replicas } });
        what = `Deployment ${ns}/short-deploy-0 replicas ${replicas}`;
        check = async () => {
          const d = await m3.get(RESOURCES.deployments, ns, "short-deploy-0");
          return (d?.spec as { replicas?: number } | undefined)?.replicas === replicas;
        };
      } else if (change === 1) {
        const value = String(i);
        await fleet.admin.update(RESOURCES.configmaps, configMapOf(ns, "only-config-0", "only", value));
        what = `ConfigMap ${ns}/only-config-0 = ${value}`;
        check = async () => {
          const cm = await m3.get(RESOURCES.configmaps, ns, "only-config-0");
          return (cm?.data as Record<string, string> | undefined)?.setting === value;
        };
      } else {
        const name = `fresh-deploy-${i}`;
        await fleet.admin.create(RESOURCES.deployments, deploymentOf(ns, name, "fresh"));
        what = `Deployment ${ns}/${name}`;
        check = async () => (await m3.get(RESOURCES.deployments, ns, name)) !== undefined;
      }
      pending.push(
        within(check, STALL_BOUND_MS).then((took) => {
          if (took === undefined)
            lost.push(`${what} did not reach member3 through its agent within ${ms(STALL_BOUND_MS)}`);
          else latencies.push(took);
        }),
      );
      await sleep(random.int(2_000, 6_000));
    }
    await Promise.all(pending);
    await sleep(Math.max(0, t0 + settings.partitionMs - Date.now()));
    const partitionEnd = Date.now() - t0;
    const callsDuring = (await fleet.apiCalls("member3")) - callsBefore - 1 - m3.count;
    const clientAfter = await fleet.clientCalls("member3");
    await fleet.restore("member3");
    const reachedAfter = (await within(() => proxyReaches(fleet), 20_000, 500)) !== undefined;
    await settleTasks(observer, t0);
    overdue.stop();
    const end = Date.now() - t0;
    await watchers.stop();
    const after = await memberUids(fleet.members.member3, ns, KINDS);
    // The agent is alive all along: member3 never failed.
    const checks = evictionChecks(observer, groups, {}, end, overdue.overdue);
    const changes = memberObjectChanges(before, after, () => false);
    const health = clusters.summary("member3");
    const setup: string[] = [];
    if (!reachedBefore || !reachedAfter)
      setup.push(
        `the control plane's proxy did not reach member3 ${reachedBefore ? "after" : "before"} the partition`,
      );
    if (reachedDuring)
      setup.push("the partition did not hold: the control plane reached member3 through its proxy");
    return {
      trial: PARTITION_ROW,
      violations: [
        ...setup,
        ...checks.violations,
        ...lost,
        ...(health.notReady > 0
          ? [`member3 stopped being Ready ${health.notReady} time(s) while its agent was alive`]
          : []),
        ...(health.tainted > 0 ? [`member3 got a NoExecute taint while its agent was alive`] : []),
        ...changes.violations.map((v) => `member3: ${v}`),
      ],
      figures: {
        "proxy during partition": reachedDuring ? "reached" : "refused",
        "updates via agent": `${latencies.length}/${latencies.length + lost.length}`,
        "update p50/max": `${ms(percentile(latencies, 50))}/${ms(percentile(latencies, 100))}`,
        ...memberFigures("member3", { health, checks, changes, callsDuring, spanMs: partitionEnd, baseline }),
        // The agent's member client and the control plane's share this process: the agent's
        // requests are answered, so the unanswered ones are the control plane's.
        "agent + control plane → member3 (unanswered)": clientCalls(clientBefore, clientAfter),
      },
    };
  } finally {
    await watchers?.stop();
    await fleet.stop();
  }
}

const TRIALS = [
  { name: FLAPPING_ROW, run: flappingTrial },
  { name: SLOW_ROW, run: slowTrial },
  { name: PARTITION_ROW, run: partitionTrial },
] as const;

/** The flapping, slow-member and partition trials, one row each (runs = 1 per trial). */
export async function runFlappingTrials(
  opts: TrialOptions,
  given: Partial<FlappingSettings> = {},
): Promise<TrialRow[]> {
  const settings = { ...DEFAULT_FLAPPING_SETTINGS, ...given };
  const random = mulberry32(opts.seed);
  const rows: TrialRow[] = [];
  for (const t of TRIALS) {
    // Each trial has its own sequence, whichever others run.
    const own = random.fork();
    if (settings.only !== undefined && !t.name.includes(settings.only)) continue;
    opts.log(`${t.name} (seed ${opts.seed}) ...`);
    const started = Date.now();
    let result: Trial;
    try {
      result = await t.run(own, settings, opts.log);
    } catch (err) {
      result = {
        trial: t.name,
        violations: [`the trial could not run: ${(err as Error).message}`],
        figures: {},
      };
    }
    result.figures.duration = ms(Date.now() - started);
    opts.log(`  ${result.trial}: ${result.violations.length} violation(s)`);
    rows.push({
      trial: result.trial,
      backend: "sqlite",
      runs: 1,
      violations: result.violations.length,
      figures: result.figures,
      details: result.violations,
    });
  }
  return rows;
}

function argValue(args: readonly string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const seed = Number(argValue(args, "--seed") ?? Date.now() % 1_000_000);
  const flapSeconds = argValue(args, "--flap-seconds");
  const only = argValue(args, "--only");
  const rows = await runFlappingTrials(
    { seed, runs: 1, log: (line) => process.stdout.write(`${line}\n`) },
    {
      ...(flapSeconds ? { flapMs: Number(flapSeconds) * 1000 } : {}),
      ...(only ? { only } : {}),
    },
  );
  for (const row of rows) {
    process.stdout.write(`\n${row.trial} [${row.backend}] runs=${row.runs} violations=${row.violations}\n`);
    for (const [k, v] of Object.entries(row.figures)) process.stdout.write(`  ${k}: ${v}\n`);
    for (const d of row.details) process.stdout.write(`  ! ${d}\n`);
  }
  process.exitCode = rows.some((r) => r.violations > 0) ? 1 : 0;
}
