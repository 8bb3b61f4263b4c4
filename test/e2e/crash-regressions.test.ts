/**
 * Regressions found by the crash trials (`npm run trials`, trials/crash.ts).
 *
 * 1. The controller manager, the scheduler and the agent renewed their leader Lease through
 *    the same client as their controllers. After a restart (or under a slow API server) the
 *    controllers' resync filled that client's concurrency, the renewal waited behind it past
 *    the renew deadline, and the process exited ("leader election lost"); the next one did
 *    the same, so Works stayed unapplied for minutes. As upstream's components, the Lease now
 *    has a client of its own.
 * 2. Keys that failed while the API server or a member could not be reached waited out their
 *    failure backoff (doubling to a minute, plus jitter) after it was back: a member restarted
 *    quicker than the cluster status notices stays Ready, so no event brought its Works back,
 *    and copies stayed stale for a minute or more. Now the first answer after a failure
 *    retries the keys that failed meanwhile (the API server's: every controller's; a member's:
 *    the Works of that member).
 */
import { connect, createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningControlPlane, startLocalControlPlane } from "../../src/bin/control-plane.ts";
import { DEFAULT_LEADER_ELECTION, startElectedControllerManager } from "../../src/bin/controller-manager.ts";
import { RESOURCES } from "../../src/client/client.ts";
import { type ClusterConnection, HttpClient } from "../../src/client/http.ts";
import { httpClientFor } from "../../src/client/kubeconfig.ts";
import { openMemberConnection, ownMemberConnections } from "../../src/cluster/connections.ts";
import { executionController } from "../../src/controllers/execution.ts";
import { startControllerManager } from "../../src/controllers/index.ts";
import { executionSpace } from "../../src/karmada/names.ts";
import { KARMADA } from "../../src/karmada/resources.ts";
import { silentLogger } from "../../src/log.ts";
import type { Controller } from "../../src/runtime/controller.ts";
import { eventually } from "../support/kubectl.ts";
import { createCluster } from "../support/reconcile.ts";

describe("crash-trial regressions", () => {
  let cp: RunningControlPlane;
  let blackhole: Server;
  const sockets = new Set<Socket>();
  let port = 0;

  beforeAll(async () => {
    cp = await startLocalControlPlane();
    // Accepts connections and never answers: a client pointed here has every slot taken.
    blackhole = createServer((s) => {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
    });
    await new Promise<void>((resolve) => blackhole.listen(0, "127.0.0.1", resolve));
    port = (blackhole.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => blackhole?.close(resolve));
    await cp?.stop();
  });

  it("the leader Lease is renewed on its own client while the controllers' client is saturated", async () => {
    const saturated = new HttpClient({
      server: `https://127.0.0.1:${port}`,
      maxConcurrent: 1,
      timeoutMs: 60_000,
    });
    // Its only slot is taken by a request that will not be answered during the test.
    const pending = saturated.list(RESOURCES.configmaps, "default").catch(() => undefined);
    const leaderClient = httpClientFor(cp.connection, { userAgent: "crash-regressions/leader-election" });
    let lost = false;
    const elected = startElectedControllerManager({
      client: saturated,
      leaderElectionClient: leaderClient,
      log: silentLogger,
      controllers: [],
      leaderElection: {
        ...DEFAULT_LEADER_ELECTION,
        name: "crash-regressions",
        leaseDurationMs: 2_000,
        renewDeadlineMs: 1_500,
        retryPeriodMs: 200,
      },
      onLost: () => {
        lost = true;
      },
    });
    const lease = () => leaderClient.get(RESOURCES.leases, "karmada-system", "crash-regressions");
    const renewTime = async () => (await lease()).spec as { holderIdentity?: string; renewTime?: string };
    try {
      await eventually(async () => elected.leading(), "leadership", 200, 50);
      const first = await renewTime();
      expect(first.holderIdentity).toBe(elected.identity);
      // Renewed again and again, well past the lease duration, without losing it.
      let renewals = 0;
      let last = first.renewTime;
      await eventually(
        async () => {
          const now = (await renewTime()).renewTime;
          if (now !== last) {
            renewals++;
            last = now;
          }
          return renewals >= 3;
        },
        "three renewals",
        400,
        50,
      );
      expect(lost).toBe(false);
      expect(elected.leading()).toBe(true);
    } finally {
      await elected.stop();
      saturated.close();
      leaderClient.close();
      for (const s of sockets) s.destroy();
      await pending;
    }
  });
});

/** A TCP relay to `port` that can be cut: while down, every connection, old or new, is reset. */
async function cuttableRelay(port: number) {
  const open = new Set<Socket>();
  let down = false;
  const server = createServer((client) => {
    if (down) {
      client.destroy();
      return;
    }
    const upstream = connect(port, "127.0.0.1");
    open.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on("error", drop).on("close", drop);
    upstream.on("error", drop).on("close", drop);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as { port: number }).port}`,
    cut() {
      down = true;
      for (const s of open) s.destroy();
      open.clear();
    },
    restore() {
      down = false;
    },
    close: () => {
      for (const s of open) s.destroy();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A first retry an hour away: within the test only the recovery can bring a failed key back. */
const HOUR_MS = 3_600_000;

describe("keys that failed while a server was unreachable", () => {
  let cp: RunningControlPlane;
  let member: RunningControlPlane;

  beforeAll(async () => {
    cp = await startLocalControlPlane();
    member = await startLocalControlPlane();
  });
  afterAll(async () => {
    await member?.stop();
    await cp?.stop();
  });

  it("are retried as soon as the API server answers again", async () => {
    const relay = await cuttableRelay(Number(new URL(cp.connection.server).port));
    const client = httpClientFor({ ...cp.connection, server: relay.url }, { userAgent: "crash-regressions" });
    const admin = httpClientFor(cp.connection, { userAgent: "crash-regressions/admin" });
    const reconciled: string[] = [];
    const failed: string[] = [];
    const probe = (ctx: Parameters<typeof executionController>[0]): Controller => ({
      name: "probe",
      for: ctx.informers.informer(RESOURCES.configmaps, { namespace: "default" }),
      baseDelayMs: HOUR_MS,
      async reconcile(_rctx, key) {
        try {
          await ctx.client.get(RESOURCES.configmaps, "default", key.split("/")[1]!);
        } catch (err) {
          failed.push(key);
          throw err;
        }
        reconciled.push(key);
        return undefined;
      },
    });
    const manager = startControllerManager({
      client,
      members: ownMemberConnections("none", () => ({
        client,
        getRaw: (path) => client.getRaw(path),
        close() {},
      })),
      log: silentLogger,
      registry: { probe: (ctx) => [probe(ctx)] },
      alwaysOn: () => [],
    });
    try {
      await admin.create(RESOURCES.configmaps, {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "c1", namespace: "default" },
      });
      await eventually(async () => reconciled.includes("default/c1"), "first reconcile", 200, 50);
      relay.cut();
      manager.running[0]!.enqueue("default/c1");
      // It failed (the relay resets it) and waits its hour.
      await eventually(async () => failed.length === 1, "failed reconcile", 200, 50);
      relay.restore();
      // The informer's watch, broken by the cut, lists again: the first answer retries the key.
      await eventually(async () => reconciled.length === 2, "reconcile after recovery", 600, 50);
    } finally {
      manager.stop();
      client.close();
      admin.close();
      await relay.close();
    }
  });

  it("retry a member's Works as soon as the member answers again, though its Cluster stayed Ready", async () => {
    const relay = await cuttableRelay(Number(new URL(member.connection.server).port));
    const admin = httpClientFor(cp.connection, { userAgent: "crash-regressions/admin" });
    const memberAdmin = httpClientFor(member.connection, { userAgent: "crash-regressions/member" });
    const settings: ClusterConnection = { ...member.connection, server: relay.url };
    let conn: ReturnType<typeof openMemberConnection> | undefined;
    const manager = startControllerManager({
      client: admin,
      members: ownMemberConnections("member1", (onRecovered) => {
        conn = openMemberConnection(settings, {
          maxConcurrent: 4,
          timeoutMs: 5_000,
          userAgent: "crash-regressions",
          onRecovered,
        });
        return conn;
      }),
      log: silentLogger,
      registry: {
        execution: (ctx) => [{ ...executionController(ctx, ctx.interpreter), baseDelayMs: HOUR_MS }],
      },
      alwaysOn: () => [],
    });
    try {
      // Ready, as the cluster status controller left it before the member went away.
      await createCluster(admin, "member1", { spec: { apiEndpoint: relay.url } });
      relay.cut();
      await admin.create(KARMADA.works, {
        apiVersion: "work.karmada.io/v1alpha1",
        kind: "Work",
        metadata: { name: "cm-w", namespace: executionSpace("member1") },
        spec: {
          workload: {
            manifests: [
              {
                apiVersion: "v1",
                kind: "ConfigMap",
                metadata: { name: "w", namespace: "default", labels: { "karmada.io/managed": "true" } },
                data: { k: "v" },
              },
            ],
          },
        },
      });
      const execution = manager.running.find((r) => r.name === "execution-controller")!;
      // The apply failed (the member is cut off) and waits its hour.
      await eventually(
        async () => {
          const w = await admin.get(KARMADA.works, executionSpace("member1"), "cm-w");
          const conditions = ((w.status as { conditions?: Array<{ type: string; status: string }> })
            ?.conditions ?? []) as Array<{ type: string; status: string }>;
          return (
            conditions.some((c) => c.type === "Applied" && c.status === "False") &&
            execution.queue.length === 0
          );
        },
        "failed apply",
        400,
        50,
      );
      relay.restore();
      // The first answer through the member's connection (here a health probe, as the cluster
      // status controller sends every 10 s) retries the member's Works.
      await conn!.getRaw("/readyz", 2_000);
      await eventually(
        async () => (await memberAdmin.get(RESOURCES.configmaps, "default", "w")).data,
        "the copy in the member",
        600,
        50,
      );
    } finally {
      manager.stop();
      admin.close();
      memberAdmin.close();
      await relay.close();
    }
  });
});
