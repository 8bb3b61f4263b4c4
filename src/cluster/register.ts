/**
 * Registering a member cluster with the control plane, shared by `karmadactl join` (Push) and
 * `karmada agent` (Pull), as upstream's ObtainCredentialsFromMemberCluster and
 * RegisterClusterInControllerPlane share it. In the member: namespace `karmada-cluster`, the
 * impersonator service account and `karmada-<cluster>` with a cluster-admin-like
 * ClusterRole, each with a token. In the control plane: the credentials secrets, the Cluster
 * pointing at them, and the secrets owned by the Cluster.
 */
import { clusterNameErrors } from "../api/karmada/admission/cluster.ts";
import { isObject, type StoredObject } from "../api/meta.ts";
import { type Client, RESOURCES } from "../client/client.ts";
import { createIfAbsent, ensureNamespace } from "../client/ensure.ts";
import { isAlreadyExists, isNotFound } from "../machinery/errors.ts";

export const DEFAULT_CLUSTER_NAMESPACE = "karmada-cluster";
export const IMPERSONATOR_SA = "karmada-impersonator";
export const SYSTEM_LABEL = "karmada.io/system";

export function serviceAccountName(cluster: string): string {
  return `karmada-${cluster}`;
}

export function clusterRoleName(serviceAccount: string): string {
  return `karmada-controller-manager:${serviceAccount}`;
}

/** A member as its kubeconfig reaches it. */
export interface MemberAccess {
  client: Client;
  server: string;
  insecureSkipTLSVerify: boolean;
}

/** `--report-secrets`: which credentials the control plane receives. */
export type ReportedSecret = "KubeCredentials" | "KubeImpersonator";
export const REPORTED_SECRETS: readonly ReportedSecret[] = ["KubeCredentials", "KubeImpersonator"];

export interface RegisterOptions {
  name: string;
  syncMode: "Push" | "Pull";
  clusterNamespace: string;
  /** The endpoint recorded in the Cluster (default: the member kubeconfig's server). */
  apiEndpoint?: string;
  proxyURL?: string;
  provider?: string;
  region?: string;
  zones?: string[];
  reportSecrets: readonly ReportedSecret[];
  /**
   * An agent re-registering its own cluster (same name and ID) updates it; anyone else
   * finding the name or the ID taken is refused.
   */
  reregister: boolean;
  dryRun: boolean;
  /** How long to wait for a service account's token (upstream: 30 s). */
  tokenTimeoutMs?: number;
}

const b64 = (s: string): string => Buffer.from(s, "utf8").toString("base64");
const unb64 = (s: unknown): string =>
  typeof s === "string" ? Buffer.from(s, "base64").toString("utf8") : "";
const LABELS = { [SYSTEM_LABEL]: "true" };

/** A service account and its token secret in the member; resolves to the token and CA once the member filled them. */
async function serviceAccountToken(
  member: Client,
  namespace: string,
  name: string,
  timeoutMs: number,
): Promise<{ token: string; ca: string }> {
  await createIfAbsent(member, RESOURCES.serviceaccounts, {
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: { name, namespace, labels: LABELS },
  });
  await createIfAbsent(member, RESOURCES.secrets, {
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      name,
      namespace,
      labels: LABELS,
      annotations: { "kubernetes.io/service-account.name": name },
    },
    type: "kubernetes.io/service-account-token",
  });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const secret = await member.get(RESOURCES.secrets, namespace, name);
    const data = isObject(secret.data) ? secret.data : {};
    if (data.token) return { token: unb64(data.token), ca: unb64(data["ca.crt"]) };
    if (Date.now() > deadline) {
      throw new Error(
        `the member cluster did not issue a token for service account ${namespace}/${name} within ${timeoutMs / 1000}s`,
      );
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The member's identity: the UID of its kube-system namespace, as upstream's ObtainClusterID. */
export async function clusterID(member: MemberAccess): Promise<string> {
  try {
    return (await member.client.get(RESOURCES.namespaces, undefined, "kube-system")).metadata.uid;
  } catch (err) {
    throw new Error(
      `cannot read the kube-system namespace of the cluster (${member.server}): ${(err as Error).message}`,
    );
  }
}

/**
 * Registers `member` under `opts.name`; resolves to the Cluster, or to undefined on a dry
 * run. Nothing is written before the name and the ID are known to be free.
 */
export async function registerCluster(
  karmada: Client,
  member: MemberAccess,
  opts: RegisterOptions,
): Promise<StoredObject | undefined> {
  // Checked before any request: a name the control plane would refuse must not leave the
  // service account and RBAC behind in the member.
  const nameErrors = clusterNameErrors(opts.name);
  if (nameErrors.length > 0) throw new Error(`invalid cluster name(${opts.name}): ${nameErrors.join(";")}`);
  const id = await clusterID(member);
  const existing = await karmada.list(RESOURCES.clusters, undefined);
  const idOf = (c: StoredObject) => (isObject(c.spec) ? c.spec.id : undefined);
  const same = existing.items.some((c) => c.metadata.name === opts.name && idOf(c) === id);
  const clash = existing.items.some((c) => c.metadata.name === opts.name || idOf(c) === id);
  if (clash && !(opts.reregister && same)) {
    throw new Error(`the cluster ID ${id} or the cluster name ${opts.name} has been registered`);
  }
  if (opts.dryRun) return undefined;

  const ns = opts.clusterNamespace;
  const credentials = opts.reportSecrets.includes("KubeCredentials");
  const impersonation = opts.reportSecrets.includes("KubeImpersonator");
  const namespace = { apiVersion: "v1", kind: "Namespace", metadata: { name: ns, labels: LABELS } };
  await ensureNamespace(member.client, namespace);
  const timeout = opts.tokenTimeoutMs ?? 30_000;
  const impersonator = impersonation
    ? await serviceAccountToken(member.client, ns, IMPERSONATOR_SA, timeout)
    : undefined;
  let token: { token: string; ca: string } | undefined;
  if (credentials) {
    const sa = serviceAccountName(opts.name);
    const role = clusterRoleName(sa);
    await createIfAbsent(member.client, RESOURCES.clusterroles, {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: role, labels: LABELS },
      rules: [
        { apiGroups: ["*"], resources: ["*"], verbs: ["*"] },
        { nonResourceURLs: ["*"], verbs: ["get"] },
      ],
    });
    await createIfAbsent(member.client, RESOURCES.clusterrolebindings, {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name: role, labels: LABELS },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role },
      subjects: [{ kind: "ServiceAccount", name: sa, namespace: ns }],
    });
    token = await serviceAccountToken(member.client, ns, sa, timeout);
  }

  await ensureNamespace(karmada, namespace);
  const secretData = (data: Record<string, string>) =>
    Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)]));
  const secrets: StoredObject[] = [];
  const spec: Record<string, unknown> = {
    id,
    syncMode: opts.syncMode,
    apiEndpoint: opts.apiEndpoint || member.server,
  };
  if (impersonator) {
    const name = `${opts.name}-impersonator`;
    secrets.push(await upsertSecret(karmada, ns, name, secretData({ token: impersonator.token })));
    spec.impersonatorSecretRef = { namespace: ns, name };
  }
  if (token) {
    secrets.push(
      await upsertSecret(karmada, ns, opts.name, secretData({ caBundle: token.ca, token: token.token })),
    );
    spec.secretRef = { namespace: ns, name: opts.name };
  }
  if (member.insecureSkipTLSVerify) spec.insecureSkipTLSVerification = true;
  if (opts.proxyURL) spec.proxyURL = opts.proxyURL;
  if (opts.provider) spec.provider = opts.provider;
  if (opts.region) spec.region = opts.region;
  if (opts.zones?.length) spec.zones = opts.zones;
  // An agent re-registering changes its Cluster only when the spec differs, as upstream's
  // (its RBAC has no update on clusters: a changed endpoint needs an administrator).
  const current = same ? existing.items.find((c) => c.metadata.name === opts.name)! : undefined;
  const currentSpec = current && isObject(current.spec) ? current.spec : {};
  const changed = Object.entries(spec).some(([k, v]) => JSON.stringify(currentSpec[k]) !== JSON.stringify(v));
  const cluster = current
    ? changed
      ? await karmada.patch(RESOURCES.clusters, undefined, opts.name, "merge", { spec })
      : current
    : await karmada.create(RESOURCES.clusters, {
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
    uid: cluster.metadata.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
  for (const secret of secrets) {
    await karmada.patch(RESOURCES.secrets, ns, secret.metadata.name, "merge", {
      metadata: { ownerReferences: [owner] },
    });
  }
  return cluster;
}

async function upsertSecret(
  client: Client,
  namespace: string,
  name: string,
  data: Record<string, string>,
): Promise<StoredObject> {
  try {
    return await client.create(RESOURCES.secrets, {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name, namespace, labels: LABELS },
      data,
    });
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
    return client.patch(RESOURCES.secrets, namespace, name, "merge", { metadata: { labels: LABELS }, data });
  }
}

/** Removes what registration created in the member; with `force`, errors other than NotFound are ignored too. */
export async function removeMemberCredentials(
  member: Client,
  name: string,
  clusterNamespace: string,
  force: boolean,
): Promise<void> {
  const sa = serviceAccountName(name);
  const role = clusterRoleName(sa);
  const gone = (p: Promise<unknown>): Promise<void> =>
    p.then(
      () => undefined,
      (err) => {
        if (!isNotFound(err) && !force) throw err;
      },
    );
  await gone(member.delete(RESOURCES.clusterrolebindings, undefined, role));
  await gone(member.delete(RESOURCES.clusterroles, undefined, role));
  await gone(member.delete(RESOURCES.serviceaccounts, clusterNamespace, sa));
  await gone(member.delete(RESOURCES.serviceaccounts, clusterNamespace, IMPERSONATOR_SA));
  await gone(member.delete(RESOURCES.namespaces, undefined, clusterNamespace));
}
