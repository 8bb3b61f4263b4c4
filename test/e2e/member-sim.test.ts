/**
 * The simulated member cluster as kubectl sees it: Ready nodes, rollouts that finish, Jobs
 * that complete, faults that look like real outages on the wire, and `karmada member-sim` as
 * a process (started, used, SIGKILLed).
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpClient } from "../../src/client/http.ts";
import {
  httpClientFor,
  kubeconfigFor,
  loadKubeconfig,
  writeKubeconfig,
} from "../../src/client/kubeconfig.ts";
import { type ServedMemberCluster, serveMemberCluster } from "../../src/member-sim/cluster.ts";
import { eventually, KUBECTL, type KubectlResult } from "../support/kubectl.ts";
import { manifest, table } from "../support/kubectl-output.ts";
import { FAST } from "../support/member-sim.ts";

const BIN = fileURLToPath(new URL("../../bin/karmada", import.meta.url));

function kubectlWith(kubeconfig: string, dir: string) {
  return (args: string[], timeoutMs = 60_000): Promise<KubectlResult> =>
    new Promise((resolve) => {
      execFile(
        KUBECTL,
        [`--kubeconfig=${kubeconfig}`, `--cache-dir=${join(dir, "cache")}`, ...args],
        { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir }, timeout: timeoutMs },
        (err, stdout, stderr) => {
          const code = err
            ? typeof (err as { code?: unknown }).code === "number"
              ? (err as { code: number }).code
              : 1
            : 0;
          resolve({ code, stdout, stderr });
        },
      );
    });
}

const ok = (r: KubectlResult): KubectlResult => {
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  return r;
};

describe("member-sim with kubectl", () => {
  let m: ServedMemberCluster;
  let dir: string;
  let kubectl: ReturnType<typeof kubectlWith>;
  /** The member's admin over HTTPS (its API and its admin endpoint). */
  let admin: HttpClient;

  beforeAll(async () => {
    m = await serveMemberCluster({ name: "member1", port: 0, timing: FAST });
    admin = new HttpClient(m.connection);
    dir = await mkdtemp(join(tmpdir(), "karmada-ts-member-sim-"));
    const kubeconfig = join(dir, "kubeconfig");
    await writeKubeconfig(kubeconfig, kubeconfigFor([{ name: "member1", connection: m.connection }]));
    kubectl = kubectlWith(kubeconfig, dir);
  });
  afterAll(async () => {
    admin?.close();
    await m?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("kubectl get nodes: Ready nodes with ROLES and VERSION", async () => {
    const t = table(ok(await kubectl(["get", "nodes"])).stdout);
    expect(t.header).toEqual(["NAME", "STATUS", "ROLES", "AGE", "VERSION"]);
    expect(t.rows.map((r) => [r[0], r[1], r[2], r[4]])).toEqual([
      ["member1-node-0", "Ready", "<none>", "v1.32.0"],
      ["member1-node-1", "Ready", "<none>", "v1.32.0"],
      ["member1-node-2", "Ready", "<none>", "v1.32.0"],
    ]);
  });

  it("Deployment: rollout status finishes, an image change rolls out, scale to 0 and back", async () => {
    ok(await kubectl(["create", "deployment", "web", "--image=nginx:1.25", "--replicas=3"]));
    const status = ok(await kubectl(["rollout", "status", "deployment/web", "--timeout=30s"]));
    expect(status.stdout).toContain('deployment "web" successfully rolled out');
    const pods = table(ok(await kubectl(["get", "pods", "-l", "app=web"])).stdout);
    expect(pods.rows).toHaveLength(3);
    expect(pods.rows.every((r) => r[1] === "1/1" && r[2] === "Running")).toBe(true);
    ok(await kubectl(["set", "image", "deployment/web", "nginx=nginx:1.26"]));
    expect(ok(await kubectl(["rollout", "status", "deployment/web", "--timeout=30s"])).stdout).toContain(
      "successfully rolled out",
    );
    const history = ok(await kubectl(["rollout", "history", "deployment/web"])).stdout;
    expect(history).toMatch(/^1\s/m);
    expect(history).toMatch(/^2\s/m);
    ok(await kubectl(["scale", "deployment/web", "--replicas=0"]));
    ok(await kubectl(["rollout", "status", "deployment/web", "--timeout=30s"]));
    await eventually(
      async () => (await kubectl(["get", "pods", "-l", "app=web", "-o", "name"])).stdout === "",
      "pods gone",
    );
    ok(await kubectl(["scale", "deployment/web", "--replicas=2"]));
    ok(await kubectl(["rollout", "status", "deployment/web", "--timeout=30s"]));
    const ready = ok(
      await kubectl([
        "get",
        "deployment",
        "web",
        "-o",
        "jsonpath={.status.readyReplicas}/{.status.replicas}",
      ]),
    );
    expect(ready.stdout).toBe("2/2");
  });

  it("StatefulSet and DaemonSet: rollout status finishes", async () => {
    const labels = { app: "db" };
    const template = { metadata: { labels }, spec: { containers: [{ name: "db", image: "postgres:16" }] } };
    const file = await writeTmp(
      "workloads.yaml",
      manifest(
        {
          apiVersion: "apps/v1",
          kind: "StatefulSet",
          metadata: { name: "db", namespace: "default" },
          spec: { replicas: 2, serviceName: "db", selector: { matchLabels: labels }, template },
        },
        {
          apiVersion: "apps/v1",
          kind: "DaemonSet",
          metadata: { name: "agent", namespace: "default" },
          spec: {
            selector: { matchLabels: { app: "agent" } },
            template: {
              metadata: { labels: { app: "agent" } },
              spec: { containers: [{ name: "a", image: "busybox" }] },
            },
          },
        },
      ),
    );
    ok(await kubectl(["apply", "-f", file]));
    expect(ok(await kubectl(["rollout", "status", "statefulset/db", "--timeout=30s"])).stdout).toContain(
      "partitioned roll out complete: 2 new pods have been updated...",
    );
    expect(ok(await kubectl(["rollout", "status", "daemonset/agent", "--timeout=30s"])).stdout).toContain(
      'daemon set "agent" successfully rolled out',
    );
  });

  it("Job: kubectl wait --for=condition=complete", async () => {
    ok(await kubectl(["create", "job", "pi", "--image=busybox"]));
    const waited = ok(await kubectl(["wait", "--for=condition=complete", "job/pi", "--timeout=30s"]));
    expect(waited.stdout).toBe("job.batch/pi condition met\n");
  });

  it("unhealthy: /readyz and /healthz answer 500 while kubectl keeps working; restore", async () => {
    await m.faults.set({ type: "unhealthy" });
    expect((await admin.getRaw("/readyz")).status).toBe(500);
    expect((await admin.getRaw("/healthz")).status).toBe(500);
    expect((await admin.getRaw("/livez")).status).toBe(200);
    ok(await kubectl(["get", "nodes"]));
    await m.faults.set({ type: "restore" });
    expect((await admin.getRaw("/readyz")).status).toBe(200);
  });

  it("unreachable: clients get connection errors, not HTTP errors; the admin endpoint still answers; restore", async () => {
    const res = await admin.raw("POST", "/sim/faults", { body: { type: "unreachable" } });
    expect(res.status).toBe(201);
    const err = await admin.getRaw("/api/v1/nodes").then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err).toBeInstanceOf(Error);
    const failed = await kubectl(["get", "--raw", "/api/v1/namespaces/default/pods", "--request-timeout=2s"]);
    expect(failed.code).not.toBe(0);
    expect(failed.stderr).not.toContain("Error from server");
    expect(failed.stderr).toMatch(/^Unable to connect to the server: (EOF|.*connection reset by peer)/);
    const listed = JSON.parse((await admin.getRaw("/sim/faults")).body) as {
      faults: Array<{ type: string }>;
    };
    expect(listed.faults.map((f) => f.type)).toEqual(["unreachable"]);
    await admin.raw("DELETE", "/sim/faults");
    ok(await kubectl(["get", "nodes"]));
  });

  it("unreachable (hang): requests time out", async () => {
    await m.faults.set({ type: "unreachable", mode: "hang" });
    const impatient = new HttpClient({ ...m.connection, timeoutMs: 300 });
    const err = await impatient.getRaw("/version").then(
      () => undefined,
      (e: Error) => e,
    );
    impatient.close();
    expect(err?.message).toMatch(/no response within 300 ms/);
    await m.faults.restore();
    // Connections silenced during the fault are closed when it ends; a client's next one works.
    await eventually(async () => (await admin.getRaw("/version")).status === 200, "answers again", 20, 20);
  });

  it("unreachable (slow): every request is answered, after its delay", async () => {
    await m.faults.set({ type: "unreachable", mode: "slow", delayMs: 300 });
    const started = Date.now();
    expect((await admin.getRaw("/api/v1/nodes")).status).toBe(200);
    // A lower bound only (timers may round a millisecond early): the delay happened; how long
    // beyond it is the machine's business.
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    await m.faults.restore();
  });

  it("unreachable with exceptUsers: a partition only the spared users cross", async () => {
    const anonymous = new HttpClient({ server: m.url, caData: m.connection.caData! });
    // The admin's connection is open before the fault: it is cut when the fault starts.
    expect((await admin.getRaw("/version")).status).toBe(200);
    await m.faults.set({ type: "unreachable", exceptUsers: ["system:anonymous"] });
    expect((await anonymous.getRaw("/version")).status).toBe(200);
    const err = await admin.getRaw("/version").then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect((await anonymous.getRaw("/version")).status).toBe(200);
    await m.faults.restore();
    expect((await admin.getRaw("/version")).status).toBe(200);
    anonymous.close();
  });

  it("rejects a bad fault with 400 and a message", async () => {
    const res = await admin.raw("POST", "/sim/faults", { body: { type: "unhealthy-workload" } });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual({ error: 'unhealthy-workload: "kind" is required' });
  });

  it("serves HTTPS with its own CA, and takes faults only from someone allowed to", async () => {
    expect(m.url).toMatch(/^https:\/\//);
    const anonymous = new HttpClient({ server: m.url, caData: m.connection.caData! });
    const refused = await anonymous.raw("POST", "/sim/faults", { body: { type: "unhealthy" } });
    anonymous.close();
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body).message).toBe(
      'forbidden: User "system:anonymous" cannot post path "/sim/faults"',
    );
    const stranger = new HttpClient({ server: m.url, caData: m.connection.caData!, token: "not-a-token" });
    expect((await stranger.getRaw("/sim/info")).status).toBe(401);
    stranger.close();
    expect(m.faults.list()).toEqual([]);
  });

  async function writeTmp(name: string, content: string): Promise<string> {
    const path = join(dir, name);
    await writeFile(path, content);
    return path;
  }
});

describe("karmada member-sim as a process", () => {
  let child: ChildProcess | undefined;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "karmada-ts-member-sim-proc-"));
  });
  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await rm(dir, { recursive: true, force: true });
  });

  it("prints its URL, writes a kubeconfig kubectl uses, takes faults from the CLI, and is gone after SIGKILL", async () => {
    const kubeconfig = join(dir, "member2.kubeconfig");
    const proc = spawn(
      process.execPath,
      [BIN, "member-sim", "--name", "member2", "--port", "0", "--nodes", "2", "--kubeconfig-out", kubeconfig],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    child = proc;
    let out = "";
    proc.stdout.setEncoding("utf8").on("data", (d: string) => {
      out += d;
    });
    const url = await eventually(
      async () => /member-sim member2 listening on (https:\/\/\S+)/.exec(out)?.[1],
      "the URL",
      300,
      50,
    );
    const config = await readFile(kubeconfig, "utf8");
    expect(config).toContain(`server: ${url}`);
    expect(config).toContain("current-context: member2");
    const kubectl = kubectlWith(kubeconfig, dir);
    const nodes = table(ok(await kubectl(["get", "nodes"])).stdout);
    expect(nodes.rows.map((r) => r[0])).toEqual(["member2-node-0", "member2-node-1"]);
    const fault = await new Promise<KubectlResult>((resolve) => {
      execFile(
        process.execPath,
        [BIN, "member-sim", "fault", "--kubeconfig", kubeconfig, "--context", "member2", "unhealthy"],
        (err, stdout, stderr) => resolve({ code: err ? 1 : 0, stdout, stderr }),
      );
    });
    expect(fault.code).toBe(0);
    expect(JSON.parse(fault.stdout)).toMatchObject({ fault: { type: "unhealthy", id: "f1" } });
    const member = httpClientFor(await loadKubeconfig({ path: kubeconfig }));
    expect((await member.getRaw("/readyz")).status).toBe(500);
    const exited = new Promise((resolve) => proc.on("exit", (_code, signal) => resolve(signal)));
    proc.kill("SIGKILL");
    expect(await exited).toBe("SIGKILL");
    const err = await member.getRaw("/version").then(
      () => undefined,
      (e: Error) => e,
    );
    member.close();
    expect((err?.cause as { code?: string } | undefined)?.code).toBe("ECONNREFUSED");
    expect((await kubectl(["get", "nodes", "--request-timeout=2s"])).code).not.toBe(0);
  });

  it("--sink: kubectl applies a Deployment and sees it ready at once, with no pods behind it", async () => {
    const kubeconfig = join(dir, "sink1.kubeconfig");
    const proc = spawn(
      process.execPath,
      [BIN, "member-sim", "--name", "sink1", "--sink", "--port", "0", "--kubeconfig-out", kubeconfig],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    child = proc;
    let out = "";
    proc.stdout.setEncoding("utf8").on("data", (d: string) => {
      out += d;
    });
    await eventually(async () => out.includes("member-sim sink1 listening on https://"), "the URL", 300, 50);
    const kubectl = kubectlWith(kubeconfig, dir);
    const file = join(dir, "web.yaml");
    await writeFile(
      file,
      [
        "apiVersion: apps/v1",
        "kind: Deployment",
        "metadata: {name: web, namespace: default}",
        "spec:",
        "  replicas: 4",
        "  selector: {matchLabels: {app: web}}",
        "  template:",
        "    metadata: {labels: {app: web}}",
        "    spec: {containers: [{name: web, image: nginx}]}",
      ].join("\n"),
    );
    ok(await kubectl(["apply", "-f", file]));
    ok(await kubectl(["rollout", "status", "deployment/web", "--timeout=30s"]));
    const row = table(ok(await kubectl(["get", "deployment", "web"])).stdout).rows[0]!;
    expect(row.slice(0, 4)).toEqual(["web", "4/4", "4", "4"]);
    expect(ok(await kubectl(["get", "pods", "-o", "name"])).stdout.trim()).toBe("");
    proc.kill("SIGKILL");
    await new Promise((resolve) => proc.on("exit", resolve));
  });

  it("--sink with --stages is refused with a message saying what to drop", async () => {
    const stages = join(dir, "stages.yaml");
    await writeFile(
      stages,
      "- {name: s, apiVersion: example.io/v1, kind: Thing, set: {status: {ready: true}}}\n",
    );
    const result = await new Promise<KubectlResult>((resolve) => {
      execFile(
        process.execPath,
        [BIN, "member-sim", "--name", "sink2", "--sink", "--stages", stages, "--port", "0"],
        (err, stdout, stderr) =>
          resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("a sink member runs no stages (drop --stages or --sink)");
    expect(result.stderr).not.toContain("    at ");
  });
});
