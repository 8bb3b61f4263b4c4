/**
 * The benchmark: raw store inserts, API creates over HTTP and in process, large lists as JSON
 * and as Table, watch fan-out, and memory per stored object, for each storage backend; then
 * the fleet: `karmada up` to a running fleet, informer initial sync, work queue throughput.
 * Run with `npm run bench` (bin/bench reads the counts from the environment).
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type RunningHttpServer, startHttpServer } from "../src/apiserver/http.ts";
import { ApiServer } from "../src/apiserver/server.ts";
import { silentLogger } from "../src/log.ts";
import { createMetricsRegistry } from "../src/metrics/registry.ts";
import { ETCD_BINARY, type LocalEtcd, startLocalEtcd } from "../src/storage/etcd/local-etcd.ts";
import { openStore } from "../src/storage/open.ts";
import type { Store } from "../src/storage/store.ts";
import { dashboardBench } from "./dashboard.ts";
import { type FailoverConfig, failoverBench } from "./failover.ts";
import { type FleetConfig, fleetBench } from "./fleet.ts";
import { haBench } from "./ha.ts";
import { benchInterpreter } from "./interpreter.ts";
import {
  configMap,
  type HttpTarget,
  handle,
  httpGet,
  keepAliveAgent,
  LoadClient,
  name,
  pool,
  wallClock,
} from "./load.ts";
import type { MemoryResult } from "./memory-child.ts";
import { type PropagationConfig, propagationBench } from "./propagation.ts";
import { type RestartConfig, restartBench } from "./restart.ts";
import { type ScaleConfig, scaleBench } from "./scale.ts";
import {
  benchScheduler,
  SCHEDULER_GOAL_CLUSTERS,
  SCHEDULER_GOAL_PER_SECOND,
  type SchedulerFigure,
} from "./scheduler.ts";
import { type SearchConfig, searchBench } from "./search.ts";
import { type SecurityConfig, securityBench } from "./security.ts";
import { fmt } from "./table.ts";
import type { WorksMemoryResult } from "./works-memory-child.ts";

export interface BenchConfig
  extends Omit<FleetConfig, "concurrency">,
    Omit<PropagationConfig, "concurrency">,
    FailoverConfig,
    Omit<SecurityConfig, "apiCreates" | "concurrency">,
    Omit<SearchConfig, "watchers">,
    Omit<ScaleConfig, "concurrency">,
    Omit<RestartConfig, "concurrency"> {
  backends: string[];
  storeInserts: number;
  apiCreates: number;
  concurrency: number;
  listObjects: number;
  listRepeats: number;
  watchers: number;
  watchEvents: number;
  /** HTTP and in-process creates on a throwaway server first, so every backend meets warm code. */
  warmup: number;
  /** Works the control plane holds for the memory row (0: skipped). */
  works: number;
  /** Fleet sizes the scheduler core is measured against (BENCH_SCHEDULER_CLUSTERS). */
  schedulerClusters: number[];
  /** Only these sections (BENCH_ONLY; default all): api fleet propagation scale restart failover security search ha dashboard works scheduler interpreter. */
  only?: string[];
}

/** The project's goal for API creates over HTTP relative to the raw store. */
const HTTP_RATIO_GOAL = 0.25;
const TABLE_ACCEPT = "application/json;as=Table;g=meta.k8s.io;v=v1";
const WATCH_TIMEOUT_MS = 120_000;

interface Row {
  section: string;
  backend: string;
  metric: string;
  value: string;
  note: string;
}

const rows: Row[] = [];
const log = (msg: string): void => {
  process.stderr.write(`bench: ${msg}\n`);
};

function row(section: string, backend: string, metric: string, value: string, note = ""): void {
  rows.push({ section, backend, metric, value, note });
  log(`${section} ${backend} ${metric}: ${value}${note ? ` (${note})` : ""}`);
}

const perSecond = (count: number, ms: number): number => count / (ms / 1000);
const mib = (bytes: number): string => `${fmt(bytes / (1024 * 1024), 1)} MiB`;
const kib = (bytes: number): string => `${fmt(bytes / 1024, 0)} KiB`;
const ms = (v: number): string => `${fmt(v, 0)} ms`;

/** Names fresh stores of one backend; `tag` keeps them apart (a file or a key prefix each). */
interface Backend {
  name: string;
  url(tag: string): Promise<string>;
}

const open = async (backend: Backend, tag: string): Promise<Store> => openStore(await backend.url(tag));

// 1. raw store inserts --------------------------------------------------------------------

function storedValue(i: number): string {
  const cm = configMap(name("raw", i), i);
  const metadata = cm.metadata as Record<string, unknown>;
  return JSON.stringify({
    ...cm,
    metadata: {
      ...metadata,
      namespace: "raw",
      uid: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
      creationTimestamp: "2026-11-22T00:00:00Z",
    },
  });
}

interface RawRates {
  /** One insert at a time: what one write costs the store. */
  single: number;
  /** As many in flight as the API benchmark has (the store may commit them together). */
  concurrent: number;
}

async function rawInsertRate(backend: Backend, cfg: BenchConfig): Promise<RawRates> {
  const store = await open(backend, "raw");
  try {
    const single = await pool(cfg.storeInserts, 1, async (i) => {
      await store.create(`/registry/core/configmaps/raw/${name("raw1", i)}`, storedValue(i));
    });
    const singleRate = perSecond(cfg.storeInserts, single);
    row(
      "1 store insert",
      backend.name,
      `${fmt(cfg.storeInserts)} keys, 1 in flight`,
      `${fmt(singleRate)} /s`,
    );
    const elapsed = await pool(cfg.storeInserts, cfg.concurrency, async (i) => {
      await store.create(`/registry/core/configmaps/raw/${name("raw", i)}`, storedValue(i));
    });
    const rate = perSecond(cfg.storeInserts, elapsed);
    row(
      "1 store insert",
      backend.name,
      `${fmt(cfg.storeInserts)} keys, ${cfg.concurrency} in flight`,
      `${fmt(rate)} /s`,
    );
    return { single: singleRate, concurrent: rate };
  } finally {
    await store.close();
  }
}

// 2-5. through the API server ------------------------------------------------------------

interface Server {
  api: ApiServer;
  http: RunningHttpServer;
  target: HttpTarget;
  /** HTTP clients in their own process. */
  client: LoadClient;
  close(): Promise<void>;
}

async function startServer(store: Store, cfg: BenchConfig): Promise<Server> {
  // As `karmada apiserver` runs: every request counted and timed for /metrics.
  const metrics = createMetricsRegistry();
  const api = await ApiServer.start({ store, log: silentLogger, compactionIntervalMs: 0, metrics });
  const http = await startHttpServer(api.handler, {
    host: "127.0.0.1",
    port: 0,
    log: silentLogger,
    ...(api.requestMetrics ? { metrics: api.requestMetrics } : {}),
  });
  const target = { host: "127.0.0.1", port: http.port };
  const client = new LoadClient(target, cfg.concurrency);
  return {
    api,
    http,
    target,
    client,
    async close() {
      await client.close();
      await http.close();
      await api.close();
      await store.close();
    },
  };
}

const bodies = (prefix: string, n: number): string[] =>
  Array.from({ length: n }, (_, i) => JSON.stringify(configMap(name(prefix, i), i)));

async function createNamespace(s: Server, ns: string): Promise<void> {
  const r = await handle(s.api.handler, "POST", "/api/v1/namespaces", {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: ns },
  });
  if (r.status !== 201) throw new Error(`creating namespace ${ns}: ${r.status} ${JSON.stringify(r.body)}`);
}

/** Creates `n` ConfigMaps through the handler (no socket), `concurrency` in flight; returns the elapsed ms. */
function createInProcess(
  s: Server,
  ns: string,
  prefix: string,
  n: number,
  concurrency: number,
): Promise<number> {
  return pool(n, concurrency, async (i) => {
    const r = await handle(
      s.api.handler,
      "POST",
      `/api/v1/namespaces/${ns}/configmaps`,
      configMap(name(prefix, i), i),
    );
    if (r.status !== 201) throw new Error(`in-process create: ${r.status} ${JSON.stringify(r.body)}`);
  });
}

async function apiCreateRates(
  s: Server,
  backend: string,
  raws: RawRates | undefined,
  cfg: BenchConfig,
): Promise<void> {
  // The goal compares like with like: the store with as many writes in flight as the API has.
  const raw = raws?.concurrent;
  const c = cfg.concurrency;
  await createNamespace(s, "bench-http");
  await createNamespace(s, "bench-inproc");
  const path = "/api/v1/namespaces/bench-http/configmaps";
  // A short warm-up on this server: connections, the backend's first writes.
  await s.client.create(path, bodies("warm", Math.min(200, cfg.apiCreates)));
  await createInProcess(s, "bench-inproc", "warm", Math.min(200, cfg.apiCreates), c);

  const httpMs = await s.client.create(path, bodies("cm", cfg.apiCreates));
  const httpRate = perSecond(cfg.apiCreates, httpMs);
  const ratio = raw ? httpRate / raw : undefined;
  let verdict = "";
  if (ratio !== undefined) {
    verdict = `${fmt(ratio, 2)} x raw store at ${c} in flight (goal >= ${HTTP_RATIO_GOAL}: ${ratio >= HTTP_RATIO_GOAL ? "met" : "NOT met"}); ${fmt(httpRate / raws!.single, 2)} x raw at 1 in flight`;
    // A raw memory insert is a map insert: no I/O for the API's work to hide behind.
    if (backend === "memory") verdict += "; not meaningful for memory";
  }
  row("2 API create", backend, `HTTP, ${c} keep-alive clients`, `${fmt(httpRate)} /s`, verdict);
  const inMs = await createInProcess(s, "bench-inproc", "cm", cfg.apiCreates, c);
  const inRate = perSecond(cfg.apiCreates, inMs);
  row(
    "2 API create",
    backend,
    `in process (handler), ${c} in flight`,
    `${fmt(inRate)} /s`,
    [raw ? `${fmt(inRate / raw, 2)} x raw store` : "", `HTTP = ${fmt(httpRate / inRate, 2)} x in-process`]
      .filter((x) => x)
      .join(", "),
  );
}

async function fillList(s: Server, backend: string, cfg: BenchConfig): Promise<void> {
  await createNamespace(s, "bench-list");
  const fillMs = await createInProcess(s, "bench-list", "cm", cfg.listObjects, cfg.concurrency);
  row(
    "3 list",
    backend,
    `fill: ${fmt(cfg.listObjects)} creates in process`,
    `${fmt(perSecond(cfg.listObjects, fillMs))} /s`,
    `${cfg.concurrency} in flight`,
  );
}

const MEMORY_CHILD = fileURLToPath(new URL("./memory-child.ts", import.meta.url));

/** Runs bench/memory-child.ts in a fresh `node --expose-gc` process on a fresh store. */
async function memoryPer10k(backend: Backend, cfg: BenchConfig): Promise<void> {
  const url = await backend.url("memory");
  const tsx = `--import=${import.meta.resolve("tsx")}`;
  const args = ["--expose-gc", tsx, MEMORY_CHILD, url, String(cfg.listObjects), String(cfg.concurrency)];
  const out = await new Promise<string>((resolve, reject) => {
    execFile(process.execPath, args, { timeout: 180_000, maxBuffer: 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`memory child failed: ${err.message} ${stderr.slice(-500)}`));
      else resolve(stdout);
    });
  });
  const r = JSON.parse(out.trim().split("\n").at(-1) ?? "{}") as MemoryResult;
  const scale = 10_000 / cfg.listObjects;
  const how = r.gc ? "after forced full GC" : "WITHOUT forced GC (noisy)";
  row(
    "5 memory",
    backend.name,
    "heap per 10k ConfigMaps",
    mib(r.heapBytes * scale),
    `heapUsed delta ${how}, fresh process, store + API server`,
  );
  row(
    "5 memory",
    backend.name,
    "RSS per 10k ConfigMaps",
    mib(r.rssBytes * scale),
    `RSS delta in that process; includes native memory (SQLite page cache); external ${mib(r.externalBytes * scale)}`,
  );
}

const WORKS_MEMORY_CHILD = fileURLToPath(new URL("./works-memory-child.ts", import.meta.url));

/** Runs bench/works-memory-child.ts: API server on SQLite plus the controllers' Work cache, N Works. */
async function worksMemory(cfg: BenchConfig, dir: string): Promise<void> {
  if (cfg.works === 0) return;
  const url = `sqlite://${join(dir, "works-memory.db")}`;
  const tsx = `--import=${import.meta.resolve("tsx")}`;
  const args = ["--expose-gc", tsx, WORKS_MEMORY_CHILD, url, String(cfg.works), String(cfg.concurrency)];
  const out = await new Promise<string>((resolve, reject) => {
    execFile(process.execPath, args, { timeout: 900_000, maxBuffer: 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`works memory child failed: ${err.message} ${stderr.slice(-500)}`));
      else resolve(stdout);
    });
  });
  const r = JSON.parse(out.trim().split("\n").at(-1) ?? "{}") as WorksMemoryResult;
  const how = r.gc ? "after forced full GC" : "WITHOUT forced GC (noisy)";
  row(
    "11 works memory",
    "sqlite",
    `heap with ${fmt(r.count)} Works`,
    mib(r.heapBytes),
    `${fmt(r.heapBytes / r.count)} bytes per Work, ${how}; API server + the controllers' Work informer, one process`,
  );
  row(
    "11 works memory",
    "sqlite",
    `RSS with ${fmt(r.count)} Works`,
    mib(r.rssBytes),
    `RSS delta, includes SQLite's page cache; written (create + status) in ${fmt(r.seconds, 1)} s`,
  );
}

async function listBench(s: Server, backend: string, cfg: BenchConfig): Promise<void> {
  const agent = keepAliveAgent(1);
  try {
    const path = "/api/v1/namespaces/bench-list/configmaps";
    for (const [label, accept] of [
      ["JSON", "application/json"],
      ["Table", TABLE_ACCEPT],
    ] as const) {
      let best = Number.POSITIVE_INFINITY;
      let bytes = 0;
      let items = -1;
      for (let r = 0; r < cfg.listRepeats; r++) {
        const start = performance.now();
        const res = await httpGet(s.target, agent, path, accept, r === 0);
        const took = performance.now() - start;
        if (res.status !== 200) throw new Error(`list as ${label} answered ${res.status}`);
        best = Math.min(best, took);
        bytes = res.bytes;
        if (res.body) {
          const parsed = JSON.parse(res.body.toString("utf8")) as { items?: unknown[]; rows?: unknown[] };
          items = (label === "JSON" ? parsed.items : parsed.rows)?.length ?? -1;
        }
      }
      if (items !== cfg.listObjects)
        throw new Error(`list as ${label} returned ${items} of ${cfg.listObjects}`);
      row(
        "3 list",
        backend,
        `${fmt(cfg.listObjects)} ConfigMaps as ${label}`,
        ms(best),
        `${label === "JSON" ? mib(bytes) : kib(bytes)}, ${fmt(bytes / cfg.listObjects, 0)} B/item, best of ${cfg.listRepeats}`,
      );
    }
  } finally {
    agent.destroy();
  }
}

async function watchFanOut(s: Server, backend: string, cfg: BenchConfig): Promise<void> {
  await createNamespace(s, "bench-watch");
  const listed = await handle(s.api.handler, "GET", "/api/v1/namespaces/bench-watch/configmaps");
  const rv = (listed.body as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion;
  await s.client.openWatch(
    `/api/v1/namespaces/bench-watch/configmaps?watch=true&resourceVersion=${rv}`,
    cfg.watchers,
  );
  try {
    const received = s.client.awaitWatch(cfg.watchEvents, WATCH_TIMEOUT_MS);
    const start = wallClock();
    const writeMs = await createInProcess(s, "bench-watch", "ev", cfg.watchEvents, cfg.concurrency);
    const total = (await received) - start;
    const delivered = cfg.watchers * cfg.watchEvents;
    row(
      "4 watch fan-out",
      backend,
      `${cfg.watchers} watchers x ${fmt(cfg.watchEvents)} events`,
      ms(total),
      `${fmt(perSecond(delivered, total))} events/s delivered; the writes alone ${ms(writeMs)}`,
    );
  } finally {
    await s.client.closeWatch();
  }
}

/** Exercises every measured code path once on a throwaway memory server (V8 tiers up slowly). */
async function warmUp(cfg: BenchConfig): Promise<void> {
  if (cfg.warmup <= 0) return;
  const started = performance.now();
  const s = await startServer(await openStore("memory:"), cfg);
  const agent = keepAliveAgent(1);
  try {
    await createNamespace(s, "warm");
    for (let round = 0; round < 3; round++) {
      await s.client.create("/api/v1/namespaces/warm/configmaps", bodies(`h${round}`, cfg.warmup));
      await createInProcess(s, "warm", `p${round}`, cfg.warmup, cfg.concurrency);
    }
    for (const accept of ["application/json", TABLE_ACCEPT]) {
      for (let r = 0; r < 3; r++)
        await httpGet(s.target, agent, "/api/v1/namespaces/warm/configmaps", accept, false);
    }
    await s.client.openWatch("/api/v1/namespaces/warm/configmaps?watch=true&resourceVersion=0", 10);
    await s.client.closeWatch();
  } finally {
    agent.destroy();
    await s.close();
  }
  log(`warm-up done in ${fmt((performance.now() - started) / 1000, 1)} s`);
}

async function apiBench(backend: Backend, raw: RawRates | undefined, cfg: BenchConfig): Promise<void> {
  const s = await startServer(await open(backend, "api"), cfg);
  try {
    await apiCreateRates(s, backend.name, raw, cfg);
    await fillList(s, backend.name, cfg);
    await listBench(s, backend.name, cfg);
    await watchFanOut(s, backend.name, cfg);
  } finally {
    await s.close();
  }
}

// 9. scheduler -------------------------------------------------------------------------

/**
 * One row per scenario and fleet size. The goal holds for 100 clusters only; a larger fleet
 * is judged by how its rate compares with the smallest fleet's: N times the clusters should
 * cost about N times the time per binding.
 */
function schedulerRows(figures: readonly SchedulerFigure[]): void {
  const smallest = Math.min(...figures.map((f) => f.clusters));
  for (const f of figures) {
    const notes = [`${fmt(1000 / f.bindingsPerSecond, 3)} ms/binding`];
    const base = figures.find((b) => b.scenario === f.scenario && b.clusters === smallest);
    if (base && f.clusters !== smallest) {
      const ratio = f.bindingsPerSecond / base.bindingsPerSecond;
      const growth = f.clusters / smallest;
      const slower = 1 / ratio;
      // Within a quarter of linear counts as linear: the machine is shared and figures are noisy.
      const shape = slower <= growth * 1.25 ? "linear or better" : "worse than linear";
      notes.push(
        `${fmt(ratio, 3)} x the ${fmt(smallest)}-cluster rate: ${fmt(slower, 1)}x slower for ${fmt(growth, 1)}x clusters (${shape})`,
      );
    }
    if (f.clusters === SCHEDULER_GOAL_CLUSTERS) {
      const met = f.bindingsPerSecond >= SCHEDULER_GOAL_PER_SECOND ? "met" : "NOT met";
      notes.push(`goal ≥ ${fmt(SCHEDULER_GOAL_PER_SECOND)} ${met}; upstream ~22/s`);
    } else {
      notes.push(`no goal at ${fmt(f.clusters)} clusters`);
    }
    row(
      "9 scheduler",
      "core",
      `schedule, ${fmt(f.clusters)} clusters (${f.regions} regions): ${f.scenario}`,
      `${fmt(Math.round(f.bindingsPerSecond))} bindings/s`,
      notes.join("; "),
    );
  }
}

// table ---------------------------------------------------------------------------------

function renderTable(): string {
  const header: Row = {
    section: "measurement",
    backend: "backend",
    metric: "what",
    value: "result",
    note: "notes",
  };
  const all = [header, ...rows.sort((a, b) => a.section.localeCompare(b.section))];
  const width = (k: keyof Row): number => Math.max(...all.map((r) => r[k].length));
  const w = {
    section: width("section"),
    backend: width("backend"),
    metric: width("metric"),
    value: width("value"),
  };
  const line = (r: Row): string =>
    [
      r.section.padEnd(w.section),
      r.backend.padEnd(w.backend),
      r.metric.padEnd(w.metric),
      r.value.padStart(w.value),
      r.note,
    ]
      .join("  ")
      .trimEnd();
  const rule = "-".repeat(Math.max(...all.map((r) => line(r).length)));
  return [line(header), rule, ...all.slice(1).map(line), rule].join("\n");
}

// main ----------------------------------------------------------------------------------

export async function runBench(cfg: BenchConfig): Promise<number> {
  const started = performance.now();
  const tmp = await mkdtemp(join(tmpdir(), "karmada-bench-"));
  let etcd: LocalEtcd | undefined;
  let failures = 0;
  const backends: Backend[] = [];
  for (const b of cfg.backends) {
    switch (b) {
      case "memory":
        backends.push({ name: b, url: async () => "memory:" });
        break;
      case "sqlite":
        backends.push({ name: b, url: async (tag) => `sqlite://${join(tmp, `bench-${tag}.db`)}` });
        break;
      case "etcd":
        if (!existsSync(ETCD_BINARY)) {
          row("-", "etcd", "skipped", "-", `${ETCD_BINARY} not found`);
          break;
        }
        backends.push({
          name: b,
          url: async (tag) => {
            etcd ??= await startLocalEtcd();
            return `etcd://${etcd.endpoint}?prefix=/bench-${tag}`;
          },
        });
        break;
      default:
        row("-", b, "skipped", "-", "unknown backend (memory, sqlite, etcd)");
    }
  }
  log(
    `counts: inserts ${cfg.storeInserts}, creates ${cfg.apiCreates}, concurrency ${cfg.concurrency}, ` +
      `list ${cfg.listObjects} x${cfg.listRepeats}, watch ${cfg.watchers} x ${cfg.watchEvents}, warm-up ${cfg.warmup}`,
  );
  try {
    const want = (section: string): boolean => !cfg.only || cfg.only.includes(section);
    if (want("api")) await warmUp(cfg);
    for (const backend of want("api") ? backends : []) {
      let raw: RawRates | undefined;
      try {
        raw = await rawInsertRate(backend, cfg);
      } catch (err) {
        failures++;
        row("1 store insert", backend.name, "failed", "-", (err as Error).message);
      }
      try {
        await apiBench(backend, raw, cfg);
      } catch (err) {
        failures++;
        row("2-4 API", backend.name, "failed", "-", (err as Error).message);
      }
      try {
        await memoryPer10k(backend, cfg);
      } catch (err) {
        failures++;
        row("5 memory", backend.name, "failed", "-", (err as Error).message);
      }
    }
    if (want("fleet")) failures += await fleetBench({ ...cfg, concurrency: cfg.concurrency }, row);
    if (want("propagation")) failures += await propagationBench(cfg, row);
    if (want("scale")) failures += await scaleBench(cfg, row);
    if (want("restart")) failures += await restartBench(cfg, row);
    if (want("failover")) failures += await failoverBench(cfg, row);
    if (want("security")) failures += await securityBench(cfg, row);
    if (want("search")) failures += await searchBench(cfg, row);
    if (want("ha")) failures += await haBench(cfg, row);
    if (want("dashboard")) failures += await dashboardBench(row);
    try {
      if (want("works")) await worksMemory(cfg, tmp);
    } catch (err) {
      failures++;
      row("11 works memory", "sqlite", "failed", "-", (err as Error).message);
    }
    try {
      if (want("scheduler")) schedulerRows(await benchScheduler(cfg.schedulerClusters));
    } catch (err) {
      failures++;
      row("9 scheduler", "core", "failed", "-", (err as Error).message);
    }
    try {
      for (const f of want("interpreter") ? await benchInterpreter() : []) {
        row("12 interpreter", "wasm", f.name, `${fmt(f.microseconds, 1)} µs`, "per call; best of 3 rounds");
      }
    } catch (err) {
      failures++;
      row("12 interpreter", "wasm", "failed", "-", (err as Error).message);
    }
  } finally {
    await etcd?.destroy();
    await rm(tmp, { recursive: true, force: true });
  }
  process.stdout.write(`\n${renderTable()}\n`);
  process.stdout.write(
    `Node ${process.version}, ${process.platform}/${process.arch}; total ${fmt((performance.now() - started) / 1000, 1)} s. ` +
      "Rates are creates/inserts per second with the stated number in flight. HTTP clients and watchers run in a " +
      "separate process; in-process calls go straight to the handler (no socket, no response serialization). Memory: " +
      `a fresh child process creates ${fmt(cfg.listObjects)} ConfigMaps through the handler, scaled to 10k.\n`,
  );
  return failures > 0 ? 1 : 0;
}
