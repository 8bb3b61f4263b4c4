/**
 * `karmada up --ha` as a user runs it: three etcd members, three control-plane nodes of
 * separate processes behind a load balancer, contexts `karmada-apiserver` and
 * `karmada-apiserver-1..3` that all see one fleet; a workload placed through one node; the
 * node leading the controller manager lost (its API server, controller manager and scheduler
 * killed) and the work carrying on through the load balancer; Ctrl-C that stops every process;
 * a second run that resumes from the kept etcd.
 */
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ETCD_BINARY } from "../../src/storage/etcd/local-etcd.ts";
import { httpsGet } from "../support/https.ts";
import { contextKubectl, eventually, type KubectlResult } from "../support/kubectl.ts";
import { table } from "../support/kubectl-output.ts";
import { alive, kubectlOn, startUp, type Up, untilRunning } from "../support/up-process.ts";

const ARGS = [
  "--ha",
  "--cluster-status-update-frequency",
  "500ms",
  "--cluster-failure-threshold",
  "2s",
  "--cluster-success-threshold",
  "500ms",
];

/** The processes `up` lists for each node: `node-N: <url> ..., pids apiserver A, controller-manager B, scheduler C; ...`. */
function nodePids(output: string): Map<string, number[]> {
  const nodes = new Map<string, number[]>();
  for (const m of output.matchAll(
    /(node-\d): \S+ .*pids apiserver (\d+), controller-manager (\d+), scheduler (\d+)/g,
  ))
    nodes.set(m[1]!, [Number(m[2]), Number(m[3]), Number(m[4])]);
  return nodes;
}

/** Processes whose command line names the data directory (the etcd members, the nodes, the members). */
function processesOf(dataDir: string): Promise<string[]> {
  return new Promise((resolve) =>
    execFile("pgrep", ["-f", dataDir], (_err, stdout) => resolve(stdout.split("\n").filter(Boolean))),
  );
}

// Nine node processes and three etcd members share the machine with other suites: generous bounds.
describe.skipIf(!existsSync(ETCD_BINARY))("karmada up --ha", { timeout: 300_000 }, () => {
  let dir: string;
  let dataDir: string;
  let kubeconfig: string;
  let kubectl: (args: string[]) => Promise<KubectlResult>;
  const ups: Up[] = [];
  let pids: Map<string, number[]>;

  const readyClusters = async (context: string): Promise<string[]> => {
    const r = await kubectl(["--context", context, "get", "clusters"]);
    if (r.code !== 0) return [];
    return table(r.stdout)
      .rows.filter((row) => row[3] === "True")
      .map((row) => row[0]!)
      .sort();
  };
  const leaseHolder = async (name: string): Promise<string> => {
    const r = await kubectl([
      "--context",
      "karmada-apiserver",
      "get",
      "lease",
      "-n",
      "karmada-system",
      name,
      "-o",
      "jsonpath={.spec.holderIdentity}",
    ]);
    return r.stdout;
  };
  const memberReplicas = async (context: string): Promise<string> =>
    (await kubectl(["--context", context, "get", "deploy", "web", "-o", "jsonpath={.spec.replicas}"])).stdout;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "karmada-ts-up-ha-"));
    dataDir = join(dir, "data");
    kubeconfig = join(dataDir, "karmada.config");
    kubectl = kubectlOn(dir, kubeconfig);
  });
  afterAll(async () => {
    for (const up of ups)
      if (up.proc.exitCode === null && up.proc.signalCode === null) up.proc.kill("SIGKILL");
    // Children stop when `up`'s stdin pipe closes; etcd members are stopped by `up` itself.
    for (const line of await processesOf(dataDir)) process.kill(Number(line), "SIGKILL");
    await rm(dir, { recursive: true, force: true });
  });

  it("starts three etcd members and three nodes; every context sees the same Ready fleet", async () => {
    const up = startUp(dataDir, ARGS);
    ups.push(up);
    await untilRunning(up, 2_400);
    const out = up.output();
    expect(out).toContain("Starting the Karmada control plane in HA");
    expect(out).toContain("etcd: 3 members with client and peer TLS");
    expect(out).not.toMatch(/"level"|at .*\.ts:\d+/);
    pids = nodePids(out);
    expect([...pids.keys()]).toEqual(["node-1", "node-2", "node-3"]);
    // Where each node's controller manager and scheduler serve /metrics (HTTPS, a token's).
    const metricsUrls = [
      ...out.matchAll(/metrics: its API server's \/metrics, controller-manager (\S+), scheduler (\S+)/g),
    ];
    expect(metricsUrls).toHaveLength(3);
    for (const m of metricsUrls) {
      expect(m[1]).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/metrics$/);
      expect((await httpsGet(m[2]!)).status).toBe(401);
    }

    const contexts = await kubectl(["config", "get-contexts", "-o", "name"]);
    expect(contexts.stdout.split("\n").filter(Boolean).sort()).toEqual([
      "karmada-apiserver",
      "karmada-apiserver-1",
      "karmada-apiserver-2",
      "karmada-apiserver-3",
      "member1",
      "member2",
      "member3",
    ]);
    // Each node's API server is its own process on the shared etcd, and all agree.
    for (const context of [
      "karmada-apiserver",
      "karmada-apiserver-1",
      "karmada-apiserver-2",
      "karmada-apiserver-3",
    ])
      expect(
        await eventually(
          async () => {
            const ready = await readyClusters(context);
            return ready.length === 3 ? ready : undefined;
          },
          `three Ready clusters through ${context}`,
          600,
          100,
        ),
      ).toEqual(["member1", "member2", "member3"]);
    const servers = await kubectl(["config", "view", "-o", "jsonpath={.clusters[*].cluster.server}"]);
    expect(new Set(servers.stdout.split(" ")).size).toBe(7);
  });

  it("places a workload written through one node, read through another", async () => {
    const apply = (context: string, doc: string) =>
      contextKubectl(
        () => kubeconfig,
        () => dir,
      )(context, ["apply", "-f", "-"], doc);
    const created = await kubectl([
      "--context",
      "karmada-apiserver-1",
      "create",
      "deployment",
      "web",
      "--image=nginx",
      "--replicas=2",
    ]);
    expect(created.stderr).toBe("");
    const policy = await apply(
      "karmada-apiserver-2",
      [
        "apiVersion: policy.karmada.io/v1alpha1",
        "kind: PropagationPolicy",
        "metadata: {name: web, namespace: default}",
        "spec:",
        "  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]",
        "  placement: {clusterAffinity: {clusterNames: [member1, member3]}}",
      ].join("\n"),
    );
    expect(policy.stderr).toBe("");
    for (const member of ["member1", "member3"])
      await eventually(async () => (await memberReplicas(member)) === "2", `web on ${member}`, 300, 100);
    const rb = await kubectl(["--context", "karmada-apiserver-3", "get", "rb", "web-deployment"]);
    expect(table(rb.stdout).rows[0]?.slice(0, 3)).toEqual(["web-deployment", "True", "True"]);
  });

  it("the node leading the controller manager is lost; another takes over and the work carries on", async () => {
    const holder = await leaseHolder("karmada-controller-manager");
    expect(holder).not.toBe("");
    // Each controller manager prints its identity in its node's log.
    const leading = [...pids.keys()].find((node) =>
      readFileSync(join(dataDir, "nodes", node, "controller-manager.log"), "utf8").includes(holder),
    );
    expect(leading).toBeDefined();
    for (const pid of pids.get(leading!)!) process.kill(pid, "SIGKILL");
    await eventually(async () => pids.get(leading!)!.every((pid) => !alive(pid)), "the node to die", 100, 50);

    // Through the load balancer, which skips the dead API server.
    const scaled = await kubectl([
      "--context",
      "karmada-apiserver",
      "scale",
      "deployment",
      "web",
      "--replicas=3",
    ]);
    expect(scaled.stdout).toContain("deployment.apps/web scaled");
    for (const member of ["member1", "member3"])
      await eventually(
        async () => (await memberReplicas(member)) === "3",
        `web scaled on ${member}`,
        600,
        100,
      );
    const next = await leaseHolder("karmada-controller-manager");
    expect(next).not.toBe(holder);
  });

  it("Ctrl-C stops every process; up --ha again resumes the same fleet from etcd", async () => {
    const first = ups[0]!;
    first.proc.kill("SIGINT");
    expect(await first.exited).toEqual({ code: 0, signal: null });
    await eventually(async () => (await processesOf(dataDir)).length === 0, "every process to stop", 200, 50);

    const single = startUp(dataDir, []);
    ups.push(single);
    expect((await single.exited).code).toBe(1);
    expect(single.output()).toContain(
      "holds an HA control plane (etcd/); run `karmada up --ha` to resume it",
    );

    const up = startUp(dataDir, ARGS);
    ups.push(up);
    await untilRunning(up, 2_400);
    expect(up.output()).toContain("member1: already joined");
    expect(await memberReplicas("member1")).toBe("3");
    await eventually(
      async () => (await readyClusters("karmada-apiserver")).length === 3,
      "all clusters Ready again",
      200,
      100,
    );
    const template = await kubectl([
      "--context",
      "karmada-apiserver",
      "get",
      "deploy",
      "web",
      "-o",
      "jsonpath={.spec.replicas}",
    ]);
    expect(template.stdout).toBe("3");
    up.proc.kill("SIGTERM");
    expect(await up.exited).toEqual({ code: 0, signal: null });
    await eventually(async () => (await processesOf(dataDir)).length === 0, "every process to stop", 200, 50);
  });
});
