/**
 * Starting and stopping the API server process parts, shared by `karmada apiserver` and
 * `karmada up`.
 */
import { hostname } from "node:os";
import { type ServingTls, startHttpServer } from "../apiserver/http.ts";
import type { InflightLimits } from "../apiserver/max-inflight.ts";
import { secureServingFrom } from "../apiserver/secure-serving.ts";
import { ApiServer, type ApiServerOptions } from "../apiserver/server.ts";
import type { ClusterConnection } from "../client/http.ts";
import { type Logger, silentLogger } from "../log.ts";
import type { Registry as MetricsRegistry } from "../metrics/registry.ts";
import { type ClusterPki, createClusterPki } from "../pki/cluster-pki.ts";
import type { FleetView } from "../search/fleet-view.ts";
import { type SearchOptions, startAggregatedApis } from "../search/serve.ts";
import { openStore } from "../storage/open.ts";
import type { Store } from "../storage/store.ts";

export interface RunningControlPlane {
  url: string;
  port: number;
  /** How its administrator reaches it (set when it serves with a PKI; otherwise just the URL). */
  connection: ClusterConnection;
  store: Store;
  api: ApiServer;
  /** karmada-search's fleet view (undefined when both search and the proxy are disabled). */
  search: FleetView | undefined;
  stop(): Promise<void>;
}

/** A startup problem the user can fix, reported as one line without a stack trace. */
export class StartupError extends Error {}

export async function startControlPlane(opts: {
  storage: string;
  host: string;
  port: number;
  log: Logger;
  /** karmada-webhook's `--default-not-ready-toleration-seconds` / `--default-unreachable-toleration-seconds`. */
  defaultTolerationSeconds?: { notReady?: number; unreachable?: number };
  /**
   * HTTPS, authentication and authorization. Without it the server is `--insecure`: plain
   * HTTP, every request the admin (benchmarks and a few explicit tests only).
   */
  security?: { tls: ServingTls; api: Partial<ApiServerOptions> };
  /** The administrator's client certificate, for `connection`. */
  admin?: { certPem: string; keyPem: string };
  /** `--advertise-address`: where clients outside reach it (default: the bind host, or the host name for a wildcard). */
  advertiseAddress?: string;
  /** karmada-search (search API, proxy) and the cluster proxy; both on by default. */
  search?: SearchOptions;
  /** `--etcd-compaction-interval` in ms (default 5 minutes; 0: never). */
  compactionIntervalMs?: number;
  /** `--max-requests-inflight` / `--max-mutating-requests-inflight` (default: no limit). */
  inflight?: InflightLimits;
  /** `--request-timeout` in ms (default one minute; 0: none). */
  requestTimeoutMs?: number;
  /** `--min-request-timeout`: a watch that names no timeoutSeconds lasts [this, 2×this) seconds (default 1800). */
  minRequestTimeoutSeconds?: number;
  /** The process's metrics registry: the API server's metrics go there, and `/metrics` serves it. */
  metrics?: MetricsRegistry;
}): Promise<RunningControlPlane> {
  let store: Store;
  try {
    store = await openStore(opts.storage);
  } catch (err) {
    throw new StartupError(`cannot open storage ${JSON.stringify(opts.storage)}: ${(err as Error).message}`);
  }
  let api: ApiServer;
  try {
    api = await ApiServer.start({
      store,
      log: opts.log,
      ...(opts.compactionIntervalMs !== undefined ? { compactionIntervalMs: opts.compactionIntervalMs } : {}),
      ...(opts.minRequestTimeoutSeconds !== undefined
        ? { watch: { minRequestTimeoutSeconds: opts.minRequestTimeoutSeconds } }
        : {}),
      ...(opts.metrics ? { metrics: opts.metrics } : {}),
      ...(opts.defaultTolerationSeconds ? { defaultTolerationSeconds: opts.defaultTolerationSeconds } : {}),
      ...(opts.security ? opts.security.api : { authorization: "AlwaysAllow" as const }),
    });
  } catch (err) {
    await store.close();
    throw err;
  }
  const aggregated = startAggregatedApis(api, opts.search ?? {}, opts.log);
  let http: Awaited<ReturnType<typeof startHttpServer>>;
  try {
    http = await startHttpServer(api.handler, {
      host: opts.host,
      port: opts.port,
      log: opts.log,
      extensions: aggregated.extensions,
      ...(api.requestMetrics ? { metrics: api.requestMetrics } : {}),
      ...(opts.inflight ? { inflight: opts.inflight } : {}),
      ...(opts.requestTimeoutMs !== undefined ? { requestTimeoutMs: opts.requestTimeoutMs } : {}),
      ...(opts.security ? { tls: opts.security.tls, authenticate: api.authenticate! } : {}),
    });
  } catch (err) {
    await aggregated.stop();
    await api.close();
    await store.close();
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === "EADDRINUSE"
        ? "the port is already in use (choose another with --port, or --port 0 for a free one)"
        : (err as Error).message;
    throw new StartupError(`cannot listen on ${opts.host}:${opts.port}: ${why}`);
  }
  const advertised =
    opts.advertiseAddress ?? (["0.0.0.0", "::"].includes(opts.host) ? hostname() : opts.host);
  api.context.externalAddress = `${advertised.includes(":") ? `[${advertised}]` : advertised}:${http.port}`;
  const connection: ClusterConnection = { server: http.url };
  if (opts.security?.api.rootCaPem) connection.caData = opts.security.api.rootCaPem;
  if (opts.admin) {
    connection.certData = opts.admin.certPem;
    connection.keyData = opts.admin.keyPem;
  }
  return {
    url: http.url,
    port: http.port,
    connection,
    store,
    api,
    search: aggregated.view,
    async stop() {
      await http.close();
      await aggregated.stop();
      await api.close();
      await store.close();
    },
  };
}

/**
 * A control plane on a free loopback port serving with `pki` (a new one by default), bootstrap
 * tokens on, its admin's connection in `connection`: what tests and benchmarks start.
 */
export async function startLocalControlPlane(
  opts: { storage?: string; log?: Logger; pki?: ClusterPki; metrics?: MetricsRegistry } = {},
): Promise<RunningControlPlane & { pki: ClusterPki }> {
  const pki = opts.pki ?? (await createClusterPki({ caName: "karmada" }));
  const cp = await startControlPlane({
    ...(opts.metrics ? { metrics: opts.metrics } : {}),
    storage: opts.storage ?? "memory:",
    host: "127.0.0.1",
    port: 0,
    log: opts.log ?? silentLogger,
    security: secureServingFrom(pki, { bootstrapTokens: true }),
    admin: pki.admin,
  });
  return { ...cp, pki };
}

/** Runs `stop` once on SIGINT/SIGTERM (or when the returned function is called), then exits. */
export function stopOnSignals(stop: () => Promise<void>, log: Logger): () => void {
  let stopping = false;
  const handler = (): void => {
    if (stopping) return;
    stopping = true;
    log.info("shutting down");
    stop().then(
      () => process.exit(0),
      (err) => {
        log.error(err, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", handler);
  process.on("SIGTERM", handler);
  return handler;
}
