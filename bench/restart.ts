/**
 * Restart row (issue L): how long a fresh controller manager takes, with N templates already
 * propagated, until every work queue is drained, and whether it had to write anything
 * (upstream reports about five minutes at 30,000 templates; the goal here is ≤ 30 s and no
 * write).
 *
 * The components run as separate processes with their own identities over TLS, as
 * trials/fleet.ts starts them: `karmada apiserver` on SQLite, `karmada scheduler`,
 * `karmada controller-manager`, and sink members (bench/sink-fleet-child.ts) joined in Push
 * mode. Once every copy is on the sinks and every template shows its aggregated status, the
 * controller manager is stopped (SIGTERM, which hands its Lease back) and a fresh one started.
 * Its `/metrics` are scraped until every `workqueue_depth` is 0 with nothing in progress, for
 * two seconds running, after its queues took in at least one key per template, binding and
 * Work (so that an empty queue before the initial lists were queued does not count). The API
 * server's `etcd_requests_total` before the stop and after the drain say what it wrote.
 *
 * Setting up is what costs: propagating 5,000 templates (the default) takes the components
 * about 130 CPU-seconds (API server ~45 %, controller manager ~30 %, sinks ~17 %, scheduler
 * ~8 %), 30,000 about 1,100, more than the whole bench may take on two cores; the issue's
 * figure is BENCH_RESTART_TEMPLATES=30000.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { StoredObject } from "../src/api/meta.ts";
import { RESOURCES } from "../src/client/client.ts";
import type { ClusterConnection, HttpClient } from "../src/client/http.ts";
import { httpClientFor, kubeconfigFor, writeKubeconfig } from "../src/client/kubeconfig.ts";
import { CONTROLLER_MANAGER_USER, SCHEDULER_USER } from "../src/karmada/rbac.ts";
import { KARMADA } from "../src/karmada/resources.ts";
import { issueClientCertificate } from "../src/pki/cluster-pki.ts";
import { freePort } from "../src/storage/etcd/local-etcd.ts";
import { httpsGet } from "../test/support/https.ts";
import { writeApiserverPki } from "../test/support/pki-files.ts";
import { parseExposition, type Scrape } from "../test/support/prometheus.ts";
import { pool } from "./load.ts";
import { deployment } from "./propagation.ts";
import {
  aggregated,
  ensureNamespace,
  LineChild,
  plan,
  procUsage,
  untilClustersReady,
  writeCounts,
} from "./scale.ts";
import type { SinkFleetReady } from "./sink-fleet-child.ts";
import { fmt, type Row } from "./table.ts";

export interface RestartConfig {
  /** Deployments propagated before the restart (half Duplicated, half Divided); 0 skips. */
  restartTemplates: number;
  /** Sink members they go to. */
  restartClusters: number;
  concurrency: number;
  /** Where the restarted controller manager writes a V8 CPU profile when it stops (none: no profile). */
  restartCpuProf?: string;
  /** Node flags for the restarted controller manager (heap tuning: `--max-semi-space-size=64`). */
  restartNodeFlags?: string[];
}

export const RESTART_DRAIN_GOAL_SECONDS = 30;

const KARMADA_BIN = fileURLToPath(new URL("../bin/karmada", import.meta.url));
const SINK_CHILD = fileURLToPath(new URL("./sink-fleet-child.ts", import.meta.url));
const SECTION = "13 scale restart";
const NS = "restart";
const OVERRIDE_LABEL = "restart.karmada.io/overridden";
/** Every queue empty, nothing in progress, for this long: drained. */
const QUIET_MS = 2_000;
const SCRAPE_EVERY_MS = 500;
/** After the drain, before the store's writes are read again. */
const SETTLE_MS = 5_000;
const CM_LEASE = "karmada-controller-manager";

/** A `karmada <component>` process and the URLs it printed on the way to its ready line. */
interface Started {
  proc: LineChild;
  url: string;
  metrics?: string;
  probes?: string;
}

async function startComponent(args: string[], ready: RegExp, nodeFlags: string[] = []): Promise<Started> {
  const proc = new LineChild(
    spawn(process.execPath, [...nodeFlags, KARMADA_BIN, ...args], { stdio: ["pipe", "pipe", "pipe"] }),
  );
  const out: Omit<Started, "proc" | "url"> = {};
  for (;;) {
    const line = await proc.next(180_000, `karmada ${args[0]}`);
    const metrics = /metrics at (\S+)/.exec(line)?.[1];
    if (metrics) out.metrics = metrics;
    const probes = /health probes at (http:\S+)/.exec(line)?.[1];
    if (probes) out.probes = probes;
    const m = ready.exec(line);
    if (m) return { proc, url: m[1] ?? m[0], ...out };
  }
}

/** Stops a component (SIGTERM, SIGKILL after 10 s) and says how long it took. */
async function stopTimed(proc: LineChild): Promise<number> {
  const t = performance.now();
  await proc.stop();
  return performance.now() - t;
}

const sum = (s: Scrape, metric: string, labels?: Record<string, string>): number =>
  s.find(metric, labels).reduce((a, x) => a + x.value, 0);

/** A metric's values by one of its labels. */
const byLabel = (s: Scrape, metric: string, label: string): Map<string, number> =>
  new Map(s.find(metric).map((x) => [x.labels[label] ?? "", x.value]));

/** `workqueue_adds_total` per queue. */
const addsByQueue = (s: Scrape): Map<string, number> => byLabel(s, "workqueue_adds_total", "name");

/** `rest_client_requests_total` to `host`, by method. */
function requestsByMethod(s: Scrape, host: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of s.find("rest_client_requests_total", { host })) {
    const method = r.labels.method ?? "";
    out.set(method, (out.get(method) ?? 0) + r.value);
  }
  return out;
}

/** Every queue empty and nothing in progress, after each queue in `expected` took in at least that many keys. */
function drained(s: Scrape, expected: Record<string, number>): boolean {
  const adds = addsByQueue(s);
  return (
    Object.entries(expected).every(([q, n]) => (adds.get(q) ?? 0) >= n) &&
    sum(s, "workqueue_depth") === 0 &&
    sum(s, "workqueue_unfinished_work_seconds") === 0
  );
}

/** The metrics, or why they could not be read (a busy process may drop the connection). */
async function scrape(url: string, admin: { certPem: string; keyPem: string }): Promise<Scrape | string> {
  const res = await httpsGet(url, { cert: admin }).catch((err: Error) => ({ status: 0, body: err.message }));
  return res.status === 200
    ? parseExposition(res.body)
    : `scraping ${url}: ${res.status} ${res.body.slice(0, 200)}`;
}

async function answersReady(probes: string): Promise<boolean> {
  const r = await fetch(probes.replace("/healthz", "/readyz")).catch(() => undefined);
  await r?.text();
  return r?.ok === true;
}

interface DrainResult {
  /** Requests the controller manager sent the API server by method (`rest_client_requests_total`). */
  requests: Map<string, number>;
  leadingMs: number;
  readyMs: number;
  drainedMs: number;
  adds: Map<string, number>;
  retries: number;
  cpuSeconds: number;
}

/**
 * Scrapes the controller manager until its queues are drained (see the file comment); times
 * from `t0` to its Lease held, its caches synced (/readyz), and the start of the quiet spell.
 */
async function waitDrained(
  cm: Started,
  apiserverHost: string,
  admin: { certPem: string; keyPem: string },
  expected: Record<string, number>,
  t0: number,
  timeoutMs: number,
): Promise<DrainResult> {
  let leadingMs: number | undefined;
  let readyMs: number | undefined;
  let quietSince: number | undefined;
  let cpuAtQuiet = 0;
  let last: Scrape | string = "no scrape yet";
  for (; ; await new Promise((r) => setTimeout(r, SCRAPE_EVERY_MS))) {
    if (performance.now() > t0 + timeoutMs) {
      const waiting =
        typeof last === "string"
          ? last
          : last
              .find("workqueue_depth")
              .filter((x) => x.value > 0)
              .map((d) => `${d.labels.name} ${d.value}`)
              .join(", ");
      throw new Error(
        `the controller manager did not drain within ${timeoutMs / 1000} s (leading ${leadingMs !== undefined}, ready ${readyMs !== undefined}; waiting: ${waiting || "none"})`,
      );
    }
    const s = await scrape(cm.metrics!, admin);
    last = s;
    const at = performance.now();
    if (typeof s === "string") {
      quietSince = undefined;
      continue;
    }
    if (leadingMs === undefined && sum(s, "leader_election_master_status", { name: CM_LEASE }) === 1)
      leadingMs = at - t0;
    if (readyMs === undefined && leadingMs !== undefined && (await answersReady(cm.probes!)))
      readyMs = performance.now() - t0;
    if (readyMs === undefined || !drained(s, expected)) {
      quietSince = undefined;
    } else if (quietSince === undefined) {
      quietSince = at;
      cpuAtQuiet = procUsage(cm.proc.child.pid!).cpuSeconds;
    } else if (at - quietSince >= QUIET_MS) {
      return {
        requests: requestsByMethod(s, apiserverHost),
        leadingMs: leadingMs!,
        readyMs,
        drainedMs: quietSince - t0,
        adds: addsByQueue(s),
        retries: sum(s, "workqueue_retries_total"),
        cpuSeconds: cpuAtQuiet,
      };
    }
  }
}

/** What brought bindings to the scheduler's queue between two scrapes, and how many it scheduled. */
function schedulerActivity(before: Scrape | string, after: Scrape | string): string {
  if (typeof before === "string") return before;
  if (typeof after === "string") return after;
  const delta = (metric: string, label: string) =>
    writesBetween(byLabel(before, metric, label), byLabel(after, metric, label));
  const incoming = delta("karmada_scheduler_queue_incoming_bindings_total", "event");
  const attempts = delta("karmada_scheduler_schedule_attempts_total", "result");
  const say = (xs: ReadonlyArray<readonly [string, number]>) =>
    xs.map(([k, v]) => `${k} ${fmt(v)}`).join(", ") || "none";
  return `bindings queued by ${say(incoming)}; attempts ${say(attempts)}`;
}

/** What grew between two counts (store writes, metrics by label), nonzero only, largest first. */
function writesBetween(before: Map<string, number>, after: Map<string, number>): Array<[string, number]> {
  return [...after]
    .map(([k, v]) => [k, v - (before.get(k) ?? 0)] as [string, number])
    .filter(([, v]) => v > 0)
    .sort((a, b) => b[1] - a[1]);
}

export async function restartBench(cfg: RestartConfig, row: Row): Promise<number> {
  if (cfg.restartTemplates === 0) return 0;
  const n = cfg.restartTemplates;
  const dir = await mkdtemp(join(tmpdir(), "karmada-bench-restart-"));
  const file = (name: string) => join(dir, name);
  const procs: LineChild[] = [];
  const clients: HttpClient[] = [];
  try {
    const started = performance.now();
    const { pki, servingFlags } = await writeApiserverPki(file);
    // Profiled from its start: the restart's part is the last stretch of the profile.
    const apiserverProf = cfg.restartCpuProf
      ? ["--cpu-prof", `--cpu-prof-dir=${join(cfg.restartCpuProf, "apiserver")}`]
      : [];
    const apiserver = await startComponent(
      [
        "apiserver",
        `--secure-port=${await freePort()}`,
        ...servingFlags(file("apiserver-certs")),
        `--storage=sqlite://${file("karmada.db")}`,
        "--log-level=warn",
      ],
      /listening on (https:\/\/\S+)/,
      apiserverProf,
    );
    procs.push(apiserver.proc);
    const apiserverHost = new URL(apiserver.url).host;
    const connection = (certPem: string, keyPem: string): ClusterConnection => ({
      server: apiserver.url,
      caData: pki.ca.certPem,
      certData: certPem,
      keyData: keyPem,
    });
    const kubeconfig = async (name: string, conn: ClusterConnection): Promise<string> => {
      const path = file(`${name}.kubeconfig`);
      await writeKubeconfig(path, kubeconfigFor([{ name: "karmada-apiserver", connection: conn }]));
      return path;
    };
    const adminConfig = await kubeconfig("admin", connection(pki.admin.certPem, pki.admin.keyPem));
    const identity = async (name: string, commonName: string) => {
      const cert = await issueClientCertificate(pki, { commonName });
      return kubeconfig(name, connection(cert.certPem, cert.keyPem));
    };
    const cmConfig = await identity("controller-manager", CONTROLLER_MANAGER_USER);
    const schedulerConfig = await identity("scheduler", SCHEDULER_USER);
    /** An elected component with its probes and its metrics (HTTPS; our CA's client certificates may scrape). */
    const elected = (name: string, kubeconfig: string): string[] => [
      name,
      `--kubeconfig=${kubeconfig}`,
      "--health-probe-bind-address=127.0.0.1:0",
      "--metrics-bind-address=127.0.0.1:0",
      `--client-ca-file=${file("ca.crt")}`,
      "--log-level=error",
    ];
    const startControllerManager = (nodeFlags: string[] = []) =>
      startComponent(elected("controller-manager", cmConfig), /controller-manager (\S+) started/, nodeFlags);
    const scheduler = await startComponent(elected("scheduler", schedulerConfig), /scheduler (\S+) started/);
    procs.push(scheduler.proc);
    let cm = await startControllerManager();
    procs.push(cm.proc);

    const tsx = `--import=${import.meta.resolve("tsx")}`;
    const sinks = new LineChild(
      spawn(process.execPath, [tsx, SINK_CHILD, String(cfg.restartClusters), adminConfig, dir], {
        stdio: ["pipe", "pipe", "pipe"],
      }),
    );
    procs.push(sinks);
    const ready = (JSON.parse(await sinks.next(600_000, "sink members")) as { ready: SinkFleetReady }).ready;
    const cp = httpClientFor(connection(pki.admin.certPem, pki.admin.keyPem), {
      maxConcurrent: cfg.concurrency,
    });
    clients.push(cp);
    await untilClustersReady(cp, ready.names.length);

    // The templates, propagated by the first controller manager.
    const p = plan(NS, n, ready.names);
    // The plan's policies select their templates by one label; the templates carry it.
    const groupLabel = Object.keys(
      (p.policies[0]!.spec as { resourceSelectors: Array<{ labelSelector: { matchLabels: object } }> })
        .resourceSelectors[0]!.labelSelector.matchLabels,
    )[0]!;
    const memberObjects = [...p.perCluster.values()].reduce((a, b) => a + b, 0);
    await ensureNamespace(cp, NS);
    for (const pol of p.policies) await cp.create(KARMADA.propagationPolicies, pol);
    await cp.create(KARMADA.overridePolicies, {
      apiVersion: "policy.karmada.io/v1alpha1",
      kind: "OverridePolicy",
      metadata: { name: "label", namespace: NS },
      spec: {
        resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment" }],
        overrideRules: [
          { overriders: { labelsOverrider: [{ operator: "add", value: { [OVERRIDE_LABEL]: "true" } }] } },
        ],
      },
    } as unknown as StoredObject);
    const cpuOf = () =>
      [apiserver.proc, scheduler.proc, cm.proc, sinks].map((x) => procUsage(x.child.pid!).cpuSeconds);
    const setupCpuBefore = cpuOf();
    const setupStart = performance.now();
    await pool(n, cfg.concurrency, async (i) => {
      const t = p.templates[i]!;
      await cp.create(RESOURCES.deployments, deployment(NS, i, t.replicas, { [groupLabel]: t.group }));
    });
    const createdMs = performance.now() - setupStart;
    const timeoutMs = Math.max(600_000, memberObjects * 20);
    /** How long a controller manager may take to drain: generous, a slow machine should still get a figure. */
    const drainTimeoutMs = Math.max(600_000, n * 40);
    const settled = await sinks.ask<{ settled: boolean }>(
      { op: "waitCounts", namespace: NS, counts: Object.fromEntries(p.perCluster), timeoutMs },
      timeoutMs + 10_000,
      "the sinks to hold every copy",
    );
    if (!settled.settled) throw new Error("the sinks never held every copy");
    await aggregated(cp, NS, n, timeoutMs);
    const setupMs = performance.now() - setupStart;
    const setupCpu = cpuOf().map((after, i) => after - setupCpuBefore[i]!);
    const [apiserverCpu, schedulerCpu, cmCpu, sinksCpu] = setupCpu.map((c) => fmt(c, 1));
    row(
      SECTION,
      "sqlite",
      `setup: ${fmt(n)} templates propagated to ${ready.names.length} clusters (${fmt(memberObjects)} Works)`,
      `${fmt(setupMs / 1000)} s`,
      `${fmt(n / (setupMs / 1000))} templates/s, created in ${fmt(createdMs / 1000, 1)} s; ` +
        `CPU-s: API server ${apiserverCpu}, scheduler ${schedulerCpu}, controller manager ${cmCpu}, sinks ${sinksCpu}; ` +
        `components up in ${fmt((setupStart - started) / 1000, 1)} s before`,
    );

    // Evidence that a controller manager went through the whole initial list: at least one key
    // per template, binding and Work taken into the queues that own them.
    const expected = {
      "resource-detector": n,
      "binding-controller": n,
      "resource-binding-status-controller": n,
      "execution-controller": memberObjects,
      "work-status-controller": memberObjects,
    };
    // The first controller manager done too (nothing queued), so that its tail is not counted.
    await waitDrained(cm, apiserverHost, pki.admin, expected, performance.now(), drainTimeoutMs);
    const writesBefore = await writeCounts(adminConfig);
    const schedulerBefore = await scrape(scheduler.metrics!, pki.admin);
    const stopMs = await stopTimed(cm.proc);

    const t0 = performance.now();
    const prof = cfg.restartCpuProf ? ["--cpu-prof", `--cpu-prof-dir=${cfg.restartCpuProf}`] : [];
    cm = await startControllerManager([...(cfg.restartNodeFlags ?? []), ...prof]);
    procs.push(cm.proc);
    const startedMs = performance.now() - t0;
    const drained = await waitDrained(cm, apiserverHost, pki.admin, expected, t0, drainTimeoutMs);
    // Events are written in batches up to EVENT_REPEAT_FLUSH_MS after they are recorded, and
    // coalesced status keys wait on timers the queue depth does not show: a while longer, so
    // that such writes are counted too.
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const writesAfter = await writeCounts(adminConfig);
    const writes = writesBetween(writesBefore, writesAfter);
    const schedulerAfter = await scrape(scheduler.metrics!, pki.admin);
    const allWrites = writes.reduce((a, [, v]) => a + v, 0);
    const watched = /resourcebindings|works\.work|deployments\.apps|events/;
    const unexpected = writes.filter(([k]) => watched.test(k));

    const drainS = drained.drainedMs / 1000;
    const adds = [...drained.adds]
      .filter(([, v]) => v > 0)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${fmt(v)}`)
      .join(", ");
    row(
      SECTION,
      "sqlite",
      `controller-manager restart with ${fmt(n)} templates: queues drained`,
      `${fmt(drainS, 1)} s`,
      `goal ≤ ${RESTART_DRAIN_GOAL_SECONDS} s ${drainS <= RESTART_DRAIN_GOAL_SECONDS ? "met" : "NOT met"}; ` +
        `process up ${fmt(startedMs / 1000, 1)} s, Lease held ${fmt(drained.leadingMs / 1000, 1)} s, ready (caches synced) ${fmt(drained.readyMs / 1000, 1)} s; ` +
        `adds ${adds}; retries ${fmt(drained.retries)}; ` +
        `requests to the API server ${[...drained.requests].map(([m, v]) => `${m} ${fmt(v)}`).join(", ")}; ` +
        `${ready.names.length} clusters, ${fmt(memberObjects)} Works; ` +
        `the old one stopped in ${fmt(stopMs / 1000, 1)} s`,
    );
    row(
      SECTION,
      "sqlite",
      `store writes from the stop until ${SETTLE_MS / 1000} s after the drain`,
      fmt(allWrites),
      `goal 0 for bindings, works, templates, events: ${unexpected.length === 0 ? "met" : "NOT met"}; ` +
        (writes.map(([k, v]) => `${k} ${fmt(v)}`).join(", ") || "none") +
        `; the scheduler meanwhile: ${schedulerActivity(schedulerBefore, schedulerAfter)}`,
    );
    row(
      SECTION,
      "sqlite",
      "restarted controller-manager CPU until drained",
      `${fmt(drained.cpuSeconds, 1)} CPU-s`,
      `${fmt((drained.cpuSeconds / n) * 1000, 2)} CPU-s per 1,000 templates; peak RSS ${fmt(procUsage(cm.proc.child.pid!).peakRssBytes / 2 ** 20)} MiB`,
    );
    return 0;
  } catch (err) {
    row(SECTION, "sqlite", "failed", "-", (err as Error).message.split("\n")[0]!);
    return 1;
  } finally {
    for (const c of clients) c.close();
    for (const p of [...procs].reverse()) await p.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
