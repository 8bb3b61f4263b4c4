/**
 * `karmadactl join`: register a cluster in Push mode. In the member: namespace
 * `karmada-cluster`, the impersonator service account and `karmada-<cluster>` with a
 * cluster-admin-like ClusterRole, each with a token; in the control plane: the credentials
 * secrets and the Cluster object pointing at them.
 */
import { clusterNameErrors } from "../../api/karmada/admission/cluster.ts";
import { isObject, type StoredObject } from "../../api/meta.ts";
import { type Client, RESOURCES } from "../../client/client.ts";
import { isAlreadyExists, isNotFound } from "../../machinery/errors.ts";
import { type ClientFactory, CommandError, type CommandIO } from "../io.ts";

export const DEFAULT_CLUSTER_NAMESPACE = "karmada-cluster";
export const IMPERSONATOR_SA = "karmada-impersonator";
export const SYSTEM_LABEL = "karmada.io/system";

export function serviceAccountName(cluster: string): string {
  return `karmada-${cluster}`;
}

export function clusterRoleName(serviceAccount: string): string {
  return `karmada-controller-manager:${serviceAccount}`;
}

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

const b64 = (s: string): string => Buffer.from(s, "utf8").toString("base64");
const unb64 = (s: unknown): string =>
  typeof s === "string" ? Buffer.from(s, "base64").toString("utf8") : "";

async function ensure(
  client: Client,
  res: Parameters<Client["create"]>[0],
  obj: Record<string, unknown>,
): Promise<void> {
  try {
    await client.create(res, obj);
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
}

/** A service account and its token secret in the member; resolves to the token and CA once the member filled them. */
async function serviceAccountToken(
  member: Client,
  namespace: string,
  name: string,
  timeoutMs: number,
): Promise<{ token: string; ca: string }> {
  const labels = { [SYSTEM_LABEL]: "true" };
  await ensure(member, RESOURCES.serviceaccounts, {
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: { name, namespace, labels },
  });
  await ensure(member, RESOURCES.secrets, {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name, namespace, labels, annotations: { "kubernetes.io/service-account.name": name } },
    type: "kubernetes.io/service-account-token",
  });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const secret = await member.get(RESOURCES.secrets, namespace, name);
    const data = isObject(secret.data) ? secret.data : {};
    if (data.token) return { token: unb64(data.token), ca: unb64(data["ca.crt"]) };
    if (Date.now() > deadline) {
      throw new CommandError(
        `the member cluster did not issue a token for service account ${namespace}/${name} within ${timeoutMs / 1000}s`,
      );
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

export async function runJoin(opts: JoinOptions, io: CommandIO, clients: ClientFactory): Promise<void> {
  // Checked before any request: a name the control plane would refuse must not leave the
  // service account and RBAC behind in the member.
  const nameErrors = clusterNameErrors(opts.name);
  if (nameErrors.length > 0) {
    throw new CommandError(`invalid cluster name(${opts.name}): ${nameErrors.join(";")}`);
  }
  const karmada = await clients.controlPlane();
  const member = await clients.cluster(opts.clusterKubeconfig, opts.clusterContext);
  let clusterID: string;
  try {
    clusterID = (await member.client.get(RESOURCES.namespaces, undefined, "kube-system")).metadata.uid!;
  } catch (err) {
    throw new CommandError(
      `cannot read the kube-system namespace of the joining cluster (${member.server}): ${(err as Error).message}`,
    );
  }
  const existing = await karmada.list(RESOURCES.clusters, undefined);
  const clash = existing.items.find(
    (c) => c.metadata.name === opts.name || (isObject(c.spec) && c.spec.id === clusterID),
  );
  if (clash)
    throw new CommandError(
      `the cluster ID ${clusterID} or the cluster name ${opts.name} has been registered`,
    );
  if (opts.dryRun) return;

  const ns = opts.clusterNamespace;
  const labels = { [SYSTEM_LABEL]: "true" };
  await ensure(member.client, RESOURCES.namespaces, {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: ns, labels },
  });
  const timeout = opts.tokenTimeoutMs ?? 30_000;
  const impersonator = await serviceAccountToken(member.client, ns, IMPERSONATOR_SA, timeout);
  const sa = serviceAccountName(opts.name);
  const role = clusterRoleName(sa);
  await ensure(member.client, RESOURCES.clusterroles, {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRole",
    metadata: { name: role, labels },
    rules: [
      { apiGroups: ["*"], resources: ["*"], verbs: ["*"] },
      { nonResourceURLs: ["*"], verbs: ["get"] },
    ],
  });
  await ensure(member.client, RESOURCES.clusterrolebindings, {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name: role, labels },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role },
    subjects: [{ kind: "ServiceAccount", name: sa, namespace: ns }],
  });
  const credentials = await serviceAccountToken(member.client, ns, sa, timeout);

  await ensure(karmada, RESOURCES.namespaces, {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: ns, labels },
  });
  const secretData = (data: Record<string, string>) =>
    Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)]));
  const impersonatorSecret = await upsertSecret(
    karmada,
    ns,
    `${opts.name}-impersonator`,
    labels,
    secretData({ token: impersonator.token }),
  );
  const credentialsSecret = await upsertSecret(
    karmada,
    ns,
    opts.name,
    labels,
    secretData({ caBundle: credentials.ca, token: credentials.token }),
  );

  const spec: Record<string, unknown> = {
    id: clusterID,
    syncMode: "Push",
    apiEndpoint: member.server,
    secretRef: { namespace: ns, name: opts.name },
    impersonatorSecretRef: { namespace: ns, name: `${opts.name}-impersonator` },
  };
  if (member.insecureSkipTLSVerify) spec.insecureSkipTLSVerification = true;
  if (opts.provider) spec.provider = opts.provider;
  if (opts.region) spec.region = opts.region;
  if (opts.zones?.length) spec.zones = opts.zones;
  const cluster = await karmada.create(RESOURCES.clusters, {
    apiVersion: "cluster.karmada.io/v1alpha1",
    kind: "Cluster",
    metadata: { name: opts.name },
    spec,
  });

  // The secrets go with the Cluster (a controller reference, as upstream's NewControllerRef).
  const owner = {
    apiVersion: "cluster.karmada.io/v1alpha1",
    kind: "Cluster",
    name: opts.name,
    uid: cluster.metadata.uid!,
    controller: true,
    blockOwnerDeletion: true,
  };
  for (const secret of [credentialsSecret, impersonatorSecret]) {
    await karmada.patch(RESOURCES.secrets, ns, secret.metadata.name!, "merge", {
      metadata: { ownerReferences: [owner] },
    });
  }
  io.stdout.write(`cluster(${opts.name}) is joined successfully\n`);
}

async function upsertSecret(
  client: Client,
  namespace: string,
  name: string,
  labels: Record<string, string>,
  data: Record<string, string>,
): Promise<StoredObject> {
  try {
    return await client.create(RESOURCES.secrets, {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name, namespace, labels },
      data,
    });
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
    return client.patch(RESOURCES.secrets, namespace, name, "merge", { metadata: { labels }, data });
  }
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
  const sa = serviceAccountName(opts.name);
  const role = clusterRoleName(sa);
  const gone = (p: Promise<unknown>): Promise<void> =>
    p.then(
      () => undefined,
      (err) => {
        if (!isNotFound(err) && !opts.force) throw err;
      },
    );
  await gone(member.client.delete(RESOURCES.clusterrolebindings, undefined, role));
  await gone(member.client.delete(RESOURCES.clusterroles, undefined, role));
  await gone(member.client.delete(RESOURCES.serviceaccounts, opts.clusterNamespace, sa));
  await gone(member.client.delete(RESOURCES.serviceaccounts, opts.clusterNamespace, IMPERSONATOR_SA));
  await gone(member.client.delete(RESOURCES.namespaces, undefined, opts.clusterNamespace));
}
