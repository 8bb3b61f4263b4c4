/**
 * Propagation throughput on `karmada up` (SQLite control plane, member simulators as separate
 * processes): N Deployments with a policy, Duplicated to every member and Divided across them,
 * timed until every member copy exists and every template shows its aggregated status
 * (`status.observedGeneration` caught up, which needs every member's report); divided by the
 * time to write the same Deployments straight to the members over HTTP until each member
 * reports them (their own `status.observedGeneration` caught up: the same end state in the
 * members, without the control plane). Goal: ≤ 2.0. The members are simulators sharing the
 * machine's cores with the control plane in both runs; the creates alone are shown too. A
 * small untimed round of each kind warms the processes up first, and each run's namespace is
 * deleted (and gone from every member) before the next run starts.
 */
import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { StoredObject } from "../src/api/meta.ts";
import { runUp } from "../src/bin/up.ts";
import { type Client, RESOURCES } from "../src/client/client.ts";
import { httpClientFor, loadKubeconfig } from "../src/client/kubeconfig.ts";
import { KARMADA } from "../src/karmada/resources.ts";
import { createLogger, silentLogger } from "../src/log.ts";
import { isAlreadyExists, isNotFound } from "../src/machinery/errors.ts";
import { Informer } from "../src/runtime/informer.ts";
import { name, pool } from "./load.ts";
import { fmt, type Row } from "./table.ts";

export interface PropagationConfig {
  /** Deployments per scenario; 0 skips. */
  propagationObjects: number;
  propagationMembers: number;
  concurrency: number;
}

const KARMADA_BIN = fileURLToPath(new URL("../bin/karmada", import.meta.url));
export const PROPAGATION_RATIO_GOAL = 2.0;

/** A small Deployment `web-<i>` (10m CPU, 16Mi per replica), with `labels` besides `app`. */
export function deployment(
  ns: string,
  i: number,
  replicas: number,
  labels: Record<string, string> = {},
): Record<string, unknown> {
  const app = name("web", i);
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: app, namespace: ns, labels: { app, ...labels } },
    spec: {
      replicas,
      selector: { matchLabels: { app } },
      template: {
        metadata: { labels: { app } },
        spec: {
          containers: [
            { name: "web", image: "nginx", resources: { requests: { cpu: "10m", memory: "16Mi" } } },
          ],
        },
      },
    },
  };
}

async function ensureNamespace(c: Client, ns: string): Promise<void> {
  try {
    await c.create(RESOURCES.namespaces, { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline)
      throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/**
 * Waits until `done` holds for the Deployments of `ns` on every client, watching them rather
 * than listing them again and again: the bench runs in the control plane's process, and
 * re-reading 10 members' full lists twice a second was a large share of its CPU.
 */
async function watchUntil(
  what: string,
  clients: Client[],
  ns: string,
  done: (items: StoredObject[]) => boolean,
  timeoutMs: number,
): Promise<void> {
  const informers = clients.map((c) => new Informer(c, RESOURCES.deployments, { namespace: ns }));
  const dirty = new Set<Informer>(informers);
  const settled = new Set<Informer>();
  for (const inf of informers) {
    const touch = () => {
      dirty.add(inf);
    };
    inf.addHandler({ onAdd: touch, onUpdate: touch, onDelete: touch });
    inf.start();
  }
  try {
    const deadline = performance.now() + timeoutMs;
    while (settled.size < informers.length) {
      if (performance.now() > deadline)
        throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
      for (const inf of [...dirty]) {
        if (!inf.hasSynced()) continue;
        dirty.delete(inf);
        if (done(inf.list())) settled.add(inf);
        else settled.delete(inf);
      }
    }
  } finally {
    for (const inf of informers) inf.stop();
  }
}

const reported = (d: StoredObject): boolean =>
  (d.status as { observedGeneration?: number } | undefined)?.observedGeneration === d.metadata.generation;

export async function propagationBench(cfg: PropagationConfig, row: Row): Promise<number> {
  if (cfg.propagationObjects === 0) return 0;
  const n = cfg.propagationObjects;
  const dir = await mkdtemp(join(tmpdir(), "karmada-bench-propagation-"));
  const up = await runUp(
    {
      dataDir: join(dir, "data"),
      port: 0,
      members: cfg.propagationMembers,
      memberCommand: [process.execPath, KARMADA_BIN],
      log: process.env.BENCH_DEBUG
        ? createLogger({ level: "warn", sink: createWriteStream(process.env.BENCH_DEBUG), fields: {} })
        : silentLogger,
    },
    { stdout: { write: () => true }, stderr: { write: () => true } },
  );
  const clients: Client[] = [];
  const connect = async (context: string) => {
    const c = httpClientFor(await loadKubeconfig({ path: up.kubeconfig, context }), {
      maxConcurrent: cfg.concurrency,
    });
    clients.push(c);
    return c;
  };
  let failures = 0;
  try {
    const cp = await connect("karmada-apiserver");
    const members = await Promise.all(up.members.map((m) => connect(m.name)));

    /** Deletes a namespace where it was written and waits until no member has it any more. */
    const removeNamespace = async (ns: string, from: Client[]): Promise<void> => {
      await Promise.all(
        from.map((c) =>
          c.delete(RESOURCES.namespaces, undefined, ns).catch((err) => {
            if (!isNotFound(err)) throw err;
          }),
        ),
      );
      await until(
        `namespace ${ns} gone from every member`,
        async () =>
          (
            await Promise.all(
              members.map((mc) =>
                mc.get(RESOURCES.namespaces, undefined, ns).then(
                  () => false,
                  (err) => isNotFound(err),
                ),
              ),
            )
          ).every(Boolean),
        Math.max(120_000, n * members.length * 100),
      );
    };

    // Straight to the members: the same Deployments each member would get, written directly.
    const direct = async (
      ns: string,
      replicasFor: (member: number) => number,
      n: number,
    ): Promise<{ creates: number; reported: number }> => {
      await Promise.all(members.map((m) => ensureNamespace(m, ns)));
      const started = performance.now();
      await pool(n * members.length, cfg.concurrency, async (k) => {
        const member = k % members.length;
        const i = Math.floor(k / members.length);
        await members[member]!.create(RESOURCES.deployments, deployment(ns, i, replicasFor(member)));
      });
      const creates = performance.now() - started;
      await watchUntil(
        "members to report the direct Deployments",
        members,
        ns,
        (items) => items.length === n && items.every(reported),
        Math.max(120_000, n * members.length * 100),
      );
      return { creates, reported: performance.now() - started };
    };

    const propagated = async (
      ns: string,
      placement: Record<string, unknown>,
      replicas: number,
      n: number,
    ): Promise<number> => {
      // The namespace reaches the members first, as the direct writes find it already there.
      await ensureNamespace(cp, ns);
      await until(
        "the namespace in every member",
        async () =>
          (
            await Promise.all(
              members.map((mc) =>
                mc.get(RESOURCES.namespaces, undefined, ns).then(
                  () => true,
                  () => false,
                ),
              ),
            )
          ).every(Boolean),
        60_000,
      );
      await cp.create(KARMADA.propagationPolicies, {
        apiVersion: "policy.karmada.io/v1alpha1",
        kind: "PropagationPolicy",
        metadata: { name: "all", namespace: ns },
        spec: { resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment" }], placement },
      });
      const started = performance.now();
      await pool(n, cfg.concurrency, async (i) => {
        await cp.create(RESOURCES.deployments, deployment(ns, i, replicas));
      });
      const timeout = Math.max(120_000, n * members.length * 100);
      await watchUntil("member copies", members, ns, (items) => items.length === n, timeout);
      const copies = performance.now() - started;
      await watchUntil(
        "aggregated status",
        [cp],
        ns,
        (items) => items.length === n && items.every(reported),
        timeout,
      );
      const total = performance.now() - started;
      if (process.env.BENCH_DEBUG) {
        const rv = (await cp.list(RESOURCES.namespaces, undefined, { limit: 1 })).metadata.resourceVersion;
        const events = (await cp.list(RESOURCES.events, undefined)).items;
        const byReason = new Map<string, number>();
        for (const e of events)
          byReason.set(String(e.reason), (byReason.get(String(e.reason)) ?? 0) + Number(e.count ?? 1));
        process.stderr.write(`bench: store revision ${rv}; events ${JSON.stringify([...byReason])}\n`);
        const span = (items: StoredObject[]) => {
          const ts = items.map((o) => Date.parse(o.metadata.creationTimestamp ?? "")).sort((x, y) => x - y);
          return ts.length
            ? `${new Date(ts[0]!).toISOString().slice(11, 19)}..${new Date(ts.at(-1)!).toISOString().slice(11, 19)} (${ts.length})`
            : "-";
        };
        const rbs = (await cp.list(KARMADA.resourceBindings, ns)).items;
        const works = (await cp.list(KARMADA.works, undefined)).items.filter(
          (w) => w.metadata.annotations?.["resourcebinding.karmada.io/namespace"] === ns,
        );
        const copies = (await members[0]!.list(RESOURCES.deployments, ns)).items;
        process.stderr.write(
          `bench: started ${new Date(performance.timeOrigin + started).toISOString().slice(11, 19)}; templates ${span((await cp.list(RESOURCES.deployments, ns)).items)}; bindings ${span(rbs)}; works ${span(works)}; member0 copies ${span(copies)}\n`,
        );
      }
      process.stderr.write(
        `bench: ${ns}: member copies after ${fmt(copies)} ms, aggregated status after ${fmt(total)} ms\n`,
      );
      return total;
    };

    const m = members.length;
    const scenarios: Array<{
      label: string;
      placement: Record<string, unknown>;
      replicas: number;
      perMember: (k: number) => number;
    }> = [
      {
        label: "Duplicated",
        placement: { replicaScheduling: { replicaSchedulingType: "Duplicated" } },
        replicas: 1,
        perMember: () => 1,
      },
      {
        label: "Divided",
        placement: {
          replicaScheduling: {
            replicaSchedulingType: "Divided",
            replicaDivisionPreference: "Weighted",
            weightPreference: {
              staticWeightList: up.members.map((mm) => ({
                targetCluster: { clusterNames: [mm.name] },
                weight: 1,
              })),
            },
          },
        },
        // One replica per member, as the direct baseline writes.
        replicas: m,
        perMember: () => 1,
      },
    ];
    // Every measured run starts from empty members with warm processes: the members' own
    // costs grow with what they already hold, and a first run also pays for their warm-up.
    const warmUp = Math.min(n, 30);
    await direct("warm-up-direct", () => 1, warmUp);
    await removeNamespace("warm-up-direct", members);
    await propagated("warm-up", scenarios[0]!.placement, scenarios[0]!.replicas, warmUp);
    await removeNamespace("warm-up", [cp]);
    for (const [idx, s] of scenarios.entries()) {
      try {
        const straight = await direct(`direct-${idx}`, s.perMember, n);
        await removeNamespace(`direct-${idx}`, members);
        const through = await propagated(`bench-${idx}`, s.placement, s.replicas, n);
        await removeNamespace(`bench-${idx}`, [cp]);
        const ratio = through / straight.reported;
        const goal = ratio <= PROPAGATION_RATIO_GOAL ? "goal ≤ 2.0 met" : "goal ≤ 2.0 NOT met";
        row(
          "10 propagation",
          "sqlite",
          `${s.label}: ${fmt(n)} Deployments → ${m} members`,
          `${fmt(through)} ms`,
          `${fmt((n * m) / (through / 1000))} member objects/s`,
        );
        row(
          "10 propagation",
          "sqlite",
          `${s.label}: straight to the members, until they report`,
          `${fmt(straight.reported)} ms`,
          `${fmt(n * m)} creates; the creates alone took ${fmt(straight.creates)} ms`,
        );
        row(
          "10 propagation",
          "sqlite",
          `${s.label}: ratio to the same end state written directly`,
          `${fmt(ratio, 2)}×`,
          goal,
        );
        // The literal baseline: the writes alone, before the members have done anything.
        const literal = through / straight.creates;
        row(
          "10 propagation",
          "sqlite",
          `${s.label}: ratio to the direct creates alone`,
          `${fmt(literal, 2)}×`,
          literal <= PROPAGATION_RATIO_GOAL ? "goal ≤ 2.0 met" : "goal ≤ 2.0 NOT met",
        );
      } catch (err) {
        failures++;
        row("10 propagation", "sqlite", `${s.label}: failed`, "-", (err as Error).message);
      }
    }
  } finally {
    for (const c of clients) (c as { close?: () => void }).close?.();
    await up.stop();
    // With BENCH_DEBUG the control plane's database stays for a look at its write history.
    if (process.env.BENCH_DEBUG) process.stderr.write(`bench: data kept in ${dir}\n`);
    else await rm(dir, { recursive: true, force: true });
  }
  return failures;
}
