/**
 * Cluster failover on `karmada up` (gate Failover) through kubectl, after upstream's
 * failover_test.go story: a Deployment runs on one of two clusters (spread to one cluster); that
 * member stops answering (simulator fault `unreachable`), turns NotReady, gets the
 * `not-ready:NoExecute` taint after `--failover-eviction-timeout`, and once the policy's
 * toleration has run out the taint manager moves the binding to the other member with a
 * graceful eviction task (producer TaintManager, reason TaintUntolerated). The new copy becomes
 * healthy, the task ends, and the old copy is removed once the member answers again. In shadow
 * mode the taint manager only records what it would do.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpClientFor, loadKubeconfig } from "../../src/client/kubeconfig.ts";
import { sendFault } from "../../src/member-sim/fault-client.ts";
import { FeatureGates } from "../../src/runtime/features.ts";
import { fleetKubectl, startTestFleet, type TestFleet } from "../support/fleet.ts";
import { eventually, KUBECTL } from "../support/kubectl.ts";
import { deployment, manifest } from "../support/kubectl-output.ts";

type Obj = {
  metadata: { name: string; deletionTimestamp?: string };
  spec?: {
    clusters?: Array<{ name: string }>;
    gracefulEvictionTasks?: Array<Record<string, unknown>>;
    taints?: Array<{ key: string; effect: string }>;
  };
  status?: { availableReplicas?: number };
  items?: Array<{ reason?: string; message?: string; involvedObject?: { kind?: string; name?: string } }>;
};

const FAILOVER = {
  features: new FeatureGates({ Failover: true }),
  controllerOptions: { failoverEvictionTimeoutMs: 1_000 },
};

/** Spread to exactly one of member1 and member2, tolerating the failure taints for 2 s. */
const policy = {
  apiVersion: "policy.karmada.io/v1alpha1",
  kind: "PropagationPolicy",
  metadata: { name: "web", namespace: "default" },
  spec: {
    resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "web" }],
    placement: {
      clusterAffinity: { clusterNames: ["member1", "member2"] },
      spreadConstraints: [{ spreadByField: "cluster", maxGroups: 1, minGroups: 1 }],
      clusterTolerations: [
        {
          key: "cluster.karmada.io/not-ready",
          operator: "Exists",
          effect: "NoExecute",
          tolerationSeconds: 2,
        },
        {
          key: "cluster.karmada.io/unreachable",
          operator: "Exists",
          effect: "NoExecute",
          tolerationSeconds: 2,
        },
      ],
    },
  },
};

// A minute for each step: NotReady takes the fleet's 5 s failure threshold, then the timeouts.
const LONG = [600, 100] as const;

function fleetHelpers(fleet: () => TestFleet) {
  const { kubectl, cp, ok, getJson } = fleetKubectl<Obj>(fleet);
  const get = (context: string, args: string[]) => getJson(context, ["get", ...args]);
  /** Sends a fault to a member's admin endpoint, as the member's admin. */
  const fault = async (name: string, body: Record<string, unknown>) => {
    const admin = httpClientFor(await loadKubeconfig({ path: fleet().up.kubeconfig, context: name }));
    try {
      return await sendFault(admin, body);
    } finally {
      admin.close();
    }
  };
  const targets = async (): Promise<string[]> =>
    ((await get("karmada-apiserver", ["rb", "web-deployment"]))?.spec?.clusters ?? []).map((c) => c.name);
  /** The one cluster the binding is scheduled to, once it runs there with every replica available. */
  const runningOn = (except?: string) =>
    eventually(
      async () => {
        const t = await targets();
        if (t.length !== 1 || t[0] === except) return undefined;
        const d = await get(t[0]!, ["deployment", "web"]);
        return d?.status?.availableReplicas === 2 && t[0];
      },
      `web running on one cluster${except ? ` other than ${except}` : ""}`,
      ...LONG,
    );
  const eventsOf = async (name: string) =>
    ((await get("karmada-apiserver", ["events", "-n", "default"]))?.items ?? []).filter(
      (e) => e.involvedObject?.name === name,
    );
  return { kubectl, cp, ok, get, fault, targets, runningOn, eventsOf };
}

/** Splits kubectl's `-o json` watch output (objects one after another) into the objects. */
function jsonStream(onObject: (o: Obj) => void): (chunk: string) => void {
  let buf = "";
  let depth = 0;
  let inString = false;
  let escaped = false;
  /** Whether `ch` is inside a string (or ends one): braces there do not count. */
  const stringy = (ch: string): boolean => {
    if (!inString) {
      inString = ch === '"';
      return inString;
    }
    if (escaped) escaped = false;
    else if (ch === "\\") escaped = true;
    else if (ch === '"') inString = false;
    return true;
  };
  return (chunk) => {
    for (const ch of chunk) {
      if (depth > 0) buf += ch;
      if (stringy(ch)) continue;
      if (ch === "{" && depth++ === 0) buf = "{";
      else if (ch === "}" && --depth === 0) onObject(JSON.parse(buf) as Obj);
    }
  };
}

/** `kubectl get rb -w -o json`, one line per version: its targets, then each eviction task. */
function watchBinding(fleet: TestFleet): { lines: () => string[]; stop: () => void } {
  const lines: string[] = [];
  const child: ChildProcess = spawn(
    KUBECTL,
    [
      `--kubeconfig=${fleet.up.kubeconfig}`,
      `--cache-dir=${join(fleet.dir, "cache")}`,
      "--context",
      "karmada-apiserver",
      "get",
      "rb",
      "web-deployment",
      "-w",
      "-o",
      "json",
    ],
    {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: fleet.dir },
      stdio: ["ignore", "pipe", "ignore"],
    },
  );
  const feed = jsonStream((rb) => {
    const targets = (rb.spec?.clusters ?? []).map((c) => c.name).join(",");
    const tasks = (rb.spec?.gracefulEvictionTasks ?? [])
      .map((t) => `${t.fromCluster},${t.purgeMode},${t.reason},${t.producer} `)
      .join("");
    lines.push(`${targets};${tasks}`);
  });
  child.stdout!.on("data", (d: Buffer) => feed(d.toString()));
  return {
    lines: () => [...lines],
    stop: () => {
      child.kill("SIGTERM");
    },
  };
}

describe("cluster failover on karmada up", () => {
  let fleet: TestFleet;
  const h = fleetHelpers(() => fleet);
  let faulted: string | undefined;

  beforeAll(async () => {
    fleet = await startTestFleet("cluster-failover", 3, FAILOVER);
  }, 90_000);
  afterAll(async () => {
    if (faulted) await h.fault(faulted, { type: "restore" }).catch(() => undefined);
    await fleet?.stop();
  });

  it("moves the workload off a member that stops answering, and cleans up the old copy when it is back", async () => {
    await h.ok(h.cp(["apply", "-f", "-"], manifest(deployment("web", { replicas: 2 }), policy)));
    const first = await h.runningOn();
    const other = first === "member1" ? "member2" : "member1";
    const watch = watchBinding(fleet);
    try {
      await eventually(async () => watch.lines().length > 0, "the binding watch started", ...LONG);

      faulted = first;
      await h.fault(first, { type: "unreachable" });

      // The taint comes after the timeout; then the binding moves with a graceful eviction task.
      await eventually(
        async () =>
          (await h.get("karmada-apiserver", ["cluster", first]))?.spec?.taints?.some(
            (t) => t.key === "cluster.karmada.io/not-ready" && t.effect === "NoExecute",
          ),
        `${first} tainted not-ready:NoExecute`,
        ...LONG,
      );
      expect(await h.runningOn(first)).toBe(other);
      const task = `${first},Gracefully,TaintUntolerated,TaintManager `;
      expect(watch.lines()).toContain(`${other};${task}`);
      // The old copy stayed in the binding's Works until the new one was healthy: the task ends.
      await eventually(async () => watch.lines().at(-1) === `${other};`, "the eviction task ended", ...LONG);
      const evicted = watch.lines().findIndex((l) => l.endsWith(task));
      expect(watch.lines().slice(0, evicted)).toContain(`${first};`);

      const events = await h.eventsOf("web");
      expect(events.map((e) => `${e.reason}: ${e.message}`)).toContain(
        `EvictWorkloadFromClusterSucceed: Evict from cluster ${first} succeed.`,
      );

      // The member answers again: its taints go, and so does the old copy; the workload stays put.
      await h.fault(first, { type: "restore" });
      faulted = undefined;
      await eventually(
        async () => (await h.kubectl(first, ["get", "deployment", "web"])).stderr.includes("NotFound"),
        `the old copy gone from ${first}`,
        ...LONG,
      );
      await eventually(
        async () => ((await h.get("karmada-apiserver", ["cluster", first]))?.spec?.taints ?? []).length === 0,
        `${first} untainted`,
        ...LONG,
      );
      // The workload's Works go; the unified-auth controller's (karmada-impersonator-*) stay with the cluster.
      await eventually(
        async () =>
          (await h.get("karmada-apiserver", ["works", "-n", `karmada-es-${first}`]))?.items?.every((w) =>
            (w as { metadata?: { name?: string } }).metadata?.name?.startsWith("karmada-impersonator-"),
          ),
        `no workload Work left in karmada-es-${first}`,
        ...LONG,
      );
      expect(await h.targets()).toEqual([other]);
    } finally {
      watch.stop();
    }
  }, 180_000);
});

describe("cluster failover in shadow mode", () => {
  let fleet: TestFleet;
  const h = fleetHelpers(() => fleet);
  let faulted: string | undefined;

  beforeAll(async () => {
    fleet = await startTestFleet("cluster-failover-shadow", 2, {
      ...FAILOVER,
      controllerOptions: { ...FAILOVER.controllerOptions, failoverShadowMode: true },
    });
  }, 90_000);
  afterAll(async () => {
    if (faulted) await h.fault(faulted, { type: "restore" }).catch(() => undefined);
    await fleet?.stop();
  });

  it("records the eviction it would make, and the workload stays", async () => {
    await h.ok(h.cp(["apply", "-f", "-"], manifest(deployment("web", { replicas: 2 }), policy)));
    const first = await h.runningOn();
    faulted = first;
    await h.fault(first, { type: "unreachable" });

    const shadowed = await eventually(
      async () => (await h.eventsOf("web-deployment")).find((e) => e.reason === "EvictionShadowed"),
      "an EvictionShadowed event on the binding",
      ...LONG,
    );
    expect(shadowed.message).toBe(
      `Would evict from cluster ${first} (failover shadow mode): the toleration of taint cluster.karmada.io/not-ready:NoExecute has run out.`,
    );
    const rb = await h.get("karmada-apiserver", ["rb", "web-deployment"]);
    expect(rb?.spec?.clusters?.map((c) => c.name)).toEqual([first]);
    expect(rb?.spec?.gracefulEvictionTasks ?? []).toEqual([]);
  }, 180_000);
});
