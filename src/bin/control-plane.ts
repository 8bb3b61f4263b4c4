/**
 * Starting and stopping the API server process parts, shared by `karmada apiserver` and
 * `karmada up`.
 */
import { startHttpServer } from "../apiserver/http.ts";
import { ApiServer } from "../apiserver/server.ts";
import type { Logger } from "../log.ts";
import { openStore } from "../storage/open.ts";
import type { Store } from "../storage/store.ts";

export interface RunningControlPlane {
  url: string;
  port: number;
  store: Store;
  api: ApiServer;
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
}): Promise<RunningControlPlane> {
  let store: Store;
  try {
    store = await openStore(opts.storage);
  } catch (err) {
    throw new StartupError(`cannot open storage ${JSON.stringify(opts.storage)}: ${(err as Error).message}`);
  }
  const api = await ApiServer.start({
    store,
    log: opts.log,
    ...(opts.defaultTolerationSeconds ? { defaultTolerationSeconds: opts.defaultTolerationSeconds } : {}),
  });
  let http: Awaited<ReturnType<typeof startHttpServer>>;
  try {
    http = await startHttpServer(api.handler, { host: opts.host, port: opts.port, log: opts.log });
  } catch (err) {
    await api.close();
    await store.close();
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === "EADDRINUSE"
        ? "the port is already in use (choose another with --port, or --port 0 for a free one)"
        : (err as Error).message;
    throw new StartupError(`cannot listen on ${opts.host}:${opts.port}: ${why}`);
  }
  return {
    url: http.url,
    port: http.port,
    store,
    api,
    async stop() {
      await http.close();
      await api.close();
      await store.close();
    },
  };
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
