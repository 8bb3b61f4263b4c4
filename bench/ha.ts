/**
 * Section 15, production topology (issue H):
 * - creates per second through two API servers on one three-member etcd, against one API
 *   server on the same etcd (the same creates, split between the two);
 * - snapshot save and restore rates (SQLite to etcd);
 * - failover: from the SIGKILL of the node whose controller manager leads (its API server,
 *   controller manager, scheduler and etcd member) to the next binding scheduled and the next
 *   Work applied on a member, with a 3 s lease (test/support/ha-fleet.ts starts the nodes).
 * API servers run in this process with plain HTTP (`--insecure`-style) so that only the store
 * topology differs; each has its own load process.
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startHttpServer } from "../src/apiserver/http.ts";
import { ApiServer } from "../src/apiserver/server.ts";
import { RESOURCES } from "../src/client/client.ts";
import { KARMADA } from "../src/karmada/resources.ts";
import { silentLogger } from "../src/log.ts";
import { ETCD_BINARY, startLocalEtcdCluster } from "../src/storage/etcd/local-etcd.ts";
import { openStore } from "../src/storage/open.ts";
import { restoreSnapshot, saveSnapshot } from "../src/storage/snapshot.ts";
import { startHaFleet } from "../test/support/ha-fleet.ts";
import { configMap, handle, LoadClient, name, pool } from "./load.ts";
import { fmt, type Row } from "./table.ts";

export interface HaConfig {
  apiCreates: number;
  concurrency: number;
}

const SNAPSHOT_KEYS = 10_000;

async function apiServerOn(url: string): Promise<{ port: number; close(): Promise<void> }> {
  const store = await openStore(url);
  const api = await ApiServer.start({
    store,
    log: silentLogger,
    compactionIntervalMs: 0,
    authorization: "AlwaysAllow",
  });
  const http = await startHttpServer(api.handler, { host: "127.0.0.1", port: 0, log: silentLogger });
  return {
    port: http.port,
    async close() {
      await http.close();
      await api.close();
      await store.close();
    },
  };
}

/** Creates through `servers` at once, the bodies split evenly; best of two rounds, creates/s. */
async function createRate(servers: Array<{ port: number }>, cfg: HaConfig, round: string): Promise<number> {
  let best = 0;
  for (let r = 0; r < 2; r++) {
    const clients = servers.map(
      (s) => new LoadClient({ host: "127.0.0.1", port: s.port }, Math.ceil(cfg.concurrency / servers.length)),
    );
    try {
      const per = Math.ceil(cfg.apiCreates / servers.length);
      const started = performance.now();
      await Promise.all(
        clients.map((c, i) =>
          c.create(
            "/api/v1/namespaces/default/configmaps",
            Array.from({ length: per }, (_, j) =>
              JSON.stringify(configMap(name(`${round}-${r}-${i}`, j), j)),
            ),
          ),
        ),
      );
      best = Math.max(best, (per * servers.length) / ((performance.now() - started) / 1000));
    } finally {
      for (const c of clients) await c.close();
    }
  }
  return best;
}

async function topologyRows(cfg: HaConfig, row: Row): Promise<void> {
  const cluster = await startLocalEtcdCluster(3);
  const url = (prefix: string) => `etcd://${cluster.endpoints.join(",")}?prefix=${prefix}`;
  try {
    const one = await apiServerOn(url("/one"));
    const single = await createRate([one], cfg, "one").finally(() => one.close());
    const a = await apiServerOn(url("/two"));
    const b = await apiServerOn(url("/two"));
    let double: number;
    try {
      double = await createRate([a, b], cfg, "two");
    } finally {
      await a.close();
      await b.close();
    }
    row(
      "15 ha",
      "etcd x3",
      "creates, one API server",
      `${fmt(single)} /s`,
      `${cfg.apiCreates} ConfigMaps, ${cfg.concurrency} in flight, three-member etcd`,
    );
    row(
      "15 ha",
      "etcd x3",
      "creates, two API servers",
      `${fmt(double)} /s`,
      `the same creates split between two API servers on that etcd: ${fmt(double / single, 2)}× one`,
    );
  } finally {
    await cluster.destroy();
  }
}

async function snapshotRows(row: Row): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "karmada-bench-snapshot-"));
  const cluster = existsSync(ETCD_BINARY) ? await startLocalEtcdCluster(1) : undefined;
  try {
    const source = await openStore(`sqlite://${join(dir, "source.db")}`);
    const api = await ApiServer.start({
      store: source,
      log: silentLogger,
      compactionIntervalMs: 0,
      authorization: "AlwaysAllow",
    });
    await pool(SNAPSHOT_KEYS, 32, async (i) => {
      const r = await handle(
        api.handler,
        "POST",
        "/api/v1/namespaces/default/configmaps",
        configMap(name("snap", i), i),
      );
      if (r.status !== 201) throw new Error(`create: ${r.status}`);
    });
    await api.close();
    const file = join(dir, "bench.snapshot");
    let started = performance.now();
    const saved = await saveSnapshot(source, file);
    const saveS = (performance.now() - started) / 1000;
    await source.close();
    const targetUrl = cluster
      ? `etcd://${cluster.endpoints[0]}?prefix=/restored`
      : `sqlite://${join(dir, "target.db")}`;
    const target = await openStore(targetUrl);
    started = performance.now();
    await restoreSnapshot(target, file);
    const restoreS = (performance.now() - started) / 1000;
    await target.close();
    row(
      "15 ha",
      "sqlite",
      "snapshot save",
      `${fmt(saved.keys / saveS)} keys/s`,
      `${fmt(saved.keys)} keys (${fmt(saved.bytes / 1024 / 1024, 1)} MiB) in ${fmt(saveS * 1000)} ms`,
    );
    row(
      "15 ha",
      cluster ? "etcd" : "sqlite",
      "snapshot restore",
      `${fmt(saved.keys / restoreS)} keys/s`,
      `the same snapshot into an empty ${cluster ? "etcd" : "SQLite store"} in ${fmt(restoreS * 1000)} ms`,
    );
  } finally {
    await cluster?.destroy();
    await rm(dir, { recursive: true, force: true });
  }
}

async function until<T>(check: () => Promise<T | undefined | false>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check().catch(() => undefined);
    if (v) return v;
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 20));
  }
}

const workload = (name: string) => [
  {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace: "default" },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: "app", image: "nginx" }] },
      },
    },
  },
  {
    apiVersion: "policy.karmada.io/v1alpha1",
    kind: "PropagationPolicy",
    metadata: { name, namespace: "default" },
    spec: {
      resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name }],
      placement: { clusterAffinity: { clusterNames: ["member1"] } },
    },
  },
];

async function failoverRows(row: Row): Promise<void> {
  const fleet = await startHaFleet();
  try {
    const first = fleet.nodes[0]!.client;
    const [d0, p0] = workload("before");
    await first.create(RESOURCES.deployments, d0!);
    await first.create(KARMADA.propagationPolicies, p0!);
    const member = fleet.members[0]!;
    await until(() => member.client.get(RESOURCES.deployments, "default", "before"), 120_000);
    const lease = await first.get(RESOURCES.leases, "karmada-system", "karmada-controller-manager");
    const holder = (lease.spec as { holderIdentity?: string }).holderIdentity;
    const lost = fleet.nodes.find((n) => n.controllerManager === holder)!;
    const survivor = fleet.nodes.find((n) => n !== lost)!.client;
    const killed = performance.now();
    await fleet.loseNode(lost);
    const [d1, p1] = workload("after");
    await until(() => survivor.create(RESOURCES.deployments, d1!), 60_000);
    await until(() => survivor.create(KARMADA.propagationPolicies, p1!), 60_000);
    await until(async () => {
      const rb = await survivor.get(KARMADA.resourceBindings, "default", "after-deployment");
      return ((rb.spec as { clusters?: unknown[] }).clusters ?? []).length > 0;
    }, 120_000);
    const scheduled = performance.now() - killed;
    await until(() => member.client.get(RESOURCES.deployments, "default", "after"), 120_000);
    const applied = performance.now() - killed;
    row(
      "15 ha",
      "etcd x3",
      "failover: next binding scheduled",
      `${fmt(scheduled)} ms`,
      "from the SIGKILL of the leading node (API server, controller manager, scheduler, etcd member); lease 3 s",
    );
    row(
      "15 ha",
      "etcd x3",
      "failover: next Work applied",
      `${fmt(applied)} ms`,
      "from the same SIGKILL to the new workload on its member",
    );
  } finally {
    await fleet.stop();
  }
}

export async function haBench(cfg: HaConfig, row: Row): Promise<number> {
  let failures = 0;
  if (existsSync(ETCD_BINARY)) {
    try {
      await topologyRows(cfg, row);
    } catch (err) {
      failures++;
      row("15 ha", "etcd x3", "creates", "failed", (err as Error).message);
    }
  } else {
    row("15 ha", "etcd x3", "creates", "skipped", `no ${ETCD_BINARY}`);
  }
  if (existsSync(ETCD_BINARY)) {
    try {
      await failoverRows(row);
    } catch (err) {
      failures++;
      row("15 ha", "etcd x3", "failover", "failed", (err as Error).message);
    }
  }
  try {
    await snapshotRows(row);
  } catch (err) {
    failures++;
    row("15 ha", "sqlite", "snapshot", "failed", (err as Error).message);
  }
  return failures;
}
