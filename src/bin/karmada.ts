/**
 * `karmada <component>`: the only place that reads argv and the environment and exits.
 */
import { Command, InvalidArgumentError } from "commander";
import { startHttpServer } from "../apiserver/http.ts";
import { ApiServer } from "../apiserver/server.ts";
import { createLogger, type Level } from "../log.ts";
import { openStore } from "../storage/open.ts";

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

interface ApiserverFlags {
  storage: string;
  bindAddress: string;
  port: number;
  insecure: boolean;
  logLevel: Level;
}

async function runApiserver(flags: ApiserverFlags): Promise<void> {
  const log = createLogger({ level: flags.logLevel, fields: { component: "apiserver" } });
  let store: Awaited<ReturnType<typeof openStore>>;
  try {
    store = await openStore(flags.storage);
  } catch (err) {
    process.stderr.write(
      `karmada apiserver: cannot open storage ${JSON.stringify(flags.storage)}: ${(err as Error).message}\n`,
    );
    process.exit(1);
  }
  if (!flags.insecure) {
    log.warn(
      "TLS and authentication are not available yet; serving plain HTTP without authentication (pass --insecure to acknowledge)",
    );
  }
  const server = await ApiServer.start({ store, log });
  let http: Awaited<ReturnType<typeof startHttpServer>>;
  try {
    http = await startHttpServer(server.handler, { host: flags.bindAddress, port: flags.port, log });
  } catch (err) {
    process.stderr.write(
      `karmada apiserver: cannot listen on ${flags.bindAddress}:${flags.port}: ${(err as Error).message}\n`,
    );
    await server.close();
    await store.close();
    process.exit(1);
  }
  log.info("serving", { url: http.url, port: http.port, storage: store.backend });
  process.stdout.write(`karmada apiserver listening on ${http.url}\n`);
  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    log.info("shutting down");
    await http.close();
    await server.close();
    await store.close();
    process.exit(0);
  };
  process.on("SIGINT", () => void stop());
  process.on("SIGTERM", () => void stop());
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
  return program;
}

await buildProgram().parseAsync(process.argv);
