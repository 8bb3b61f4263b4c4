/**
 * The controller manager as a component: the enabled controllers run only while this
 * candidate holds the `karmada-system/karmada-controller-manager` Lease (upstream's lock), so
 * several replicas can run against one control plane and exactly one acts. Used by
 * `karmada controller-manager` (HTTP client from a kubeconfig), `karmada up` (in-process) and,
 * with the agent's controllers and lock, by `karmada agent`.
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { Client } from "../client/client.ts";
import type { ControllerOptions, MemberConnections } from "../controllers/context.ts";
import {
  type ControllerRegistry,
  type RunningControllerManager,
  startControllerManager,
} from "../controllers/index.ts";
import { memberConnections } from "../controllers/members.ts";
import type { Logger } from "../log.ts";
import { LeaderElector } from "../runtime/leader.ts";

export interface LeaderElectionFlags {
  /** `--leader-elect` (true). Without it the controllers start at once. */
  enabled: boolean;
  /** `--leader-elect-resource-namespace` (karmada-system). */
  namespace: string;
  /** `--leader-elect-resource-name` (karmada-controller-manager). */
  name: string;
  /** `--leader-elect-lease-duration` (15s), `--leader-elect-renew-deadline` (10s), `--leader-elect-retry-period` (2s). */
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  /** Defaults to `<hostname>_<random>`, as upstream. A stable identity takes its own Lease back at once. */
  identity?: string;
}

/** The scheduler's lock, as upstream's karmada-scheduler names it. */
export const SCHEDULER_LEASE = "karmada-scheduler";

export const DEFAULT_LEADER_ELECTION: LeaderElectionFlags = {
  enabled: true,
  namespace: "karmada-system",
  name: "karmada-controller-manager",
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
};

export interface ElectedControllerManagerOptions {
  client: Client;
  log: Logger;
  controllers: string[];
  options?: Partial<ControllerOptions>;
  leaderElection: LeaderElectionFlags;
  /** Leadership was lost (not by `stop()`); the process should exit, as upstream's does. */
  onLost?: () => void;
  /** Which controllers exist (default: the controller manager's; the agent passes its own). */
  registry?: ControllerRegistry;
  /** How members are reached (default: from each Cluster's endpoint and credentials secret). */
  members?: () => MemberConnections & { close(): void };
}

export interface ElectedControllerManager {
  readonly identity: string;
  /** True while this replica runs the controllers. */
  leading(): boolean;
  /** The running manager while leading (tests look at its informers). */
  manager(): RunningControllerManager | undefined;
  /** Stops the controllers, then hands the Lease back so a standby takes over at once. */
  stop(): Promise<void>;
}

export function startElectedControllerManager(
  opts: ElectedControllerManagerOptions,
): ElectedControllerManager {
  const le = opts.leaderElection;
  const identity = le.identity ?? `${hostname()}_${randomBytes(8).toString("hex")}`;
  let running: { manager: RunningControllerManager; close(): void } | undefined;
  let stopping = false;

  const startControllers = (): void => {
    const members = opts.members?.() ?? memberConnections({ controlPlane: opts.client });
    const manager = startControllerManager({
      client: opts.client,
      members,
      log: opts.log,
      controllers: opts.controllers,
      ...(opts.registry ? { registry: opts.registry } : {}),
      ...(opts.options ? { options: opts.options } : {}),
    });
    running = { manager, close: () => members.close() };
  };
  const stopControllers = (): void => {
    running?.manager.stop();
    running?.close();
    running = undefined;
  };

  if (!le.enabled) {
    startControllers();
    return {
      identity,
      leading: () => running !== undefined,
      manager: () => running?.manager,
      async stop() {
        stopControllers();
      },
    };
  }

  const elector = new LeaderElector({
    client: opts.client,
    namespace: le.namespace,
    name: le.name,
    identity,
    leaseDurationMs: le.leaseDurationMs,
    renewDeadlineMs: le.renewDeadlineMs,
    retryPeriodMs: le.retryPeriodMs,
    releaseOnCancel: true,
    log: opts.log.child({ component: "leader-election" }),
    onStartedLeading: () => {
      opts.log.info("started leading", { identity });
      startControllers();
    },
    onStoppedLeading: () => {
      stopControllers();
      if (!stopping) {
        opts.log.error(new Error("leader election lost"), "stopped leading", { identity });
        opts.onLost?.();
      }
    },
    onNewLeader: (holder) => {
      if (holder !== identity) opts.log.info("new leader elected", { leader: holder });
    },
  }).start();

  return {
    identity,
    leading: () => running !== undefined,
    manager: () => running?.manager,
    async stop() {
      stopping = true;
      // The controllers stop first so that nothing of ours writes after the Lease is released.
      stopControllers();
      await elector.stop();
    },
  };
}
