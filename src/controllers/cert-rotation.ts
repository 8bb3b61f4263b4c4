/**
 * The agent's certRotation controller, as upstream's (off unless `--controllers` names it):
 * every `--cert-rotation-checking-interval` it reads the agent's control-plane kubeconfig
 * from the member's Secret `<--karmada-kubeconfig-namespace>/karmada-kubeconfig`, and when
 * the client certificate's remaining lifetime is at most
 * `--cert-rotation-remaining-time-threshold` of its whole lifetime, asks the control plane
 * for a new one (same subject, new key, as the agent itself, so karmada-controller-manager
 * approves it as a self renewal), and writes it back. Unlike upstream, whose agent keeps the
 * old certificate until its pod restarts, the running agent is handed the new one at once.
 */
import YAML from "yaml";
import { isObject, type StoredObject } from "../api/meta.ts";
import { RESOURCES } from "../client/client.ts";
import { pemOf } from "../client/http.ts";
import { KARMADA_KUBECONFIG_SECRET } from "../cluster/agent-credentials.ts";
import { requestClientCertificate } from "../cluster/csr.ts";
import { randomSuffix } from "../karmada/names.ts";
import { certificateInfo, pemBlocks } from "../pki/x509.ts";
import { type Controller, done, type ReconcileContext, requeueAfter } from "../runtime/controller.ts";
import { objectKeys } from "../runtime/keys.ts";
import type { ControllerContext } from "./context.ts";

const CSR_TIMEOUT_MS = 5 * 60_000;

interface KubeconfigDoc {
  "current-context"?: string;
  contexts?: Array<{ name?: string; context?: { user?: string } }>;
  users?: Array<{ name?: string; user?: Record<string, unknown> }>;
}

/** When the certificate should be renewed: remaining / total lifetime at or below the threshold. */
export function needsRotation(certPem: string, now: number, threshold: number): boolean {
  const certs = pemBlocks(certPem).map((c) => certificateInfo(c));
  if (certs.length === 0) throw new Error("no cert found in certificate");
  const notBefore = Math.max(...certs.map((c) => c.notBefore.getTime()));
  const notAfter = Math.min(...certs.map((c) => c.notAfter.getTime()));
  return (notAfter - now) / (notAfter - notBefore) <= threshold;
}

/** The kubeconfig's current user entry (the agent's credentials). */
function currentUser(doc: KubeconfigDoc, where: string): NonNullable<KubeconfigDoc["users"]>[number] {
  const context = doc.contexts?.find((c) => c.name === doc["current-context"]);
  const name = context?.context?.user;
  if (!name)
    throw new Error(`failed to get cluster name, the current context is ${doc["current-context"] ?? ""}`);
  const user = doc.users?.find((u) => u.name === name);
  if (!user?.user) throw new Error(`no client certificate found in secret "${where}"`);
  return user;
}

export function certRotationController(ctx: ControllerContext, clusterName: string): Controller {
  const clusters = ctx.informers.informer(RESOURCES.clusters);
  const opts = ctx.options;
  const namespace = opts.karmadaKubeconfigNamespace;
  const where = `${namespace}/${KARMADA_KUBECONFIG_SECRET}`;
  const ownKey = objectKeys.encode({ namespace: undefined, name: clusterName });

  const rotate = async (rc: ReconcileContext, cluster: StoredObject): Promise<void> => {
    const member = (await ctx.members.connect(cluster)).client;
    const secret = await member.get(RESOURCES.secrets, namespace, KARMADA_KUBECONFIG_SECRET);
    const data = isObject(secret.data) ? (secret.data as Record<string, string>) : undefined;
    if (!data) throw new Error(`no client certificate found in secret "${where}"`);
    if (!data[KARMADA_KUBECONFIG_SECRET]) throw new Error(`no karmada kubeconfig found in secret "${where}"`);
    const doc = YAML.parse(
      Buffer.from(data[KARMADA_KUBECONFIG_SECRET], "base64").toString("utf8"),
    ) as KubeconfigDoc;
    const user = currentUser(doc, where);
    const certPem = pemOf(String(user.user!["client-certificate-data"] ?? ""));
    if (!needsRotation(certPem, ctx.now(), opts.certRotationRemainingTimeThreshold)) return;
    const old = certificateInfo(certPem);
    const name = `${user.name}-${randomSuffix()}`;
    const issued = await requestClientCertificate(ctx.client, {
      name,
      subject: { commonName: old.commonName, organizations: old.organizations },
      expirationSeconds: Math.round((old.notAfter.getTime() - old.notBefore.getTime()) / 1000),
      timeoutMs: CSR_TIMEOUT_MS,
      signal: rc.signal,
    });
    user.user!["client-certificate-data"] = Buffer.from(issued.certPem).toString("base64");
    user.user!["client-key-data"] = Buffer.from(issued.keyPem).toString("base64");
    await member.update(RESOURCES.secrets, {
      ...secret,
      data: { ...data, [KARMADA_KUBECONFIG_SECRET]: Buffer.from(YAML.stringify(doc)).toString("base64") },
    });
    rc.log.info("agent certificate rotated", { cluster: clusterName, csr: name });
    opts.onAgentCertificateRotated?.(issued);
  };

  return {
    name: "cert-rotation-controller",
    for: clusters,
    async reconcile(rc, key) {
      if (key !== ownKey) return done;
      const cluster = clusters.getByKey(key);
      if (!cluster || cluster.metadata.deletionTimestamp) return done;
      await rotate(rc, cluster);
      return requeueAfter(opts.certRotationCheckingIntervalMs);
    },
  };
}
