/**
 * Failover on `karmada up` (gate Failover; member simulators as separate processes): the time
 * from a fault to the workload's replicas Ready on another member, minus the waits the user
 * configured (the goal counts only what the control plane adds: ≤ 1 s at p99 over 20 trials).
 *
 * - Application failover: a Deployment pinned to one member with `failover.application`
 *   (tolerationSeconds 1, Gracefully); the fault is the simulator's `unhealthy-workload` (its
 *   pods crash-loop). Configured wait: the toleration.
 * - Cluster failover: a Deployment pinned to member1 or member2 (Push) tolerating the failure
 *   taints for 1 s; the fault is `unreachable` (connections reset). Configured waits: the
 *   cluster failure threshold (NotReady), `--failover-eviction-timeout` (NoExecute taint) and
 *   the toleration. The failure threshold counts from the last successful health probe, which
 *   may be up to one status period (300 ms) before the fault, so a trial can come out below 0.
 *
 * Each trial uses its own Deployment; the fault is lifted and the fleet settles before the next.
 */
import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { StoredObject } from "../src/api/meta.ts";
import { runUp } from "../src/bin/up.ts";
import { RESOURCES } from "../src/client/client.ts";
import type { HttpClient } from "../src/client/http.ts";
import { httpClientFor, loadKubeconfig } from "../src/client/kubeconfig.ts";
import { KARMADA } from "../src/karmada/resources.ts";
import { createLogger, silentLogger } from "../src/log.ts";
import { sendFault } from "../src/member-sim/fault-client.ts";
import { UP_FEATURE_GATES } from "../src/runtime/features.ts";
import { fmt, percentile, type Row } from "./table.ts";

export interface FailoverConfig {
  /** Trials per kind of failover; 0 skips. */
  failoverTrials: number;
}

const KARMADA_BIN = fileURLToPath(new URL("../bin/karmada", import.meta.url));
export const FAILOVER_GOAL_MS = 1_000;
const NS = "default";
const TOLERATION_S = 1;
const STATUS_EVERY_MS = 300;
const FAILURE_THRESHOLD_MS = 1_000;
const EVICTION_TIMEOUT_MS = 1_000;
const POLL_MS = 20;

function deployment(name: string): Record<string, unknown> {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace: NS, labels: { app: name } },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: "web", image: "nginx" }] },
      },
    },
  };
}

function policy(name: string, clusters: string[], kind: "application" | "cluster"): Record<string, unknown> {
  const tolerations = ["not-ready", "unreachable"].map((t) => ({
    key: `cluster.karmada.io/${t}`,
    operator: "Exists",
    effect: "NoExecute",
    tolerationSeconds: TOLERATION_S,
  }));
  return {
    apiVersion: "policy.karmada.io/v1alpha1",
    kind: "PropagationPolicy",
    metadata: { name, namespace: NS },
    spec: {
      resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name }],
      propagateDeps: true,
      placement: {
        clusterAffinity: { clusterNames: clusters },
        spreadConstraints: [{ spreadByField: "cluster", maxGroups: 1, minGroups: 1 }],
        ...(kind === "cluster" ? { clusterTolerations: tolerations } : {}),
      },
      ...(kind === "application"
        ? {
            failover: {
              application: {
                decisionConditions: { tolerationSeconds: TOLERATION_S },
                purgeMode: "Gracefully",
                gracePeriodSeconds: 600,
              },
            },
          }
        : {}),
    },
  };
}

async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const v = await check().catch(() => undefined);
    if (v !== undefined) return v;
    if (performance.now() > deadline)
      throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

export async function failoverBench(cfg: FailoverConfig, row: Row): Promise<number> {
  if (cfg.failoverTrials === 0) return 0;
  const dir = await mkdtemp(join(tmpdir(), "karmada-bench-failover-"));
  const up = await runUp(
    {
      dataDir: join(dir, "data"),
      port: 0,
      members: 3,
      memberCommand: [process.execPath, KARMADA_BIN],
      controllerOptions: {
        clusterStatusUpdateFrequencyMs: STATUS_EVERY_MS,
        clusterSuccessThresholdMs: STATUS_EVERY_MS,
        clusterFailureThresholdMs: FAILURE_THRESHOLD_MS,
        failoverEvictionTimeoutMs: EVICTION_TIMEOUT_MS,
        // One eviction at a time is all a trial makes; the pace must not be what is measured.
        resourceEvictionRate: 100,
        // What `karmada up` turns on (Failover among them).
        features: UP_FEATURE_GATES,
      },
      log: process.env.BENCH_DEBUG
        ? createLogger({ level: "info", sink: createWriteStream(process.env.BENCH_DEBUG), fields: {} })
        : silentLogger,
    },
    { stdout: { write: () => true }, stderr: { write: () => true } },
  );
  let failures = 0;
  try {
    const connect = async (context: string) =>
      httpClientFor(await loadKubeconfig({ path: up.kubeconfig, context }));
    const cp = await connect("karmada-apiserver");
    // The members' admin clients (their admin endpoints take the same credentials as the API).
    const members = new Map<string, HttpClient>();
    for (const m of up.members) members.set(m.name, await connect(m.name));

    const targetsOf = async (name: string): Promise<string[]> => {
      const rb = await cp.get(KARMADA.resourceBindings, NS, `${name}-deployment`);
      return ((rb.spec as { clusters?: Array<{ name: string }> }).clusters ?? []).map((c) => c.name);
    };
    const ready = async (member: string, name: string): Promise<boolean> => {
      const d = (await members.get(member)!.get(RESOURCES.deployments, NS, name)) as StoredObject;
      return (d.status as { availableReplicas?: number } | undefined)?.availableReplicas === 2;
    };
    /** The one member the Deployment runs on (other than `except`), all replicas available. */
    const runningOn = (name: string, except?: string, timeoutMs = 60_000) =>
      until(
        `${name} running on one member${except ? ` other than ${except}` : ""}`,
        async () => {
          const t = await targetsOf(name);
          return t.length === 1 && t[0] !== except && (await ready(t[0]!, name)) ? t[0] : undefined;
        },
        timeoutMs,
      );
    const clusterReady = (name: string) =>
      until(
        `cluster ${name} Ready without taints`,
        async () => {
          const c = await cp.get(RESOURCES.clusters, undefined, name);
          const conditions =
            (c.status as { conditions?: Array<{ type: string; status: string }> }).conditions ?? [];
          const taints = (c.spec as { taints?: unknown[] }).taints ?? [];
          return conditions.some((x) => x.type === "Ready" && x.status === "True") && taints.length === 0
            ? true
            : undefined;
        },
        60_000,
      );

    const trials = async (
      kind: "application" | "cluster",
      clusters: string[],
      configuredMs: number,
      fault: (member: string, name: string) => Record<string, unknown>,
    ): Promise<number[]> => {
      const out: number[] = [];
      for (let i = 0; i < cfg.failoverTrials; i++) {
        const name = `${kind}-failover-${i}`;
        await cp.create(RESOURCES.deployments, deployment(name));
        await cp.create(KARMADA.propagationPolicies, policy(name, clusters, kind));
        const from = await runningOn(name);
        const started = performance.now();
        const set = (await sendFault(members.get(from)!, fault(from, name))) as { id?: string };
        await runningOn(name, from);
        out.push(performance.now() - started - configuredMs);
        await sendFault(members.get(from)!, { type: "restore", ...(set.id ? { id: set.id } : {}) });
        await clusterReady(from);
        await cp.delete(KARMADA.propagationPolicies, NS, name);
        await cp.delete(RESOURCES.deployments, NS, name);
      }
      return out;
    };

    const report = (label: string, samples: number[], configuredMs: number) => {
      const sorted = [...samples].sort((a, b) => a - b);
      const p99 = percentile(sorted, 99);
      const goal = p99 <= FAILOVER_GOAL_MS ? "goal ≤ 1 s met" : "goal ≤ 1 s NOT met";
      row(
        "13 failover",
        "sqlite",
        `${label} p50 / p99`,
        `${fmt(percentile(sorted, 50))} / ${fmt(p99)} ms`,
        `fault → 2 replicas Ready elsewhere minus ${fmt(configuredMs)} ms configured; ${samples.length} trials; ${goal}`,
      );
    };

    for (const [kind, clusters, configuredMs, fault] of [
      [
        "application",
        up.members.map((m) => m.name),
        TOLERATION_S * 1000,
        (_m: string, name: string) => ({
          type: "unhealthy-workload",
          namespace: NS,
          kind: "Deployment",
          name,
        }),
      ],
      [
        "cluster",
        ["member1", "member2"],
        FAILURE_THRESHOLD_MS + EVICTION_TIMEOUT_MS + TOLERATION_S * 1000,
        () => ({ type: "unreachable" }),
      ],
    ] as const) {
      try {
        report(`${kind} failover`, await trials(kind, [...clusters], configuredMs, fault), configuredMs);
      } catch (err) {
        failures++;
        row("13 failover", "sqlite", `${kind} failover`, "failed", (err as Error).message);
      }
    }
  } finally {
    await up.stop();
    await rm(dir, { recursive: true, force: true });
  }
  return failures;
}
