/**
 * `karmada up` as a user runs it: one process that brings up the control plane and three
 * simulated members, a kubeconfig kubectl uses for all four, clusters that turn Ready, a
 * killed member that turns NotReady, Ctrl-C that stops every process, and a second `up` on the
 * same data directory that resumes the same state.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, type KubectlResult } from "../support/kubectl.ts";
import { table } from "../support/kubectl-output.ts";
import { alive, kubectlOn, startUp, type Up, untilRunning } from "../support/up-process.ts";

/** Small thresholds so that a killed member is noticed within the test. */
const FAST_STATUS = [
  "--cluster-status-update-frequency",
  "200ms",
  "--cluster-failure-threshold",
  "1s",
  "--cluster-success-threshold",
  "200ms",
];

describe("karmada up", () => {
  let dir: string;
  let dataDir: string;
  let kubeconfig: string;
  const ups: Up[] = [];
  const memberPids: number[] = [];

  const kubectl = (args: string[]): Promise<KubectlResult> => kubectlOn(dir, kubeconfig)(args);

  const clusters = async (): Promise<Record<string, string[]>> => {
    const r = await kubectl(["--context", "karmada-apiserver", "get", "clusters"]);
    expect(r.stderr).toBe("");
    const t = table(r.stdout);
    expect(t.header).toEqual(["NAME", "VERSION", "MODE", "READY", "AGE"]);
    return Object.fromEntries(t.rows.map((row) => [row[0]!, row]));
  };

  const memberPid = async (context: string): Promise<number> => {
    const r = await kubectl(["--context", context, "get", "--raw", "/sim/info"]);
    expect(r.code).toBe(0);
    return (JSON.parse(r.stdout) as { pid: number }).pid;
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "karmada-ts-up-"));
    dataDir = join(dir, "data");
    kubeconfig = join(dataDir, "karmada.config");
  });
  afterAll(async () => {
    for (const up of ups)
      if (up.proc.exitCode === null && up.proc.signalCode === null) up.proc.kill("SIGKILL");
    for (const pid of memberPids) if (alive(pid)) process.kill(pid, "SIGKILL");
    await rm(dir, { recursive: true, force: true });
  });

  it("starts the fleet: three Ready clusters (member3 Pull, as upstream's local-up), member nodes through their contexts", async () => {
    const up = startUp(dataDir, FAST_STATUS);
    ups.push(up);
    await untilRunning(up);
    const out = up.output();
    expect(out).toContain("Starting the Karmada control plane");
    // member1 and member2 by `karmadactl join`; member3 by `karmadactl register` (TLS bootstrap).
    for (const m of ["member1", "member2", "member3"])
      expect(out).toContain(`cluster(${m}) is joined successfully`);
    expect(out).toContain("[karmada-agent-start] Waiting to perform the TLS Bootstrap");
    expect(out).toContain("the agent of member3 runs as system:karmada:agent:member3");
    expect(out).toContain(
      "Feature gates: Failover=true,PropagationPolicyPreemption=true,StatefulFailoverInjection=true (--feature-gates to change)",
    );
    expect(out).toContain(`export KUBECONFIG=${kubeconfig}`);
    expect(out).not.toMatch(/"level"|at .*\.ts:\d+/); // logs go to files, no stack traces

    const rows = await clusters();
    expect(Object.keys(rows).sort()).toEqual(["member1", "member2", "member3"]);
    for (const [name, row] of Object.entries(rows)) {
      expect(row[1]).toBe("v1.32.0-karmada-ts");
      expect(row[2]).toBe(name === "member3" ? "Pull" : "Push");
      expect(row[3]).toBe("True");
    }
    // member3's agent renews its cluster Lease, which the control plane's cluster-monitor reads.
    const lease = await kubectl(["--context", "karmada-apiserver", "get", "lease", "-n", "karmada-cluster"]);
    expect(table(lease.stdout).rows.map((r) => [r[0], r[1]])).toEqual([["member3", "member3"]]);

    const nodes = await kubectl(["--context", "member2", "get", "nodes"]);
    expect(nodes.stderr).toBe("");
    expect(table(nodes.stdout).rows.map((r) => [r[0], r[1]])).toEqual([
      ["member2-node-0", "Ready"],
      ["member2-node-1", "Ready"],
      ["member2-node-2", "Ready"],
    ]);
    for (const context of ["member1", "member2", "member3"]) memberPids.push(await memberPid(context));
  });

  it("a killed member turns its cluster not Ready; the others stay Ready", async () => {
    const pid = memberPids[1]!;
    process.kill(pid, "SIGKILL");
    await eventually(async () => !alive(pid), "member2 to die", 100, 50);
    const rows = await eventually(
      async () => {
        const r = await clusters();
        return r.member2?.[3] === "False" ? r : undefined;
      },
      "member2 to be NotReady",
      200,
      100,
    );
    expect(rows.member1?.[3]).toBe("True");
    expect(rows.member3?.[3]).toBe("True");
    const detail = await kubectl([
      "--context",
      "karmada-apiserver",
      "get",
      "cluster",
      "member2",
      "-o",
      "json",
    ]);
    const ready = (
      JSON.parse(detail.stdout) as { status: { conditions: Array<Record<string, string>> } }
    ).status.conditions.find((c) => c.type === "Ready");
    expect(ready).toMatchObject({
      status: "False",
      reason: "ClusterNotReachable",
      message: "cluster is not reachable",
    });
  });

  it("Ctrl-C stops the control plane and every member", async () => {
    const up = ups[0]!;
    up.proc.kill("SIGINT");
    expect(await up.exited).toEqual({ code: 0, signal: null });
    await eventually(async () => memberPids.every((pid) => !alive(pid)), "members to stop", 100, 50);
  });

  it("running up again resumes: the same clusters, all Ready again, on new ports", async () => {
    const before = await kubectl([
      "config",
      "view",
      "-o",
      "jsonpath={.clusters[?(@.name=='member1')].cluster.server}",
    ]);
    const up = startUp(dataDir, FAST_STATUS);
    ups.push(up);
    await untilRunning(up);
    expect(up.output()).toContain("member1: already joined");
    expect(up.output()).not.toContain("is joined successfully");
    const rows = await eventually(
      async () => {
        const r = await clusters();
        return Object.values(r).every((row) => row[3] === "True") ? r : undefined;
      },
      "all clusters Ready",
      200,
      100,
    );
    expect(Object.keys(rows).sort()).toEqual(["member1", "member2", "member3"]);
    const after = await kubectl([
      "config",
      "view",
      "-o",
      "jsonpath={.clusters[?(@.name=='member1')].cluster.server}",
    ]);
    expect(after.stdout).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(after.stdout).not.toBe(before.stdout);
    const pids = await Promise.all(["member1", "member2", "member3"].map(memberPid));
    memberPids.push(...pids);
    up.proc.kill("SIGTERM");
    expect(await up.exited).toEqual({ code: 0, signal: null });
    await eventually(async () => pids.every((pid) => !alive(pid)), "members to stop", 100, 50);
  });
});
