/**
 * `karmada up`: the local all-in-one, shaped like upstream's local-up script. The control
 * plane (API server, controllers, scheduler) runs in this process on SQLite under the data directory;
 * each member is a `karmada member-sim` child process (so it can be killed) with its own
 * SQLite file; members are joined in Push mode except member3, which is registered in Pull
 * mode by an agent, as upstream's local-up does; `<data-dir>/karmada.config` gets contexts
 * `karmada-apiserver` and `member1..N`. Running `up` again on the same directory resumes.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { closeSync, mkdirSync, openSync } from "node:fs";
import { hostname } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { isObject, type StoredObject } from "../api/meta.ts";
import { DEFAULT_CLUSTER_NAMESPACE, runJoin } from "../cli/commands/join.ts";
import { clientFactory } from "../cli/factory.ts";
import type { CommandIO } from "../cli/io.ts";
import { RESOURCES } from "../client/client.ts";
import { httpClientFor, loadKubeconfig, writeKubeconfig } from "../client/kubeconfig.ts";
import { LocalClient } from "../client/local.ts";
import { REPORTED_SECRETS } from "../cluster/register.ts";
import type { ControllerOptions } from "../controllers/context.ts";
import { schedulerControllers } from "../controllers/index.ts";
import type { Logger } from "../log.ts";
import { isNotFound } from "../machinery/errors.ts";
import { startAgent } from "./agent.ts";
import { startControlPlane } from "./control-plane.ts";
import {
  DEFAULT_LEADER_ELECTION,
  SCHEDULER_LEASE,
  startElectedControllerManager,
} from "./controller-manager.ts";

/** The member registered in Pull mode, as in upstream's local-up. */
export const PULL_MEMBER = "member3";

export interface UpOptions {
  dataDir: string;
  port: number;
  members: number;
  /** The command that starts a member simulator (`[node, bin/karmada]`). */
  memberCommand: string[];
  /** A custom-resource stage file every member runs (`member-sim --stages`). */
  memberStages?: string;
  controllerOptions?: Partial<ControllerOptions>;
  /** The default not-ready / unreachable toleration seconds of policy admission (300 each). */
  defaultTolerationSeconds?: { notReady?: number; unreachable?: number };
  /** How long to wait for the clusters to be Ready before reporting which are not (60 s). */
  readyTimeoutMs?: number;
  log: Logger;
}

export interface RunningUp {
  url: string;
  dataDir: string;
  kubeconfig: string;
  members: Array<{ name: string; url: string; process: ChildProcess }>;
  stop(): Promise<void>;
}

function startMember(
  cmd: string[],
  name: string,
  dir: string,
  index: number,
  stages: string | undefined,
): Promise<{ url: string; process: ChildProcess }> {
  const args = [
    ...cmd.slice(1),
    "member-sim",
    "--name",
    name,
    "--port",
    "0",
    "--storage",
    `sqlite://${join(dir, `${name}.db`)}`,
    "--region",
    `region-${index}`,
    "--zone",
    `zone-${index}`,
    "--provider",
    "karmada-ts",
    // Our stdin is a pipe from `up`: when `up` dies, however it dies, the member stops too.
    "--stop-with-stdin",
    ...(stages ? ["--stages", stages] : []),
  ];
  const log = openSync(join(dir, `${name}.log`), "a");
  const child = spawn(cmd[0]!, args, { stdio: ["pipe", "pipe", log] });
  closeSync(log);
  return new Promise((resolveUrl, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const onExit = (code: number | null): void =>
      reject(
        new Error(
          `member ${name} exited (${code ?? "signal"}) before it was ready; see ${join(dir, `${name}.log`)}`,
        ),
      );
    lines.on("line", (line) => {
      const m = / listening on (\S+)/.exec(line);
      if (m) {
        child.off("exit", onExit);
        resolveUrl({ url: m[1]!, process: child });
      }
    });
    child.once("exit", onExit);
  });
}

async function stopMember(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
  await exited;
  clearTimeout(timer);
}

/** Joins a member in Push mode, or points its Cluster at the member's new port when resuming. */
async function joinOrResume(
  local: LocalClient,
  factory: ReturnType<typeof clientFactory>,
  kubeconfig: string,
  member: { name: string; url: string },
  io: CommandIO,
): Promise<void> {
  let existing: StoredObject | undefined;
  try {
    existing = await local.get(RESOURCES.clusters, undefined, member.name);
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  if (existing) {
    const spec = isObject(existing.spec) ? existing.spec : {};
    if (spec.apiEndpoint !== member.url)
      await local.patch(RESOURCES.clusters, undefined, member.name, "merge", {
        spec: { apiEndpoint: member.url },
      });
    io.stdout.write(`  ${member.name}: already joined, now at ${member.url}\n`);
    return;
  }
  io.stdout.write(`  joining ${member.name} (${member.url}) in Push mode ...\n`);
  await runJoin(
    {
      name: member.name,
      clusterKubeconfig: kubeconfig,
      clusterContext: member.name,
      clusterNamespace: DEFAULT_CLUSTER_NAMESPACE,
      dryRun: false,
    },
    { stdout: { write: (t) => io.stdout.write(`    ${t}`) }, stderr: io.stderr },
    factory,
  );
}

export async function runUp(opts: UpOptions, io: CommandIO): Promise<RunningUp> {
  const dataDir = resolve(opts.dataDir);
  const memberDir = join(dataDir, "members");
  mkdirSync(memberDir, { recursive: true });
  const step = (text: string): void => io.stdout.write(`${text}\n`);
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async (): Promise<void> => {
    for (const stop of stops.reverse()) await stop();
    stops.length = 0;
  };

  try {
    step(`Starting the Karmada control plane (data in ${dataDir}) ...`);
    const cp = await startControlPlane({
      storage: `sqlite://${join(dataDir, "karmada.db")}`,
      host: "127.0.0.1",
      port: opts.port,
      log: opts.log,
      ...(opts.defaultTolerationSeconds ? { defaultTolerationSeconds: opts.defaultTolerationSeconds } : {}),
    });
    stops.push(() => cp.stop());
    const local = new LocalClient(cp.api.context, { fieldManager: "karmada-controller-manager" });
    // One identity per data directory: a restarted `up` takes its Leases back at once.
    const identity = `${hostname()}_karmada-up_${dataDirId(dataDir)}`;

    const names = Array.from({ length: opts.members }, (_, i) => `member${i + 1}`);
    step(`Starting ${names.length} member cluster${names.length === 1 ? "" : "s"} (${names.join(", ")}) ...`);
    const started: RunningUp["members"] = [];
    const results = await Promise.allSettled(
      names.map((name, i) =>
        startMember(opts.memberCommand, name, memberDir, i + 1, opts.memberStages).then((m) => ({
          name,
          ...m,
        })),
      ),
    );
    for (const r of results) {
      if (r.status === "fulfilled") {
        started.push(r.value);
        stops.push(() => stopMember(r.value.process));
      }
    }
    const failed = results.find((r) => r.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;

    const kubeconfig = join(dataDir, "karmada.config");
    const clusters = [
      { name: "karmada-apiserver", server: cp.url },
      ...started.map((m) => ({ name: m.name, server: m.url })),
    ];
    await writeKubeconfig(kubeconfig, {
      clusters,
      users: clusters.map((c) => ({ name: `${c.name}-admin` })),
      contexts: clusters.map((c) => ({ name: c.name, cluster: c.name, user: `${c.name}-admin` })),
      currentContext: "karmada-apiserver",
    });

    const factory = clientFactory({ kubeconfig, karmadaContext: "karmada-apiserver" }, {});
    try {
      for (const m of started) {
        if (m.name === PULL_MEMBER) continue;
        await joinOrResume(local, factory, kubeconfig, m, io);
      }
    } finally {
      factory.close();
    }
    const pull = started.find((m) => m.name === PULL_MEMBER);
    if (pull) {
      io.stdout.write(`  registering ${pull.name} (${pull.url}) in Pull mode with karmada agent ...\n`);
      const conn = await loadKubeconfig({ path: kubeconfig, context: pull.name });
      const memberClient = httpClientFor(conn, { userAgent: "karmada-agent" });
      stops.push(async () => memberClient.close());
      const agent = await startAgent({
        karmada: new LocalClient(cp.api.context, { fieldManager: "karmada-agent" }),
        member: { client: memberClient, server: conn.server, insecureSkipTLSVerify: false, settings: conn },
        register: {
          name: pull.name,
          clusterNamespace: DEFAULT_CLUSTER_NAMESPACE,
          reportSecrets: REPORTED_SECRETS,
        },
        controllers: ["*"],
        ...(opts.controllerOptions ? { options: opts.controllerOptions } : {}),
        leaderElection: { ...DEFAULT_LEADER_ELECTION, identity },
        log: opts.log.child({ component: "agent", cluster: pull.name }),
      });
      stops.push(() => agent.stop());
      io.stdout.write(`    cluster(${pull.name}) is registered in Pull mode; its agent reports its status\n`);
    }

    // The controllers start once every Cluster points at its member's current address, so a
    // resumed fleet is not first probed at last run's ports (and held NotReady for the
    // success threshold).
    const gates = opts.controllerOptions?.features?.toString();
    step(`Feature gates: ${gates || "upstream's defaults"} (--feature-gates to change)`);
    const controllers = startElectedControllerManager({
      client: local,
      log: opts.log.child({ component: "controller-manager" }),
      controllers: ["*"],
      ...(opts.controllerOptions ? { options: opts.controllerOptions } : {}),
      leaderElection: { ...DEFAULT_LEADER_ELECTION, identity },
    });
    stops.push(() => controllers.stop());
    const scheduler = startElectedControllerManager({
      client: new LocalClient(cp.api.context, { fieldManager: "karmada-scheduler" }),
      log: opts.log.child({ component: "scheduler" }),
      controllers: ["*"],
      registry: schedulerControllers,
      ...(opts.controllerOptions ? { options: opts.controllerOptions } : {}),
      leaderElection: { ...DEFAULT_LEADER_ELECTION, name: SCHEDULER_LEASE, identity },
    });
    stops.push(() => scheduler.stop());

    step("Waiting for the clusters to be Ready ...");
    const notReady = await waitClustersReady(
      local,
      started.map((m) => m.name),
      opts.readyTimeoutMs ?? 60_000,
    );
    if (notReady.length > 0) {
      step(
        `  not Ready yet: ${notReady.join(", ")} (see \`kubectl describe cluster\` and ${join(dataDir, "karmada.log")})`,
      );
    }

    return {
      url: cp.url,
      dataDir,
      kubeconfig,
      members: started,
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

/** Waits (bounded) for each Cluster's Ready condition to be True; returns those that are not. */
async function waitClustersReady(client: LocalClient, names: string[], timeoutMs: number): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  let pending = names;
  while (pending.length > 0 && Date.now() < deadline) {
    const ready = await Promise.all(pending.map((name) => clusterReady(client, name)));
    pending = pending.filter((_, i) => !ready[i]);
    if (pending.length > 0) await new Promise((r) => setTimeout(r, 100));
  }
  return pending;
}

async function clusterReady(client: LocalClient, name: string): Promise<boolean> {
  try {
    const cluster = await client.get(RESOURCES.clusters, undefined, name);
    const status = isObject(cluster.status) ? cluster.status : {};
    const conditions = Array.isArray(status.conditions) ? status.conditions : [];
    return conditions.some((c) => isObject(c) && c.type === "Ready" && c.status === "True");
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}

/** A short stable id for a data directory. */
function dataDirId(dir: string): string {
  return createHash("sha256").update(dir).digest("hex").slice(0, 10);
}

/** What to try next, after upstream's local-up message and quick start. */
export function nextSteps(up: RunningUp): string {
  return [
    "",
    "Local Karmada is running.",
    "",
    "To start using your karmada, run:",
    `  export KUBECONFIG=${up.kubeconfig}`,
    "Please use 'kubectl config use-context karmada-apiserver' for the control plane,",
    `and 'kubectl config use-context ${up.members.map((m) => m.name).join("/")}' to switch to the different member cluster.`,
    "",
    "Then try:",
    "  kubectl --context karmada-apiserver get clusters",
    "  kubectl --context member2 get nodes",
    "  karmadactl get clusters",
    "  karmadactl get nodes --operation-scope members",
    "",
    `Logs: ${join(up.dataDir, "karmada.log")} and ${join(up.dataDir, "members", "<name>.log")}.`,
    "Press Ctrl-C to stop everything; run the same command again to resume.",
    "",
  ].join("\n");
}
