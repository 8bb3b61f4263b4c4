/**
 * Crash trials (issue K item 1): a fleet of separate processes (see fleet.ts) propagating a
 * few hundred templates with Duplicated and Divided policies, overrides, dependencies and
 * application failover. Each trial runs a seeded wave of changes (creates, replica, label,
 * data and override updates, deletes) and SIGKILLs its target at a seeded moment of the wave;
 * the target comes back with the same flags and data; the trial then polls (bounded) until
 * the oracle (oracle.ts) passes, and reports what it still finds when time runs out.
 */

import { fmt, percentile } from "../bench/table.ts";
import type { StoredObject } from "../src/api/meta.ts";
import { RESOURCES, type ResourceRef } from "../src/client/client.ts";
import type { HttpClient } from "../src/client/http.ts";
import { KARMADA } from "../src/karmada/resources.ts";
import { ApiError } from "../src/machinery/errors.ts";
import {
  DATA_OVERRIDE,
  keyOf,
  LABEL_OVERRIDE,
  MEMBERS,
  manifest,
  NAMESPACE,
  overridePolicy,
  propagationPolicies,
  REV_LABEL,
  TIER_LABEL,
  type Tier,
  tierOf,
  type Written,
} from "./fixtures.ts";
import { type Backend, clustersReady, type Fleet, startFleet } from "./fleet.ts";
import { type Model, type Observed, oracle, resolveUncertain } from "./oracle.ts";
import { mulberry32, type Random } from "./random.ts";
import type { TrialOptions, TrialRow } from "./types.ts";

export const TARGETS = ["apiserver", "controller-manager", "scheduler", "agent", "member", "all"] as const;
export type Target = (typeof TARGETS)[number];

export interface CrashOptions extends TrialOptions {
  /** Backends to run (default both). */
  backends?: Backend[];
  /** Targets to run (default all). */
  targets?: readonly Target[];
}

/** Templates per tier at the start: 40 dup (+40 dep ConfigMaps), 40 div, 60 cm, 40 svc = 220. */
const INITIAL: Record<Exclude<Tier, "dep">, number> = { dup: 40, div: 40, cm: 60, svc: 40 };
const WAVE_OPS = 60;
const WAVE_CONCURRENCY = 4;
/** Each worker pauses a seeded 0..PACE ms before each op, so the wave lasts about a second and the kill lands inside it. */
const PACE_MS = 80;
/** A worker whose write got no answer waits this long before its next op. */
const UNANSWERED_BACKOFF_MS = 1_000;
/** The kill lands this many ms (seeded, at most) after its op starts. */
const KILL_DELAY_MS = 100;
const CONVERGE_MS = 120_000;
const INITIAL_CONVERGE_MS = 300_000;
const MAX_DETAILS = 15;

const RESOURCE: Record<Written["kind"], ResourceRef> = {
  Deployment: RESOURCES.deployments,
  ConfigMap: RESOURCES.configmaps,
  Service: RESOURCES.services,
  OverridePolicy: KARMADA.overridePolicies,
};

/** A planned change: the writes it sends, in order (a dup Deployment comes with its ConfigMap). */
interface Op {
  what: string;
  /** Pause before it (seeded pacing). */
  pauseMs: number;
  writes: Array<{ key: string; next: Written | null }>;
}

/** The trial's knowledge: acknowledged states, and the unanswered attempts per key. */
class Ledger {
  readonly model: Model = new Map();
  readonly uncertain = new Map<string, Array<Written | null>>();
  acknowledged = 0;
  unanswered = 0;
  /** Answered with a 4xx: not applied (a 404 or 409 after an unanswered write; anything else is a harness bug). */
  refused: string[] = [];
}

const isDefinite = (err: unknown): boolean =>
  err instanceof ApiError && err.code >= 400 && err.code < 500 && err.code !== 408 && err.code !== 429;

/** Sends one write and records its outcome. */
async function send(
  client: HttpClient,
  ledger: Ledger,
  key: string,
  next: Written | null,
  prev: Written | null,
) {
  try {
    if (next === null) {
      if (!prev) return;
      await client.delete(RESOURCE[prev.kind], NAMESPACE, prev.name);
    } else if (!prev) {
      await client.create(RESOURCE[next.kind], manifest(next));
    } else {
      const body = manifest(next) as Record<string, unknown> & {
        metadata: { labels?: Record<string, string> };
      };
      const patch =
        next.kind === "OverridePolicy"
          ? { spec: body.spec }
          : next.kind === "Deployment"
            ? { metadata: { labels: body.metadata.labels }, spec: { replicas: next.replicas } }
            : next.kind === "ConfigMap"
              ? { metadata: { labels: body.metadata.labels }, data: next.data }
              : { metadata: { labels: body.metadata.labels } };
      await client.patch(RESOURCE[next.kind], NAMESPACE, next.name, "merge", patch);
    }
    ledger.model.set(key, next);
    ledger.uncertain.delete(key);
    ledger.acknowledged++;
  } catch (err) {
    if (isDefinite(err)) {
      ledger.refused.push(`${key}: ${(err as ApiError).code} ${(err as Error).message}`);
      return;
    }
    ledger.unanswered++;
    const list = ledger.uncertain.get(key) ?? [];
    list.push(next);
    ledger.uncertain.set(key, list);
  }
}

function newTemplate(tier: Exclude<Tier, "dep">, id: number, rng: Random): Written[] {
  const name = `${tier}-${id}`;
  const labels = { [TIER_LABEL]: tier, [REV_LABEL]: "0" };
  switch (tier) {
    case "dup":
      return [
        {
          kind: "ConfigMap",
          name: `${name}-cfg`,
          labels: { [TIER_LABEL]: "dep", [REV_LABEL]: "0" },
          data: { k: "v0" },
        },
        { kind: "Deployment", name, labels, replicas: rng.int(1, 2), mounts: `${name}-cfg` },
      ];
    case "div":
      return [{ kind: "Deployment", name, labels, replicas: rng.int(2, 5) }];
    case "cm":
      return [{ kind: "ConfigMap", name, labels, data: { k: "v0" } }];
    case "svc":
      return [{ kind: "Service", name, labels }];
  }
}

type Writes = Op["writes"];
const depKey = (w: Written): string | undefined =>
  w.mounts ? keyOf({ kind: "ConfigMap", name: w.mounts }) : undefined;

function planDelete(w: Written): Writes {
  const dep = depKey(w);
  return [{ key: keyOf(w), next: null }, ...(dep ? [{ key: dep, next: null }] : [])];
}

function planOverride(rng: Random): Writes {
  const name = rng.pick([LABEL_OVERRIDE.name, DATA_OVERRIDE.name]);
  const value = `o${rng.int(0, 1_000_000)}`;
  return [
    {
      key: keyOf({ kind: "OverridePolicy", name }),
      next: { kind: "OverridePolicy", name, labels: {}, data: { value } },
    },
  ];
}

/** Replicas, data (its own or its dependency's) or a label of one template. */
function planUpdate(w: Written, shadow: Model, rng: Random): Writes {
  const rev = { ...w.labels, [REV_LABEL]: String(Number(w.labels[REV_LABEL] ?? 0) + 1) };
  if (w.kind === "Deployment" && rng.chance(0.6)) {
    const replicas = tierOf(w) === "div" ? rng.int(1, 6) : rng.int(1, 3);
    return [{ key: keyOf(w), next: { ...w, replicas, labels: rev } }];
  }
  const dep = depKey(w);
  const target = w.kind === "ConfigMap" ? w : dep && rng.chance(0.5) ? shadow.get(dep) : undefined;
  if (target) {
    const next = { ...target, data: { k: `v${rng.int(1, 1_000_000)}` }, labels: { ...target.labels } };
    return [{ key: keyOf(next), next }];
  }
  return [{ key: keyOf(w), next: { ...w, labels: rev } }];
}

/** A seeded wave planned against the model as if every write succeeded; no key is written twice. */
function planWave(model: Model, rng: Random, nextId: () => number): Op[] {
  const shadow = new Map(model);
  const ops: Op[] = [];
  const touched = new Set<string>();
  const free = (w: Written | null): w is Written =>
    w !== null &&
    w.kind !== "OverridePolicy" &&
    tierOf(w) !== "dep" &&
    !touched.has(keyOf(w)) &&
    !touched.has(depKey(w) ?? "");
  while (ops.length < WAVE_OPS) {
    const roll = rng.next();
    const live = [...shadow.values()].filter(free);
    let what: string;
    let writes: Writes;
    if (roll < 0.15 || live.length === 0) {
      const tier = rng.pick(["dup", "div", "cm", "svc"] as const);
      what = `create ${tier}`;
      writes = newTemplate(tier, nextId(), rng).map((w) => ({ key: keyOf(w), next: w }));
    } else if (roll < 0.27) {
      const w = rng.pick(live);
      what = `delete ${keyOf(w)}`;
      writes = planDelete(w);
    } else if (roll < 0.32) {
      writes = planOverride(rng);
      what = `override ${writes[0]!.key}`;
      if (touched.has(writes[0]!.key)) continue;
    } else {
      writes = planUpdate(rng.pick(live), shadow, rng);
      what = `update ${writes[0]!.key}`;
    }
    for (const w of writes) {
      shadow.set(w.key, w.next);
      touched.add(w.key);
    }
    ops.push({ what, pauseMs: rng.int(0, PACE_MS), writes });
  }
  return ops;
}

/** Runs the ops, at most `concurrency` at once (the plan touches each key once). */
async function runWave(
  client: HttpClient,
  ledger: Ledger,
  ops: Op[],
  onStart: (index: number) => void,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < ops.length) {
      const index = next++;
      await new Promise((r) => setTimeout(r, ops[index]!.pauseMs));
      onStart(index);
      const unansweredBefore = ledger.unanswered;
      for (const w of ops[index]!.writes) {
        const prev = ledger.model.get(w.key) ?? null;
        await send(client, ledger, w.key, w.next, prev);
      }
      // Unanswered: the API server is probably down. Back off as a client would, so the rest
      // of the wave lands on the restarted server instead of failing at once.
      if (ledger.unanswered > unansweredBefore)
        await new Promise((r) => setTimeout(r, UNANSWERED_BACKOFF_MS));
    }
  };
  await Promise.all(Array.from({ length: WAVE_CONCURRENCY }, worker));
}

async function listAll(
  client: HttpClient,
  res: ResourceRef,
  namespace: string | undefined,
): Promise<StoredObject[]> {
  return (await client.list(res, namespace)).items;
}

async function observe(fleet: Fleet): Promise<Observed> {
  const cp = fleet.admin;
  const [deployments, configmaps, services, ops, bindings, works] = await Promise.all([
    listAll(cp, RESOURCES.deployments, NAMESPACE),
    listAll(cp, RESOURCES.configmaps, NAMESPACE),
    listAll(cp, RESOURCES.services, NAMESPACE),
    listAll(cp, KARMADA.overridePolicies, NAMESPACE),
    listAll(cp, KARMADA.resourceBindings, NAMESPACE),
    listAll(cp, KARMADA.works, undefined),
  ]);
  const kinds = (items: StoredObject[], kind: string) => items.map((o) => ({ ...o, kind }));
  const members: Record<string, StoredObject[]> = {};
  for (const m of MEMBERS) {
    const c = fleet.memberClients[m]!;
    const [d, cm, svc] = await Promise.all([
      listAll(c, RESOURCES.deployments, NAMESPACE),
      listAll(c, RESOURCES.configmaps, NAMESPACE),
      listAll(c, RESOURCES.services, NAMESPACE),
    ]);
    members[m] = [...kinds(d, "Deployment"), ...kinds(cm, "ConfigMap"), ...kinds(svc, "Service")];
  }
  return {
    templates: [
      ...kinds(deployments, "Deployment"),
      ...kinds(configmaps, "ConfigMap"),
      ...kinds(services, "Service"),
      ...kinds(ops, "OverridePolicy"),
    ],
    bindings: kinds(bindings, "ResourceBinding"),
    works: kinds(works, "Work"),
    members,
  };
}

/** Polls the oracle until it passes or `ms` run out; the last violations, and how long it took. */
async function converge(
  fleet: Fleet,
  model: Model,
  ms: number,
  log: (line: string) => void,
): Promise<{ violations: string[]; ms: number }> {
  const started = Date.now();
  let violations: string[] = ["not observed yet"];
  let reported = started;
  while (Date.now() - started < ms) {
    try {
      violations = oracle(model, await observe(fleet));
      if (violations.length === 0 && !(await clustersReady(fleet.admin)))
        violations = ["a member is not Ready"];
    } catch (err) {
      violations = [`cannot observe the fleet: ${(err as Error).message}`];
    }
    if (violations.length === 0) return { violations, ms: Date.now() - started };
    if (Date.now() - reported > 30_000) {
      reported = Date.now();
      log(
        `  still converging after ${fmt((reported - started) / 1000, 0)} s: ${violations.length} violations, e.g. ${violations.slice(0, 3).join(" | ")}`,
      );
    }
    await new Promise((r) => setTimeout(r, 1_000));
  }
  return { violations, ms: Date.now() - started };
}

/** Settles unanswered writes against what the control plane holds after the restart. */
async function settle(fleet: Fleet, ledger: Ledger): Promise<string[]> {
  const lost: string[] = [];
  for (const [key, attempts] of ledger.uncertain) {
    const [kind, name] = key.split("/") as [Written["kind"], string];
    let stored: StoredObject | undefined;
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        stored = await fleet.admin.get(RESOURCE[kind], NAMESPACE, name);
        break;
      } catch (err) {
        if (err instanceof ApiError && err.code === 404) {
          stored = undefined;
          break;
        }
        if (Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    const acked = ledger.model.get(key) ?? null;
    const resolved = resolveUncertain([acked, ...attempts], stored);
    if (!resolved)
      lost.push(
        `acknowledged write of ${key} lost: stored content matches neither it nor an unanswered attempt`,
      );
    else ledger.model.set(key, resolved.state);
  }
  ledger.uncertain.clear();
  return lost;
}

/** Kills the target (SIGKILL) and starts it again with the same flags and data. */
async function crash(fleet: Fleet, target: Target, rng: Random): Promise<string> {
  switch (target) {
    case "apiserver":
    case "controller-manager":
    case "scheduler":
    case "agent": {
      const c =
        target === "apiserver"
          ? fleet.apiserver
          : target === "controller-manager"
            ? fleet.controllerManager
            : target === "scheduler"
              ? fleet.scheduler
              : fleet.agent;
      await c.kill();
      await c.start();
      return target;
    }
    case "member": {
      const name = rng.pick(MEMBERS);
      const m = fleet.members[name]!;
      await m.kill();
      await m.start();
      return name;
    }
    case "all": {
      const all = fleet.components();
      await Promise.all([...all.map((c) => c.kill()), fleet.etcd?.kill()]);
      await fleet.etcd?.start();
      await fleet.apiserver.start();
      for (const m of MEMBERS) await fleet.members[m]!.start();
      await fleet.controllerManager.start();
      await fleet.scheduler.start();
      await fleet.agent.start();
      return "everything";
    }
  }
}

async function populate(fleet: Fleet, ledger: Ledger, rng: Random, nextId: () => number): Promise<void> {
  const c = fleet.admin;
  await c.create(RESOURCES.namespaces, {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: NAMESPACE },
  });
  for (const pp of propagationPolicies()) await c.create(KARMADA.propagationPolicies, pp);
  for (const name of [LABEL_OVERRIDE.name, DATA_OVERRIDE.name]) {
    const w: Written = { kind: "OverridePolicy", name, labels: {}, data: { value: "o0" } };
    await c.create(KARMADA.overridePolicies, overridePolicy(name, "o0"));
    ledger.model.set(keyOf(w), w);
  }
  const writes: Written[] = [];
  for (const [tier, n] of Object.entries(INITIAL) as Array<[Exclude<Tier, "dep">, number]>)
    for (let i = 0; i < n; i++) writes.push(...newTemplate(tier, nextId(), rng));
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < writes.length) {
        const w = writes[next++]!;
        await send(c, ledger, keyOf(w), w, null);
      }
    }),
  );
  if (ledger.uncertain.size > 0) throw new Error(`populate: ${ledger.uncertain.size} writes got no answer`);
}

interface TargetResult {
  target: Target;
  runs: number;
  violations: string[];
  convergeMs: number[];
  restarts: number;
  /** Components that exited without being killed (then restarted by the supervisor). */
  unexpectedExits: number;
  acknowledged: number;
  unanswered: number;
  refused: number;
}

async function runBackend(
  backend: Backend,
  targets: readonly Target[],
  opts: CrashOptions,
): Promise<TrialRow[]> {
  const rng = mulberry32(opts.seed ^ (backend === "etcd" ? 0x5eed : 0));
  const started = Date.now();
  opts.log(`crash/${backend}: starting the fleet`);
  const fleet = await startFleet(backend, opts.log);
  const rows: TrialRow[] = [];
  try {
    const ledger = new Ledger();
    let id = 0;
    const nextId = () => id++;
    await populate(fleet, ledger, rng, nextId);
    opts.log(`crash/${backend}: ${ledger.model.size} objects written; waiting for propagation`);
    const initial = await converge(fleet, ledger.model, INITIAL_CONVERGE_MS, opts.log);
    opts.log(
      `crash/${backend}: initial propagation ${initial.violations.length === 0 ? "converged" : "did NOT converge"} in ${fmt(initial.ms / 1000, 1)} s`,
    );
    if (initial.violations.length > 0) {
      rows.push({
        trial: "crash: initial propagation",
        backend,
        runs: 1,
        violations: initial.violations.length,
        figures: { "converge s": fmt(initial.ms / 1000, 1) },
        details: initial.violations.slice(0, MAX_DETAILS),
      });
    }
    for (const target of targets) {
      const result: TargetResult = {
        target,
        runs: 0,
        violations: [],
        convergeMs: [],
        restarts: 0,
        unexpectedExits: 0,
        acknowledged: 0,
        unanswered: 0,
        refused: 0,
      };
      const restartsBefore = fleet.components().reduce((n, c) => n + c.restarts, 0);
      const exitsBefore = fleet.components().reduce((n, c) => n + c.unexpectedExits, 0);
      const targetStarted = Date.now();
      for (let run = 0; run < opts.runs; run++) {
        const trialRng = rng.fork();
        const ops = planWave(ledger.model, trialRng, nextId);
        const killAt = trialRng.int(0, ops.length - 1);
        const delayMs = trialRng.int(0, KILL_DELAY_MS);
        const waveStarted = Date.now();
        let waveMs = 0;
        const ackBefore = ledger.acknowledged;
        const unansweredBefore = ledger.unanswered;
        const refusedBefore = ledger.refused.length;
        let crashed: Promise<string> | undefined;
        await runWave(fleet.admin, ledger, ops, (index) => {
          if (index === killAt)
            crashed = new Promise((r) => setTimeout(r, delayMs)).then(() => crash(fleet, target, trialRng));
        });
        waveMs = Date.now() - waveStarted;
        const victim = await crashed;
        const lost = await settle(fleet, ledger);
        const { violations, ms } = await converge(fleet, ledger.model, CONVERGE_MS, opts.log);
        // 404 and 409 follow an unanswered write that landed; any other refusal is a bug.
        const refused = ledger.refused
          .slice(refusedBefore)
          .filter((r) => !/: (404|409) /.test(r))
          .map((r) => `write refused: ${r}`);
        result.refused += ledger.refused.length - refusedBefore;
        const found = [...lost, ...refused, ...violations];
        result.runs++;
        result.acknowledged += ledger.acknowledged - ackBefore;
        result.unanswered += ledger.unanswered - unansweredBefore;
        if (found.length === 0) result.convergeMs.push(ms);
        else
          result.violations.push(
            ...found.map((v) => `run ${run + 1} (kill ${victim} at op ${killAt}+${delayMs}ms): ${v}`),
          );
        opts.log(
          `crash/${backend} ${target} ${run + 1}/${opts.runs}: killed ${victim} at op ${killAt}+${delayMs}ms of a ${waveMs} ms wave, ` +
            `${ledger.acknowledged - ackBefore} acknowledged, ${ledger.unanswered - unansweredBefore} unanswered, ` +
            (found.length === 0
              ? `converged in ${fmt(ms / 1000, 1)} s`
              : `${found.length} violations: ${found[0]}`),
        );
      }
      result.restarts = fleet.components().reduce((n, c) => n + c.restarts, 0) - restartsBefore;
      result.unexpectedExits = fleet.components().reduce((n, c) => n + c.unexpectedExits, 0) - exitsBefore;
      const sorted = [...result.convergeMs].sort((a, b) => a - b);
      rows.push({
        trial: `crash: ${target}`,
        backend,
        runs: result.runs,
        violations: result.violations.length,
        figures: {
          "converge s p50": sorted.length ? fmt(percentile(sorted, 50) / 1000, 1) : "-",
          "converge s max": sorted.length ? fmt(sorted.at(-1)! / 1000, 1) : "-",
          restarts: result.restarts,
          "exits on their own": result.unexpectedExits,
          "acked writes": result.acknowledged,
          unanswered: result.unanswered,
          refused: result.refused,
          "wall s": fmt((Date.now() - targetStarted) / 1000, 0),
        },
        details: result.violations.slice(0, MAX_DETAILS),
      });
    }
  } finally {
    await fleet.stop();
  }
  opts.log(`crash/${backend}: done in ${fmt((Date.now() - started) / 1000, 0)} s`);
  return rows;
}

export async function runCrashTrials(opts: CrashOptions): Promise<TrialRow[]> {
  const rows: TrialRow[] = [];
  for (const backend of opts.backends ?? (["sqlite", "etcd"] as const))
    rows.push(...(await runBackend(backend, opts.targets ?? TARGETS, opts)));
  return rows;
}
