/**
 * Many sink members in one process, for the scale rows (bench/scale.ts): each one a
 * `member-sim --sink` (API server over HTTPS with its own CA, Ready nodes, Deployments
 * reporting ready at once, nothing else), joined to the control plane in Push mode as
 * `karmadactl join` does it (a service account and its token in the member, the Cluster and its
 * secret in the control plane). One process for all of them keeps their cost small and
 * measurable apart from the control plane's. Asked over stdin, one JSON line per question, it
 * answers on stdout, one JSON line each:
 *
 *   {"op":"churn","namespace":"x","perSecond":r,"seconds":s}
 *        the members' own writes: r status changes per second, spread over the members, for s
 *        seconds (a Deployment's readyReplicas and availableReplicas drop by one, or come back, as
 *        a pod restarting would); answers {"written":n,"failed":n}
 *   {"op":"waitCounts","namespace":"x","counts":{"sink1":n,...},"timeoutMs":t}
 *        until each member holds its count of Deployments in x, each reported (observedGeneration
 *        caught up); answers {"settled":true|false}
 *   {"op":"usage"}                                        this process's CPU seconds and peak RSS
 *   {"op":"requests"}                                     the requests each member served so far
 *        (apiserver_request_total), as {"sink1":{"GET clusters...":n,...},...}; watches count when
 *        they end
 *
 *   node --import tsx bench/sink-fleet-child.ts <count> <control-plane kubeconfig> <dir>
 *
 * On start it writes `<dir>/sinks.config` (a context per member, as its admin) and prints
 * {"ready":{"names":[...],"seconds":s}}.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { StoredObject } from "../src/api/meta.ts";
import { DEFAULT_CLUSTER_NAMESPACE } from "../src/cli/commands/join.ts";
import { RESOURCES } from "../src/client/client.ts";
import { httpClientFor, loadKubeconfig, renderKubeconfig } from "../src/client/kubeconfig.ts";
import { REPORTED_SECRETS, registerCluster } from "../src/cluster/register.ts";
import { silentLogger } from "../src/log.ts";
import { type ServedMemberCluster, serveMemberCluster } from "../src/member-sim/cluster.ts";
import { createMetricsRegistry, exposition, type Registry } from "../src/metrics/registry.ts";
import { parseExposition } from "../test/support/prometheus.ts";
import { pool } from "./load.ts";

export interface SinkFleetReady {
  names: string[];
  seconds: number;
}

export interface SinkUsage {
  cpuSeconds: number;
  peakRssBytes: number;
}

const reported = (d: StoredObject): boolean =>
  (d.status as { observedGeneration?: number } | undefined)?.observedGeneration === d.metadata.generation;

/** apiserver_request_total by "VERB resource[/subresource]", every code summed. */
function requestCounts(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const { labels, value } of parseExposition(text).find("apiserver_request_total")) {
    const sub = labels.subresource ? `/${labels.subresource}` : "";
    const key = `${labels.verb} ${labels.resource || "(non-resource)"}${sub}`;
    out[key] = (out[key] ?? 0) + value;
  }
  return out;
}

async function main(): Promise<void> {
  const [countArg, karmadaConfig, dir] = process.argv.slice(2);
  const count = Number(countArg);
  if (!Number.isInteger(count) || count < 1 || !karmadaConfig || !dir) {
    process.stderr.write("usage: sink-fleet-child.ts <count> <control-plane kubeconfig> <dir>\n");
    process.exit(2);
  }
  const started = performance.now();
  const names = Array.from({ length: count }, (_, i) => `sink${i + 1}`);
  const members: ServedMemberCluster[] = [];
  // Each member counts the requests it serves, for the cluster status row.
  const registries: Registry[] = [];
  await pool(count, 8, async (i) => {
    registries[i] = createMetricsRegistry({ processMetrics: false });
    members[i] = await serveMemberCluster({
      name: names[i]!,
      sink: true,
      nodes: 3,
      port: 0,
      log: silentLogger,
      server: { metrics: registries[i] },
    });
  });
  const karmada = httpClientFor(await loadKubeconfig({ path: karmadaConfig }), { maxConcurrent: 16 });
  await pool(count, 8, async (i) => {
    const m = members[i]!;
    await registerCluster(
      karmada,
      { client: m.client, server: m.url, insecureSkipTLSVerify: false },
      {
        name: m.name,
        syncMode: "Push",
        clusterNamespace: DEFAULT_CLUSTER_NAMESPACE,
        reportSecrets: REPORTED_SECRETS,
        reregister: false,
        dryRun: false,
      },
    );
  });
  karmada.close();
  writeFileSync(
    join(dir, "sinks.config"),
    renderKubeconfig({
      clusters: members.map((m) => ({ name: m.name, server: m.url, caData: m.connection.caData! })),
      users: members.map((m) => ({
        name: `${m.name}-admin`,
        certData: m.connection.certData!,
        keyData: m.connection.keyData!,
      })),
      contexts: members.map((m) => ({ name: m.name, cluster: m.name, user: `${m.name}-admin` })),
      currentContext: members[0]!.name,
    }),
    { mode: 0o600 },
  );
  const say = (o: unknown): void => {
    process.stdout.write(`${JSON.stringify(o)}\n`);
  };
  say({ ready: { names, seconds: (performance.now() - started) / 1000 } satisfies SinkFleetReady });

  // Per member and namespace: the Deployments it holds, and those reported; kept up to date by
  // the members' own informers, so that a check costs a lookup per member, not a list.
  const held = members.map(() => new Map<string, { all: Set<string>; reported: Set<string> }>());
  members.forEach((m, i) => {
    const of = (ns: string) => {
      let e = held[i]!.get(ns);
      if (!e) {
        e = { all: new Set(), reported: new Set() };
        held[i]!.set(ns, e);
      }
      return e;
    };
    const note = (d: StoredObject) => {
      const e = of(d.metadata.namespace ?? "");
      e.all.add(d.metadata.name);
      if (reported(d)) e.reported.add(d.metadata.name);
      else e.reported.delete(d.metadata.name);
    };
    m.informers.deployments.addHandler({
      onAdd: note,
      onUpdate: (_old, d) => note(d),
      onDelete: (d) => {
        const e = of(d.metadata.namespace ?? "");
        e.all.delete(d.metadata.name);
        e.reported.delete(d.metadata.name);
      },
    });
  });
  /** Whether every member holds its count of reported Deployments in `ns` (none: 0). */
  const settled = (ns: string, counts: Record<string, number>): boolean =>
    held.every((h, i) => {
      const want = counts[names[i]!] ?? 0;
      const e = h.get(ns);
      return (e?.all.size ?? 0) === want && (e?.reported.size ?? 0) === want;
    });

  /** Status changes at `perSecond`, round-robin over members and their Deployments in `ns`. */
  async function churn(ns: string, perSecond: number, seconds: number) {
    const targets: Array<{ m: ServedMemberCluster; name: string }> = [];
    const longest = Math.max(...held.map((h) => h.get(ns)?.all.size ?? 0));
    const lists = held.map((h) => [...(h.get(ns)?.all ?? [])]);
    for (let k = 0; k < longest; k++)
      lists.forEach((l, i) => {
        if (k < l.length) targets.push({ m: members[i]!, name: l[k]! });
      });
    let written = 0;
    let failed = 0;
    let next = 0;
    const inFlight = new Set<Promise<void>>();
    const start = performance.now();
    const total = Math.round(perSecond * seconds);
    for (let k = 0; k < total && targets.length > 0; k++) {
      const due = start + (k * 1000) / perSecond;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const t = targets[next++ % targets.length]!;
      const p = (async () => {
        try {
          const d = await t.m.client.get(RESOURCES.deployments, ns, t.name);
          const s = (d.status ?? {}) as { replicas?: number; readyReplicas?: number };
          const want = s.replicas ?? 1;
          const ready = s.readyReplicas === want ? Math.max(0, want - 1) : want;
          await t.m.client.patch(
            RESOURCES.deployments,
            ns,
            t.name,
            "merge",
            { status: { readyReplicas: ready, availableReplicas: ready } },
            { subresource: "status" },
          );
          written++;
        } catch {
          failed++;
        }
      })();
      inFlight.add(p);
      void p.finally(() => inFlight.delete(p));
    }
    await Promise.all(inFlight);
    return { written, failed };
  }

  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) {
    const q = JSON.parse(line) as {
      op: string;
      namespace?: string;
      counts?: Record<string, number>;
      timeoutMs?: number;
      perSecond?: number;
      seconds?: number;
    };
    if (q.op === "usage") {
      const cpu = process.cpuUsage();
      say({
        cpuSeconds: (cpu.user + cpu.system) / 1e6,
        peakRssBytes: process.resourceUsage().maxRSS * 1024,
      } satisfies SinkUsage);
    } else if (q.op === "requests") {
      const out: Record<string, Record<string, number>> = {};
      for (let i = 0; i < count; i++) out[names[i]!] = requestCounts((await exposition(registries[i]!)).text);
      say(out);
    } else if (q.op === "churn") {
      say(await churn(q.namespace!, q.perSecond ?? 10, q.seconds ?? 30));
    } else if (q.op === "waitCounts") {
      const deadline = performance.now() + (q.timeoutMs ?? 600_000);
      while (!settled(q.namespace!, q.counts!) && performance.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      say({ settled: settled(q.namespace!, q.counts!) });
    }
  }
  await Promise.all(members.map((m) => m.stop()));
}

await main();
