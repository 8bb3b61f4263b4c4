/**
 * Scale rows (issue L): what the control plane itself costs with many templates on many
 * clusters, measured against members that cost next to nothing (`member-sim --sink`, all of
 * them in one child process, bench/sink-fleet-child.ts) so that the members are not the
 * bottleneck.
 *
 * The control plane is `karmada up --members 0` in a child process of its own (API server on
 * SQLite, controllers, scheduler: one process, as `karmada up` runs them), so its CPU seconds
 * and peak RSS are read from /proc apart from the bench's and the members'. The sinks join it
 * in Push mode as `karmadactl join` does.
 *
 * N Deployments (half Duplicated to a pair of clusters, half Divided over three, one
 * PropagationPolicy per group of clusters, one OverridePolicy adding a label everywhere) are
 * created through the control plane and timed until every member holds its copies, reported,
 * and every template shows its aggregated status; then divided by the time to write the same
 * member objects (override included) straight to the same members over HTTP until they report.
 * Goals: ratio ≤ 1.5, control-plane CPU ≤ 3 s per 1,000 member objects.
 */
import { type ChildProcessWithoutNullStreams, execFile, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface, type Interface } from "node:readline";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { StoredObject } from "../src/api/meta.ts";
import { type Client, RESOURCES } from "../src/client/client.ts";
import { httpClientFor, loadKubeconfig } from "../src/client/kubeconfig.ts";
import { KARMADA } from "../src/karmada/resources.ts";
import { isAlreadyExists } from "../src/machinery/errors.ts";
import { Informer } from "../src/runtime/informer.ts";
import { parseExposition } from "../test/support/prometheus.ts";
import { pool } from "./load.ts";
import { deployment } from "./propagation.ts";
import type { SinkFleetReady, SinkUsage } from "./sink-fleet-child.ts";
import { fmt, type Row } from "./table.ts";

export interface ScaleConfig {
  /** Deployments through the control plane (half Duplicated, half Divided); 0 skips. */
  scaleObjects: number;
  /** Sink members they go to. */
  scaleClusters: number;
  /** Seconds of quiet after the run over which the members' requests are counted (0: skip). */
  scaleStatusWindowSeconds?: number;
  /** The members' own status writes per second, each rate held for 30 s after the run (default 20 and 100). */
  scaleChurnRates?: number[];
  /** "one": `karmada up` (one process, SQLite); "ha": `karmada up --ha` (3 etcd, 3 nodes of API server, controller manager and scheduler). */
  scaleTopology?: "one" | "ha";
  concurrency: number;
}

export const SCALE_RATIO_GOAL = 1.5;
export const SCALE_CPU_GOAL = 3;

const execFileP = promisify(execFile);
const KARMADA_BIN = fileURLToPath(new URL("../bin/karmada", import.meta.url));
const SINK_CHILD = fileURLToPath(new URL("./sink-fleet-child.ts", import.meta.url));
const SECTION = "13 scale";
const GROUP_LABEL = "scale.karmada.io/group";
const OVERRIDE_LABEL = "scale.karmada.io/overridden";
/** Clusters per group: Duplicated to a pair, Divided over three (one replica each). */
const DUP_SIZE = 2;
const DIV_SIZE = 3;
/** How long each rate of the members' own status writes is held. */
const CHURN_SECONDS = 30;

/** CPU seconds, RSS and peak RSS of a process, from /proc (Linux). */
export function procUsage(pid: number): { cpuSeconds: number; rssBytes: number; peakRssBytes: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name (which may hold spaces) start at ") ".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14, 15)
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
  return { cpuSeconds: ticks / 100, rssBytes: kb("VmRSS"), peakRssBytes: kb("VmHWM") };
}

/** One line in, one JSON line out. */
export class LineChild {
  readonly child: ChildProcessWithoutNullStreams;
  #lines: Interface;
  #waiting: Array<(line: string) => void> = [];
  #buffered: string[] = [];
  stderr = "";

  constructor(child: ChildProcessWithoutNullStreams) {
    this.child = child;
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      this.stderr = (this.stderr + d).slice(-4000);
    });
    this.#lines = createInterface({ input: child.stdout });
    this.#lines.on("line", (line) => {
      const w = this.#waiting.shift();
      if (w) w(line);
      else this.#buffered.push(line);
    });
  }

  next(timeoutMs: number, what: string): Promise<string> {
    const ready = this.#buffered.shift();
    if (ready !== undefined) return Promise.resolve(ready);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(new Error(`${what}: no answer within ${timeoutMs / 1000} s: ${this.stderr.slice(-500)}`)),
        timeoutMs,
      );
      const onExit = (code: number | null) =>
        reject(new Error(`${what}: the process exited (${code}): ${this.stderr.slice(-500)}`));
      this.child.once("exit", onExit);
      this.#waiting.push((line) => {
        clearTimeout(timer);
        this.child.off("exit", onExit);
        resolve(line);
      });
    });
  }

  async ask<T>(question: unknown, timeoutMs: number, what: string): Promise<T> {
    this.child.stdin.write(`${JSON.stringify(question)}\n`);
    return JSON.parse(await this.next(timeoutMs, what)) as T;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once("exit", resolve));
    this.child.kill("SIGTERM");
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
  }
}

interface ControlPlane {
  proc: LineChild;
  kubeconfig: string;
  /** Its processes by component (one topology: the one `karmada up`). */
  components: Map<string, number[]>;
}

/**
 * `karmada up --members 0` (with `ha`: `--ha`) until it says it runs; its kubeconfig and its
 * processes, from the node lines `up --ha` prints and, for etcd, from /proc.
 */
async function startControlPlane(dataDir: string, ha: boolean): Promise<ControlPlane> {
  // BENCH_SCALE_CPU_PROF=<dir>: the control plane writes a V8 CPU profile there when it stops.
  const profDir = process.env.BENCH_SCALE_CPU_PROF;
  const profile = profDir && !ha ? ["--cpu-prof", `--cpu-prof-dir=${profDir}`] : [];
  const args = ["up", "--members", "0", "--data-dir", dataDir, "--port", "0", "--no-dashboard"];
  const child = spawn(process.execPath, [...profile, KARMADA_BIN, ...args, ...(ha ? ["--ha"] : [])], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  const proc = new LineChild(child);
  const components = new Map<string, number[]>([
    [ha ? "karmada up (load balancer)" : "karmada up", [child.pid!]],
  ]);
  const add = (name: string, pid: number) => components.set(name, [...(components.get(name) ?? []), pid]);
  let running = false;
  for (;;) {
    const line = await proc.next(300_000, "karmada up");
    if (line.includes("Local Karmada is running.")) {
      running = true;
      if (!ha) break;
    }
    const pids = /pids apiserver (\d+), controller-manager (\d+), scheduler (\d+)/.exec(line);
    if (pids) {
      add("apiserver", Number(pids[1]));
      add("controller-manager", Number(pids[2]));
      add("scheduler", Number(pids[3]));
    }
    if (running && line.startsWith("etcd members:")) break;
  }
  if (ha) for (const pid of childrenNamed(child.pid!, "etcd")) add("etcd", pid);
  return { proc, kubeconfig: join(dataDir, "karmada.config"), components };
}

/** The pids of `parent`'s children whose command is `comm` (Linux /proc). */
function childrenNamed(parent: number, comm: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === parent && name === comm) out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** The summed usage of processes (peak RSS: the sum of each one's peak). */
function usageOf(pids: number[]): { cpuSeconds: number; rssBytes: number; peakRssBytes: number } {
  const all = pids.map(procUsage);
  const sum = (f: (u: (typeof all)[number]) => number) => all.reduce((a, u) => a + f(u), 0);
  return {
    cpuSeconds: sum((u) => u.cpuSeconds),
    rssBytes: sum((u) => u.rssBytes),
    peakRssBytes: sum((u) => u.peakRssBytes),
  };
}

/** The control plane's writes to its store (`etcd_requests_total`) by "operation resource", read through kubectl. */
export async function writeCounts(kubeconfig: string, contexts: string[] = []): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  // Each API server counts its own writes: with several, every one is asked (by its context).
  for (const context of contexts.length > 0 ? contexts : [undefined]) {
    const args = [
      "--kubeconfig",
      kubeconfig,
      ...(context ? ["--context", context] : []),
      "get",
      "--raw",
      "/metrics",
    ];
    const { stdout } = await execFileP("kubectl", args, { maxBuffer: 64 * 2 ** 20 });
    for (const { labels, value } of parseExposition(stdout).find("etcd_requests_total")) {
      const key = `${labels.operation} ${labels.type}`;
      counts.set(key, (counts.get(key) ?? 0) + value);
    }
  }
  return counts;
}

interface Plan {
  /** Per template: its group label and the clusters it lands on. */
  templates: Array<{ group: string; clusters: string[]; replicas: number }>;
  policies: StoredObject[];
  /** Member objects per cluster. */
  perCluster: Map<string, number>;
}

/** Half the templates Duplicated to a pair of clusters, half Divided over three; groups round-robin. */
export function plan(ns: string, n: number, clusters: string[]): Plan {
  const groups = (size: number, kind: string) =>
    Array.from({ length: Math.floor(clusters.length / size) }, (_, k) => ({
      label: `${kind}-${k}`,
      clusters: clusters.slice(k * size, (k + 1) * size),
    }));
  const dup = groups(DUP_SIZE, "dup");
  const div = groups(DIV_SIZE, "div");
  const templates: Plan["templates"] = [];
  const perCluster = new Map(clusters.map((c) => [c, 0]));
  for (let i = 0; i < n; i++) {
    const divided = i % 2 === 1;
    const g = divided ? div[Math.floor(i / 2) % div.length]! : dup[Math.floor(i / 2) % dup.length]!;
    templates.push({ group: g.label, clusters: g.clusters, replicas: divided ? g.clusters.length : 1 });
    for (const c of g.clusters) perCluster.set(c, perCluster.get(c)! + 1);
  }
  const policy = (g: { label: string; clusters: string[] }, divided: boolean): StoredObject =>
    ({
      apiVersion: "policy.karmada.io/v1alpha1",
      kind: "PropagationPolicy",
      metadata: { name: g.label, namespace: ns },
      spec: {
        resourceSelectors: [
          {
            apiVersion: "apps/v1",
            kind: "Deployment",
            labelSelector: { matchLabels: { [GROUP_LABEL]: g.label } },
          },
        ],
        placement: {
          clusterAffinity: { clusterNames: g.clusters },
          replicaScheduling: divided
            ? {
                replicaSchedulingType: "Divided",
                replicaDivisionPreference: "Weighted",
                weightPreference: {
                  staticWeightList: g.clusters.map((c) => ({
                    targetCluster: { clusterNames: [c] },
                    weight: 1,
                  })),
                },
              }
            : { replicaSchedulingType: "Duplicated" },
        },
      },
    }) as unknown as StoredObject;
  return {
    templates,
    policies: [...dup.map((g) => policy(g, false)), ...div.map((g) => policy(g, true))],
    perCluster,
  };
}

export async function ensureNamespace(c: Client, ns: string): Promise<void> {
  try {
    await c.create(RESOURCES.namespaces, { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
}

/** Resolves once `count` Clusters are Ready (throws after 300 s). */
export async function untilClustersReady(cp: Client, count: number): Promise<void> {
  const deadline = performance.now() + 300_000;
  for (;;) {
    const list = await cp.list(RESOURCES.clusters, undefined);
    const readyCount = list.items.filter((c) =>
      ((c.status as { conditions?: Array<{ type: string; status: string }> })?.conditions ?? []).some(
        (x) => x.type === "Ready" && x.status === "True",
      ),
    ).length;
    if (readyCount === count) return;
    if (performance.now() > deadline) throw new Error(`only ${readyCount} clusters Ready after 300 s`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Resolves once every template in `ns` shows its aggregated status (observedGeneration caught up). */
export async function aggregated(cp: Client, ns: string, n: number, timeoutMs: number): Promise<void> {
  const inf = new Informer(cp, RESOURCES.deployments, { namespace: ns });
  const done = new Set<string>();
  const note = (d: StoredObject) => {
    const s = d.status as { observedGeneration?: number } | undefined;
    if (s?.observedGeneration === d.metadata.generation) done.add(d.metadata.name);
    else done.delete(d.metadata.name);
  };
  inf.addHandler({
    onAdd: note,
    onUpdate: (_o, d) => note(d),
    onDelete: (d) => done.delete(d.metadata.name),
  });
  inf.start();
  try {
    const deadline = performance.now() + timeoutMs;
    while (done.size < n) {
      if (performance.now() > deadline)
        throw new Error(
          `timed out after ${timeoutMs / 1000} s waiting for aggregated status (${done.size}/${n})`,
        );
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    inf.stop();
  }
}

type Requests = Record<string, Record<string, number>>;

/**
 * What the members serve while nothing changes (every copy is there and reported): the cluster
 * status controller's health checks, discovery and summaries, and the rest of the control
 * plane's upkeep, summed over the members and split by verb and resource.
 */
async function quietRequests(
  sinks: LineChild,
  seconds: number,
): Promise<{ total: number; seconds: number; kinds: Array<[string, number]> } | undefined> {
  if (seconds <= 0) return undefined;
  const before = await sinks.ask<Requests>({ op: "requests" }, 30_000, "member requests");
  const start = performance.now();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const after = await sinks.ask<Requests>({ op: "requests" }, 30_000, "member requests");
  const elapsed = (performance.now() - start) / 1000;
  const kinds = new Map<string, number>();
  for (const [member, counts] of Object.entries(after))
    for (const [k, v] of Object.entries(counts)) {
      const d = v - (before[member]?.[k] ?? 0);
      if (d > 0) kinds.set(k, (kinds.get(k) ?? 0) + d);
    }
  const sorted = [...kinds].sort((a, b) => b[1] - a[1]);
  return { total: sorted.reduce((a, [, v]) => a + v, 0), seconds: elapsed, kinds: sorted };
}

export async function scaleBench(cfg: ScaleConfig, row: Row): Promise<number> {
  if (cfg.scaleObjects === 0) return 0;
  const n = cfg.scaleObjects;
  const dir = await mkdtemp(join(tmpdir(), "karmada-bench-scale-"));
  let cpProc: LineChild | undefined;
  let sinks: LineChild | undefined;
  const clients: Array<{ close(): void }> = [];
  try {
    const started = performance.now();
    const ha = cfg.scaleTopology === "ha";
    const backend = ha ? "etcd, HA" : "sqlite";
    const cpStarted = await startControlPlane(join(dir, "data"), ha);
    cpProc = cpStarted.proc;
    const cpPids = [...cpStarted.components.values()].flat();
    const cpUsage = () => usageOf(cpPids);
    const byComponent = () =>
      new Map([...cpStarted.components].map(([name, pids]) => [name, usageOf(pids).cpuSeconds]));
    const tsx = `--import=${import.meta.resolve("tsx")}`;
    sinks = new LineChild(
      spawn(process.execPath, [tsx, SINK_CHILD, String(cfg.scaleClusters), cpStarted.kubeconfig, dir], {
        stdio: ["pipe", "pipe", "pipe"],
      }),
    );
    const ready = (JSON.parse(await sinks.next(600_000, "sink members")) as { ready: SinkFleetReady }).ready;
    const cp = httpClientFor(await loadKubeconfig({ path: cpStarted.kubeconfig }), {
      maxConcurrent: cfg.concurrency,
    });
    clients.push(cp);
    // Every cluster Ready before anything is measured.
    await untilClustersReady(cp, ready.names.length);
    process.stderr.write(
      `bench: scale: control plane and ${ready.names.length} sinks up in ${fmt((performance.now() - started) / 1000, 1)} s (sinks joined in ${fmt(ready.seconds, 1)} s)\n`,
    );
    const sinkConfig = join(dir, "sinks.config");
    const members = new Map<string, Client>();
    for (const m of ready.names) {
      const c = httpClientFor(await loadKubeconfig({ path: sinkConfig, context: m }), { maxConcurrent: 8 });
      clients.push(c);
      members.set(m, c);
    }
    const p = plan("scale", n, ready.names);
    const memberObjects = [...p.perCluster.values()].reduce((a, b) => a + b, 0);
    const timeoutMs = Math.max(600_000, memberObjects * 50);
    const waitSinks = (ns: string) =>
      sinks!.ask<{ settled: boolean }>(
        { op: "waitCounts", namespace: ns, counts: Object.fromEntries(p.perCluster), timeoutMs },
        timeoutMs + 10_000,
        "the sinks to hold every copy",
      );

    // Straight to the members: the same objects, override label included.
    await Promise.all([...members.values()].map((m) => ensureNamespace(m, "scale-direct")));
    const writes: Array<{ member: Client; obj: Record<string, unknown> }> = [];
    p.templates.forEach((t, i) => {
      for (const c of t.clusters) {
        const obj = deployment("scale-direct", i, 1, { [GROUP_LABEL]: t.group, [OVERRIDE_LABEL]: "true" });
        writes.push({ member: members.get(c)!, obj });
      }
    });
    const directStart = performance.now();
    await pool(writes.length, cfg.concurrency, async (k) => {
      await writes[k]!.member.create(RESOURCES.deployments, writes[k]!.obj);
    });
    const directCreates = performance.now() - directStart;
    if (!(await waitSinks("scale-direct")).settled)
      throw new Error("direct writes: the sinks never held them all");
    const direct = performance.now() - directStart;

    // Through the control plane.
    await ensureNamespace(cp, "scale");
    for (const pol of p.policies) await cp.create(KARMADA.propagationPolicies, pol);
    await cp.create(KARMADA.overridePolicies, {
      apiVersion: "policy.karmada.io/v1alpha1",
      kind: "OverridePolicy",
      metadata: { name: "label", namespace: "scale" },
      spec: {
        resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment" }],
        overrideRules: [
          { overriders: { labelsOverrider: [{ operator: "add", value: { [OVERRIDE_LABEL]: "true" } }] } },
        ],
      },
    });
    const apiContexts = ha
      ? (cpStarted.components.get("apiserver") ?? []).map((_, i) => `karmada-apiserver-${i + 1}`)
      : [];
    const writesBefore = await writeCounts(cpStarted.kubeconfig, apiContexts);
    const before = cpUsage();
    const componentsBefore = byComponent();
    const throughStart = performance.now();
    await pool(n, cfg.concurrency, async (i) => {
      const t = p.templates[i]!;
      await cp.create(RESOURCES.deployments, deployment("scale", i, t.replicas, { [GROUP_LABEL]: t.group }));
    });
    const creates = performance.now() - throughStart;
    if (!(await waitSinks("scale")).settled) throw new Error("through the control plane: copies missing");
    const copies = performance.now() - throughStart;
    await aggregated(cp, "scale", n, timeoutMs);
    const through = performance.now() - throughStart;
    const after = cpUsage();
    const componentsAfter = byComponent();
    const writesAfter = await writeCounts(cpStarted.kubeconfig, apiContexts);
    const sinkUsage = await sinks.ask<SinkUsage>({ op: "usage" }, 30_000, "sink usage");
    const quietFrom = cpUsage().cpuSeconds;
    const statusCalls = await quietRequests(sinks, cfg.scaleStatusWindowSeconds ?? 60);
    const quietCpu = cpUsage().cpuSeconds - quietFrom;
    // The members' write rate: status changes the control plane reflects into Works, bindings and templates.
    const churns: Array<{ rate: number; written: number; cpu: number; seconds: number }> = [];
    for (const rate of cfg.scaleChurnRates ?? [20, 100]) {
      const u0 = cpUsage();
      const t0 = performance.now();
      const r = await sinks.ask<{ written: number; failed: number }>(
        { op: "churn", namespace: "scale", perSecond: rate, seconds: CHURN_SECONDS },
        CHURN_SECONDS * 1000 + 120_000,
        "member status churn",
      );
      // A few seconds more for the control plane to catch up with the last changes.
      await new Promise((res) => setTimeout(res, 3_000));
      churns.push({
        rate,
        written: r.written,
        cpu: cpUsage().cpuSeconds - u0.cpuSeconds,
        seconds: (performance.now() - t0) / 1000,
      });
    }

    const ratio = through / direct;
    const cpu = after.cpuSeconds - before.cpuSeconds;
    const perK = cpu / (memberObjects / 1000);
    const label = `${fmt(n)} Deployments → ${ready.names.length} clusters (${fmt(memberObjects)} member objects)`;
    row(
      SECTION,
      backend,
      `${label}: copies and aggregated status`,
      `${fmt(through)} ms`,
      `copies after ${fmt(copies)} ms; templates created in ${fmt(creates)} ms; ${fmt(memberObjects / (through / 1000))} member objects/s`,
    );
    row(
      SECTION,
      backend,
      "straight to the members, until they report",
      `${fmt(direct)} ms`,
      `the creates alone ${fmt(directCreates)} ms`,
    );
    row(
      SECTION,
      backend,
      "ratio to the same end state written directly",
      `${fmt(ratio, 2)}×`,
      ratio <= SCALE_RATIO_GOAL ? `goal ≤ ${SCALE_RATIO_GOAL} met` : `goal ≤ ${SCALE_RATIO_GOAL} NOT met`,
    );
    row(
      SECTION,
      backend,
      "control-plane CPU per 1,000 member objects",
      `${fmt(perK, 2)} s`,
      `${fmt(cpu, 1)} CPU-s in all; ${perK <= SCALE_CPU_GOAL ? `goal ≤ ${SCALE_CPU_GOAL} s met` : `goal ≤ ${SCALE_CPU_GOAL} s NOT met`}`,
    );
    const apiWrites = [...writesAfter]
      .map(([k, v]) => [k, v - (writesBefore.get(k) ?? 0)] as const)
      .filter(([, v]) => v > 0)
      .sort((a, b) => b[1] - a[1]);
    const allWrites = apiWrites.reduce((a, [, v]) => a + v, 0);
    row(
      SECTION,
      backend,
      "control-plane store writes per template",
      fmt(allWrites / n, 2),
      apiWrites.map(([k, v]) => `${k} ${fmt(v / n, 2)}`).join(", "),
    );
    row(
      SECTION,
      backend,
      "control-plane peak RSS",
      `${fmt(after.peakRssBytes / 2 ** 20)} MiB`,
      `grew ${fmt((after.peakRssBytes - before.rssBytes) / (memberObjects / 1000) / 2 ** 20, 1)} MiB per 1,000 member objects from ${fmt(before.rssBytes / 2 ** 20)} MiB before the run (${ha ? "every process of the control plane, each one's peak summed" : "API server, controllers, scheduler: one process"})`,
    );
    if (ha) {
      const spent = [...componentsAfter]
        .map(([name, v]) => [name, v - (componentsBefore.get(name) ?? 0)] as const)
        .sort((a, b) => b[1] - a[1]);
      row(
        SECTION,
        backend,
        "CPU by component during the run",
        `${fmt(cpu, 1)} CPU-s`,
        spent
          .map(
            ([name, v]) =>
              `${name} ×${cpStarted.components.get(name)!.length} ${fmt(v, 1)} s (${fmt((v / cpu) * 100)}%)`,
          )
          .join(", "),
      );
    }
    if (statusCalls) {
      const perMember = statusCalls.total / ready.names.length / (statusCalls.seconds / 60);
      row(
        SECTION,
        backend,
        `cluster status, ${ready.names.length} clusters at rest: API calls per minute per member`,
        fmt(perMember, 1),
        `over ${fmt(statusCalls.seconds)} s after the run, the control plane at ${fmt((quietCpu / statusCalls.seconds) * 100, 1)}% of a core: ${statusCalls.kinds.map(([k, v]) => `${k} ${fmt(v / ready.names.length / (statusCalls.seconds / 60), 1)}`).join(", ")} (watches count when they end)`,
      );
    }
    for (const c of churns) {
      row(
        SECTION,
        backend,
        `members' status changes at ${fmt(c.rate)}/s: control-plane CPU per change`,
        `${fmt((c.cpu / Math.max(1, c.written)) * 1000, 2)} ms`,
        `${fmt(c.written)} changes in ${CHURN_SECONDS} s; the control plane used ${fmt((c.cpu / c.seconds) * 100)}% of a core (reflected into Works, bindings and templates)`,
      );
    }
    row(
      SECTION,
      backend,
      `the ${ready.names.length} sinks (one process, both runs)`,
      `${fmt(sinkUsage.cpuSeconds, 1)} CPU-s`,
      `peak RSS ${fmt(sinkUsage.peakRssBytes / 2 ** 20)} MiB`,
    );
    return 0;
  } catch (err) {
    row(
      SECTION,
      cfg.scaleTopology === "ha" ? "etcd, HA" : "sqlite",
      "failed",
      "-",
      (err as Error).message.split("\n")[0]!,
    );
    return 1;
  } finally {
    for (const c of clients) c.close();
    await sinks?.stop();
    await cpProc?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
