/**
 * `karmada <component>`: the only place that reads argv and the environment and exits.
 */
import { createWriteStream, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Command, InvalidArgumentError, Option } from "commander";
import { stringify } from "yaml";
import { defaultKubeconfigPath } from "../cli/factory.ts";
import { count, durationOption, list, port } from "../cli/flags.ts";
import type { HttpClient } from "../client/http.ts";
import { httpClientFor, loadKubeconfig, renderKubeconfig } from "../client/kubeconfig.ts";
import { controllers } from "../controllers/index.ts";
import { createLogger, type Level } from "../log.ts";
import { serveMemberCluster } from "../member-sim/cluster.ts";
import {
  type CustomStage,
  PLACEHOLDERS,
  parseStageFile,
  StageFileError,
} from "../member-sim/custom-stages.ts";
import { type FaultArgs, faultFromArgs, sendFault } from "../member-sim/fault-client.ts";
import { FAULT_TYPES, FaultError } from "../member-sim/faults.ts";
import { openStore } from "../storage/open.ts";
import type { Store } from "../storage/store.ts";
import { StartupError, startControlPlane, stopOnSignals } from "./control-plane.ts";
import { DEFAULT_LEADER_ELECTION, startElectedControllerManager } from "./controller-manager.ts";
import { nextSteps, runUp } from "./up.ts";

function level(value: string): Level {
  if (value !== "debug" && value !== "info" && value !== "warn" && value !== "error") {
    throw new InvalidArgumentError("must be one of debug, info, warn, error");
  }
  return value;
}

function fail(component: string, err: unknown): never {
  if (err instanceof StartupError) {
    process.stderr.write(`karmada ${component}: ${err.message}\n`);
    process.exit(1);
  }
  throw err;
}

interface ApiserverFlags {
  storage: string;
  bindAddress: string;
  port: number;
  insecure: boolean;
  logLevel: Level;
}

async function runApiserver(flags: ApiserverFlags): Promise<void> {
  const log = createLogger({ level: flags.logLevel, fields: { component: "apiserver" } });
  if (!flags.insecure) {
    log.warn(
      "TLS and authentication are not available yet; serving plain HTTP without authentication (pass --insecure to acknowledge)",
    );
  }
  const cp = await startControlPlane({
    storage: flags.storage,
    host: flags.bindAddress,
    port: flags.port,
    log,
  }).catch((e) => fail("apiserver", e));
  log.info("serving", { url: cp.url, port: cp.port, storage: cp.store.backend });
  process.stdout.write(`karmada apiserver listening on ${cp.url}\n`);
  stopOnSignals(() => cp.stop(), log);
}

interface UpFlags {
  dataDir: string;
  port: number;
  members: number;
  clusterStatusUpdateFrequency: number;
  clusterFailureThreshold: number;
  clusterSuccessThreshold: number;
  logLevel: Level;
}

async function runUpCommand(flags: UpFlags): Promise<void> {
  // The terminal is for the user; component logs go to <data-dir>/karmada.log (members: members/<name>.log).
  mkdirSync(resolve(flags.dataDir), { recursive: true });
  const logFile = createWriteStream(join(resolve(flags.dataDir), "karmada.log"), { flags: "a" });
  const log = createLogger({ level: flags.logLevel, sink: logFile, fields: { component: "up" } });
  const io = { stdout: process.stdout, stderr: process.stderr };
  const up = await runUp(
    {
      dataDir: flags.dataDir,
      port: flags.port,
      members: flags.members,
      memberCommand: [process.execPath, ...process.execArgv, process.argv[1]!],
      controllerOptions: {
        clusterStatusUpdateFrequencyMs: flags.clusterStatusUpdateFrequency,
        clusterFailureThresholdMs: flags.clusterFailureThreshold,
        clusterSuccessThresholdMs: flags.clusterSuccessThreshold,
      },
      log,
    },
    io,
  ).catch((err: unknown) => fail("up", err instanceof StartupError ? err : new StartupError(errorText(err))));
  process.stdout.write(nextSteps(up));
  stopOnSignals(async () => {
    process.stdout.write("Stopping the members and the control plane ...\n");
    await up.stop();
  }, log);
}

/** One line for the user: a Kubernetes Status message, or the error's own. */
function errorText(err: unknown): string {
  const status = (err as { status?: { message?: string } }).status;
  return status?.message ?? (err as Error).message ?? String(err);
}

interface ControllerManagerFlags {
  kubeconfig?: string;
  context?: string;
  controllers: string[];
  leaderElect: boolean;
  leaderElectLeaseDuration: number;
  leaderElectRenewDeadline: number;
  leaderElectRetryPeriod: number;
  leaderElectResourceNamespace: string;
  clusterStatusUpdateFrequency: number;
  clusterFailureThreshold: number;
  clusterSuccessThreshold: number;
  clusterMonitorPeriod: number;
  clusterMonitorGracePeriod: number;
  clusterStartupGracePeriod: number;
  logLevel: Level;
}

async function runControllerManagerCommand(flags: ControllerManagerFlags): Promise<void> {
  const log = createLogger({ level: flags.logLevel, fields: { component: "controller-manager" } });
  const path = flags.kubeconfig ?? defaultKubeconfigPath(process.env);
  const unknown = flags.controllers
    .map((c) => c.replace(/^-/, ""))
    .filter((c) => c !== "*" && !(c in controllers));
  if (unknown.length > 0) {
    fail(
      "controller-manager",
      new StartupError(
        `--controllers: unknown controller ${unknown.join(", ")}; known: ${Object.keys(controllers).join(", ")}`,
      ),
    );
  }
  let client: HttpClient;
  try {
    const conn = await loadKubeconfig({ path, ...(flags.context ? { context: flags.context } : {}) });
    client = httpClientFor(conn, { userAgent: "karmada-controller-manager" });
  } catch (err) {
    fail("controller-manager", new StartupError(`cannot load kubeconfig ${path}: ${(err as Error).message}`));
  }
  let manager: ReturnType<typeof startElectedControllerManager>;
  try {
    manager = startElectedControllerManager({
      client,
      log,
      controllers: flags.controllers,
      options: {
        clusterStatusUpdateFrequencyMs: flags.clusterStatusUpdateFrequency,
        clusterFailureThresholdMs: flags.clusterFailureThreshold,
        clusterSuccessThresholdMs: flags.clusterSuccessThreshold,
        clusterMonitorPeriodMs: flags.clusterMonitorPeriod,
        clusterMonitorGracePeriodMs: flags.clusterMonitorGracePeriod,
        clusterStartupGracePeriodMs: flags.clusterStartupGracePeriod,
      },
      leaderElection: {
        ...DEFAULT_LEADER_ELECTION,
        enabled: flags.leaderElect,
        namespace: flags.leaderElectResourceNamespace,
        leaseDurationMs: flags.leaderElectLeaseDuration,
        renewDeadlineMs: flags.leaderElectRenewDeadline,
        retryPeriodMs: flags.leaderElectRetryPeriod,
      },
      onLost: () => {
        process.stderr.write("karmada controller-manager: leader election lost\n");
        process.exit(1);
      },
    });
  } catch (err) {
    // The elector rejects inconsistent durations (lease > renew deadline > 1.2 × retry period).
    fail("controller-manager", new StartupError(`--leader-elect-*: ${(err as Error).message}`));
  }
  process.stdout.write(`karmada controller-manager ${manager.identity} started (${client.server})\n`);
  // A standby has nothing but unref'd timers: keep the process alive until it is stopped.
  const keepAlive = setInterval(() => {}, 60_000);
  stopOnSignals(async () => {
    clearInterval(keepAlive);
    await manager.stop();
    client.close();
  }, log);
}

interface MemberSimFlags {
  name: string;
  bindAddress: string;
  port: number;
  nodes: number;
  nodeCpu: string;
  nodeMemory: string;
  nodePods: number;
  region?: string;
  zone?: string;
  provider?: string;
  stages?: string;
  kubeconfigOut?: string;
  storage: string;
  stopWithStdin?: boolean;
  logLevel: Level;
}

async function runMemberSim(flags: MemberSimFlags): Promise<void> {
  const log = createLogger({ level: flags.logLevel, fields: { component: "member-sim" } });
  let stages: CustomStage[] = [];
  if (flags.stages) {
    try {
      stages = parseStageFile(readFileSync(flags.stages, "utf8"));
    } catch (err) {
      const why = err instanceof StageFileError ? err.message : (err as Error).message;
      fail("member-sim", new StartupError(`--stages ${flags.stages}: ${why}`));
    }
  }
  let store: Store;
  try {
    store = await openStore(flags.storage);
  } catch (err) {
    fail(
      "member-sim",
      new StartupError(`cannot open storage ${JSON.stringify(flags.storage)}: ${(err as Error).message}`),
    );
  }
  const member = await serveMemberCluster({
    name: flags.name,
    host: flags.bindAddress,
    port: flags.port,
    nodes: flags.nodes,
    nodeCpu: flags.nodeCpu,
    nodeMemory: flags.nodeMemory,
    nodePods: flags.nodePods,
    ...(flags.region ? { region: flags.region } : {}),
    ...(flags.zone ? { zone: flags.zone } : {}),
    ...(flags.provider ? { provider: flags.provider } : {}),
    stages,
    store,
    log,
  }).catch(async (err: unknown) => {
    await store.close();
    const code = (err as NodeJS.ErrnoException).code;
    fail(
      "member-sim",
      new StartupError(
        code === "EADDRINUSE"
          ? `cannot listen on ${flags.bindAddress}:${flags.port}: the port is already in use (--port 0 picks a free one)`
          : (err as Error).message,
      ),
    );
  });
  if (flags.kubeconfigOut) {
    const path = resolve(flags.kubeconfigOut);
    const user = `${flags.name}-admin`;
    writeFileSync(
      path,
      renderKubeconfig({
        clusters: [{ name: flags.name, server: member.url }],
        users: [{ name: user }],
        contexts: [{ name: flags.name, cluster: flags.name, user }],
        currentContext: flags.name,
      }),
      { mode: 0o600 },
    );
  }
  log.info("serving", { url: member.url, nodes: flags.nodes, clusterID: member.clusterId });
  process.stdout.write(`member-sim ${flags.name} listening on ${member.url}\n`);
  const stop = stopOnSignals(async () => {
    await member.stop();
    await store.close();
  }, log);
  if (flags.stopWithStdin) {
    process.stdin.on("end", stop).on("error", stop).resume();
  }
}

async function runFault(
  type: string,
  target: string | undefined,
  flags: Omit<FaultArgs, "type" | "target"> & { url: string },
): Promise<void> {
  try {
    const body = type === "list" ? undefined : faultFromArgs({ ...flags, type, target });
    const result = await sendFault(flags.url, body);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } catch (err) {
    const why =
      err instanceof FaultError ? err.message : `cannot reach ${flags.url}: ${(err as Error).message}`;
    process.stderr.write(`karmada member-sim fault: ${why}\n`);
    process.exit(1);
  }
}

/** The cluster-status flags `up` and `controller-manager` share (upstream's names and defaults). */
function addClusterStatusOptions(cmd: Command): Command {
  return cmd
    .addOption(
      durationOption(
        "--cluster-status-update-frequency <duration>",
        "how often member health and status are collected",
        "10s",
      ),
    )
    .addOption(
      durationOption(
        "--cluster-failure-threshold <duration>",
        "how long a member must fail before it is NotReady",
        "30s",
      ),
    )
    .addOption(
      durationOption(
        "--cluster-success-threshold <duration>",
        "how long a member must recover before it is Ready again",
        "30s",
      ),
    );
}

export function buildProgram(): Command {
  const program = new Command("karmada")
    .description("karmada-ts: a Karmada-compatible multi-cluster control plane")
    .showHelpAfterError()
    .configureOutput({ outputError: (text, write) => write(text) });
  program
    .command("apiserver")
    .description("run the Kubernetes-compatible API server (policies, bindings, works, clusters, CRDs)")
    .option(
      "--storage <url>",
      "memory:, sqlite://<path> or etcd://host:port[,host:port][?cacert=&cert=&key=]",
      "sqlite://.karmada/apiserver.db",
    )
    .option("--bind-address <ip>", "address to listen on", "127.0.0.1")
    .option("--port <n>", "port to listen on (0: a free port, logged)", port, 5443)
    .option("--insecure", "serve plain HTTP without authentication (the only mode until TLS lands)", false)
    .option("--log-level <level>", "debug, info, warn or error", level, "info")
    .action((flags: ApiserverFlags) => runApiserver(flags));
  const up = program
    .command("up")
    .description(
      "run a local Karmada: the control plane and its controllers on SQLite, plus simulated member clusters joined in Push mode, with one kubeconfig for all (contexts karmada-apiserver, member1..N)",
    )
    .option(
      "--data-dir <dir>",
      "where state, member logs and karmada.config live; running again resumes",
      ".karmada",
    )
    .option("--port <n>", "control plane port (0: a free port)", port, 5443)
    .option("--members <n>", "simulated member clusters", count, 3)
    .option("--log-level <level>", "debug, info, warn or error", level, "warn");
  addClusterStatusOptions(up).action((flags: UpFlags) => runUpCommand(flags));
  const controllerManager = program
    .command("controller-manager")
    .description(
      "run the Karmada controllers against a control plane (one replica leads through a Lease in karmada-system)",
    )
    .option(
      "--kubeconfig <path>",
      "kubeconfig of the Karmada control plane (default: $KUBECONFIG, ~/.kube/config)",
    )
    .option("--context <name>", "kubeconfig context to use")
    .option(
      "--controllers <names>",
      `controllers to run: * for all, name to enable, -name to disable; known: ${Object.keys(controllers).join(", ")}`,
      list,
    )
    .option("--leader-elect", "run the controllers only while holding the leader Lease", true)
    .option("--no-leader-elect", "run the controllers at once (a single replica)")
    .addOption(
      durationOption(
        "--leader-elect-lease-duration <duration>",
        "how long a standby waits before taking the Lease",
        "15s",
      ),
    )
    .addOption(
      durationOption(
        "--leader-elect-renew-deadline <duration>",
        "how long the leader retries renewing before it gives up",
        "10s",
      ),
    )
    .addOption(
      durationOption(
        "--leader-elect-retry-period <duration>",
        "time between acquire and renew attempts",
        "2s",
      ),
    )
    .option("--leader-elect-resource-namespace <ns>", "namespace of the leader Lease", "karmada-system");
  addClusterStatusOptions(controllerManager)
    .addOption(
      durationOption("--cluster-monitor-period <duration>", "how often cluster leases are checked", "5s"),
    )
    .addOption(
      durationOption(
        "--cluster-monitor-grace-period <duration>",
        "how long a silent cluster stays Ready",
        "40s",
      ),
    )
    .addOption(
      durationOption("--cluster-startup-grace-period <duration>", "grace for a newly joined cluster", "1m"),
    )
    .option("--log-level <level>", "debug, info, warn or error", level, "info")
    .action((flags: ControllerManagerFlags) =>
      runControllerManagerCommand({ ...flags, controllers: flags.controllers ?? ["*"] }),
    );
  const memberSim = program
    .command("member-sim")
    .description(
      "run a simulated member cluster (kwok style): our API server with nodes, a scheduler, a simulated kubelet and the workload controllers; for tests, demos and benchmarks",
    )
    .option("--name <name>", "cluster name (node names <name>-node-<i>, kubeconfig context)", "member1")
    .option("--bind-address <ip>", "address to listen on", "127.0.0.1")
    .option("--port <n>", "port for the API and the admin endpoint /sim/faults (0: a free port)", port, 0)
    .option("--nodes <n>", "simulated nodes", count, 3)
    .option("--node-cpu <quantity>", "cpu capacity of each node", "8")
    .option("--node-memory <quantity>", "memory capacity of each node", "32Gi")
    .option("--node-pods <n>", "pod capacity of each node", count, 110)
    .option("--region <region>", "topology.kubernetes.io/region label on every node")
    .option("--zone <zone>", "topology.kubernetes.io/zone label on every node")
    .option("--provider <name>", "cloud provider (nodes' spec.providerID <provider>://<cluster>/<node>)")
    .option(
      "--stages <file.yaml>",
      `custom-resource stages: a YAML list of {name, apiVersion, kind, delayMs?, when?: once | {missing: <path>} | {equals: {<path>: <value>}}, set: {status: {...}}}; status strings may use ${PLACEHOLDERS.join(" ")}`,
    )
    .option("--kubeconfig-out <path>", "write a kubeconfig reaching the cluster (context named after it)")
    .option("--storage <url>", "memory:, sqlite://<path> or etcd://host:port", "memory:")
    .option("--log-level <level>", "debug, info, warn or error", level, "warn")
    .addOption(new Option("--stop-with-stdin", "stop when stdin closes (set by `karmada up`)").hideHelp())
    .addHelpText(
      "after",
      [
        "",
        "Prints `member-sim <name> listening on <url>` once serving; stops on SIGINT/SIGTERM.",
        "Faults: POST <url>/sim/faults with JSON, or `karmada member-sim fault --url <url> <type>`.",
      ].join("\n"),
    )
    .action((flags: MemberSimFlags) => runMemberSim(flags));
  memberSim
    .command("fault")
    .description(
      "inject or end a fault in a running member-sim: unreachable [--hang] | unhealthy | cordon [--node N] | node-not-ready [--node N] | delete-pods -n NS [-l SEL] | unhealthy-workload -n NS KIND/NAME | restore [--id ID] | list",
    )
    .argument("<type>", [...FAULT_TYPES, "list"].join(", "))
    .argument("[target]", "KIND/NAME for unhealthy-workload")
    .requiredOption("--url <url>", "the member-sim's URL (as printed when it started)")
    .option("-n, --namespace <ns>", "namespace (delete-pods, unhealthy-workload)")
    .option("-l, --selector <selector>", "label selector (delete-pods)")
    .option("--node <name>", "one node instead of all (cordon, node-not-ready)")
    .option("--id <id>", "the fault to end (restore); all when omitted")
    .option("--hang", "unreachable: leave requests unanswered instead of resetting connections", false)
    .action(
      (
        type: string,
        target: string | undefined,
        flags: Omit<FaultArgs, "type" | "target"> & { url: string },
      ) => runFault(type, target, flags),
    );
  return program;
}

await buildProgram().parseAsync(process.argv);
