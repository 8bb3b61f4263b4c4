/**
 * Asking the control plane for a client certificate the way a kubelet or a Karmada agent
 * does: a new key, a CertificateSigningRequest for `kubernetes.io/kube-apiserver-client`,
 * then polling until it carries a certificate (or is denied, fails, or the time is up).
 * Used by `karmadactl register` and the agent's certificate rotation.
 */
import { setTimeout as sleep } from "node:timers/promises";
import {
  CLIENT_CERTIFICATE_USAGES,
  csrCertificate,
  csrConditions,
  KUBE_APISERVER_CLIENT_SIGNER,
} from "../api/csr.ts";
import type { StoredObject } from "../api/meta.ts";
import { type Client, RESOURCES } from "../client/client.ts";
import { createCertificateRequest, generateKeyPem } from "../pki/x509.ts";

export interface ClientCertificateRequest {
  /** The CSR's name. */
  name: string;
  subject: { commonName: string; organizations: string[] };
  expirationSeconds: number;
  labels?: Record<string, string>;
  timeoutMs: number;
  pollMs?: number;
  /** Stops the wait (a controller shutting down). */
  signal?: AbortSignal;
}

export async function requestClientCertificate(
  client: Client,
  req: ClientCertificateRequest,
): Promise<{ certPem: string; keyPem: string }> {
  const keyPem = generateKeyPem();
  const request = await createCertificateRequest(keyPem, req.subject);
  await client.create(RESOURCES.certificatesigningrequests, {
    apiVersion: "certificates.k8s.io/v1",
    kind: "CertificateSigningRequest",
    metadata: { name: req.name, ...(req.labels ? { labels: req.labels } : {}) },
    spec: {
      request: Buffer.from(request).toString("base64"),
      signerName: KUBE_APISERVER_CLIENT_SIGNER,
      usages: CLIENT_CERTIFICATE_USAGES,
      expirationSeconds: req.expirationSeconds,
    },
  });
  const deadline = Date.now() + req.timeoutMs;
  for (;;) {
    await sleep(req.pollMs ?? 1_000, undefined, req.signal ? { signal: req.signal } : undefined);
    let csr: StoredObject;
    try {
      csr = await client.get(RESOURCES.certificatesigningrequests, undefined, req.name);
    } catch (err) {
      throw new Error(`failed to get the cluster csr ${req.name}. err: ${(err as Error).message}`);
    }
    const certificate = csrCertificate(csr);
    if (certificate !== "") return { certPem: Buffer.from(certificate, "base64").toString("utf8"), keyPem };
    const refused = csrConditions(csr).find((c) => c.type === "Denied" || c.type === "Failed");
    if (refused) {
      throw new Error(
        `the certificate signing request ${req.name} was ${refused.type === "Denied" ? "denied" : "not signed"}: ${String(refused.message ?? refused.reason ?? "")}`,
      );
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out waiting for the certificate of ${req.name}: approve it with \`kubectl certificate approve ${req.name}\` on the control plane, or run karmada-controller-manager's agentcsrapproving controller`,
      );
    }
  }
}
