/**
 * Regressions found by the crash trials (`npm run trials`, trials/crash.ts).
 *
 * 1. The controller manager, the scheduler and the agent renewed their leader Lease through
 *    the same client as their controllers. After a restart (or under a slow API server) the
 *    controllers' resync filled that client's concurrency, the renewal waited behind it past
 *    the renew deadline, and the process exited ("leader election lost"); the next one did
 *    the same, so Works stayed unapplied for minutes. As upstream's components, the Lease now
 *    has a client of its own.
 */
import { createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningControlPlane, startLocalControlPlane } from "../../src/bin/control-plane.ts";
import { DEFAULT_LEADER_ELECTION, startElectedControllerManager } from "../../src/bin/controller-manager.ts";
import { RESOURCES } from "../../src/client/client.ts";
import { HttpClient } from "../../src/client/http.ts";
import { httpClientFor } from "../../src/client/kubeconfig.ts";
import { silentLogger } from "../../src/log.ts";
import { eventually } from "../support/kubectl.ts";

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
