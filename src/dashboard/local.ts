/**
 * The dashboard `karmada up` runs: on loopback, as the local admin (like `kubectl proxy`), on
 * the port asked for, or on a free one when that port is taken (up says so rather than fail).
 */
import type { ClusterConnection } from "../client/http.ts";
import type { Logger } from "../log.ts";
import { type RunningDashboard, startDashboard } from "./server.ts";

export interface LocalDashboard {
  dashboard: RunningDashboard;
  /** Set when the asked port was taken and another was used. */
  note?: string;
}

export async function startLocalDashboard(opts: {
  connection: ClusterConnection;
  port: number;
  log: Logger;
}): Promise<LocalDashboard> {
  const start = (port: number) =>
    startDashboard({ connection: opts.connection, mode: "local", host: "127.0.0.1", port, log: opts.log });
  try {
    return { dashboard: await start(opts.port) };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EADDRINUSE" || opts.port === 0) throw err;
    const dashboard = await start(0);
    return {
      dashboard,
      note: `port ${opts.port} is in use, so the dashboard took port ${dashboard.port} (--dashboard-port to choose)`,
    };
  }
}
