/**
 * `karmadactl join` and `unjoin`: register a cluster in Push mode (see src/cluster/register.ts
 * for what is created where), and take it out again.
 */
import { isObject, type StoredObject } from "../../api/meta.ts";
import { RESOURCES } from "../../client/client.ts";
import { REPORTED_SECRETS, registerCluster, removeMemberCredentials } from "../../cluster/register.ts";
import { isNotFound } from "../../machinery/errors.ts";
import { type ClientFactory, CommandError, type CommandIO } from "../io.ts";

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
  let target: StoredObject;
  try {
    target = await karmada.get(RESOURCES.clusters, undefined, opts.name);
  } catch (err) {
    if (isNotFound(err))
      throw new CommandError(`no cluster object ${opts.name} found in karmada control Plane`);
    throw err;
  }
  const mode = isObject(target.spec) ? target.spec.syncMode : undefined;
  if (mode === "Pull") {
    throw new CommandError(
      `cluster ${opts.name} is a Pull mode member cluster, please use command \`unregister\` if you want to continue unregistering the cluster`,
    );
  }
  if (opts.dryRun) return;
  await karmada.delete(RESOURCES.clusters, undefined, opts.name).catch((err) => {
    if (!isNotFound(err)) throw err;
  });
  const deadline = Date.now() + opts.waitMs;
  for (;;) {
    try {
      await karmada.get(RESOURCES.clusters, undefined, opts.name);
    } catch (err) {
      if (isNotFound(err)) break;
      throw err;
    }
    if (Date.now() > deadline) {
      if (opts.force) break;
      throw new CommandError(
        `timed out after ${opts.waitMs / 1000}s waiting for cluster ${opts.name} to be removed; rerun with a longer --wait, or --force to continue`,
      );
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  if (!opts.clusterKubeconfig) return;
  const member = await clients.cluster(opts.clusterKubeconfig, opts.clusterContext);
  await removeMemberCredentials(member.client, opts.name, opts.clusterNamespace, opts.force);
}
