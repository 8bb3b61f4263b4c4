/**
 * Fleet measurements: how long `karmada up` takes to a running fleet (fresh and resumed), how
 * long an informer takes to sync a large resource (in process and over HTTP), and how many keys
 * a work queue moves per second.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startHttpServer } from "../src/apiserver/http.ts";
import { ApiServer } from "../src/apiserver/server.ts";
import { RESOURCES } from "../src/client/client.ts";
import { httpClientFor } from "../src/client/kubeconfig.ts";
import { LocalClient } from "../src/client/local.ts";
import { silentLogger } from "../src/log.ts";
import { createMetricsRegistry } from "../src/metrics/registry.ts";
import { Informer } from "../src/runtime/informer.ts";
import { WorkQueue } from "../src/runtime/queue.ts";
import { queueMetrics } from "../src/runtime/queue-metrics.ts";
import { openStore } from "../src/storage/open.ts";
import { configMap, name, pool } from "./load.ts";
import { fmt, type Row } from "./table.ts";

export interface FleetConfig {
  /** `karmada up` runs (fresh + resumed); 0 skips. */
  upRuns: number;
  informerObjects: number;
  queueKeys: number;
  concurrency: number;
}

const KARMADA = fileURLToPath(new URL("../bin/karmada", import.meta.url));
/** The goal for `karmada up` to a running fleet. */
const UP_GOAL_MS = 10_000;

/** Starts `karmada up` and resolves with the ms until it printed that the fleet runs, then stops it. */
async function timeUp(dataDir: string): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, [KARMADA, "up", "--data-dir", dataDir, "--port", "0"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
  let out = "";
  try {
    return await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`karmada up not ready after 120 s: ${out}`)), 120_000);
      child.stdout!.setEncoding("utf8").on("data", (d: string) => {
        out += d;
        if (out.includes("Local Karmada is running.")) {
          clearTimeout(timer);
          resolve(performance.now() - started);
        }
      });
      child.stderr!.setEncoding("utf8").on("data", (d: string) => {
        out += d;
      });
      child.on("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`karmada up exited (${code}): ${out}`));
      });
    });
  } finally {
    if (child.exitCode === null) child.kill("SIGINT");
    await exited;
  }
}

async function upBench(cfg: FleetConfig, row: Row): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "karmada-bench-up-"));
  try {
    const fresh: number[] = [];
    const resumed: number[] = [];
    for (let i = 0; i < cfg.upRuns; i++) {
      const dataDir = join(dir, `run-${i}`);
      fresh.push(await timeUp(dataDir));
      resumed.push(await timeUp(dataDir));
    }
    const best = (xs: number[]): number => Math.min(...xs);
    const goal = best(fresh) < UP_GOAL_MS ? "goal < 10 s met" : "goal < 10 s NOT met";
    row(
      "6 karmada up",
      "sqlite",
      "to running fleet, fresh",
      `${fmt(best(fresh))} ms`,
      `3 members, best of ${cfg.upRuns}; ${goal}`,
    );
    row("6 karmada up", "sqlite", "to running fleet, resumed", `${fmt(best(resumed))} ms`, "same data dir");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function informerBench(cfg: FleetConfig, row: Row): Promise<void> {
  const store = await openStore("memory:");
  const api = await ApiServer.start({
    store,
    log: silentLogger,
    controllers: false,
    compactionIntervalMs: 0,
  });
  const http = await startHttpServer(api.handler, { host: "127.0.0.1", port: 0, log: silentLogger });
  const local = new LocalClient(api.context, { fieldManager: "bench" });
  const remote = httpClientFor({ server: http.url }, { maxConcurrent: cfg.concurrency });
  try {
    await local.create(RESOURCES.namespaces, {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "sync" },
    });
    await pool(cfg.informerObjects, cfg.concurrency, async (i) => {
      const cm = configMap(name("sync", i), i);
      await local.create(RESOURCES.configmaps, {
        ...cm,
        metadata: { ...(cm.metadata as Record<string, unknown>), namespace: "sync" },
      });
    });
    for (const [transport, client] of [
      ["in-process", local],
      ["HTTP", remote],
    ] as const) {
      const started = performance.now();
      const informer = new Informer(client, RESOURCES.configmaps, { namespace: "sync" });
      informer.start();
      await informer.waitForSync();
      const elapsed = performance.now() - started;
      const cached = informer.keys().length;
      informer.stop();
      if (cached !== cfg.informerObjects)
        throw new Error(`informer cached ${cached} of ${cfg.informerObjects}`);
      row(
        "7 informer sync",
        "memory",
        `${fmt(cfg.informerObjects)} ConfigMaps, ${transport}`,
        `${fmt(elapsed)} ms`,
        `${fmt(cfg.informerObjects / (elapsed / 1000))} objects/s, pages of 500`,
      );
    }
  } finally {
    remote.close();
    await http.close();
    await api.close();
    await store.close();
  }
}

async function queueBench(cfg: FleetConfig, row: Row): Promise<void> {
  // As controllers run it (with its workqueue_* metrics), and bare, so the metrics' cost shows.
  for (const [workers, measured] of [
    [1, true],
    [16, true],
    [16, false],
  ] as const) {
    let processed = 0;
    const registry = createMetricsRegistry({ processMetrics: false });
    const queue = new WorkQueue(
      async () => {
        processed++;
        await Promise.resolve();
        return undefined;
      },
      { workers, ...(measured ? { metrics: (state) => queueMetrics(registry, "bench", state) } : {}) },
    );
    const started = performance.now();
    // Every key is added twice; the second add finds it still queued and is deduplicated.
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < cfg.queueKeys; i++) queue.add(`ns/key-${i}`);
    }
    await queue.idle();
    const elapsed = performance.now() - started;
    queue.stop();
    // A key added again while a worker has it runs once more, so up to `workers` extra runs.
    if (processed < cfg.queueKeys || processed > cfg.queueKeys + workers)
      throw new Error(`queue processed ${processed} for ${cfg.queueKeys} keys`);
    row(
      "8 work queue",
      "-",
      `${fmt(cfg.queueKeys)} keys, ${workers} worker${workers === 1 ? "" : "s"}${measured ? "" : ", no metrics"}`,
      `${fmt(cfg.queueKeys / (elapsed / 1000))} keys/s`,
      `each added twice (deduplicated), async no-op reconcile${measured ? ", workqueue_* metrics recorded" : ""}`,
    );
  }
}

export async function fleetBench(cfg: FleetConfig, row: Row): Promise<number> {
  let failures = 0;
  const attempt = async (section: string, body: () => Promise<void>): Promise<void> => {
    try {
      await body();
    } catch (err) {
      failures++;
      row(section, "-", "failed", "-", (err as Error).message.slice(0, 300));
    }
  };
  if (cfg.upRuns > 0) await attempt("6 karmada up", () => upBench(cfg, row));
  await attempt("7 informer sync", () => informerBench(cfg, row));
  await attempt("8 work queue", () => queueBench(cfg, row));
  return failures;
}
