/**
 * The controller manager as a component: the enabled controllers run only while this
 * candidate holds the `karmada-system/karmada-controller-manager` Lease (upstream's lock), so
 * several replicas can run against one control plane and exactly one acts. Used by
 * `karmada controller-manager` (HTTP client from a kubeconfig), `karmada up` (in-process) and,
 * with the agent's controllers and lock, by `karmada agent`.
 */
import type { Client } from "../client/client.ts";
import { type MemberConnections, memberConnections } from "../cluster/connections.ts";
import type { ControllerOptions } from "../controllers/context.ts";
import {
  type ControllerRegistry,
  type RunningControllerManager,
  startControllerManager,
} from "../controllers/index.ts";
import type { Logger } from "../log.ts";
import type { Registry } from "../metrics/registry.ts";
import { type Elected, type LeaderElectionFlags, runElected } from "../runtime/leader.ts";
import { LEADER_ELECTION_OPTIONS } from "../runtime/leader-options.ts";
import { defaultsOf } from "../runtime/options.ts";

export type { LeaderElectionFlags } from "../runtime/leader.ts";

/** The scheduler's lock, as upstream's karmada-scheduler names it. */
export const SCHEDULER_LEASE = "karmada-scheduler";

/** The flags' defaults (declared once, in the table) and the controller manager's Lease. */
export const DEFAULT_LEADER_ELECTION: LeaderElectionFlags = {
  ...defaultsOf(LEADER_ELECTION_OPTIONS),
  name: "karmada-controller-manager",
};

export interface ElectedControllerManagerOptions {
  client: Client;
  /**
   * The client that renews the Lease (default: `client`). As upstream's components, a process
   * gives it its own connection and concurrency: behind a backlog of controller requests a
   * renewal would miss its deadline and the process would exit.
   */
  leaderElectionClient?: Client;
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
  /** The process's metrics registry (controllers, work queues, member clients, leader election). */
  metrics?: Registry;
}

export interface ElectedControllerManager extends Elected {
  /** The running manager while leading (tests look at its informers). */
  manager(): RunningControllerManager | undefined;
}

export function startElectedControllerManager(
  opts: ElectedControllerManagerOptions,
): ElectedControllerManager {
  let manager: RunningControllerManager | undefined;
  const elected = runElected({
    client: opts.leaderElectionClient ?? opts.client,
    log: opts.log,
    leaderElection: opts.leaderElection,
    ...(opts.onLost ? { onLost: opts.onLost } : {}),
    ...(opts.metrics ? { metrics: opts.metrics } : {}),
    start: () => {
      const members =
        opts.members?.() ??
        memberConnections({
          controlPlane: opts.client,
          watchSecrets: true,
          ...(opts.metrics ? { metrics: opts.metrics } : {}),
        });
      const running = startControllerManager({
        client: opts.client,
        members,
        log: opts.log,
        controllers: opts.controllers,
        ...(opts.metrics ? { metrics: opts.metrics } : {}),
        ...(opts.registry ? { registry: opts.registry } : {}),
        ...(opts.options ? { options: opts.options } : {}),
      });
      manager = running;
      return () => {
        running.stop();
        members.close();
        manager = undefined;
      };
    },
  });
  return { ...elected, manager: () => manager };
}
