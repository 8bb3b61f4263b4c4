/**
 * Durability (issue K item 5): a bare `karmada apiserver` process on SQLite or on a local TLS
 * etcd; concurrent writers create and update ConfigMaps as fast as they can, each recording
 * every acknowledged write (name, resourceVersion, content); the API server is SIGKILLed at a
 * seeded moment and started again on the same data; then everything is read back. Every
 * acknowledged write must be there (its content, or the one write per name that was in
 * flight at the kill and so may or may not have landed).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fmt } from "../bench/table.ts";
import { RESOURCES } from "../src/client/client.ts";
import type { HttpClient } from "../src/client/http.ts";
import { httpClientFor } from "../src/client/kubeconfig.ts";
import { ApiError } from "../src/machinery/errors.ts";
import type { LocalEtcd } from "../src/storage/etcd/local-etcd.ts";
import { writeApiserverPki } from "../test/support/pki-files.ts";
import { type Backend, startStorage } from "./fleet.ts";
import { Component, freePort } from "./process.ts";
import { mulberry32 } from "./random.ts";
import type { TrialOptions, TrialRow } from "./types.ts";

export interface DurabilityOptions extends TrialOptions {
  backends?: Backend[];
}

const WRITERS = 8;
/** ConfigMaps per writer: each writer is the only one writing its names, so its order is the order. */
const NAMES_PER_WRITER = 25;
const KILL_AFTER_MS: [number, number] = [300, 2_500];

/** One name's history as its writer saw it. */
export interface NameLedger {
  /** The last acknowledged sequence number (undefined: no acknowledged write yet). */
  acked?: number;
  ackedRv?: string;
  /** A write that got no answer (in flight at the kill). */
  inFlight?: number;
}

export type Outcome = "ok" | "in-flight applied" | "in-flight not applied" | "lost";

/** What a name's stored sequence number (undefined: absent) says about its acknowledged writes. */
export function judge(entry: NameLedger, stored: number | undefined): Outcome {
  if (entry.inFlight !== undefined && stored === entry.inFlight) return "in-flight applied";
  if (stored === entry.acked) return entry.inFlight !== undefined ? "in-flight not applied" : "ok";
  return "lost";
}

interface Server {
  apiserver: Component;
  etcd: LocalEtcd | undefined;
  client: HttpClient;
  stop(): Promise<void>;
}

async function startServer(backend: Backend): Promise<Server> {
  const dir = await mkdtemp(join(tmpdir(), `karmada-durability-${backend}-`));
  const file = (name: string) => join(dir, name);
  const { pki, servingFlags } = await writeApiserverPki(file);
  const { flags: storage, etcd } = await startStorage(backend, file);
  const port = await freePort();
  const apiserver = new Component(
    "apiserver",
    [
      "apiserver",
      `--secure-port=${port}`,
      ...servingFlags(file("apiserver-certs")),
      ...storage,
      "--log-level=warn",
    ],
    /listening on (https:\/\/\S+)/,
  );
  const stop = async () => {
    client.close();
    await apiserver.stop();
    await etcd?.destroy();
    await rm(dir, { recursive: true, force: true });
  };
  const client = httpClientFor(
    {
      server: `https://127.0.0.1:${port}`,
      caData: pki.ca.certPem,
      certData: pki.admin.certPem,
      keyData: pki.admin.keyPem,
    },
    { userAgent: "durability-trials", timeoutMs: 10_000 },
  );
  try {
    await apiserver.start();
  } catch (err) {
    await stop();
    throw err;
  }
  return { apiserver, etcd, client, stop };
}

const seqOf = (data: unknown): number | undefined => {
  const v = (data as { seq?: string } | undefined)?.seq;
  return v === undefined ? undefined : Number(v);
};

/** One kill: writers until the kill, restart, read back. */
async function oneKill(
  server: Server,
  namespace: string,
  killAfterMs: number,
): Promise<{ acked: number; outcomes: Record<Outcome, number>; lost: string[] }> {
  const c = server.client;
  await c.create(RESOURCES.namespaces, {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: namespace },
  });
  const ledgers = new Map<string, NameLedger>();
  let acked = 0;
  let killed = false;
  const writer = async (w: number) => {
    let seq = 0;
    for (let i = 0; !killed || i === 0; i++) {
      const name = `w${w}-${i % NAMES_PER_WRITER}`;
      const entry = ledgers.get(name) ?? {};
      ledgers.set(name, entry);
      seq++;
      const body = {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name, namespace },
        data: { seq: String(seq), writer: String(w), filler: "x".repeat(200) },
      };
      try {
        const stored =
          entry.acked === undefined
            ? await c.create(RESOURCES.configmaps, body)
            : await c.update(RESOURCES.configmaps, {
                ...body,
                metadata: { ...body.metadata, resourceVersion: entry.ackedRv! },
              });
        entry.acked = seq;
        entry.ackedRv = stored.metadata.resourceVersion ?? "";
        acked++;
      } catch (err) {
        // A 4xx is an answer: nothing was written. Anything else may or may not have landed;
        // the writer stops, so this is its only write without an answer.
        if (err instanceof ApiError && err.code >= 400 && err.code < 500) throw err;
        entry.inFlight = seq;
        return;
      }
    }
  };
  const writers = Array.from({ length: WRITERS }, (_, w) => writer(w));
  await new Promise((r) => setTimeout(r, killAfterMs));
  await server.apiserver.kill();
  killed = true;
  const ended = await Promise.allSettled(writers);
  const failed = ended.find((e) => e.status === "rejected");
  if (failed) throw (failed as PromiseRejectedResult).reason;
  await server.apiserver.start();
  const stored = new Map<string, number | undefined>();
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      for (const cm of (await c.list(RESOURCES.configmaps, namespace)).items)
        stored.set(cm.metadata.name, seqOf((cm as unknown as { data?: unknown }).data));
      break;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  const outcomes: Record<Outcome, number> = {
    ok: 0,
    "in-flight applied": 0,
    "in-flight not applied": 0,
    lost: 0,
  };
  const lost: string[] = [];
  for (const [name, entry] of ledgers) {
    const outcome = judge(entry, stored.get(name));
    outcomes[outcome]++;
    if (outcome === "lost")
      lost.push(
        `${namespace}/${name}: acknowledged seq ${entry.acked} (rv ${entry.ackedRv}), stored ${stored.get(name) ?? "nothing"}`,
      );
  }
  return { acked, outcomes, lost };
}

export async function runDurabilityTrials(opts: DurabilityOptions): Promise<TrialRow[]> {
  const rows: TrialRow[] = [];
  for (const backend of opts.backends ?? (["sqlite", "etcd"] as const)) {
    const rng = mulberry32(opts.seed ^ (backend === "etcd" ? 0xd0d0 : 0xd1d1));
    const started = Date.now();
    opts.log(`durability/${backend}: starting a bare API server`);
    const server = await startServer(backend);
    const totals = { acked: 0, lost: 0, applied: 0, notApplied: 0 };
    const details: string[] = [];
    try {
      for (let run = 0; run < opts.runs; run++) {
        const killAfterMs = rng.int(...KILL_AFTER_MS);
        const r = await oneKill(server, `durability-${run}`, killAfterMs);
        totals.acked += r.acked;
        totals.lost += r.outcomes.lost;
        totals.applied += r.outcomes["in-flight applied"];
        totals.notApplied += r.outcomes["in-flight not applied"];
        details.push(...r.lost.map((l) => `kill ${run + 1} at ${killAfterMs} ms: ${l}`));
        opts.log(
          `durability/${backend} ${run + 1}/${opts.runs}: killed at ${killAfterMs} ms, ${r.acked} acknowledged, ` +
            `${r.outcomes.lost} lost, in flight: ${r.outcomes["in-flight applied"]} applied, ${r.outcomes["in-flight not applied"]} not`,
        );
      }
    } finally {
      await server.stop();
    }
    rows.push({
      trial: "durability: apiserver SIGKILL",
      backend,
      runs: opts.runs,
      violations: totals.lost,
      figures: {
        "acked writes": totals.acked,
        lost: totals.lost,
        "in-flight applied": totals.applied,
        "in-flight not applied": totals.notApplied,
        "wall s": fmt((Date.now() - started) / 1000, 0),
      },
      details: details.slice(0, 20),
    });
  }
  return rows;
}
