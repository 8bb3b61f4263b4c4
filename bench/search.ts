/**
 * Section 14, karmada-search:
 * - bytes per cached Pod against the same Pods held by a plain informer (fresh process,
 *   forced GC; goal ≤ 0.5×);
 * - a proxy list of N Pods spread over C member clusters (JSON, and kubectl's Table), against
 *   one member listing all N itself;
 * - watch fan-out through the proxy: W watchers, E member-side changes, how long until every
 *   watcher has every event.
 */
import { execFile } from "node:child_process";
import { request } from "node:http";
import { fileURLToPath } from "node:url";
import { startControlPlane } from "../src/bin/control-plane.ts";
import { RESOURCES } from "../src/client/client.ts";
import { LocalClient } from "../src/client/local.ts";
import { silentLogger } from "../src/log.ts";
import { RESOURCE_REGISTRIES } from "../src/search/fleet-view.ts";
import type { SearchMemoryResult } from "./search-memory-child.ts";
import { BENCH_NAMESPACE, type BenchMember, benchMember } from "./search-pods.ts";
import { fmt, type Row } from "./table.ts";

export interface SearchConfig {
  /** Pods in the fleet, spread over the clusters (0: section skipped). */
  searchPods: number;
  searchClusters: number;
  watchers: number;
}

const MEMORY_GOAL = 0.5;
const PROXY = "/apis/search.karmada.io/v1alpha1/proxying/karmada/proxy";
const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";
const CHILD = fileURLToPath(new URL("./search-memory-child.ts", import.meta.url));
const WATCH_EVENTS = 200;

function memoryChild(pods: number): Promise<SearchMemoryResult> {
  const args = ["--expose-gc", `--import=${import.meta.resolve("tsx")}`, CHILD, String(pods)];
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { timeout: 300_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`search memory child failed: ${err.message} ${stderr.slice(-500)}`));
      else resolve(JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as SearchMemoryResult);
    });
  });
}

/** GETs a URL, returning ms and the body's item count (best of `rounds`). */
async function timedList(url: string, accept: string, rounds = 3): Promise<{ ms: number; items: number }> {
  let best = Number.POSITIVE_INFINITY;
  let items = 0;
  for (let r = 0; r < rounds; r++) {
    const start = performance.now();
    const res = await fetch(url, { headers: { Accept: accept } });
    const body = (await res.json()) as { items?: unknown[]; rows?: unknown[] };
    if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
    best = Math.min(best, performance.now() - start);
    items = (body.items ?? body.rows ?? []).length;
  }
  return { ms: best, items };
}

/** A watch that counts the events it receives. */
function countingWatch(url: string): { count(): number; close(): void } {
  let events = 0;
  const req = request(url, (res) => {
    res.on("data", (chunk: Buffer) => {
      for (const b of chunk) if (b === 10) events++;
    });
  });
  req.on("error", () => {});
  req.end();
  return { count: () => events, close: () => req.destroy() };
}

async function until(check: () => boolean, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function fleetRows(cfg: SearchConfig, row: Row): Promise<void> {
  const per = Math.ceil(cfg.searchPods / cfg.searchClusters);
  const members: BenchMember[] = [];
  const cp = await startControlPlane({ storage: "memory:", host: "127.0.0.1", port: 0, log: silentLogger });
  try {
    for (let c = 0; c < cfg.searchClusters; c++) members.push(await benchMember(`member${c + 1}`, per, true));
    const admin = new LocalClient(cp.api.context);
    for (const m of members) {
      await admin.create(RESOURCES.secrets, {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { namespace: "karmada-cluster", name: m.name },
        data: { token: Buffer.from("bench").toString("base64") },
      });
      const cluster = await admin.create(RESOURCES.clusters, {
        apiVersion: "cluster.karmada.io/v1alpha1",
        kind: "Cluster",
        metadata: { name: m.name },
        spec: {
          apiEndpoint: m.url,
          syncMode: "Push",
          secretRef: { namespace: "karmada-cluster", name: m.name },
        },
      });
      await admin.updateStatus(RESOURCES.clusters, {
        ...cluster,
        status: {
          conditions: [
            {
              type: "Ready",
              status: "True",
              reason: "ClusterReady",
              message: "bench",
              lastTransitionTime: "2026-11-26T00:00:00Z",
            },
          ],
        },
      });
    }
    const cacheStart = performance.now();
    await admin.create(RESOURCE_REGISTRIES, {
      apiVersion: "search.karmada.io/v1alpha1",
      kind: "ResourceRegistry",
      metadata: { name: "bench-pods" },
      spec: { targetCluster: {}, resourceSelectors: [{ apiVersion: "v1", kind: "Pod" }] },
    });
    const view = cp.search!;
    const pods = { group: "", version: "v1", resource: "pods" };
    await until(
      () => view.cachesOf(pods).length === members.length && view.cachesOf(pods).every((c) => c.synced),
      "the caches",
      300_000,
    );
    const cacheMs = performance.now() - cacheStart;
    const total = view.cachesOf(pods).reduce((n, c) => n + c.size, 0);
    row(
      "14 search",
      "memory",
      "cache fill",
      `${fmt(cacheMs)} ms`,
      `${fmt(total)} Pods from ${members.length} clusters, list + watch each`,
    );

    const proxied = await timedList(`${cp.url}${PROXY}/api/v1/pods`, "application/json");
    const single = await benchMember("single", proxied.items, true);
    try {
      const direct = await timedList(`${single.url}/api/v1/pods`, "application/json");
      row(
        "14 search",
        "memory",
        "proxy list, JSON",
        `${fmt(proxied.ms)} ms`,
        `${fmt(proxied.items)} Pods over ${members.length} clusters; one member listing ${fmt(direct.items)}: ${fmt(direct.ms)} ms (${fmt(proxied.ms / direct.ms, 2)}×)`,
      );
      const table = await timedList(`${cp.url}${PROXY}/api/v1/pods`, TABLE);
      const directTable = await timedList(`${single.url}/api/v1/pods`, TABLE);
      row(
        "14 search",
        "memory",
        "proxy list, Table",
        `${fmt(table.ms)} ms`,
        `kubectl get pods -A; one member: ${fmt(directTable.ms)} ms (${fmt(table.ms / directTable.ms, 2)}×)`,
      );
    } finally {
      await single.close();
    }

    const list = (await (await fetch(`${cp.url}${PROXY}/api/v1/pods?limit=1`)).json()) as {
      metadata: { resourceVersion: string };
    };
    const watchers = Array.from({ length: cfg.watchers }, () =>
      countingWatch(
        `${cp.url}${PROXY}/api/v1/pods?watch=true&resourceVersion=${encodeURIComponent(list.metadata.resourceVersion)}`,
      ),
    );
    try {
      await new Promise((r) => setTimeout(r, 500));
      const start = performance.now();
      for (let i = 0; i < WATCH_EVENTS; i++) {
        const m = members[i % members.length]!;
        const items = m.client.list(RESOURCES.pods, BENCH_NAMESPACE, { limit: 1 });
        const first = (await items).items[0]!;
        await m.client.patch(RESOURCES.pods, BENCH_NAMESPACE, first.metadata.name, "merge", {
          metadata: { labels: { bench: String(i) } },
        });
      }
      await until(() => watchers.every((w) => w.count() >= WATCH_EVENTS), "every watcher's events", 120_000);
      const s = (performance.now() - start) / 1000;
      row(
        "14 search",
        "memory",
        "proxy watch fan-out",
        `${fmt((cfg.watchers * WATCH_EVENTS) / s)} events/s`,
        `${cfg.watchers} watchers × ${WATCH_EVENTS} member changes over ${members.length} clusters, all delivered in ${fmt(s * 1000)} ms`,
      );
    } finally {
      for (const w of watchers) w.close();
    }
  } finally {
    await cp.stop();
    for (const m of members) await m.close();
  }
}

export async function searchBench(cfg: SearchConfig, row: Row): Promise<number> {
  if (cfg.searchPods === 0) return 0;
  let failures = 0;
  try {
    const m = await memoryChild(cfg.searchPods);
    const ratio = m.cacheBytesPerPod / m.informerBytesPerPod;
    row(
      "14 search",
      "memory",
      "bytes per cached Pod",
      `${fmt(m.cacheBytesPerPod)} B`,
      `plain informer ${fmt(m.informerBytesPerPod)} B: ${fmt(ratio, 2)}× (goal ≤ ${MEMORY_GOAL} ${ratio <= MEMORY_GOAL ? "met" : "NOT met"}); ${fmt(cfg.searchPods)} Pods, heap + external after forced GC${m.gc ? "" : " (NO GC: noisy)"}`,
    );
  } catch (err) {
    failures++;
    row("14 search", "memory", "bytes per cached Pod", "failed", (err as Error).message);
  }
  try {
    await fleetRows(cfg, row);
  } catch (err) {
    failures++;
    row("14 search", "memory", "proxy list", "failed", (err as Error).message);
  }
  return failures;
}
