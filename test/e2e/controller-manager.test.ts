/**
 * `karmada controller-manager` replicas against one control plane: exactly one leads through
 * the `karmada-system/karmada-controller-manager` Lease; when the leader is SIGKILLed the
 * standby takes over once the lease expires, and its controllers act (a new Cluster gets its
 * execution namespace); a replica that stops cleanly hands the Lease over at once. Each serves
 * its probes with their checks, and `/metrics` over HTTPS to a token the control plane
 * authenticates and allows `get` on `/metrics`.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningControlPlane, startLocalControlPlane } from "../../src/bin/control-plane.ts";
import { DEFAULT_LEADER_ELECTION, startElectedControllerManager } from "../../src/bin/controller-manager.ts";
import { RESOURCES } from "../../src/client/client.ts";
import { httpClientFor, writeKubeconfig } from "../../src/client/kubeconfig.ts";
import { LocalClient } from "../../src/client/local.ts";
import { CONTROLLER_MANAGER_USER } from "../../src/karmada/rbac.ts";
import { silentLogger } from "../../src/log.ts";
import { isNotFound } from "../../src/machinery/errors.ts";
import { issueClientCertificate } from "../../src/pki/cluster-pki.ts";
import { httpsGet } from "../support/https.ts";
import { eventually, KUBECTL } from "../support/kubectl.ts";

const BIN = fileURLToPath(new URL("../../bin/karmada", import.meta.url));

interface Replica {
  proc: ChildProcess;
  identity: Promise<string>;
  /** The probe URLs it printed (HTTP, then HTTPS). */
  probes: Promise<string[]>;
  /** Where it serves /metrics. */
  metrics: Promise<string>;
  exited: Promise<unknown>;
}

describe("karmada controller-manager with leader election", () => {
  let dir: string;
  let cp: RunningControlPlane;
  let client: LocalClient;
  let kubeconfig: string;
  let adminKubeconfig: string;
  const replicas: Replica[] = [];

  const holder = async (): Promise<string | undefined> => {
    try {
      const lease = await client.get(RESOURCES.leases, "karmada-system", "karmada-controller-manager");
      return (lease.spec as { holderIdentity?: string }).holderIdentity || undefined;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  };

  const startReplica = (): Replica => {
    const proc = spawn(
      process.execPath,
      [
        BIN,
        "controller-manager",
        "--kubeconfig",
        kubeconfig,
        "--leader-elect-lease-duration",
        "2s",
        "--leader-elect-renew-deadline",
        "1500ms",
        "--leader-elect-retry-period",
        "300ms",
        "--log-level",
        "error",
        // Several replicas on one host: each its own probe port.
        "--health-probe-bind-address=127.0.0.1:0",
        "--secure-port=0",
        "--bind-address=127.0.0.1",
        "--metrics-bind-address=127.0.0.1:0",
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    proc.stdout!.setEncoding("utf8").on("data", (d: string) => {
      out += d;
    });
    const replica: Replica = {
      proc,
      identity: eventually(
        async () => /controller-manager (\S+) started/.exec(out)?.[1],
        "the replica's identity",
        200,
        50,
      ),
      probes: eventually(
        async () => {
          const urls = [...out.matchAll(/health probes at (\S+)/g)].map((m) => m[1]!);
          return urls.length === 2 ? urls : undefined;
        },
        "the replica's probe URLs",
        200,
        50,
      ),
      metrics: eventually(
        async () => /metrics at (\S+)/.exec(out)?.[1],
        "the replica's metrics URL",
        200,
        50,
      ),
      exited: new Promise((resolve) => proc.on("exit", resolve)),
    };
    replicas.push(replica);
    return replica;
  };

  const executionSpace = (cluster: string) =>
    eventually(
      async () => (await client.get(RESOURCES.namespaces, undefined, `karmada-es-${cluster}`)).metadata.name,
      `karmada-es-${cluster}`,
      200,
      50,
    );

  /** A token of service account `name` in karmada-system, allowed `get` on /metrics when `monitoring`. */
  const serviceAccountToken = async (name: string, monitoring: boolean): Promise<string> => {
    await client.create(RESOURCES.serviceaccounts, {
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name, namespace: "karmada-system" },
    });
    if (monitoring) {
      await client.create(RESOURCES.clusterrolebindings, {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRoleBinding",
        metadata: { name: `${name}-monitoring` },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "system:monitoring" },
        subjects: [{ kind: "ServiceAccount", name, namespace: "karmada-system" }],
      });
    }
    const out = await new Promise<string>((resolve, reject) =>
      execFile(
        KUBECTL,
        [`--kubeconfig=${adminKubeconfig}`, "-n", "karmada-system", "create", "token", name],
        { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir }, timeout: 30_000 },
        (err, stdout, stderr) => (err ? reject(new Error(stderr)) : resolve(stdout)),
      ),
    );
    return out.trim();
  };

  const createCluster = (name: string) =>
    client.create(RESOURCES.clusters, {
      apiVersion: "cluster.karmada.io/v1alpha1",
      kind: "Cluster",
      metadata: { name },
      // An endpoint nobody answers: the cluster controller acts on the object regardless.
      spec: { syncMode: "Push", apiEndpoint: "http://127.0.0.1:1" },
    });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "karmada-ts-cm-"));
    const local = await startLocalControlPlane();
    cp = local;
    client = new LocalClient(cp.api.context, { fieldManager: "test" });
    kubeconfig = join(dir, "karmada.config");
    adminKubeconfig = join(dir, "admin.config");
    await writeKubeconfig(adminKubeconfig, {
      clusters: [{ name: "karmada-apiserver", server: cp.url, caData: local.pki.ca.certPem }],
      users: [{ name: "admin", certData: local.pki.admin.certPem, keyData: local.pki.admin.keyPem }],
      contexts: [{ name: "admin", cluster: "karmada-apiserver", user: "admin" }],
      currentContext: "admin",
    });
    // The replicas run as the controller manager's own user, over TLS, with its least privilege.
    const cert = await issueClientCertificate(local.pki, { commonName: CONTROLLER_MANAGER_USER });
    await writeKubeconfig(kubeconfig, {
      clusters: [{ name: "karmada-apiserver", server: cp.url, caData: local.pki.ca.certPem }],
      users: [{ name: "karmada-controller-manager", certData: cert.certPem, keyData: cert.keyPem }],
      contexts: [
        { name: "karmada-apiserver", cluster: "karmada-apiserver", user: "karmada-controller-manager" },
      ],
      currentContext: "karmada-apiserver",
    });
  });
  afterAll(async () => {
    for (const r of replicas)
      if (r.proc.exitCode === null && r.proc.signalCode === null) r.proc.kill("SIGKILL");
    await Promise.all(replicas.map((r) => r.exited));
    await cp?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("exactly one of two replicas leads; the standby takes over after the leader is killed", async () => {
    const a = startReplica();
    const b = startReplica();
    const ids = [await a.identity, await b.identity];
    expect(ids[0]).not.toBe(ids[1]);
    // Each answers its probes, leader or standby: over HTTP, and over HTTPS (self-signed) on --secure-port.
    for (const r of [a, b]) {
      const [plain, secure] = await r.probes;
      expect(plain).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/healthz$/);
      expect(secure).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/healthz$/);
      const res = await fetch(plain!);
      expect([res.status, await res.text()]).toEqual([200, "ok"]);
      const ready = await fetch(plain!.replace("/healthz", "/readyz"));
      expect(ready.status).toBe(200);
      const checks = await (await fetch(plain!.replace("/healthz", "/readyz?verbose"))).text();
      expect(checks).toBe("[+]ping ok\n[+]leaderElection ok\n[+]informer-sync ok\nreadyz check passed\n");
    }
    const first = await eventually(holder, "a leader", 200, 50);
    expect(ids).toContain(first);

    await createCluster("alpha");
    await executionSpace("alpha");

    // Metrics: a token allowed `get` on /metrics (system:monitoring) reads them; no token, or a
    // token without that right, does not.
    const leading = first === ids[0] ? a : b;
    const url = await leading.metrics;
    expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const scrape = async (token?: string) => {
      const res = await httpsGet(url, token ? { token } : {});
      return { status: res.status, body: res.body };
    };
    expect((await scrape()).status).toBe(401);
    expect((await scrape("not-a-token")).status).toBe(401);
    expect((await scrape(await serviceAccountToken("nobody", false))).status).toBe(403);
    const monitoring = await serviceAccountToken("prometheus", true);
    const scraped = await eventually(
      async () => {
        const r = await scrape(monitoring);
        return r.status === 200 && /workqueue_adds_total\{controller="cluster-controller"/.test(r.body)
          ? r.body
          : undefined;
      },
      "the leader's metrics",
      100,
      100,
    );
    expect(scraped).toMatch(/^leader_election_master_status\{name="karmada-controller-manager"\} 1$/m);
    expect(scraped).toMatch(
      /^workqueue_queue_duration_seconds_sum\{controller="cluster-controller",name="cluster-controller"\} /m,
    );
    expect(scraped).toMatch(
      /^controller_runtime_reconcile_total\{controller="cluster-controller",result="success"\} [1-9]/m,
    );
    expect(scraped).toMatch(
      /^rest_client_requests_total\{code="201",host="127\.0\.0\.1:\d+",method="POST"\} [1-9]/m,
    );
    expect(scraped).toMatch(/^process_resident_memory_bytes /m);
    expect(scraped).toMatch(/^karmada_build_info\{/m);
    const standing = first === ids[0] ? b : a;
    const standbyMetrics = (await httpsGet(await standing.metrics, { token: monitoring })).body;
    expect(standbyMetrics).toMatch(/^leader_election_master_status\{name="karmada-controller-manager"\} 0$/m);

    // Several looks over a few retry periods: the holder does not change while the leader lives.
    for (let i = 0; i < 5; i++) {
      expect(await holder()).toBe(first);
      await new Promise((r) => setTimeout(r, 200));
    }

    const [leader, standby] = first === ids[0] ? [a, b] : [b, a];
    leader.proc.kill("SIGKILL");
    await leader.exited;
    const second = await eventually(
      async () => {
        const h = await holder();
        return h && h !== first ? h : undefined;
      },
      "the standby to take the lease",
      200,
      50,
    );
    expect(second).toBe(await standby.identity);
    const lease = await client.get(RESOURCES.leases, "karmada-system", "karmada-controller-manager");
    expect((lease.spec as { leaseTransitions?: number }).leaseTransitions).toBeGreaterThanOrEqual(1);

    await createCluster("beta");
    await executionSpace("beta");

    standby.proc.kill("SIGTERM");
    await standby.exited;
    // A clean stop hands the Lease back.
    await eventually(async () => (await holder()) === undefined, "the lease to be released", 100, 50);
  });

  it("an in-process replica that stops releases the Lease, so the next one leads at once", async () => {
    const election = {
      ...DEFAULT_LEADER_ELECTION,
      leaseDurationMs: 60_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 200,
    };
    const http = httpClientFor(cp.connection);
    const one = startElectedControllerManager({
      client: http,
      log: silentLogger,
      controllers: ["cluster"],
      leaderElection: election,
    });
    const two = startElectedControllerManager({
      client: http,
      log: silentLogger,
      controllers: ["cluster"],
      leaderElection: election,
    });
    try {
      await eventually(async () => one.leading() || two.leading(), "a leader", 200, 50);
      const [leader, standby] = one.leading() ? [one, two] : [two, one];
      expect(standby.leading()).toBe(false);
      expect(leader.manager()?.running.map((r) => r.name)).toEqual([
        "resource-detector",
        "cluster-controller",
        "cluster-monitor",
      ]);
      await leader.stop();
      expect(leader.leading()).toBe(false);
      // Well within the 60 s lease: only the release explains the takeover.
      await eventually(async () => standby.leading(), "the standby to lead", 200, 50);
      expect(await holder()).toBe(standby.identity);
    } finally {
      await one.stop();
      await two.stop();
      http.close();
    }
  });
});
