/**
 * `karmadactl register <endpoint>`: a Pull cluster joins through TLS bootstrap, step by step
 * as upstream's (see docs/adr/0010-security.md for where we differ):
 * 1. preflight in the member (no agent Secret, ServiceAccount or Deployment yet);
 * 2. discovery: `kube-public/cluster-info` read anonymously without verifying TLS, its JWS
 *    for the token checked, its CA checked against `--discovery-token-ca-cert-hash`, then read
 *    again over verified TLS and compared;
 * 3. with the bootstrap token, a CSR for the rbac-generator identity; with that certificate,
 *    the agent's RBAC in the control plane (its ClusterRole, its Secrets' Role, its Works'
 *    Role), then the request is deleted;
 * 4. with the bootstrap token, the agent's own CSR (`system:karmada:agent:<cluster>`);
 * 5. in the member: namespace, Secret `karmada-kubeconfig`, RBAC, ServiceAccount and the
 *    `karmada-agent` Deployment, waited for until rolled out.
 * A failure after step 3 began removes the RBAC it created.
 */

import YAML from "yaml";
import {
  CLUSTER_INFO_NAME,
  CLUSTER_INFO_NAMESPACE,
  JWS_KEY_PREFIX,
  TOKEN_PATTERN,
} from "../../api/bootstrap-token.ts";
import { clusterNameErrors } from "../../api/karmada/admission/cluster.ts";
import { isObject, type NewObject, type StoredObject } from "../../api/meta.ts";
import { bindingObject, roleObject } from "../../apiserver/authz/bootstrap-policy.ts";
import { type Client, RESOURCES } from "../../client/client.ts";
import { createIfAbsent, createOrReplace, ensureNamespace } from "../../client/ensure.ts";
import { HttpClient, pemOf } from "../../client/http.ts";
import { httpClientFor, loadKubeconfig, renderKubeconfig } from "../../client/kubeconfig.ts";
import { KARMADA_KUBECONFIG_SECRET } from "../../cluster/agent-credentials.ts";
import { requestClientCertificate } from "../../cluster/csr.ts";
import { clusterRoleName, IMPERSONATOR_SA, serviceAccountName } from "../../cluster/register.ts";
import { executionSpace, LABEL, randomSuffix } from "../../karmada/names.ts";
import {
  AGENTS_GROUP,
  agentPolicy,
  agentRbacNames,
  agentUser,
  RBAC_GENERATOR_USER,
} from "../../karmada/rbac.ts";
import { KARMADA } from "../../karmada/resources.ts";
import { errorMessage, isNotFound } from "../../machinery/errors.ts";
import { verifyBootstrapSignature } from "../../pki/jws.ts";
import { pemBlocks, publicKeyPin } from "../../pki/x509.ts";
import { CommandError, type CommandIO } from "../io.ts";
import { checkClusterToRemove, deleteClusterObject } from "./cluster-object.ts";

export const AGENT_SERVICE_ACCOUNT = "karmada-agent-sa";
export const AGENT_NAME = "karmada-agent";
/** The image of this project (see the Dockerfile); `karmada agent` is its `/bin/karmada-agent`. */
export const DEFAULT_AGENT_IMAGE = "karmada-ts/karmada:v0.1.0";
const SYSTEM_LABELS = { [LABEL.system]: "true" };
const DISCOVERY_RETRY_MS = 5_000;
const CSR_POLL_MS = 1_000;

export interface RegisterCommandOptions {
  /** `host:port` of the Karmada API server. */
  endpoint: string;
  token: string;
  caCertHashes: string[];
  unsafeSkipCaVerification: boolean;
  clusterName: string;
  /** The member as its kubeconfig reaches it. */
  member: { client: Client; server: string };
  namespace: string;
  clusterNamespace: string;
  clusterProvider?: string;
  clusterRegion?: string;
  clusterZones?: string[];
  enableCertRotation: boolean;
  discoveryTimeoutMs: number;
  agentImage: string;
  agentReplicas: number;
  certExpirationSeconds: number;
  dryRun: boolean;
  proxyServerAddress?: string;
  /** Tests shorten the discovery retry (5 s as upstream). */
  discoveryRetryMs?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Go's encoding/hex error for a string, or undefined when it decodes. */
function goHexError(hex: string): string | undefined {
  const bad = [...hex].find((c) => !/[0-9a-fA-F]/.test(c));
  if (bad) {
    const code = bad.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
    return `encoding/hex: invalid byte: U+${code} ${JSON.stringify(bad).replaceAll('"', "'")}`;
  }
  return hex.length % 2 === 1 ? "encoding/hex: odd length hex string" : undefined;
}

/** `sha256:<hex>` pins, checked and lower-cased as kubeadm reads them. */
export function parsePins(hashes: readonly string[]): string[] {
  return hashes.map((h) => {
    const parts = h.split(":");
    if (parts.length !== 2) {
      throw new CommandError(
        'invalid discovery token CA certificate hash: invalid hash, expected "format:hex-value". Known format(s) are: sha256',
      );
    }
    const [format, hex] = parts as [string, string];
    if (format.toLowerCase() !== "sha256") {
      throw new CommandError(
        `invalid discovery token CA certificate hash: unknown hash format "${format}". Known format(s) are: sha256`,
      );
    }
    // Go: the length is checked in whole bytes first, then the hex decoded.
    if (Math.floor(hex.length / 2) !== 32) {
      throw new CommandError(
        `invalid discovery token CA certificate hash: invalid hash "${h}", expected a 32 byte SHA-256 hash, found ${Math.floor(hex.length / 2)} bytes`,
      );
    }
    const hexError = goHexError(hex);
    if (hexError) {
      throw new CommandError(
        `invalid discovery token CA certificate hash: invalid hash "${h}", could not decode SHA-256 from hex, err: ${hexError}`,
      );
    }
    return `sha256:${hex.toLowerCase()}`;
  });
}

/** Reads `cluster-info` until it carries this token's signature (or the time is up). */
async function fetchClusterInfo(
  client: HttpClient,
  tokenId: string,
  deadline: number,
  retryMs: number,
): Promise<Record<string, string>> {
  let last = "";
  for (;;) {
    try {
      const cm = await client.get(RESOURCES.configmaps, CLUSTER_INFO_NAMESPACE, CLUSTER_INFO_NAME);
      const data = (isObject(cm.data) ? cm.data : {}) as Record<string, string>;
      if (data[`${JWS_KEY_PREFIX}${tokenId}`]) return data;
      last = `could not find a JWS signature in the cluster-info ConfigMap for token ID "${tokenId}"`;
    } catch (err) {
      last = errorMessage(err);
    }
    if (Date.now() + retryMs > deadline) throw new CommandError(last);
    await sleep(retryMs);
  }
}

/**
 * Discovery and TLS bootstrap trust (kubeadm's token discovery): returns the control plane's
 * CA, pinned or (with unsafe skip and no pins) taken on trust.
 */
export async function discoverControlPlane(opts: {
  endpoint: string;
  token: string;
  pins: string[];
  timeoutMs: number;
  retryMs?: number;
}): Promise<{ caPem: string }> {
  const m = TOKEN_PATTERN.exec(opts.token);
  if (!m) {
    throw new CommandError(
      `the bootstrap token "${opts.token}" was not of the form "\\\\A([a-z0-9]{6})\\\\.([a-z0-9]{16})\\\\z"`,
    );
  }
  const [, id, secret] = m as unknown as [string, string, string];
  const server = `https://${opts.endpoint}`;
  const deadline = Date.now() + opts.timeoutMs;
  const retry = opts.retryMs ?? DISCOVERY_RETRY_MS;
  const insecure = new HttpClient({
    server,
    insecureSkipTLSVerify: true,
    timeoutMs: 10_000,
    userAgent: "karmadactl",
  });
  let data: Record<string, string>;
  try {
    data = await fetchClusterInfo(insecure, id, deadline, retry);
  } finally {
    insecure.close();
  }
  const kubeconfig = data.kubeconfig;
  if (!kubeconfig) {
    throw new CommandError(
      "there is no kubeconfig key in the cluster-info ConfigMap. This API Server isn't set up for token bootstrapping, can't connect",
    );
  }
  const signature = data[`${JWS_KEY_PREFIX}${id}`];
  if (!signature) {
    throw new CommandError(
      `token id "${id}" is invalid for this cluster or it has expired. Use "karmadactl token create" on the karmada-control-plane to create a new valid token`,
    );
  }
  if (!verifyBootstrapSignature(kubeconfig, signature, id, secret)) {
    throw new CommandError(
      "failed to verify JWS signature of received cluster info object, can't trust this API Server",
    );
  }
  let doc: { clusters?: Array<{ cluster?: Record<string, unknown> }> };
  try {
    doc = YAML.parse(kubeconfig) ?? {};
  } catch (err) {
    throw new CommandError(
      `couldn't parse the kubeconfig file in the cluster-info ConfigMap: ${(err as Error).message}`,
    );
  }
  const clusters = Array.isArray(doc.clusters) ? doc.clusters : [];
  if (clusters.length !== 1) {
    throw new CommandError(
      `expected the kubeconfig file in the cluster-info ConfigMap to have a single cluster, but it had ${clusters.length}`,
    );
  }
  const caData = clusters[0]?.cluster?.["certificate-authority-data"];
  if (typeof caData !== "string" || caData === "") {
    throw new CommandError(
      "failed to parse cluster CA from the cluster-info ConfigMap: it has no certificate-authority-data",
    );
  }
  const caPem = pemOf(caData);
  if (opts.pins.length > 0) {
    const found = pemBlocks(caPem).map((c) => publicKeyPin(c));
    if (!found.some((p) => opts.pins.includes(p))) {
      throw new CommandError(
        `cluster CA found in cluster-info ConfigMap is invalid: none of the public keys "${found.join(":")}" are pinned`,
      );
    }
  }
  // Read again, now trusting the CA: a man in the middle could not have answered both.
  const verified = new HttpClient({ server, caData: caPem, timeoutMs: 10_000, userAgent: "karmadactl" });
  try {
    const again = await fetchClusterInfo(verified, id, deadline, retry);
    if (again.kubeconfig !== kubeconfig) {
      throw new CommandError(
        "the second kubeconfig from the cluster-info ConfigMap (using validated TLS) was different from the first",
      );
    }
  } finally {
    verified.close();
  }
  return { caPem };
}

/** What both of register's certificate requests share: lifetime, labels, the time left. */
function csrTerms(opts: { certExpirationSeconds: number }, deadline: number) {
  return {
    expirationSeconds: opts.certExpirationSeconds,
    labels: SYSTEM_LABELS,
    timeoutMs: deadline - Date.now(),
    pollMs: CSR_POLL_MS,
  };
}

/** The kubeconfig the agent uses: the control plane at the endpoint, with its certificate. */
export function agentKubeconfig(
  endpoint: string,
  caPem: string,
  cluster: string,
  cert: { certPem: string; keyPem: string },
): string {
  const context = `${cluster}@karmada-apiserver`;
  return renderKubeconfig({
    clusters: [{ name: "karmada-apiserver", server: `https://${endpoint}`, caData: caPem }],
    users: [{ name: cluster, certData: cert.certPem, keyData: cert.keyPem }],
    contexts: [{ name: context, cluster: "karmada-apiserver", user: cluster }],
    currentContext: context,
  });
}

function systemNamespace(name: string) {
  return { apiVersion: "v1", kind: "Namespace", metadata: { name, labels: SYSTEM_LABELS } };
}

const NO_META = { labels: {}, annotations: {} };

/** The agent's control-plane RBAC objects, in upstream's creation order. */
function agentRbacObjects(
  cluster: string,
  clusterNamespace: string,
): Array<{ res: Parameters<Client["create"]>[0]; obj: NewObject }> {
  const policy = agentPolicy(cluster, clusterNamespace);
  const [clusterRole, secretRole, workRole] = policy.roles as [never, never, never];
  const [clusterBinding, secretBinding, workBinding] = policy.bindings as [never, never, never];
  return [
    { res: RESOURCES.clusterroles, obj: roleObject(clusterRole, NO_META) },
    { res: RESOURCES.clusterrolebindings, obj: bindingObject(clusterBinding, NO_META) },
    { res: RESOURCES.roles, obj: roleObject(secretRole, NO_META) },
    { res: RESOURCES.roles, obj: roleObject(workRole, NO_META) },
    { res: RESOURCES.rolebindings, obj: bindingObject(secretBinding, NO_META) },
    { res: RESOURCES.rolebindings, obj: bindingObject(workBinding, NO_META) },
  ];
}

async function removeAgentRbac(client: Client, cluster: string, clusterNamespace: string): Promise<void> {
  for (const { res, obj } of agentRbacObjects(cluster, clusterNamespace)) {
    await client.delete(res, obj.metadata.namespace, obj.metadata.name!).catch((err) => {
      if (!isNotFound(err)) throw err;
    });
  }
}

/** The agent Deployment `register` creates in the member, as upstream's. */
export function agentDeployment(opts: RegisterCommandOptions): NewObject {
  const command = [
    "/bin/karmada-agent",
    "--karmada-kubeconfig=/etc/kubeconfig/karmada-kubeconfig",
    `--cluster-name=${opts.clusterName}`,
    `--cluster-api-endpoint=${opts.member.server}`,
    `--cluster-provider=${opts.clusterProvider ?? ""}`,
    `--cluster-region=${opts.clusterRegion ?? ""}`,
    `--cluster-zones=${(opts.clusterZones ?? []).join(",")}`,
    `--controllers=${opts.enableCertRotation ? "*,certRotation" : "*"}`,
    `--proxy-server-address=${opts.proxyServerAddress ?? ""}`,
    `--leader-elect-resource-namespace=${opts.namespace}`,
    `--cluster-namespace=${opts.clusterNamespace}`,
    "--cluster-status-update-frequency=10s",
    "--metrics-bind-address=:8080",
    "--health-probe-bind-address=0.0.0.0:10357",
    "--v=2",
  ];
  const labels = { app: AGENT_NAME };
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: AGENT_NAME, namespace: opts.namespace, labels },
    spec: {
      replicas: opts.agentReplicas,
      selector: { matchLabels: labels },
      template: {
        metadata: { name: AGENT_NAME, namespace: opts.namespace, labels },
        spec: {
          serviceAccountName: AGENT_SERVICE_ACCOUNT,
          tolerations: [{ key: "node-role.kubernetes.io/master", operator: "Exists" }],
          containers: [
            {
              name: AGENT_NAME,
              image: opts.agentImage,
              command,
              ports: [{ name: "metrics", containerPort: 8080, protocol: "TCP" }],
              volumeMounts: [{ name: "kubeconfig", mountPath: "/etc/kubeconfig" }],
            },
          ],
          volumes: [{ name: "kubeconfig", secret: { secretName: KARMADA_KUBECONFIG_SECRET } }],
        },
      },
    },
  };
}

async function waitRollout(member: Client, namespace: string, deadline: number): Promise<void> {
  let last = "<nil>";
  for (;;) {
    try {
      const d = await member.get(RESOURCES.deployments, namespace, AGENT_NAME);
      const spec = isObject(d.spec) ? d.spec : {};
      const status = isObject(d.status) ? d.status : {};
      const replicas = Number(spec.replicas ?? 1);
      const updated = Number(status.updatedReplicas ?? 0);
      const available = Number(status.availableReplicas ?? 0);
      if (d.metadata.generation !== status.observedGeneration) {
        last = `current generation ${d.metadata.generation}, observed generation ${status.observedGeneration ?? 0}`;
      } else if (updated < replicas) {
        last = `the number of pods targeted by the deployment (${replicas} pods) is different from the number of pods targeted by the deployment that have the desired template spec (${updated} pods)`;
      } else if (available < updated) {
        last = `expected ${updated} replicas, got ${available} available replicas`;
      } else return;
    } catch (err) {
      last = errorMessage(err);
    }
    if (Date.now() > deadline) {
      throw new CommandError(
        `wait for Deployment(${namespace}/${AGENT_NAME}) rollout: context deadline exceeded: ${last}`,
      );
    }
    await sleep(1000);
  }
}

/** Member-side objects: Secret with the agent's kubeconfig, its RBAC and ServiceAccount, the Deployment. */
async function installAgentInMember(
  opts: RegisterCommandOptions,
  kubeconfig: string,
  deadline: number,
  io: CommandIO,
): Promise<void> {
  const member = opts.member.client;
  const ns = opts.namespace;
  await ensureNamespace(member, systemNamespace(ns));
  io.stdout.write("[karmada-agent-start] Waiting the necessary secret and RBAC\n");
  await createOrReplace(member, RESOURCES.secrets, {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: KARMADA_KUBECONFIG_SECRET, namespace: ns, labels: SYSTEM_LABELS },
    type: "Opaque",
    data: { [KARMADA_KUBECONFIG_SECRET]: Buffer.from(kubeconfig).toString("base64") },
  });
  await createOrReplace(member, RESOURCES.clusterroles, {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRole",
    metadata: { name: AGENT_NAME, labels: SYSTEM_LABELS },
    rules: [
      { apiGroups: ["*"], resources: ["*"], verbs: ["*"] },
      { nonResourceURLs: ["*"], verbs: ["get"] },
    ],
  });
  await createIfAbsent(member, RESOURCES.serviceaccounts, {
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: { name: AGENT_SERVICE_ACCOUNT, namespace: ns, labels: SYSTEM_LABELS },
  });
  await createOrReplace(member, RESOURCES.clusterrolebindings, {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name: AGENT_NAME, labels: SYSTEM_LABELS },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: AGENT_NAME },
    subjects: [{ kind: "ServiceAccount", name: AGENT_SERVICE_ACCOUNT, namespace: ns }],
  });
  io.stdout.write("[karmada-agent-start] Waiting karmada-agent Deployment\n");
  await member.create(RESOURCES.deployments, agentDeployment(opts));
  await waitRollout(member, ns, deadline);
}

/** Fails (with every problem) when the member already has an agent. */
async function preflight(opts: RegisterCommandOptions): Promise<string[]> {
  const member = opts.member.client;
  const ns = opts.namespace;
  try {
    await member.get(RESOURCES.namespaces, undefined, ns);
  } catch {
    return [];
  }
  const problems: string[] = [];
  const checks: Array<[Parameters<Client["get"]>[0], string, string]> = [
    [RESOURCES.secrets, KARMADA_KUBECONFIG_SECRET, "Secret"],
    [RESOURCES.serviceaccounts, AGENT_SERVICE_ACCOUNT, "ServiceAccount"],
    [RESOURCES.deployments, AGENT_NAME, "Deployment"],
  ];
  for (const [res, name, kind] of checks) {
    try {
      await member.get(res, ns, name);
      problems.push(`${ns}/${name} ${kind} already exists`);
    } catch (err) {
      if (!isNotFound(err)) problems.push(errorMessage(err));
    }
  }
  return problems;
}

export function validateRegisterOptions(
  opts: Pick<RegisterCommandOptions, "clusterName" | "token" | "caCertHashes" | "unsafeSkipCaVerification">,
): void {
  const errors = clusterNameErrors(opts.clusterName);
  if (errors.length > 0)
    throw new CommandError(`invalid cluster name(${opts.clusterName}): ${errors.join(";")}`);
  if (!opts.token) throw new CommandError("token is required");
  if (opts.caCertHashes.length === 0 && !opts.unsafeSkipCaVerification) {
    throw new CommandError(
      "need to verify CACertHashes, or set --discovery-token-unsafe-skip-ca-verification=true",
    );
  }
}

export async function runRegister(opts: RegisterCommandOptions, io: CommandIO): Promise<void> {
  validateRegisterOptions(opts);
  io.stdout.write("[preflight] Running pre-flight checks\n");
  const problems = await preflight(opts);
  if (problems.length > 0) {
    throw new CommandError(
      `error execution phase preflight: [preflight] Some fatal errors occurred:\n${problems.map((p) => `\t[ERROR]: ${p}`).join("\n")}\n\n[preflight] Please check the above errors`,
    );
  }
  io.stdout.write("[preflight] All pre-flight checks were passed\n");
  if (opts.dryRun) return;

  io.stdout.write("[karmada-agent-start] Waiting to perform the TLS Bootstrap\n");
  const deadline = Date.now() + opts.discoveryTimeoutMs;
  let caPem: string;
  try {
    ({ caPem } = await discoverControlPlane({
      endpoint: opts.endpoint,
      token: opts.token,
      // A malformed hash is a discovery failure, as kubeadm's discovery reports it.
      pins: parsePins(opts.caCertHashes),
      timeoutMs: opts.discoveryTimeoutMs,
      ...(opts.discoveryRetryMs ? { retryMs: opts.discoveryRetryMs } : {}),
    }));
  } catch (err) {
    throw new CommandError(`couldn't validate the identity of the API Server: ${(err as Error).message}`);
  }
  const server = `https://${opts.endpoint}`;
  const bootstrap = new HttpClient({
    server,
    caData: caPem,
    token: opts.token,
    timeoutMs: 10_000,
    userAgent: "karmadactl",
  });
  const cluster = opts.clusterName;
  let generator: HttpClient | undefined;
  const generatorCsr = `agent-rbac-generator-${cluster}${randomSuffix()}`;
  try {
    const generatorCert = await requestClientCertificate(bootstrap, {
      name: generatorCsr,
      subject: { commonName: RBAC_GENERATOR_USER, organizations: [AGENTS_GROUP] },
      ...csrTerms(opts, deadline),
    });
    generator = new HttpClient({
      server,
      caData: caPem,
      certData: generatorCert.certPem,
      keyData: generatorCert.keyPem,
      timeoutMs: 10_000,
      userAgent: "karmadactl",
    });
    const rbacClient = generator;
    io.stdout.write("[karmada-agent-start] Waiting to check cluster exists\n");
    // Before anything is made: the rollback below must never touch a live cluster's agent RBAC.
    try {
      await rbacClient.get(RESOURCES.clusters, undefined, cluster);
      throw new CommandError(`failed to register as cluster with name ${cluster} already exists`);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    try {
      io.stdout.write("[karmada-agent-start] Assign the necessary RBAC permissions to the agent\n");
      for (const ns of [opts.clusterNamespace, executionSpace(cluster)])
        await ensureNamespace(rbacClient, systemNamespace(ns));
      for (const { res, obj } of agentRbacObjects(cluster, opts.clusterNamespace)) {
        await createIfAbsent(rbacClient, res, obj);
      }

      io.stdout.write("[karmada-agent-start] Waiting to construct karmada-agent kubeconfig\n");
      const agentCert = await requestClientCertificate(bootstrap, {
        name: `${cluster}-${randomSuffix()}`,
        subject: { commonName: agentUser(cluster), organizations: [AGENTS_GROUP] },
        ...csrTerms(opts, deadline),
      });
      const kubeconfig = agentKubeconfig(opts.endpoint, caPem, cluster, agentCert);
      await installAgentInMember(opts, kubeconfig, deadline, io);
      io.stdout.write(`\ncluster(${cluster}) is joined successfully\n`);
      return;
    } catch (err) {
      io.stderr.write("karmadactl register failed and started deleting the created resources\n");
      await removeAgentRbac(rbacClient, cluster, opts.clusterNamespace).catch((e) =>
        io.stderr.write(`Failed to delete rbac resources: ${errorMessage(e)}\n`),
      );
      throw err;
    }
  } finally {
    // The rbac-generator's request is spent whatever happened (upstream deletes it deferred).
    await generator
      ?.delete(RESOURCES.certificatesigningrequests, undefined, generatorCsr)
      .catch(() => undefined);
    generator?.close();
    bootstrap.close();
  }
}

export interface UnregisterOptions {
  clusterName: string;
  member: Client;
  namespace: string;
  agentName: string;
  clusterNamespace: string;
  waitMs: number;
  dryRun: boolean;
}

/** A client for the control plane as the member's agent is: with its kubeconfig and identity. */
export async function agentControlPlaneClient(
  member: Client,
  namespace: string,
  agentName: string,
): Promise<HttpClient> {
  const fromAgent = await agentKubeconfigFromMember(member, namespace, agentName);
  const conn = await loadKubeconfig({
    contents: fromAgent.kubeconfig,
    ...(fromAgent.context ? { context: fromAgent.context } : {}),
  });
  return httpClientFor(conn, { userAgent: "karmadactl" });
}

/** Reads the agent's control-plane kubeconfig out of the member (the Secret its Deployment mounts). */
export async function agentKubeconfigFromMember(
  member: Client,
  namespace: string,
  agentName: string,
): Promise<{ kubeconfig: string; context?: string }> {
  let deployment: StoredObject;
  try {
    deployment = await member.get(RESOURCES.deployments, namespace, agentName);
  } catch (err) {
    throw new CommandError(`failed to get deployment ${agentName} in member cluster: ${errorMessage(err)}`);
  }
  const pod = (
    isObject(deployment.spec) && isObject(deployment.spec.template) && isObject(deployment.spec.template.spec)
      ? deployment.spec.template.spec
      : {}
  ) as {
    containers?: Array<{
      command?: string[];
      args?: string[];
      volumeMounts?: Array<{ name: string; mountPath: string }>;
    }>;
    volumes?: Array<{ name: string; secret?: { secretName?: string } }>;
  };
  const container = pod.containers?.[0];
  const args = [...(container?.command ?? []), ...(container?.args ?? [])];
  const flag = args.find((a) => a.startsWith("--karmada-kubeconfig="));
  const path = flag?.slice("--karmada-kubeconfig=".length) ?? `/etc/kubeconfig/${KARMADA_KUBECONFIG_SECRET}`;
  const dir = path.slice(0, path.lastIndexOf("/"));
  const file = path.slice(path.lastIndexOf("/") + 1);
  const mount = container?.volumeMounts?.find((v) => v.mountPath === dir);
  const secretName = pod.volumes?.find((v) => v.name === mount?.name)?.secret?.secretName;
  if (!secretName)
    throw new CommandError(
      "failed to get karmada config from karmada-agent deployment: failed to get secret name of karmada agent config",
    );
  const secret = await member.get(RESOURCES.secrets, namespace, secretName).catch(() => {
    throw new CommandError(
      "failed to get karmada config from karmada-agent deployment: failed to get the secret which stores the karmada agent config",
    );
  });
  const value = (isObject(secret.data) ? secret.data : {})[file];
  if (typeof value !== "string" || value === "") {
    throw new CommandError(
      `failed to get karmada config from karmada-agent deployment: empty data, secretName: ${secretName}, keyName: ${file}`,
    );
  }
  const contextFlag = args.find((a) => a.startsWith("--karmada-context="));
  return {
    kubeconfig: Buffer.from(value, "base64").toString("utf8"),
    ...(contextFlag ? { context: contextFlag.slice("--karmada-context=".length) } : {}),
  };
}

/** Deletes the Works in an execution namespace until none is left (or the deadline passes). */
async function deleteWorks(karmada: Client, es: string, deadline: number): Promise<void> {
  for (;;) {
    const works = await karmada.list(KARMADA.works, es).catch((err) => {
      throw new CommandError(`failed to list work in namespace ${es}: ${errorMessage(err)}`);
    });
    if (works.items.length === 0) break;
    for (const w of works.items) {
      await karmada.delete(KARMADA.works, es, w.metadata.name).catch((err) => {
        if (!isNotFound(err))
          throw new CommandError(`failed to delete the work(${es}/${w.metadata.name}): ${errorMessage(err)}`);
      });
    }
    if (Date.now() > deadline) throw new CommandError("context deadline exceeded");
    await sleep(1000);
  }
}

/** The agent and what registration made for it in the member, each step reported. */
async function removeAgentFromMember(opts: UnregisterOptions, io: CommandIO): Promise<void> {
  const member = opts.member;
  const sa = serviceAccountName(opts.clusterName);
  const steps: Array<[Parameters<Client["delete"]>[0], string | undefined, string, string]> = [
    [RESOURCES.serviceaccounts, opts.clusterNamespace, sa, "ServiceAccount"],
    [RESOURCES.clusterroles, undefined, clusterRoleName(sa), "ClusterRole"],
    [RESOURCES.clusterrolebindings, undefined, clusterRoleName(sa), "ClusterRoleBinding"],
    [RESOURCES.secrets, opts.clusterNamespace, sa, "Secret"],
    [RESOURCES.serviceaccounts, opts.clusterNamespace, IMPERSONATOR_SA, "ServiceAccount"],
    [RESOURCES.secrets, opts.clusterNamespace, IMPERSONATOR_SA, "Secret"],
    [RESOURCES.namespaces, undefined, opts.clusterNamespace, "Namespace"],
    [RESOURCES.deployments, opts.namespace, AGENT_NAME, "Deployment"],
    [RESOURCES.serviceaccounts, opts.namespace, AGENT_SERVICE_ACCOUNT, "ServiceAccount"],
    [RESOURCES.clusterroles, undefined, AGENT_NAME, "ClusterRole"],
    [RESOURCES.clusterrolebindings, undefined, AGENT_NAME, "ClusterRoleBinding"],
    [RESOURCES.secrets, opts.namespace, KARMADA_KUBECONFIG_SECRET, "Secret"],
  ];
  for (const [res, ns, name, kind] of steps) {
    try {
      await member.delete(res, ns, name);
    } catch (err) {
      if (isNotFound(err)) continue;
      throw new CommandError(
        `Failed to delete ({${kind} ${name} ${ns ?? ""}}) in unregistering cluster (${opts.clusterName}): ${errorMessage(err)}`,
      );
    }
    io.stdout.write(
      `Successfully delete resource ({${kind} ${name} ${ns ?? ""}}) from member cluster (${opts.clusterName}).\n`,
    );
  }
}

/** `karmadactl unregister`: the Works, the Cluster and (given the control plane's kubeconfig) the agent's RBAC; then the agent in the member. */
export async function runUnregister(
  opts: UnregisterOptions,
  karmada: Client,
  io: CommandIO,
  rbacCleanup: boolean,
): Promise<void> {
  await checkClusterToRemove(karmada, opts.clusterName, { mode: "Push", command: "unjoin" });
  if (opts.dryRun) return;
  const deadline = Date.now() + opts.waitMs;
  const es = executionSpace(opts.clusterName);
  await deleteWorks(karmada, es, deadline);
  if (!(await deleteClusterObject(karmada, opts.clusterName, deadline, 1000))) {
    throw new CommandError("context deadline exceeded");
  }
  io.stdout.write(`Successfully delete cluster object (${opts.clusterName}) from control plane.\n`);
  const names = agentRbacNames(opts.clusterName);
  if (rbacCleanup) {
    await removeAgentRbac(karmada, opts.clusterName, opts.clusterNamespace);
    io.stdout.write(
      `Successfully delete karmada-agent RBAC resources from control plane. cluster name: ${opts.clusterName}\n`,
    );
  } else {
    io.stderr.write(
      `${[
        "The RBAC resources on the control plane need to be manually cleaned up, including the following resources:",
        `ClusterRole/${names.clusterRole}`,
        `ClusterRoleBinding/${names.clusterRole}`,
        `Role/${opts.clusterNamespace}/${names.secretRole}`,
        `Role/${es}/${names.workRole}`,
        `RoleBinding/${opts.clusterNamespace}/${names.secretRole}`,
        `RoleBinding/${es}/${names.workRole}`,
      ].join("\n")}\n`,
    );
  }
  await removeAgentFromMember(opts, io);
}
