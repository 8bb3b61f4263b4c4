/**
 * The dashboard at the size the issue names: 1,000 workloads (ResourceBindings with status)
 * and 100 clusters in 5 regions, on a control plane with no controllers (so what we write is
 * what it holds), shown in Chromium: the workloads page pages, filters and counts them all,
 * and a change to one binding reaches the open page live. No timing is asserted; the time to
 * the first full page is printed (and measured in `npm run bench`).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningControlPlane, startLocalControlPlane } from "../../src/bin/control-plane.ts";
import { RESOURCES } from "../../src/client/client.ts";
import { LocalClient } from "../../src/client/local.ts";
import { type RunningDashboard, startDashboard } from "../../src/dashboard/server.ts";
import { KARMADA } from "../../src/karmada/resources.ts";
import { silentLogger } from "../../src/log.ts";
import { launchBrowser, screenshot, type TestBrowser } from "../support/dashboard-browser.ts";
import { seedFleet } from "../support/dashboard-fleet.ts";

const CLUSTERS = 100;
const WORKLOADS = 1000;

describe(`the dashboard with ${WORKLOADS} workloads and ${CLUSTERS} clusters`, () => {
  let cp: RunningControlPlane;
  let dashboard: RunningDashboard;
  let browser: TestBrowser;
  let admin: LocalClient;

  beforeAll(async () => {
    [cp, browser] = await Promise.all([startLocalControlPlane(), launchBrowser()]);
    admin = new LocalClient(cp.api.context, { fieldManager: "dashboard-scale-test" });
    await seedFleet(admin, { clusters: CLUSTERS, workloads: WORKLOADS, namespace: "shop" });
    dashboard = await startDashboard({
      connection: cp.connection,
      mode: "local",
      host: "127.0.0.1",
      port: 0,
      log: silentLogger,
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await dashboard?.close();
    await cp?.stop();
  });

  it("shows all 1,000 workloads a page at a time, filters them, and takes a change live", async () => {
    const p = browser.page;
    const started = performance.now();
    await p.goto(`${dashboard.url}#/workloads`);
    await p.getByTestId("showing").getByText("Showing 1–50 of 1,000").waitFor();
    process.stderr.write(
      `dashboard-scale: ${WORKLOADS} workloads on the page in ${Math.round(performance.now() - started)} ms\n`,
    );
    expect(await p.getByTestId("workload-total").textContent()).toBe("1,000");
    expect(await p.locator("tbody tr").count()).toBe(50);
    expect(await p.locator(".summary").textContent()).toContain("1,000 Healthy");
    await screenshot(p, "workloads-1000");

    // The last page.
    await p.goto(`${dashboard.url}#/workloads?page=20`);
    await p.getByTestId("showing").getByText("Showing 951–1,000 of 1,000").waitFor();
    expect(await p.locator("tbody tr").first().getAttribute("data-key")).toBe("rb/shop/app-0950-deployment");

    // Filtering.
    await p.goto(`${dashboard.url}#/workloads?q=app-0777`);
    await p.getByTestId("showing").getByText("Showing 1–1 of 1").waitFor();

    // Live: one binding turns unhealthy on one cluster; the open page says so without a reload.
    await p.goto(`${dashboard.url}#/workloads`);
    await p.getByTestId("showing").getByText("Showing 1–50 of 1,000").waitFor();
    const rb = await admin.get(KARMADA.resourceBindings, "shop", "app-0500-deployment");
    const status = structuredClone(rb.status) as { aggregatedStatus: Array<{ health: string }> };
    status.aggregatedStatus[0]!.health = "Unhealthy";
    await admin.updateStatus(KARMADA.resourceBindings, { ...rb, status });
    const unhealthy = p.locator("a.filter-chip", { hasText: "1 Unhealthy" });
    await unhealthy.waitFor();
    await unhealthy.click();
    await p.getByTestId("showing").getByText("Showing 1–1 of 1").waitFor();
    expect(await p.locator("tbody tr").getAttribute("data-key")).toBe("rb/shop/app-0500-deployment");
    expect(await p.locator(".summary").textContent()).toContain("999 Healthy");
  });

  it("shows 100 clusters on the map of regions and zones", async () => {
    const p = browser.page;
    await p.goto(`${dashboard.url}#/clusters`);
    await p.locator(".summary").getByText("100 Ready").waitFor();
    expect(await p.locator(".tile").count()).toBe(CLUSTERS);
    expect(await p.locator(".region-head h2").allTextContents()).toEqual([
      "Region region-0",
      "Region region-1",
      "Region region-2",
      "Region region-3",
      "Region region-4",
    ]);
    expect(await p.locator('[data-region="region-2"] .zone').count()).toBe(3);
    // A fleet this big starts with compact tiles: one bar per resource, numbers on hover.
    expect(await p.locator(".tile.compact").count()).toBe(CLUSTERS);
    expect(await p.locator('[data-cluster="cluster-042"] .mini-bar').first().getAttribute("title")).toBe(
      "CPU: 54 / 64 cores (84%)",
    );
    await screenshot(p, "clusters-100");
    // Detailed tiles on request; each of the 1,000 workloads is on 2 clusters: 20 per cluster.
    await p.getByRole("button", { name: "Detailed" }).click();
    expect(await p.locator('[data-cluster="cluster-042"] .tile-nodes').textContent()).toContain(
      "20 workloads",
    );
    const clusters = await admin.list(RESOURCES.clusters, undefined);
    expect(clusters.items).toHaveLength(CLUSTERS);
  });
});
