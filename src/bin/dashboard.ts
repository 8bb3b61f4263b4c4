/**
 * `karmada dashboard`: the web dashboard for a control plane a kubeconfig reaches. Bound to
 * loopback (the default) it serves plain HTTP and acts as the kubeconfig's user, as `kubectl
 * proxy` does; bound elsewhere it serves HTTPS only and every user signs in with their own
 * bearer token (see src/dashboard/ and docs/adr/0014-dashboard.md).
 */
import { readFile } from "node:fs/promises";
import { defaultKubeconfigPath } from "../cli/factory.ts";
import { httpClientFor, type KubeconfigConnection, loadKubeconfig } from "../client/kubeconfig.ts";
import { modeFor } from "../dashboard/guard.ts";
import { startDashboard } from "../dashboard/server.ts";
import { whoAmI } from "../dashboard/sessions.ts";
import { selfSignedServing } from "../dashboard/tls.ts";
import { createLogger } from "../log.ts";
import { errorMessage } from "../machinery/errors.ts";
import { mergeOptions, type OptionValues, optionTable, port, text } from "../runtime/options.ts";
import { kubeconfigOptions, logLevelOptions } from "./component-options.ts";
import { StartupError, stopOnSignals } from "./control-plane.ts";

export const DASHBOARD_OPTIONS = optionTable({
  bindAddress: {
    flag: "--bind-address",
    type: text,
    arg: "<ip>",
    help: "address to serve on: loopback (127.0.0.1, ::1, localhost) acts as the kubeconfig's user over plain HTTP, as kubectl proxy; any other serves HTTPS and each user signs in with a bearer token",
    default: "127.0.0.1",
  },
  port: { flag: "--port", type: port, help: "port to serve on (0: a free port)", default: 8000 },
  tlsCertFile: {
    flag: "--tls-cert-file",
    type: text,
    arg: "<file>",
    help: "serving certificate (PEM, with its chain); beyond loopback without one, a self-signed certificate is made at start",
  },
  tlsPrivateKeyFile: {
    flag: "--tls-private-key-file",
    type: text,
    arg: "<file>",
    help: "the certificate's private key (PEM)",
  },
});

export const DASHBOARD_COMMAND = mergeOptions(
  kubeconfigOptions("the Karmada control plane"),
  DASHBOARD_OPTIONS,
  logLevelOptions("warn"),
);

export type DashboardFlags = OptionValues<typeof DASHBOARD_COMMAND>;

export const DASHBOARD_HELP = [
  "",
  "Pages: clusters by region and zone, workloads (replicas per cluster, health), one workload",
  "(policy, the scheduler's reasons, each member's manifest and which override changed what),",
  "the failover timeline, policies, and a placement what-if. Live; read-only: nothing is written",
  "to the control plane.",
  "",
  "Prints `karmada dashboard listening on <url>` once serving; stops on SIGINT/SIGTERM.",
].join("\n");

/** Says why the dashboard cannot start in one line (never a stack trace) and exits 1. */
function fail(err: unknown): never {
  process.stderr.write(
    `karmada dashboard: ${err instanceof StartupError ? err.message : errorMessage(err)}\n`,
  );
  process.exit(1);
}

async function readPem(flag: string, file: string): Promise<string> {
  try {
    const text = await readFile(file, "utf8");
    if (!text.includes("-----BEGIN")) throw new Error("not PEM");
    return text;
  } catch (err) {
    throw new StartupError(`${flag} ${file}: cannot read it: ${(err as Error).message}`);
  }
}

export async function runDashboardCommand(flags: DashboardFlags): Promise<void> {
  const log = createLogger({
    level: flags.logLevel,
    format: flags.loggingFormat,
    fields: { component: "dashboard" },
  });
  const path = flags.kubeconfig ?? defaultKubeconfigPath(process.env);
  let connection: KubeconfigConnection;
  try {
    connection = await loadKubeconfig({ path, ...(flags.context ? { context: flags.context } : {}) });
  } catch (err) {
    const flag = flags.context && /context/i.test((err as Error).message) ? "--context" : "--kubeconfig";
    return fail(new StartupError(`${flag}: cannot load kubeconfig ${path}: ${(err as Error).message}`));
  }
  if (!!flags.tlsCertFile !== !!flags.tlsPrivateKeyFile) {
    return fail(new StartupError("--tls-cert-file and --tls-private-key-file go together"));
  }
  const mode = modeFor(flags.bindAddress);
  let tls: { certPem: string; keyPem: string } | undefined;
  try {
    if (flags.tlsCertFile && flags.tlsPrivateKeyFile) {
      tls = {
        certPem: await readPem("--tls-cert-file", flags.tlsCertFile),
        keyPem: await readPem("--tls-private-key-file", flags.tlsPrivateKeyFile),
      };
    } else if (mode === "token") {
      const made = await selfSignedServing(flags.bindAddress);
      tls = made;
      process.stderr.write(
        `karmada dashboard: serving HTTPS with a self-signed certificate made now (SHA-256 fingerprint ${made.fingerprint}); --tls-cert-file to use yours\n`,
      );
    }
  } catch (err) {
    return fail(err);
  }
  let dashboard: Awaited<ReturnType<typeof startDashboard>>;
  try {
    dashboard = await startDashboard({
      connection,
      mode,
      host: flags.bindAddress,
      port: flags.port,
      ...(tls ? { tls } : {}),
      log,
    });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE") {
      return fail(
        new StartupError(
          `--port ${flags.port}: cannot listen on ${flags.bindAddress}:${flags.port}: the port is already in use (--port 0 picks a free one)`,
        ),
      );
    }
    if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND" || code === "EAI_AGAIN") {
      return fail(
        new StartupError(
          `--bind-address ${flags.bindAddress}: cannot listen there: ${(err as Error).message}`,
        ),
      );
    }
    if (code === "EACCES") {
      return fail(
        new StartupError(`--port ${flags.port}: not allowed to listen on it: ${(err as Error).message}`),
      );
    }
    if (tls && /key|certificate|PEM/i.test((err as Error).message)) {
      return fail(new StartupError(`--tls-cert-file/--tls-private-key-file: ${(err as Error).message}`));
    }
    return fail(err);
  }
  process.stdout.write(`karmada dashboard listening on ${dashboard.url}\n`);
  if (mode === "local") {
    // Like kubectl proxy, the dashboard starts whatever the control plane says; this only warns early.
    const client = httpClientFor(connection, { userAgent: "karmada-dashboard" });
    whoAmI(client)
      .then(
        (who) =>
          process.stdout.write(
            `karmada dashboard: acting as ${who.username || "the kubeconfig's user"} for anyone on this machine (loopback only)\n`,
          ),
        (err: unknown) =>
          process.stderr.write(
            `karmada dashboard: warning: ${connection.server} does not answer as expected yet (${errorMessage(err)}); pages say so until it does\n`,
          ),
      )
      .finally(() => client.close());
  } else {
    process.stdout.write("karmada dashboard: every user signs in with their own bearer token\n");
  }
  stopOnSignals(() => dashboard.close(), log);
}
