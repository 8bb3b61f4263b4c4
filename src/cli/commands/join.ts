/**
 * `karmadactl join` and `unjoin`: register a cluster in Push mode (see src/cluster/register.ts
 * for what is created where), and take it out again.
 */

import { REPORTED_SECRETS, registerCluster, removeMemberCredentials } from "../../cluster/register.ts";
import { type ClientFactory, CommandError, type CommandIO } from "../io.ts";
import { checkClusterToRemove, deleteClusterObject } from "./cluster-object.ts";

export {
  clusterRoleName,
  DEFAULT_CLUSTER_NAMESPACE,
  IMPERSONATOR_SA,
  SYSTEM_LABEL,
  serviceAccountName,
} from "../../cluster/register.ts";

export interface JoinOptions {
  name: string;
  clusterKubeconfig: string;
  clusterContext?: string;
  clusterNamespace: string;
  provider?: string;
  region?: string;
  zones?: string[];
  dryRun: boolean;
  /** How long to wait for a service account's token (upstream: 30 s). */
  tokenTimeoutMs?: number;
}

export async function runJoin(opts: JoinOptions, io: CommandIO, clients: ClientFactory): Promise<void> {
  const karmada = await clients.controlPlane();
  const member = await clients.cluster(opts.clusterKubeconfig, opts.clusterContext);
  const cluster = await registerCluster(karmada, member, {
    name: opts.name,
    syncMode: "Push",
    clusterNamespace: opts.clusterNamespace,
    ...(opts.provider ? { provider: opts.provider } : {}),
    ...(opts.region ? { region: opts.region } : {}),
    ...(opts.zones ? { zones: opts.zones } : {}),
    reportSecrets: REPORTED_SECRETS,
    reregister: false,
    dryRun: opts.dryRun,
    ...(opts.tokenTimeoutMs !== undefined ? { tokenTimeoutMs: opts.tokenTimeoutMs } : {}),
  });
  if (cluster) io.stdout.write(`cluster(${opts.name}) is joined successfully\n`);
}

export interface UnjoinOptions {
  name: string;
  clusterKubeconfig?: string;
  clusterContext?: string;
  clusterNamespace: string;
  waitMs: number;
  force: boolean;
  dryRun: boolean;
}

export async function runUnjoin(opts: UnjoinOptions, _io: CommandIO, clients: ClientFactory): Promise<void> {
  const karmada = await clients.controlPlane();
  await checkClusterToRemove(karmada, opts.name, { mode: "Pull", command: "unregister" });
  if (opts.dryRun) return;
  const gone = await deleteClusterObject(karmada, opts.name, Date.now() + opts.waitMs, 500);
  if (!gone && !opts.force) {
    throw new CommandError(
      `timed out after ${opts.waitMs / 1000}s waiting for cluster ${opts.name} to be removed; rerun with a longer --wait, or --force to continue`,
    );
  }
  if (!opts.clusterKubeconfig) return;
  const member = await clients.cluster(opts.clusterKubeconfig, opts.clusterContext);
  await removeMemberCredentials(member.client, opts.name, opts.clusterNamespace, opts.force);
}
