/**
 * Section 16, the dashboard at 1,000 workloads and 100 clusters (on a control plane without
 * controllers, fed by test/support/dashboard-fleet.ts):
 * - the workloads page's first snapshot over HTTP: time from the request to the whole snapshot
 *   (list, compact rows, JSON) and its size;
 * - a change to one binding: time until the open stream carries it, and the patch's size
 *   (one row, not 1,000);
 * - in Debian's Chromium (when installed): time until the page shows "Showing 1–50 of 1,000".
 */
import { existsSync } from "node:fs";
import { request } from "node:http";
import { startLocalControlPlane } from "../src/bin/control-plane.ts";
import { LocalClient } from "../src/client/local.ts";
import { CSRF_HEADER } from "../src/dashboard/guard.ts";
import { startDashboard } from "../src/dashboard/server.ts";
import { KARMADA } from "../src/karmada/resources.ts";
import { silentLogger } from "../src/log.ts";
import { CHROMIUM, launchBrowser } from "../test/support/dashboard-browser.ts";
import { seedFleet } from "../test/support/dashboard-fleet.ts";
import { fmt, type Row } from "./table.ts";

const SECTION = "16 dashboard";
const CLUSTERS = 100;
const WORKLOADS = 1000;

interface StreamProbe {
  /** Resolves once a message says the view is synced: the time since the request, and the bytes until then. */
  first: Promise<{ ms: number; bytes: number }>;
  /** Resolves with the next message after the call: the time since the call, and its size. */
  next(): Promise<{ ms: number; bytes: number }>;
  close(): void;
}

function openStream(url: string): StreamProbe {
  const started = performance.now();
  let buffered = "";
  let waiting: ((m: { ms: number; bytes: number }) => void) | undefined;
  let since = 0;
  let resolveFirst: (m: { ms: number; bytes: number }) => void = () => {};
  let rejectFirst: (err: Error) => void = () => {};
  const first = new Promise<{ ms: number; bytes: number }>((resolve, reject) => {
    resolveFirst = resolve;
    rejectFirst = reject;
  });
  let synced = false;
  let bytes = 0;
  const req = request(url, { headers: { [CSRF_HEADER]: "1" } }, (res) => {
    res.setEncoding("utf8");
    res.on("data", (chunk: string) => {
      buffered += chunk;
      let nl = buffered.indexOf("\n");
      while (nl >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        nl = buffered.indexOf("\n");
        if (line.includes('"type":"ping"')) continue;
        bytes += Buffer.byteLength(line);
        if (!synced) {
          synced = line.includes('"synced":true');
          if (synced) resolveFirst({ ms: performance.now() - started, bytes });
        } else if (waiting) {
          const w = waiting;
          waiting = undefined;
          w({ ms: performance.now() - since, bytes: Buffer.byteLength(line) });
        }
      }
    });
  });
  req.on("error", (err) => rejectFirst(err));
  req.end();
  return {
    first,
    next() {
      since = performance.now();
      return new Promise((resolve) => {
        waiting = resolve;
      });
    },
    close: () => req.destroy(),
  };
}

export async function dashboardBench(row: Row): Promise<number> {
  const cp = await startLocalControlPlane();
  let dashboard: Awaited<ReturnType<typeof startDashboard>> | undefined;
  try {
    const admin = new LocalClient(cp.api.context, { fieldManager: "bench" });
    await seedFleet(admin, { clusters: CLUSTERS, workloads: WORKLOADS, namespace: "shop" });
    dashboard = await startDashboard({
      connection: cp.connection,
      mode: "local",
      host: "127.0.0.1",
      port: 0,
      log: silentLogger,
    });
    const scale = `${fmt(WORKLOADS)} workloads, ${CLUSTERS} clusters`;
    // A first stream warms the session (its informers list once); the second is the page as a user opens it again.
    const warm = openStream(`${dashboard.url}api/stream/workloads`);
    await warm.first;
    warm.close();
    const probe = openStream(`${dashboard.url}api/stream/workloads`);
    const snapshot = await probe.first;
    row(
      SECTION,
      "memory",
      `workloads view over HTTP, ${scale}`,
      `${fmt(snapshot.ms)} ms`,
      `${fmt(snapshot.bytes / 1024)} KiB of JSON until synced (gzip on the wire when asked); the page opened again`,
    );

    const rb = await admin.get(KARMADA.resourceBindings, "shop", "app-0500-deployment");
    const status = structuredClone(rb.status) as { aggregatedStatus: Array<{ health: string }> };
    status.aggregatedStatus[0]!.health = "Unhealthy";
    const patched = probe.next();
    await admin.updateStatus(KARMADA.resourceBindings, { ...rb, status });
    const patch = await patched;
    probe.close();
    row(
      SECTION,
      "memory",
      "one binding changed → on the stream",
      `${fmt(patch.ms)} ms`,
      `${fmt(patch.bytes)} bytes patch`,
    );

    if (existsSync(CHROMIUM)) {
      const browser = await launchBrowser();
      try {
        const started = performance.now();
        await browser.page.goto(`${dashboard.url}#/workloads`);
        await browser.page.getByText("Showing 1–50 of 1,000").waitFor({ timeout: 60_000 });
        row(
          SECTION,
          "chromium",
          `workloads page shown, ${scale}`,
          `${fmt(performance.now() - started)} ms`,
          "page load to the first 50 rows",
        );
      } finally {
        await browser.close();
      }
    }
    return 0;
  } catch (err) {
    row(SECTION, "memory", "failed", "-", (err as Error).message);
    return 1;
  } finally {
    await dashboard?.close();
    await cp.stop();
  }
}
