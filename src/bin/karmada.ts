/**
 * `karmada <component>`: the only place that reads argv and the environment and exits.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Command, InvalidArgumentError } from "commander";
import { stringify } from "yaml";
import { createLogger, type Level } from "../log.ts";
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
  return program;
}

await buildProgram().parseAsync(process.argv);
