/**
 * `karmada agent` (the real binary) registering a simulated member in Pull mode with a control
 * plane whose controller manager runs in-process: the Cluster and its secrets as upstream's
 * agent writes them, Ready with status collected by the agent, the cluster Lease renewed, the
 * agent's own leader Lease; when the agent is killed, the control plane's cluster-monitor
 * turns the cluster Unknown; a restarted agent re-registers the same cluster; an agent for
 * another cluster under a taken name is refused with one clear line.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isObject, type StoredObject } from "../../src/api/meta.ts";
import { type RunningControlPlane, startLocalControlPlane } from "../../src/bin/control-plane.ts";
import {
  DEFAULT_LEADER_ELECTION,
  type ElectedControllerManager,
  startElectedControllerManager,
} from "../../src/bin/controller-manager.ts";
import { RESOURCES } from "../../src/client/client.ts";
import { kubeconfigFor, writeKubeconfig } from "../../src/client/kubeconfig.ts";
import { LocalClient } from "../../src/client/local.ts";
import { silentLogger } from "../../src/log.ts";
import { type ServedMemberCluster, serveMemberCluster } from "../../src/member-sim/cluster.ts";
import { eventually } from "../support/kubectl.ts";
import { FAST } from "../support/member-sim.ts";

const BIN = fileURLToPath(new URL("../../bin/karmada", import.meta.url));

interface Agent {
  proc: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

const readyOf = (c: StoredObject) => {
  const conditions = isObject(c.status) && Array.isArray(c.status.conditions) ? c.status.conditions : [];
  return conditions.find((x) => isObject(x) && x.type === "Ready") as
    | { status: string; reason: string; message: string }
    | undefined;
};

const renewTimeOf = (lease: StoredObject) => (lease.spec as { renewTime?: string }).renewTime;

describe("karmada agent (Pull mode)", () => {
  let dir: string;
  let cp: RunningControlPlane;
  let client: LocalClient;
  let controllers: ElectedControllerManager;
  let member: ServedMemberCluster;
  let other: ServedMemberCluster;
  let kubeconfig: string;
  const agents: Agent[] = [];

  const startAgent = (...extra: string[]): Agent => {
    const proc = spawn(
      process.execPath,
      [
        BIN,
        "agent",
        "--health-probe-bind-address=0",
        "--metrics-bind-address=0",
        "--karmada-kubeconfig",
        kubeconfig,
        "--karmada-context",
        "karmada-apiserver",
        "--kubeconfig",
        kubeconfig,
        "--cluster-status-update-frequency",
        "200ms",
        "--cluster-success-threshold",
        "200ms",
        "--cluster-lease-duration",
        "2s",
        "--cluster-lease-renew-interval-fraction",
        "0.1",
        "--leader-elect-lease-duration",
        "2s",
        "--leader-elect-renew-deadline",
        "1500ms",
        "--leader-elect-retry-period",
        "300ms",
        "--log-level",
        "error",
        ...extra,
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    const append = (d: string) => {
      out += d;
    };
    proc.stdout!.setEncoding("utf8").on("data", append);
    proc.stderr!.setEncoding("utf8").on("data", append);
    const agent: Agent = {
      proc,
      output: () => out,
      exited: new Promise((resolve) => proc.on("exit", (code) => resolve(code))),
    };
    agents.push(agent);
    return agent;
  };

  const cluster = (name: string) => client.get(RESOURCES.clusters, undefined, name);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "karmada-ts-agent-"));
    cp = await startLocalControlPlane();
    client = new LocalClient(cp.api.context, { fieldManager: "test" });
    controllers = startElectedControllerManager({
      client: new LocalClient(cp.api.context, { fieldManager: "karmada-controller-manager" }),
      log: silentLogger,
      controllers: ["*"],
      options: {
        clusterMonitorPeriodMs: 100,
        clusterMonitorGracePeriodMs: 1_000,
        clusterStartupGracePeriodMs: 5_000,
      },
      leaderElection: { ...DEFAULT_LEADER_ELECTION, enabled: false },
    });
    member = await serveMemberCluster({ name: "pull1", port: 0, timing: FAST });
    other = await serveMemberCluster({ name: "other", port: 0, timing: FAST });
    kubeconfig = join(dir, "karmada.config");
    await writeKubeconfig(
      kubeconfig,
      kubeconfigFor([
        { name: "karmada-apiserver", connection: cp.connection },
        { name: "pull1", connection: member.connection },
        { name: "other", connection: other.connection },
      ]),
    );
  });
  afterAll(async () => {
    for (const a of agents)
      if (a.proc.exitCode === null && a.proc.signalCode === null) a.proc.kill("SIGKILL");
    await Promise.all(agents.map((a) => a.exited));
    await controllers?.stop();
    await member?.stop();
    await other?.stop();
    await cp?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("registers the cluster in Pull mode, reports it Ready and keeps its Lease renewed", async () => {
    const agent = startAgent(
      "--cluster-name",
      "pull1",
      "--cluster-context",
      "pull1",
      "--cluster-region",
      "r1",
    );
    await eventually(async () => agent.output().includes("started"), "the agent to start", 200, 50);
    const ready = await eventually(
      async () => {
        const c = await cluster("pull1");
        return readyOf(c)?.status === "True" && c;
      },
      "pull1 Ready",
      200,
      50,
    );
    expect(ready.spec).toMatchObject({
      syncMode: "Pull",
      apiEndpoint: member.url,
      region: "r1",
      secretRef: { namespace: "karmada-cluster", name: "pull1" },
      impersonatorSecretRef: { namespace: "karmada-cluster", name: "pull1-impersonator" },
    });
    expect((ready.spec as { id?: string }).id).toMatch(/^[0-9a-f-]{36}$/);
    expect(ready.status).toMatchObject({ kubernetesVersion: expect.any(String) });
    expect(ready.metadata.finalizers).toContain("karmada.io/cluster-controller");
    const secret = await client.get(RESOURCES.secrets, "karmada-cluster", "pull1");
    expect(secret.metadata.ownerReferences?.[0]).toMatchObject({ kind: "Cluster", name: "pull1" });

    const lease = () => client.get(RESOURCES.leases, "karmada-cluster", "pull1");
    const first = await eventually(lease, "the cluster Lease", 200, 50);
    expect(first.spec).toMatchObject({ holderIdentity: "pull1", leaseDurationSeconds: 2 });
    expect(first.metadata.ownerReferences?.[0]).toMatchObject({
      apiVersion: "cluster.karmada.io/v1alpha1",
      kind: "Cluster",
      name: "pull1",
      uid: ready.metadata.uid,
    });
    await eventually(async () => renewTimeOf(await lease()) !== renewTimeOf(first), "a renewal", 200, 50);
    const leader = await client.get(RESOURCES.leases, "karmada-system", "karmada-agent-pull1");
    expect((leader.spec as { holderIdentity?: string }).holderIdentity).toBeTruthy();
  });

  it("the control plane turns the cluster Unknown when its agent dies; a restarted agent brings it back", async () => {
    const running = agents[0]!;
    running.proc.kill("SIGKILL");
    await running.exited;
    const unknown = await eventually(
      async () => {
        const c = await cluster("pull1");
        return readyOf(c)?.status === "Unknown" && c;
      },
      "pull1 Unknown",
      200,
      50,
    );
    expect(readyOf(unknown)).toMatchObject({ reason: "ClusterStatusUnknown" });
    const uid = unknown.metadata.uid;

    const again = startAgent("--cluster-name", "pull1", "--cluster-context", "pull1");
    await eventually(
      async () => readyOf(await cluster("pull1"))?.status === "True",
      "pull1 Ready again",
      300,
      50,
    );
    expect((await cluster("pull1")).metadata.uid).toBe(uid);
    expect(again.output()).not.toContain("error");
  });

  it("refuses to register another cluster under a taken name, in one line", async () => {
    const agent = startAgent("--cluster-name", "pull1", "--cluster-context", "other");
    expect(await agent.exited).toBe(1);
    expect(agent.output().trim()).toMatch(
      /^karmada agent: failed to register with karmada control plane: the cluster ID \S+ or the cluster name pull1 has been registered$/,
    );
    expect((await cluster("pull1")).spec).toMatchObject({ apiEndpoint: member.url });
  });

  it("rejects bad flags before touching anything", async () => {
    const noName = startAgent("--cluster-context", "pull1");
    expect(await noName.exited).toBe(1);
    expect(noName.output().trim()).toBe("karmada agent: --cluster-name is required");
    const badSecrets = startAgent(
      "--cluster-name",
      "x",
      "--cluster-context",
      "other",
      "--report-secrets",
      "Tokens",
    );
    expect(await badSecrets.exited).toBe(1);
    expect(badSecrets.output()).toContain("--report-secrets: Tokens is not valid");
    await expect(cluster("x")).rejects.toMatchObject({ status: { code: 404 } });
  });
});
