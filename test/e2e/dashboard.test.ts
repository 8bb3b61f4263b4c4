/**
 * The web dashboard on `karmada up`, in Debian's Chromium: one fleet for the file, upstream's
 * nginx quick start on it, then a test per page asserting what it shows (live changes
 * included), the loopback guards (Host, CSRF, read-only proxy), and a second dashboard in
 * token mode (HTTPS) where a service account sees exactly what its RBAC lets it, and no token
 * means no data. DASHBOARD_SCREENSHOTS=<dir> keeps a PNG per page.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nextSteps } from "../../src/bin/up.ts";
import { loadKubeconfig } from "../../src/client/kubeconfig.ts";
import { CSRF_HEADER } from "../../src/dashboard/guard.ts";
import { type RunningDashboard, startDashboard } from "../../src/dashboard/server.ts";
import { selfSignedServing } from "../../src/dashboard/tls.ts";
import type { StreamMessage, WorkloadRow, WorkloadsMeta } from "../../src/dashboard/wire.ts";
import { silentLogger } from "../../src/log.ts";
import { UP_FEATURE_GATES } from "../../src/runtime/features.ts";
import { launchBrowser, rawRequest, screenshot, type TestBrowser } from "../support/dashboard-browser.ts";
import { fleetKubectl, startTestFleet, type TestFleet } from "../support/fleet.ts";
import { eventually, sharedPath } from "../support/kubectl.ts";

const NGINX = sharedPath("conformance/karmada/samples/nginx");

type Obj = { metadata: { resourceVersion: string }; spec?: Record<string, unknown> };

const TEAM_A = `
apiVersion: v1
kind: Namespace
metadata: {name: team-a}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: viewer, namespace: team-a}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: dashboard-viewer, namespace: team-a}
rules:
- apiGroups: [work.karmada.io]
  resources: [resourcebindings]
  verbs: [get, list, watch]
- apiGroups: [policy.karmada.io]
  resources: [propagationpolicies, overridepolicies]
  verbs: [get, list, watch]
- apiGroups: ["", apps]
  resources: [events, deployments]
  verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: dashboard-viewer, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: dashboard-viewer}
subjects:
- {kind: ServiceAccount, name: viewer, namespace: team-a}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: team-a, labels: {app: web}}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx}]}
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: web, namespace: team-a}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]
  placement: {clusterAffinity: {clusterNames: [member2]}}
`;

/** A workload that fails over when its copy turns unhealthy, keeping the old copy (purgeMode Never). */
const CHECKOUT = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: checkout, namespace: default, labels: {app: checkout}}
spec:
  replicas: 1
  selector: {matchLabels: {app: checkout}}
  template:
    metadata: {labels: {app: checkout}}
    spec: {containers: [{name: checkout, image: nginx}]}
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: checkout, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: checkout}]
  propagateDeps: true
  placement:
    clusterAffinity: {clusterNames: [member2, member3]}
    spreadConstraints: [{spreadByField: cluster, maxGroups: 1, minGroups: 1}]
  failover: {application: {decisionConditions: {tolerationSeconds: 3}, purgeMode: Never}}
`;

type Binding = {
  spec?: { clusters?: Array<{ name: string }> };
  status?: { aggregatedStatus?: Array<{ clusterName: string; health?: string }> };
  items?: Array<{ metadata: { name: string } }>;
};

describe("the dashboard on karmada up, in Chromium", () => {
  let fleet: TestFleet;
  let browser: TestBrowser;
  let url: string;
  const { kubectl, cp, ok, getJson } = fleetKubectl<Obj>(() => fleet);
  const page = () => browser.page;

  beforeAll(async () => {
    [fleet, browser] = await Promise.all([
      startTestFleet("dashboard", 3, { dashboard: true, features: UP_FEATURE_GATES }),
      launchBrowser(),
    ]);
    url = fleet.up.dashboard!.url!;
    // Regions and zones for the map (simulated members have none of their own).
    const place = [
      ["member1", "eu-west", "eu-west-1a"],
      ["member2", "eu-west", "eu-west-1b"],
      ["member3", "us-east", "us-east-1a"],
    ];
    for (const [name, region, zone] of place) {
      await ok(
        cp([
          "patch",
          "cluster",
          name!,
          "--type=merge",
          "-p",
          JSON.stringify({ spec: { region, zones: [zone] } }),
        ]),
      );
    }
    await ok(cp(["create", "-f", join(NGINX, "deployment.yaml")]));
    await ok(cp(["create", "-f", join(NGINX, "propagationpolicy.yaml")]));
    await ok(cp(["create", "-f", join(NGINX, "overridepolicy.yaml")]));
    await ok(cp(["apply", "-f", "-"], TEAM_A));
    await eventually(
      async () => {
        const rb = (await getJson("karmada-apiserver", ["get", "rb", "nginx-deployment"])) as
          | { status?: { aggregatedStatus?: Array<{ health?: string }> } }
          | undefined;
        const items = rb?.status?.aggregatedStatus ?? [];
        return items.length === 2 && items.every((i) => i.health === "Healthy");
      },
      "nginx healthy on member1 and member2",
      300,
      100,
    );
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await fleet?.stop();
  });

  it("karmada up prints the dashboard's URL, on loopback", async () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(nextSteps(fleet.up)).toContain(`Dashboard: ${url} (as the local admin, on this machine only`);
    const res = await rawRequest(url);
    expect(res.status).toBe(200);
    expect(res.headers["content-security-policy"]).toContain("default-src 'none'");
    expect(res.body).toContain('<script type="module" src="/app.js">');
  });

  it("clusters: a map of regions and zones with readiness, mode, nodes, capacity and taints", async () => {
    const p = page();
    await p.goto(`${url}#/clusters`);
    const member3 = p.locator('[data-cluster="member3"]');
    await member3.getByText("Ready", { exact: true }).waitFor();
    expect(
      await p.locator('[data-region="eu-west"] [data-zone="eu-west-1a"] [data-cluster="member1"]').count(),
    ).toBe(1);
    expect(
      await p.locator('[data-region="eu-west"] [data-zone="eu-west-1b"] [data-cluster="member2"]').count(),
    ).toBe(1);
    expect(
      await p.locator('[data-region="us-east"] [data-zone="us-east-1a"] [data-cluster="member3"]').count(),
    ).toBe(1);
    expect(await p.locator(".region-head h2").allTextContents()).toEqual([
      "Region eu-west",
      "Region us-east",
    ]);
    expect(await member3.locator(".tile-facts").textContent()).toContain("Pull");
    expect(await p.locator('[data-cluster="member1"] .tile-facts').textContent()).toContain("Push");
    expect(await member3.textContent()).toMatch(/3\/3 nodes ready/);
    expect(await member3.locator(".bar-row").allTextContents()).toEqual([
      expect.stringMatching(/^CPU.* \/ \d+ cores$/),
      expect.stringMatching(/^Memory.* \/ \d+ GiB$/),
      expect.stringMatching(/^Pods\d+ \/ \d+$/),
    ]);
    expect(await p.locator(".summary").textContent()).toContain("3 Ready");
    await screenshot(p, "clusters");
  });

  it("workloads: replicas per cluster and health, updated live", async () => {
    const p = page();
    await p.goto(`${url}#/workloads`);
    const row = p.locator('tr[data-key="rb/default/nginx-deployment"]');
    await row.getByText("Healthy", { exact: true }).waitFor();
    expect(await row.locator(".workload-name").textContent()).toBe("Deploymentdefault/nginx");
    expect(await row.getByRole("link", { name: "nginx-propagation" }).count()).toBe(1);
    expect(await row.locator(".placement").allTextContents()).toEqual(["member1×1·1/1", "member2×1·1/1"]);
    expect(await p.getByTestId("workload-total").textContent()).toBe("2");
    await screenshot(p, "workloads");

    // Live: scaling the template changes the row without a reload.
    await ok(cp(["scale", "deployment", "nginx", "--replicas=4"]));
    await row.locator(".placement", { hasText: "member1×2" }).waitFor();
    await row.locator(".placement", { hasText: "member2×2" }).waitFor();
    expect(await row.locator("td.num").textContent()).toBe("4");
  });

  it("a workload: its policy, the scheduler's reasons, each member's manifest and which override changed what", async () => {
    const p = page();
    await p.goto(`${url}#/workload?key=${encodeURIComponent("rb/default/nginx-deployment")}`);
    await p.getByRole("heading", { name: "Why these clusters: the scheduler's reasons" }).waitFor();
    expect(await p.locator(".policy").textContent()).toContain("default/nginx-propagation");
    expect(await p.locator(".policy .facts").textContent()).toContain(
      "Replicas: divided by static weight member1=1, member2=1",
    );

    const reasons = p.locator(".scheduling");
    await reasons.locator('tr[data-cluster="member3"]').waitFor();
    expect(await reasons.locator('tr[data-cluster="member3"]').textContent()).toContain(
      "filtered out—ClusterAffinity: cluster(s) did not match the placement cluster affinity constraint",
    );
    expect(await reasons.locator('tr[data-cluster="member1"]').textContent()).toMatch(/^member1selected2/);

    // member2's copy: the OverridePolicy's labelsOverrider added env=skoala-dev.
    await p.getByRole("tab", { name: /member2/ }).click();
    const member2 = p.locator('.member[data-cluster="member2"]');
    const env = member2.locator('tr[data-path="metadata.labels.env"]');
    await env.waitFor();
    expect(await env.textContent()).toBe(
      "metadata.labels.envadded skoala-devOverridePolicy default/nginx-oplabelsOverrider",
    );
    expect(await member2.locator('tr[data-path="spec.replicas"]').textContent()).toContain("Scheduler");
    expect(await member2.locator("pre.yaml").textContent()).toContain("env: skoala-dev");
    await p.locator(".page-head").getByText("Healthy", { exact: true }).waitFor();
    await screenshot(p, "workload");

    // member1's copy: the annotationsOverrider.
    await p.getByRole("tab", { name: /member1/ }).click();
    const annotation = p.locator('.member[data-cluster="member1"] tr[data-path="metadata.annotations.env"]');
    await annotation.waitFor();
    expect(await annotation.textContent()).toContain(
      "skoala-stageOverridePolicy default/nginx-opannotationsOverrider",
    );
  });

  it("policies: what each selects, where it places, and what it claims", async () => {
    const p = page();
    await p.goto(`${url}#/policies`);
    const pp = p.locator('tr[data-key="PropagationPolicy/default/nginx-propagation"]');
    await pp.waitFor();
    expect(await pp.textContent()).toContain("apps/v1 Deployment default/nginx");
    expect(await pp.textContent()).toContain("Clusters: member1, member2");
    expect(await pp.locator(".claims a").allTextContents()).toEqual(["Deployment default/nginx"]);
    const op = p.locator('tr[data-key="OverridePolicy/default/nginx-op"]');
    expect(await op.textContent()).toContain("member2: labelsOverrider ×4");
    expect(await op.textContent()).toContain("member1: annotationsOverrider ×3");
    expect(await p.locator('tr[data-key="PropagationPolicy/team-a/web"] .claims').textContent()).toContain(
      "Deployment team-a/web",
    );
    await screenshot(p, "policies");
  });

  it("what-if: removing member1 moves nginx's replicas to member2, and writes nothing", async () => {
    const before = (await getJson("karmada-apiserver", ["get", "rb", "nginx-deployment"]))!.metadata
      .resourceVersion;
    const p = page();
    await p.goto(`${url}#/whatif`);
    await p.getByLabel("remove member1").check();
    await p.getByRole("button", { name: "Simulate" }).click();
    const result = p.getByTestId("whatif-result");
    await result.waitFor();
    expect(await result.locator(".changes").textContent()).toContain("cluster member1 removed");
    expect(await p.getByTestId("whatif-summary").textContent()).toMatch(
      /bindings?, 1 would move, 0 unschedulable/,
    );
    const move = result.locator('tr[data-key="rb/default/nginx-deployment"]');
    expect(await move.locator(".shift").allTextContents()).toEqual(["member1 2 → —", "member2 2 → 4"]);
    await screenshot(p, "whatif");
    const after = (await getJson("karmada-apiserver", ["get", "rb", "nginx-deployment"]))!.metadata
      .resourceVersion;
    expect(after).toBe(before);
  });

  it("failover timeline: a NoExecute taint, the eviction it causes, and the reschedule, live", async () => {
    const p = page();
    await p.goto(`${url}#/failover`);
    await p.getByRole("heading", { name: "Failover timeline" }).waitFor();
    await p.locator(".timeline, .empty").first().waitFor();
    await ok(
      cp([
        "patch",
        "cluster",
        "member1",
        "--type=merge",
        "-p",
        JSON.stringify({ spec: { taints: [{ key: "maintenance", value: "planned", effect: "NoExecute" }] } }),
      ]),
    );
    const taint = p.locator('.entry[data-kind="taint"]', {
      hasText: "member1 tainted maintenance=planned:NoExecute",
    });
    await taint.waitFor();
    const eviction = p.locator('.entry[data-kind="eviction"]', { hasText: "Evicted from member1" });
    await eviction.waitFor();
    expect(await eviction.getByRole("link").textContent()).toBe("Deployment default/nginx");
    await p.locator(".entry", { hasText: "Scheduled: member2 ×4" }).waitFor();
    // Newest first: the eviction comes after (above) the taint that caused it.
    const titles = await p.locator(".entry .title").allTextContents();
    expect(titles.indexOf("Evicted from member1 (taint not tolerated)")).toBeLessThan(
      titles.indexOf("member1 tainted maintenance=planned:NoExecute"),
    );
    await screenshot(p, "failover");

    // The clusters page shows the taint on member1's tile.
    await p.goto(`${url}#/clusters`);
    await p
      .locator('[data-cluster="member1"] .tile-taints', { hasText: "maintenance=planned:NoExecute" })
      .waitFor();
  });

  it("failover timeline: an application failure, and its graceful eviction task kept (purgeMode Never)", async () => {
    await ok(cp(["apply", "-f", "-"], CHECKOUT));
    const binding = async () =>
      (await getJson("karmada-apiserver", ["get", "rb", "checkout-deployment"])) as Binding | undefined;
    const first = await eventually(
      async () => {
        const b = await binding();
        const placed = b?.spec?.clusters ?? [];
        const healthy = b?.status?.aggregatedStatus?.some((i) => i.health === "Healthy");
        return placed.length === 1 && healthy ? placed[0]!.name : undefined;
      },
      "checkout healthy on one member",
      300,
      100,
    );
    // The seed guide's fault: its member takes no pods any more, and its running ones are gone.
    const nodes =
      ((await getJson(first, ["get", "nodes"])) as Binding | undefined)?.items?.map((n) => n.metadata.name) ??
      [];
    await ok(kubectl(first, ["cordon", ...nodes]));
    await ok(kubectl(first, ["delete", "pods", "-l", "app=checkout", "--wait=false"]));

    const p = page();
    await p.goto(`${url}#/failover`);
    const task = p.locator('.entry[data-kind="eviction-task"]', {
      hasText: `Leaving ${first}: graceful eviction in progress`,
    });
    await task.waitFor({ timeout: 60_000 });
    expect(await task.textContent()).toContain(
      "ApplicationFailure by resource-binding-application-failover-controller, purge mode Never",
    );
    expect(await task.getByRole("link").textContent()).toBe("Deployment default/checkout");
    await p
      .locator('.entry[data-kind="application-failover"]', {
        hasText: `Application failover: moving off ${first}`,
      })
      .waitFor();
    await screenshot(p, "failover-application");

    // The workload's page: the task, and the old copy kept on the cluster it leaves.
    await task.getByRole("link").click();
    const kept = p.locator(`.task[data-cluster="${first}"]`);
    await kept.waitFor();
    expect(await kept.textContent()).toContain(
      "ApplicationFailure by resource-binding-application-failover-controller, purge mode Never",
    );
    expect(await p.locator(`tr[data-cluster="${first}"]`).first().textContent()).toContain("leaving");
  });

  describe("on loopback, as kubectl proxy, and more", () => {
    const api = (path: string) => `${url}api/${path}`;
    const port = () => new URL(url).port;

    it("answers the API for the page itself: who it acts as", async () => {
      const res = await rawRequest(api("whoami"), { headers: { [CSRF_HEADER]: "1" } });
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body)).toMatchObject({ mode: "local", username: "system:admin" });
      const p = page();
      await p.goto(`${url}#/clusters`);
      expect(await p.getByTestId("who").textContent()).toContain("system:admin");
    });

    it("refuses a Host that is not loopback (DNS rebinding)", async () => {
      for (const path of ["", "api/whoami"]) {
        const res = await rawRequest(`${url}${path}`, {
          headers: { Host: `evil.example:${port()}`, [CSRF_HEADER]: "1" },
        });
        expect(res.status).toBe(403);
        expect(res.body).toContain("answers only requests for localhost, 127.0.0.1 or [::1]");
      }
      expect((await rawRequest(url, { headers: { Host: `localhost:${port()}` } })).status).toBe(200);
    });

    it("refuses API calls another site could make (CSRF)", async () => {
      const noHeader = await rawRequest(api("whoami"));
      expect(noHeader.status).toBe(403);
      expect(JSON.parse(noHeader.body)).toMatchObject({ kind: "Status", code: 403, reason: "Forbidden" });
      const foreign = await rawRequest(api("whoami"), {
        headers: { [CSRF_HEADER]: "1", Origin: "http://evil.example" },
      });
      expect(foreign.status).toBe(403);
      expect(JSON.parse(foreign.body).message).toBe("cross-origin request from http://evil.example refused");
      const crossSite = await rawRequest(api("whoami"), {
        headers: { [CSRF_HEADER]: "1", "Sec-Fetch-Site": "cross-site" },
      });
      expect(crossSite.status).toBe(403);
    });

    it("is read-only: its proxy passes GET and nothing else", async () => {
      const get = await rawRequest(api("k8s/api/v1/namespaces/default"), { headers: { [CSRF_HEADER]: "1" } });
      expect(get.status).toBe(200);
      expect(JSON.parse(get.body)).toMatchObject({ kind: "Namespace", metadata: { name: "default" } });
      for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
        const res = await rawRequest(api("k8s/api/v1/namespaces/default"), {
          method,
          headers: { [CSRF_HEADER]: "1", "Content-Type": "application/json" },
          body: "{}",
        });
        expect(res.status).toBe(405);
        expect(JSON.parse(res.body).message).toBe("the dashboard is read-only: only GET passes");
      }
      expect(
        (await rawRequest(api("whoami"), { method: "POST", headers: { [CSRF_HEADER]: "1" } })).status,
      ).toBe(405);
      // Like kubectl proxy, nothing that reaches into workloads or through to other servers, even as a GET.
      const exec = await rawRequest(api("k8s/api/v1/namespaces/default/pods/web/exec?command=sh"), {
        headers: { [CSRF_HEADER]: "1" },
      });
      expect(exec.status).toBe(400);
      expect(JSON.parse(exec.body).message).toBe(
        "exec, attach, port-forward and proxy subresources are not passed",
      );
    });
  });

  describe("beyond loopback: HTTPS, each user's own token, exactly their rights", () => {
    let secure: RunningDashboard;
    let tokenBrowser: TestBrowser;
    let token: string;
    let ca: string;

    beforeAll(async () => {
      // The dashboard is handed the admin's kubeconfig: in token mode it must use only the
      // server and CA from it, never the admin's certificate.
      const connection = await loadKubeconfig({ path: fleet.up.kubeconfig, context: "karmada-apiserver" });
      const tls = await selfSignedServing("127.0.0.1");
      ca = tls.caPem;
      [secure, tokenBrowser] = await Promise.all([
        startDashboard({ connection, mode: "token", host: "127.0.0.1", port: 0, tls, log: silentLogger }),
        launchBrowser({ ignoreHTTPSErrors: true }),
      ]);
      token = (await ok(cp(["create", "token", "viewer", "-n", "team-a"]))).trim();
      await eventually(
        async () =>
          (await getJson("karmada-apiserver", ["get", "rb", "-n", "team-a", "web-deployment"])) !== undefined,
        "team-a/web's binding",
        200,
        100,
      );
    }, 60_000);

    afterAll(async () => {
      await tokenBrowser?.close();
      await secure?.close();
    });

    it("serves HTTPS only, and no token means no data", async () => {
      expect(secure.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/$/);
      const res = await rawRequest(`${secure.url}api/whoami`, { headers: { [CSRF_HEADER]: "1" }, ca });
      expect(res.status).toBe(401);
      expect(JSON.parse(res.body)).toMatchObject({ kind: "Status", code: 401, reason: "Unauthorized" });
      const stream = await rawRequest(`${secure.url}api/stream/workloads`, {
        headers: { [CSRF_HEADER]: "1" },
        ca,
      });
      expect(stream.status).toBe(401);
      const proxy = await rawRequest(`${secure.url}api/k8s/api/v1/namespaces`, {
        headers: { [CSRF_HEADER]: "1" },
        ca,
      });
      expect(proxy.status).toBe(401);
      const bad = await rawRequest(`${secure.url}api/whoami`, {
        headers: { [CSRF_HEADER]: "1", Authorization: "Bearer not-a-token" },
        ca,
      });
      expect(bad.status).toBe(401);
      expect(JSON.parse(bad.body).message).toBe(
        "The control plane did not accept this token: it may be wrong or expired.",
      );
    });

    it("a limited service account sees only its namespace, through the API", async () => {
      const auth = { [CSRF_HEADER]: "1", Authorization: `Bearer ${token}` };
      const who = await rawRequest(`${secure.url}api/whoami`, { headers: auth, ca });
      expect(JSON.parse(who.body)).toMatchObject({
        mode: "token",
        username: "system:serviceaccount:team-a:viewer",
      });
      const first = async (path: string) =>
        JSON.parse(
          (await rawRequest(`${secure.url}${path}`, { headers: auth, ca, firstLine: true })).body,
        ) as StreamMessage<WorkloadRow, WorkloadsMeta> & { type: "snapshot" };
      const mine = await eventually(
        async () => {
          const m = await first("api/stream/workloads?ns=team-a");
          return m.synced ? m : undefined;
        },
        "team-a's workloads",
        100,
        100,
      );
      expect(mine.rows.map((r) => r.key)).toEqual(["rb/team-a/web-deployment"]);
      expect(mine.problems).toEqual([]);
      const others = await eventually(
        async () => {
          const m = await first("api/stream/workloads?ns=default");
          return m.synced ? m : undefined;
        },
        "default's workloads refused",
        100,
        100,
      );
      expect(others.rows).toEqual([]);
      expect(others.problems).toEqual([
        expect.objectContaining({
          resource: "resourcebindings.work.karmada.io",
          namespace: "default",
          code: 403,
          reason: "Forbidden",
        }),
      ]);
      const proxied = await rawRequest(`${secure.url}api/k8s/apis/cluster.karmada.io/v1alpha1/clusters`, {
        headers: auth,
        ca,
      });
      expect(proxied.status).toBe(403);
    });

    it("in the browser: sign in, a clear forbidden state, and the namespace it may read", async () => {
      const p = tokenBrowser.page;
      await p.goto(`${secure.url}#/clusters`);
      await p.getByRole("heading", { name: "Sign in to the Karmada dashboard" }).waitFor();
      await screenshot(p, "signin");

      await p.getByLabel("Bearer token").fill("not-a-token");
      await p.getByRole("button", { name: "Sign in" }).click();
      await p.getByText("The control plane did not accept this token").waitFor();

      await p.getByLabel("Bearer token").fill(token);
      await p.getByRole("button", { name: "Sign in" }).click();
      await p.getByTestId("who").getByText("system:serviceaccount:team-a:viewer").waitFor();

      // Clusters are not its to read: a forbidden state that says so, not a broken page.
      const state = p.locator('[data-state="forbidden"]');
      await state.waitFor();
      expect(await state.textContent()).toContain(
        "system:serviceaccount:team-a:viewer is not allowed to read what this page shows",
      );
      expect(await state.textContent()).toContain("clusters.cluster.karmada.io");
      await screenshot(p, "forbidden");

      // All namespaces: forbidden; its own namespace: its workload, and nothing of default's.
      await p.goto(`${secure.url}#/workloads`);
      await p.locator('[data-state="forbidden"]').waitFor();
      const ns = p.getByLabel("Namespace");
      await ns.fill("team-a");
      await ns.press("Enter");
      const row = p.locator('tr[data-key="rb/team-a/web-deployment"]');
      await row.waitFor();
      expect(await p.locator("tbody tr").count()).toBe(1);
      expect(await p.getByText("default/nginx").count()).toBe(0);
      await screenshot(p, "workloads-limited");

      // Its workload's page works, and says what it may not see (the Works).
      await row.getByRole("link", { name: /team-a\/web/ }).click();
      await p.getByRole("heading", { name: "What each member gets" }).waitFor();
      await p.getByText("The Works cannot be read").waitFor();

      await p.getByRole("button", { name: "Sign out" }).click();
      await p.getByRole("heading", { name: "Sign in to the Karmada dashboard" }).waitFor();
      // The page's own code runs in the browser; the test only reads what it left there.
      expect(await p.evaluate('sessionStorage.getItem("karmada-dashboard-token")')).toBeNull();
    });
  });
});
