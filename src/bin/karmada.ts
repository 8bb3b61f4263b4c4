/**
 * `karmada <component>`: the only place that reads argv and the environment and exits.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Command, InvalidArgumentError } from "commander";
import { stringify } from "yaml";
import { renderKubeconfig } from "../client/kubeconfig.ts";
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

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError("must be a port number between 0 and 65535");
  return n;
}

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
  logLevel: Level;
}

/** A kubeconfig with one context per cluster, in the shape upstream's local-up script writes. */
function kubeconfig(clusters: Array<{ name: string; server: string }>, current: string): string {
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: clusters.map((c) => ({ name: c.name, cluster: { server: c.server } })),
    contexts: clusters.map((c) => ({ name: c.name, context: { cluster: c.name, user: `${c.name}-admin` } })),
    users: clusters.map((c) => ({ name: `${c.name}-admin`, user: {} })),
    "current-context": current,
    preferences: {},
  });
}

async function runUp(flags: UpFlags): Promise<void> {
  const log = createLogger({ level: flags.logLevel, fields: { component: "up" } });
  const dataDir = resolve(flags.dataDir);
  mkdirSync(dataDir, { recursive: true });
  process.stdout.write(`Starting the Karmada control plane (data in ${dataDir}) ...\n`);
  const cp = await startControlPlane({
    storage: `sqlite://${join(dataDir, "karmada.db")}`,
    host: "127.0.0.1",
    port: flags.port,
    log,
  }).catch((e) => fail("up", e));
  const config = join(dataDir, "karmada.config");
  writeFileSync(config, kubeconfig([{ name: "karmada-apiserver", server: cp.url }], "karmada-apiserver"), {
    mode: 0o600,
  });
  process.stdout.write(
    [
      `Karmada control plane is running at ${cp.url}`,
      "",
      "To start using it:",
      `  export KUBECONFIG=${config}`,
      "  kubectl config use-context karmada-apiserver",
      "  kubectl api-resources --api-group=policy.karmada.io",
      "",
      "Member clusters are not started yet by this version of `karmada up`.",
      "Press Ctrl-C to stop.",
      "",
    ].join("\n"),
  );
  stopOnSignals(() => cp.stop(), log);
}

function count(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError("must be a non-negative integer");
  return n;
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
  stopOnSignals(async () => {
    await member.stop();
    await store.close();
  }, log);
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
  program
    .command("up")
    .description("run a local Karmada: the control plane on SQLite, with a kubeconfig to reach it")
    .option("--data-dir <dir>", "where state and the kubeconfig live", ".karmada")
    .option("--port <n>", "control plane port (0: a free port)", port, 5443)
    .option("--log-level <level>", "debug, info, warn or error", level, "warn")
    .action((flags: UpFlags) => runUp(flags));
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
