/**
 * What every long-running component serves besides its work: probes on
 * `--health-probe-bind-address` (and the older `--secure-port`), and metrics on
 * `--metrics-bind-address`, authenticated and authorized by the API server the component
 * talks to. A port in use is one line naming the flag.
 */
import { readFileSync } from "node:fs";
import type { Client } from "../client/client.ts";
import type { Logger } from "../log.ts";
import type { Registry } from "../metrics/registry.ts";
import { delegatedAuth } from "../runtime/delegated-auth.ts";
import {
  type HealthChecks,
  type HealthServer,
  parseListenAddress,
  startHealthServer,
} from "../runtime/health.ts";
import type { HealthProbeOptions } from "../runtime/health-options.ts";
import type { Elected } from "../runtime/leader.ts";
import type { MetricsOptions } from "../runtime/metrics-options.ts";
import { startMetricsServer } from "../runtime/metrics-server.ts";
import { StartupError } from "./control-plane.ts";

/** Probes for a component that runs while it leads: its lease renewals (live) and its caches (ready). */
export function electedHealthChecks(
  elected: Pick<Elected, "healthProblem">,
  cachesSynced: () => boolean,
): HealthChecks {
  const leaderElection = { name: "leaderElection", check: () => elected.healthProblem() };
  const informerSync = {
    name: "informer-sync",
    check: () => (cachesSynced() ? undefined : "the caches have not listed yet"),
  };
  return { healthz: [leaderElection], livez: [leaderElection], readyz: [leaderElection, informerSync] };
}

async function listening(flag: string, host: string, port: number, start: () => Promise<HealthServer>) {
  try {
    return await start();
  } catch (err) {
    const inUse = (err as NodeJS.ErrnoException).code === "EADDRINUSE";
    const why = inUse ? "the port is already in use" : (err as Error).message;
    throw new StartupError(`${flag}: cannot listen on ${host}:${port}: ${why}`);
  }
}

/** `--tls-cert-file`/`--tls-private-key-file` and `--client-ca-file`, read; a problem names the flag. */
function servingFiles(
  flags: Partial<MetricsOptions>,
): Pick<Parameters<typeof startMetricsServer>[0], "tls" | "clientCaPem"> {
  const read = (flag: string, file: string): string => {
    try {
      return readFileSync(file, "utf8");
    } catch (err) {
      throw new StartupError(`${flag} ${file}: ${(err as Error).message}`);
    }
  };
  if (!flags.tlsCertFile !== !flags.tlsPrivateKeyFile)
    throw new StartupError("--tls-cert-file and --tls-private-key-file go together");
  return {
    ...(flags.tlsCertFile && flags.tlsPrivateKeyFile
      ? {
          tls: {
            certPem: read("--tls-cert-file", flags.tlsCertFile),
            keyPem: read("--tls-private-key-file", flags.tlsPrivateKeyFile),
          },
        }
      : {}),
    ...(flags.clientCaFile ? { clientCaPem: read("--client-ca-file", flags.clientCaFile) } : {}),
  };
}

/** Starts the endpoints the flags ask for; returns their stops. Prints where each is served. */
export async function startComponentEndpoints(
  component: string,
  flags: HealthProbeOptions & Partial<MetricsOptions>,
  opts: {
    checks: HealthChecks;
    /** With `--metrics-bind-address`: what is served, and who authenticates and authorizes scrapes. */
    metrics?: { registry: Registry; delegate: Pick<Client, "create"> };
    log: Logger;
    write: (line: string) => void;
  },
): Promise<Array<() => Promise<void>>> {
  const stops: Array<() => Promise<void>> = [];
  try {
    if (flags.healthProbeBindAddress !== "0") {
      const { host, port } = parseListenAddress(flags.healthProbeBindAddress);
      const s = await listening("--health-probe-bind-address", host, port, () =>
        startHealthServer({ host, port, secure: false, checks: opts.checks }),
      );
      stops.push(s.close);
      opts.write(`karmada ${component}: health probes at ${s.url}/healthz\n`);
    }
    if (flags.securePort !== undefined) {
      const { bindAddress: host, securePort: port } = flags;
      const s = await listening("--secure-port", host, port, () =>
        startHealthServer({ host, port, secure: true, checks: opts.checks }),
      );
      stops.push(s.close);
      opts.write(`karmada ${component}: health probes at ${s.url}/healthz\n`);
    }
    const address = flags.metricsBindAddress;
    if (opts.metrics && address && address !== "0") {
      const { host, port } = parseListenAddress(address);
      const { registry, delegate } = opts.metrics;
      const serving = servingFiles(flags);
      const s = await listening("--metrics-bind-address", host, port, () =>
        startMetricsServer({
          host,
          port,
          registry,
          auth: delegatedAuth(delegate),
          log: opts.log,
          ...serving,
        }),
      );
      stops.push(s.close);
      opts.write(`karmada ${component}: metrics at ${s.url}/metrics\n`);
    }
  } catch (err) {
    for (const stop of stops) await stop();
    throw err;
  }
  return stops;
}
