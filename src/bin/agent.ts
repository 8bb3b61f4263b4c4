/**
 * The agent of a Pull-mode member, as upstream's karmada-agent: it registers its cluster with
 * the control plane (a Cluster in Pull mode, plus credentials secrets unless
 * `--report-secrets None`), then, while it holds `karmada-system/karmada-agent-<cluster>` in
 * the control plane, runs the agent's controllers for that cluster: its status, and the Lease
 * the control plane's cluster-monitor watches. Used by `karmada agent` and by `karmada up` for
 * its last member.
 */
import type { Client } from "../client/client.ts";
import type { ClusterConnection } from "../client/http.ts";
import { openMemberConnection, ownMemberConnections } from "../cluster/connections.ts";
import { type MemberAccess, type RegisterOptions, registerCluster } from "../cluster/register.ts";
import type { ControllerOptions } from "../controllers/context.ts";
import { agentControllers } from "../controllers/index.ts";
import type { Logger } from "../log.ts";
import type { Registry } from "../metrics/registry.ts";
import {
  type ElectedControllerManager,
  type LeaderElectionFlags,
  startElectedControllerManager,
} from "./controller-manager.ts";

export interface AgentOptions {
  /** The control plane (`--karmada-kubeconfig`). */
  karmada: Client;
  /** The control plane again, on its own connection, for the leader Lease (default: `karmada`). */
  leaderElectionClient?: Client;
  /** The member (`--kubeconfig`): a client for registration and the settings the controllers connect with. */
  member: MemberAccess & { settings: ClusterConnection };
  register: Omit<RegisterOptions, "syncMode" | "reregister" | "dryRun">;
  controllers: string[];
  options?: Partial<ControllerOptions>;
  /** The lock's name is always `karmada-agent-<cluster>`, as upstream's. */
  leaderElection: Omit<LeaderElectionFlags, "name">;
  log: Logger;
  onLost?: () => void;
  /** The process's metrics registry. */
  metrics?: Registry;
}

export function agentLeaseName(cluster: string): string {
  return `karmada-agent-${cluster}`;
}

export async function startAgent(opts: AgentOptions): Promise<ElectedControllerManager> {
  const name = opts.register.name;
  // Registration comes first and once, as upstream's; every replica does it (it is idempotent).
  await registerCluster(opts.karmada, opts.member, {
    ...opts.register,
    syncMode: "Pull",
    reregister: true,
    dryRun: false,
  });
  opts.log.info("registered with the control plane", { cluster: name, mode: "Pull" });
  return startElectedControllerManager({
    client: opts.karmada,
    log: opts.log,
    controllers: opts.controllers,
    ...(opts.options ? { options: opts.options } : {}),
    leaderElection: { ...opts.leaderElection, name: agentLeaseName(name) },
    registry: agentControllers(name),
    ...(opts.leaderElectionClient ? { leaderElectionClient: opts.leaderElectionClient } : {}),
    members: () =>
      ownMemberConnections(name, (onRecovered) =>
        openMemberConnection(opts.member.settings, {
          maxConcurrent: 16,
          timeoutMs: 10_000,
          userAgent: "karmada-agent",
          metrics: opts.metrics,
          onRecovered,
        }),
      ),
    ...(opts.onLost ? { onLost: opts.onLost } : {}),
    ...(opts.metrics ? { metrics: opts.metrics } : {}),
  });
}
